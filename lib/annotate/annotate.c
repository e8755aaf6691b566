/*
 * profannotate's report (annotate.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "annotate/annotate.h"
#include "annotate/disasm.h"
#include "annotate/samples.h"
#include "base/demangle.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "formats/tsv.h"
#include "io/output.h"
#include "symbolize/elfcode.h"
#include "symbolize/symbolize.h"

#include <capstone/capstone.h>

/* A file of the recording, opened. */
struct file {
	const struct prof_ann_file *rec;
	struct prof_elfcode *elf;		/* NULL: could not be opened (said) */
	struct prof_addrspace *as;		/* for file:line */
	int said_no_lines;
};

/* A function with samples. */
struct hot {
	size_t file;
	const struct prof_elfcode_func *func;
	unsigned long samples;
	size_t hit0, nhits;			/* its hits in the recording's array */
};

/* One instruction of the function annotated. */
struct insn {
	uint64_t addr;
	unsigned long samples;
	char text[200];		/* mnemonic (32) and operands (160) */
};

struct ctx {
	struct prof_ann_samples rec;
	struct file *files;
	struct hot *hot;
	size_t nhot;
	struct prof_symbolizer *sym;
	struct prof_disasm *dis;
	struct insn *insns;
	size_t ninsns, insns_cap;
	struct prof_output *out;
	int human, no_demangle;
};

static void hex(char *out, const unsigned char *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/* Open file i, checking its build-id; -1 after reporting a mismatch. */
static int open_file(struct ctx *c, size_t i)
{
	struct file *f = &c->files[i];
	const struct prof_ann_file *r = &c->rec.files[i];
	char err[256], bid[41];
	const unsigned char *b;
	unsigned n;
	size_t fn;
	struct prof_map m;

	f->rec = r;
	f->elf = prof_elfcode_open(r->path, err, sizeof(err));
	if (!f->elf) {
		/*
		 * The paths are those its process saw: one in a container (another
		 * mount namespace or root) had its files there, not here.
		 */
		prof_warn("%s: %s (%lu samples not annotated)%s", r->path, err, r->samples,
			  errno == ENOENT ? "; if its process ran in a container or another mount "
			  "namespace, the file was under its root, not here" : "");
		return 0;
	}
	b = prof_elfcode_build_id(f->elf, &n);
	hex(bid, b, n);
	/* a file without a build-id is not the one recorded with one (a container's decoy) */
	if (r->build_id && !n) {
		prof_warn("%s: no build-id, but the recording has %s: another file than the one "
			  "recorded (a process in a container or another mount namespace sees another "
			  "file at this path)", r->path, r->build_id);
		return -1;
	}
	if (r->build_id && n && strcmp(bid, r->build_id) != 0) {
		prof_warn("%s: build-id %s, but the recording has %s: the file changed since "
			  "it was recorded", r->path, bid, r->build_id);
		return -1;
	}
	if (!prof_elfcode_funcs(f->elf, &fn) || !fn)	/* as --simd says it */
		prof_warn("%s: no function symbols (stripped binary?): %lu samples not annotated",
			  r->path, r->samples);
	memset(&m, 0, sizeof(m));
	m.start = r->start;
	m.end = r->start + (1ull << 40);
	m.pgoff = r->pgoff;
	m.path = r->path;
	memcpy(m.build_id, b, n);
	m.build_id_len = n;
	m.prot = PROT_READ | PROT_EXEC;
	f->as = prof_addrspace_new(c->sym, 0);
	prof_addrspace_add_map(f->as, &m);
	return 0;
}

static void add_hot(struct ctx *c, size_t file, const struct prof_elfcode_func *fn, size_t hit)
{
	struct hot *h = c->nhot ? &c->hot[c->nhot - 1] : NULL;

	if (!h || h->file != file || h->func != fn) {
		c->hot = xreallocarray(c->hot, c->nhot + 1, sizeof(*c->hot));
		h = &c->hot[c->nhot++];
		*h = (struct hot){ file, fn, 0, hit, 0 };
	}
	h->samples += c->rec.hits[hit].count;
	h->nhits = hit + 1 - h->hit0;
}

/* The functions with samples, in the order of the hits (file, address). */
static void find_hot(struct ctx *c)
{
	for (size_t i = 0; i < c->rec.nhits; i++) {
		const struct prof_ann_hit *h = &c->rec.hits[i];
		struct file *f = &c->files[h->file];
		const struct prof_elfcode_func *fn;
		uint64_t va;

		if (f->elf && prof_elfcode_off_to_vaddr(f->elf, h->off, &va) == 0 &&
		    (fn = prof_elfcode_at(f->elf, va)) != NULL)
			add_hot(c, h->file, fn, i);
	}
}

static int by_samples(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static void collect_insn(void *arg, const cs_insn *in, uint64_t addr)
{
	struct ctx *c = arg;
	struct insn *i;

	PROF_GROW(c->insns, c->ninsns + 1, c->insns_cap);
	i = &c->insns[c->ninsns++];
	i->addr = addr;
	i->samples = 0;
	if (in)
		snprintf(i->text, sizeof(i->text), "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "",
			 in->op_str);
	else
		snprintf(i->text, sizeof(i->text), "(bad)");
}

/* Add the function's hits to its instructions (an ip inside one counts for it). */
static void assign_hits(struct ctx *c, const struct hot *h)
{
	struct file *f = &c->files[h->file];
	size_t k = 0;

	for (size_t j = 0; j < h->nhits; j++) {
		const struct prof_ann_hit *hit = &c->rec.hits[h->hit0 + j];
		uint64_t va;

		if (prof_elfcode_off_to_vaddr(f->elf, hit->off, &va) != 0)
			continue;
		while (k + 1 < c->ninsns && c->insns[k + 1].addr <= va)
			k++;
		if (c->ninsns)
			c->insns[k].samples += hit->count;
	}
}

/* "file:line" of ELF address va in f ("" without debug information). */
static const char *source_of(struct ctx *c, struct file *f, uint64_t va, char *buf, size_t n)
{
	struct prof_frame fr;
	uint64_t off;

	buf[0] = 0;
	if (prof_elfcode_vaddr_to_off(f->elf, va, &off) != 0)
		return buf;
	prof_symbolize(c->sym, f->as, off - f->rec->pgoff + f->rec->start, 0, &fr, 1);
	if (fr.file && fr.line)
		snprintf(buf, n, "%s:%u", fr.file, fr.line);
	return buf;
}

/* Write h's instructions, the function shown as name. */
static void write_insns(struct ctx *c, const struct hot *h, const char *name, size_t hottest)
{
	struct file *f = &c->files[h->file];
	char src[512], last[512] = "";
	int any_source = 0;

	if (c->human)
		prof_output_printf(c->out, "\n %s  (%s, %lu samples)\n", name, f->rec->path,
				   h->samples);
	for (size_t i = 0; i < c->ninsns; i++) {
		const struct insn *in = &c->insns[i];
		double pct = h->samples ? 100.0 * (double)in->samples / (double)h->samples : 0;

		source_of(c, f, in->addr, src, sizeof(src));
		any_source |= src[0] != 0;
		if (!c->human) {
			prof_output_printf(c->out, "%s\t%s\t%llx\t%lu\t%.2f\t%s\t%s\t%s\n", name,
					   f->rec->path, (unsigned long long)in->addr, in->samples,
					   pct, i == hottest ? "*" : "", src, in->text);
			continue;
		}
		if (src[0] && strcmp(src, last) != 0) {
			prof_output_printf(c->out, "%9s :  %s\n", "", src);
			snprintf(last, sizeof(last), "%s", src);
		}
		prof_output_printf(c->out, "%7.2f %c :  %llx:  %s\n", pct, i == hottest ? '*' : ' ',
				   (unsigned long long)in->addr, in->text);
	}
	if (!any_source && !f->said_no_lines) {
		f->said_no_lines = 1;
		prof_warn("%s: no debug information: addresses only", f->rec->path);
	}
}

static void annotate_func(struct ctx *c, const struct hot *h)
{
	struct file *f = &c->files[h->file];
	const unsigned char *code = prof_elfcode_bytes(f->elf, h->func->addr, h->func->size);
	char *name = prof_demangle_shown(h->func->name, c->no_demangle);
	struct prof_disasm_gap gap;
	size_t hottest = 0;

	c->ninsns = 0;
	if (code) {
		prof_disasm_each(c->dis, code, (size_t)h->func->size, h->func->addr, collect_insn, c,
				 &gap);
		prof_disasm_warn_gap(c->dis, f->rec->path, name, &gap);
	}
	assign_hits(c, h);
	for (size_t i = 1; i < c->ninsns; i++)
		if (c->insns[i].samples > c->insns[hottest].samples)
			hottest = i;
	write_insns(c, h, name, hottest);
	free(name);
}

/* The functions to annotate: symbol's, else the top hottest; -1 after reporting. */
static int select_hot(struct ctx *c, const char *path, const char *symbol, size_t top)
{
	size_t j = 0;

	if (c->nhot)	/* hot is NULL without samples */
		qsort(c->hot, c->nhot, sizeof(*c->hot), by_samples);
	if (!symbol) {
		if (!c->nhot) {
			prof_warn("%s: no sample falls in a function of a readable file", path);
			return -1;
		}
		c->nhot = c->nhot < top ? c->nhot : top;
		return 0;
	}
	for (size_t i = 0; i < c->nhot; i++)
		if (prof_demangle_matches(c->hot[i].func->name, symbol))
			c->hot[j++] = c->hot[i];
	c->nhot = j;
	if (j)
		return 0;
	for (size_t i = 0; i < c->rec.nfiles; i++) {
		if (c->files[i].elf && prof_elfcode_find_named(c->files[i].elf, symbol, NULL)) {
			prof_warn("%s: function '%s' has no samples", path, symbol);
			return -1;
		}
	}
	prof_warn("%s: no function '%s' in the files sampled", path, symbol);
	return -1;
}

static int annotate_all(struct ctx *c)
{
	char err[256];

	if (!c->human)
		prof_output_puts(c->out, prof_tsv_header(prof_tsv_schema_find("profannotate")));
	for (size_t i = 0; i < c->nhot; i++) {
		struct prof_disasm *d = prof_disasm_open(
			prof_elfcode_machine(c->files[c->hot[i].file].elf), err, sizeof(err));

		if (!d) {
			prof_warn("%s: %s", c->files[c->hot[i].file].rec->path, err);
			return -1;
		}
		c->dis = d;
		annotate_func(c, &c->hot[i]);
		prof_disasm_close(d);
		c->dis = NULL;
	}
	return 0;
}

int prof_annotate_report(const char *path, const char *symbol, size_t top, int human,
			 int no_demangle, struct prof_output *out)
{
	struct prof_sym_options so;
	struct ctx c;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.out = out;
	c.human = human;
	c.no_demangle = no_demangle;
	if (prof_ann_samples_read(path, &c.rec) != 0) {
		prof_ann_samples_release(&c.rec);
		return -1;
	}
	prof_sym_options_init(&so);
	so.lines = 1;
	so.inlines = 0;
	c.sym = prof_symbolizer_new(&so);
	c.files = xcalloc(c.rec.nfiles + 1, sizeof(*c.files));
	for (size_t i = 0; i < c.rec.nfiles && rc == 0; i++)
		rc = open_file(&c, i);
	if (rc == 0) {
		find_hot(&c);
		rc = select_hot(&c, path, symbol, top);
	}
	if (rc == 0)
		rc = annotate_all(&c);
	for (size_t i = 0; i < c.rec.nfiles; i++) {
		prof_addrspace_free(c.files[i].as);
		prof_elfcode_close(c.files[i].elf);
	}
	prof_symbolizer_free(c.sym);
	free(c.files);
	free(c.hot);
	free(c.insns);
	prof_ann_samples_release(&c.rec);
	return rc;
}
