/*
 * `perf script` text as profannotate's samples (samples_read.h): the
 * sampled pc of every sample, the file it lies in (the dso field) and
 * its offset in that file.
 *
 * perf prints the pc as a run-time address; a PIE or a shared library is
 * loaded wherever the kernel chose, so the pc alone does not say where in
 * the file it is. In order of preference:
 *   1. "sym+0xOFF" (-F symoff): the symbol's ELF address plus OFF, the
 *      way perf annotate itself places samples, exact wherever loaded;
 *   2. a mapping of the file printed by --show-mmap-events that holds
 *      the pc: off = pc - start + pgoff;
 *   3. a pc inside the file's own addresses is one that was not
 *      relocated (a non-PIE executable, a library at its link address);
 * else the sample is not placed and that is said once per file.
 *
 * The lines (one pass, no lookahead):
 *   "#..."                     comments (perf script --header);
 *   ""                         ends a sample: with call chains (-g) perf
 *                              prints one frame a line, the sampled pc
 *                              first, and an empty line after the chain;
 *   "... PERF_RECORD_MMAP..."  --show-mmap-events: a file's mapping, and
 *                              its build-id in recordings made with
 *                              perf record --buildid-mmap;
 *   "BUILD_ID /path"           perf buildid-list output put before the
 *                              samples: the recording's build-ids;
 *   "comm pid ... pc sym (dso)" a sample line carrying its frame
 *                              (formats/perfscript.h's grammar);
 *   "pc sym+0xOFF (dso)"       a frame line: the sample's pc when it is
 *                              the first of a sample, a caller otherwise;
 *   "comm pid ... event:"      an event line: the frames after it are its
 *                              call chain;
 * anything else (srcline lines, other side-band records) is skipped.
 * Frames of other events than the first one seen are counted apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/samples.h"
#include "annotate/samples_read.h"
#include "base/demangle.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "formats/perfscript.h"
#include "io/input.h"
#include "symbolize/elfcode.h"

/* A frame's text "pc [sym[+0xOFF]] [(dso)]": pointers into the line. */
struct frame {
	uint64_t pc, symoff;
	char *sym, *dso;		/* NULL: not printed */
	size_t sym_len, dso_len;
	int has_symoff;
};

/* A mapping of an executable file (--show-mmap-events). */
struct mapping {
	char *path, *build_id;		/* build_id NULL: not printed */
	uint64_t start, end, pgoff;
};

/* A function by its demangled name. */
struct dname {
	char *name;
	uint64_t addr;
};

/* What the reader knows of s->files[i]. */
struct pfile {
	struct prof_elfcode *elf;	/* NULL: not readable (annotate.c says why) */
	struct dname *dnames;		/* sorted by name; built on the first miss */
	size_t ndnames;
	int dnames_built;
	unsigned long unplaced;		/* samples not placed (see the top) */
	unsigned long unknown_sym;	/* of which with a sym+offset not in the file's symbols */
};

/* A symbol looked up in a file: its ELF address. */
struct sym {
	char *name;
	uint32_t file;
	int found;
	uint64_t addr;
};

struct perf_reader {
	struct prof_ann_samples *s;
	const char *name;
	struct pfile *pf;
	struct prof_ann_hit_index hits;
	size_t files_cap, pf_cap;
	struct prof_hashmap file_of;	/* hash of a path -> file index + 1 */
	struct prof_hashmap syms;	/* hash of (file, name) -> struct sym */
	struct mapping *maps;
	size_t nmaps, maps_cap;
	int chains;			/* an empty or event line was seen: frames after the first are callers */
	int want;			/* the next frame line is a sample's pc */
	int other_event;		/* the current sample is of another event */
	unsigned long frames, no_dso, perf_like;
};

static uint64_t hash_bytes(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;	/* FNV-1a */
	return h;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* s[0..n) as "pc [sym[+0xOFF]] [(dso)]": 1 and *fr, or 0. */
static int parse_frame(char *s, size_t n, struct frame *fr)
{
	size_t i = 0, j, e = n, k;

	while (i < n && is_blank(s[i]))
		i++;
	for (j = i; j < n && hex_digit(s[j]); j++)
		;
	if (j == i || j - i > 16 || (j < n && !is_blank(s[j])))
		return 0;
	memset(fr, 0, sizeof(*fr));
	fr->pc = strtoull(s + i, NULL, 16);
	while (j < n && is_blank(s[j]))
		j++;
	while (e > j && is_blank(s[e - 1]))
		e--;
	if (e > j && s[e - 1] == ')') {	/* " (dso)": the last " (", as perf prints it */
		for (k = e - 1; k > j && !(s[k - 1] == '(' && (k - 1 == j || s[k - 2] == ' ')); k--)
			;
		if (k > j) {
			fr->dso = s + k;
			fr->dso_len = e - 1 - k;
			for (e = k - 1; e > j && is_blank(s[e - 1]); e--)
				;
		}
	}
	if (e > j) {
		fr->sym = s + j;
		fr->sym_len = e - j;
		for (k = e; k > j && hex_digit(s[k - 1]); k--)
			;
		if (k < e && k >= j + 4 && memcmp(s + k - 3, "+0x", 3) == 0) {
			fr->has_symoff = 1;
			fr->symoff = strtoull(s + k, NULL, 16);
			fr->sym_len = k - 3 - j;
		}
	}
	return 1;
}

/* "[0xSTART(0xLEN) @ 0xPGOFF <BUILD_ID> ...]: PROT /path" of an MMAP record. */
static void parse_mmap(struct perf_reader *rd, char *line)
{
	char *p = strstr(line, ": [0x"), *end, *bid = NULL, *path;
	unsigned long long start, len, pgoff;
	struct mapping *m;

	if (!p || sscanf(p, ": [0x%llx(0x%llx) @ %lli", &start, &len, &pgoff) != 3 ||
	    !(end = strstr(p, "]: ")))
		return;
	if ((bid = memchr(p, '<', (size_t)(end - p))) != NULL) {
		char *close = memchr(bid, '>', (size_t)(end - bid));

		if (close)
			*close = 0;
		bid++;
	}
	path = end + 3;		/* "r-xp /path": the protection first */
	p = path + strcspn(path, " \t");
	if (!memchr(path, 'x', (size_t)(p - path)) || p[0] != ' ' || p[1] != '/')
		return;		/* not executable, or not a file */
	path = p + 1;
	PROF_GROW(rd->maps, rd->nmaps + 1, rd->maps_cap);
	m = &rd->maps[rd->nmaps++];
	*m = (struct mapping){ xstrdup(path), bid && *bid ? xstrdup(bid) : NULL, start, start + len,
		pgoff };
}

/* "BUILD_ID /path" (perf buildid-list): 1 if the line is one. */
static int buildid_line(struct perf_reader *rd, char *line, size_t n)
{
	size_t i = 0;
	struct mapping *m;

	while (i < n && hex_digit(line[i]))
		i++;
	/* pcs have at most 16 digits; build-ids 20 bytes (40 digits) as a rule */
	if (i < 20 || i + 2 > n || line[i] != ' ' || line[i + 1] != '/')
		return 0;
	line[i] = 0;
	PROF_GROW(rd->maps, rd->nmaps + 1, rd->maps_cap);
	m = &rd->maps[rd->nmaps++];
	*m = (struct mapping){ xstrdup(line + i + 1), xstrdup(line), 0, 0, 0 };
	return 1;
}

/* The index of the file at path[0..n), added (and opened) when new. */
static uint32_t file_index(struct perf_reader *rd, char *path, size_t n)
{
	uint32_t *v = prof_hashmap_put(&rd->file_of, hash_bytes(0xcbf29ce484222325ull, path, n), NULL);
	char save = path[n];
	char err[256];
	size_t f;

	if (*v && strlen(rd->s->files[*v - 1].path) == n && memcmp(rd->s->files[*v - 1].path, path, n) == 0)
		return *v - 1;
	path[n] = 0;
	/* start 0, pgoff 0: the addresses annotate.c asks the symbolizer are file offsets */
	f = prof_ann_file_index(rd->s, &rd->files_cap, path, NULL, 0, 0);
	if (f >= rd->pf_cap) {
		size_t old = rd->pf_cap;

		PROF_GROW(rd->pf, f + 1, rd->pf_cap);
		memset(rd->pf + old, 0, (rd->pf_cap - old) * sizeof(*rd->pf));
	}
	if (!rd->pf[f].elf)
		rd->pf[f].elf = prof_elfcode_open(path, err, sizeof(err));
	path[n] = save;
	if (!*v)	/* a colliding path keeps the first one's slot: found by the search above */
		*v = (uint32_t)f + 1;
	return (uint32_t)f;
}

static int by_dname(const void *a, const void *b)
{
	return strcmp(((const struct dname *)a)->name, ((const struct dname *)b)->name);
}

/*
 * The length of C++ name d without its parameter list and the qualifiers
 * after it ("ns::f(int) const" -> "ns::f"): perf script prints C++
 * names so. 0 when it has none.
 */
static size_t without_params(const char *d)
{
	size_t n = strlen(d), depth = 0;

	while (n > 0 && d[n - 1] != ')' && (d[n - 1] == ' ' || d[n - 1] == '&' ||
	       strchr("constvlai", d[n - 1])))	/* " const", " volatile", " &", " &&" */
		n--;
	if (n == 0 || d[n - 1] != ')')
		return 0;
	while (n-- > 0) {
		if (d[n] == ')')
			depth++;
		else if (d[n] == '(' && --depth == 0)
			return n;
	}
	return 0;
}

static void add_dname(struct pfile *p, size_t *cap, char *name, uint64_t addr)
{
	PROF_GROW(p->dnames, p->ndnames + 1, *cap);
	p->dnames[p->ndnames++] = (struct dname){ name, addr };
}

/*
 * p's functions by demangled name, with and without parameters, sorted;
 * a name that two functions share (overloads without their parameters)
 * gets the address UINT64_MAX: not found.
 */
static void build_dnames(struct pfile *p)
{
	size_t n, cap = 0, cut, j = 0;
	const struct prof_elfcode_func *fn = prof_elfcode_funcs(p->elf, &n);

	p->dnames_built = 1;
	for (size_t i = 0; i < n; i++) {
		char *dm = prof_demangle_candidate(fn[i].name, strlen(fn[i].name)) ?
			   prof_demangle(fn[i].name, strlen(fn[i].name)) : NULL;

		if (!dm)
			continue;
		if ((cut = without_params(dm)) > 0)
			add_dname(p, &cap, xstrndup(dm, cut), fn[i].addr);
		add_dname(p, &cap, dm, fn[i].addr);
	}
	if (!p->ndnames)
		return;
	qsort(p->dnames, p->ndnames, sizeof(*p->dnames), by_dname);
	for (size_t i = 1; i < p->ndnames; i++) {
		if (strcmp(p->dnames[j].name, p->dnames[i].name) != 0) {
			p->dnames[++j] = p->dnames[i];
			continue;
		}
		if (p->dnames[j].addr != p->dnames[i].addr)
			p->dnames[j].addr = UINT64_MAX;
		free(p->dnames[i].name);
	}
	p->ndnames = j + 1;
}

/*
 * The function named name in p: by its symbol, else by its demangled
 * name, since perf script prints C++ and Rust names demangled (the table
 * of those is made once per file, on the first name not found; a name
 * two functions share is not found). Returns 0 and *addr, or -1.
 */
static int find_function(struct pfile *p, const char *name, uint64_t *addr)
{
	const struct prof_elfcode_func *fn = prof_elfcode_find(p->elf, name);
	struct dname key = { (char *)name, 0 }, *d;

	if (fn) {
		*addr = fn->addr;
		return 0;
	}
	if (!p->dnames_built)
		build_dnames(p);
	d = p->ndnames ? bsearch(&key, p->dnames, p->ndnames, sizeof(*d), by_dname) : NULL;
	if (!d || d->addr == UINT64_MAX)
		return -1;
	*addr = d->addr;
	return 0;
}

/* The ELF address of symbol fr->sym in file f: 0, or -1 when it has none. */
static int sym_addr(struct perf_reader *rd, uint32_t f, struct frame *fr, uint64_t *addr)
{
	uint64_t key = hash_bytes(0xcbf29ce484222325ull ^ f, fr->sym, fr->sym_len);
	struct sym *e = prof_hashmap_get(&rd->syms, key);
	char save = fr->sym[fr->sym_len];
	int added, found;

	if (e && e->file == f && strlen(e->name) == fr->sym_len &&
	    memcmp(e->name, fr->sym, fr->sym_len) == 0) {
		*addr = e->addr;
		return e->found ? 0 : -1;
	}
	fr->sym[fr->sym_len] = 0;
	found = find_function(&rd->pf[f], fr->sym, addr) == 0;
	if (!e) {	/* a colliding name is looked up every time: rare */
		e = prof_hashmap_put(&rd->syms, key, &added);
		*e = (struct sym){ xstrdup(fr->sym), f, found, found ? *addr : 0 };
	}
	fr->sym[fr->sym_len] = save;
	return found ? 0 : -1;
}

/* The offset in file f of fr's pc (see the top of the file): 0, or -1. */
static int place(struct perf_reader *rd, uint32_t f, struct frame *fr, uint64_t *off)
{
	const struct prof_elfcode *elf = rd->pf[f].elf;
	const char *path = rd->s->files[f].path;
	uint64_t addr;

	if (fr->has_symoff && sym_addr(rd, f, fr, &addr) == 0 &&
	    prof_elfcode_vaddr_to_off(elf, addr + fr->symoff, off) == 0)
		return 0;
	for (size_t i = rd->nmaps; i-- > 0;) {	/* the latest mapping first */
		const struct mapping *m = &rd->maps[i];

		if (fr->pc >= m->start && fr->pc < m->end && strcmp(m->path, path) == 0) {
			*off = fr->pc - m->start + m->pgoff;
			return 0;
		}
	}
	return prof_elfcode_vaddr_to_off(elf, fr->pc, off);
}

/* A sample whose pc is fr's. */
static void add_sample(struct perf_reader *rd, struct frame *fr)
{
	struct prof_ann_samples *s = rd->s;
	uint64_t off;
	uint32_t f;

	s->rows++;
	if (rd->other_event) {
		s->other_events++;
		return;
	}
	if (!fr->dso) {
		rd->no_dso++;
		s->outside_files++;
		return;
	}
	/* the kernel, [vdso], [unknown], JIT maps: not files to disassemble */
	if (fr->dso_len < 2 || fr->dso[0] != '/' || (fr->dso_len > 4 &&
	    memcmp(fr->dso + fr->dso_len - 4, ".map", 4) == 0 && memcmp(fr->dso, "/tmp/perf-", 10) == 0)) {
		s->outside_files++;
		return;
	}
	f = file_index(rd, fr->dso, fr->dso_len);
	s->files[f].samples++;
	s->counted++;
	if (!rd->pf[f].elf)
		return;
	if (place(rd, f, fr, &off) == 0) {
		prof_ann_hit_add(s, &rd->hits, f, off);
	} else {
		rd->pf[f].unplaced++;
		rd->pf[f].unknown_sym += fr->has_symoff;
	}
}

/* The event of a line's sample: the first one seen is the one counted. */
static void set_event(struct perf_reader *rd, const struct prof_perf_event *ev)
{
	if (!ev->has_event)
		return;
	if (!rd->s->event)
		rd->s->event = xstrndup(ev->event, ev->event_len);
	rd->other_event = strlen(rd->s->event) != ev->event_len ||
			  memcmp(rd->s->event, ev->event, ev->event_len) != 0;
}

/* A frame line: the sample's pc if it is the first of its sample. */
static void frame_line(struct perf_reader *rd, struct frame *fr)
{
	rd->frames++;
	/* perf prints inlined functions as frames of the pc before its own */
	if ((rd->want || !rd->chains) &&
	    !(fr->dso && fr->dso_len == 7 && memcmp(fr->dso, "inlined", 7) == 0)) {
		add_sample(rd, fr);
		rd->want = 0;
	}
}

static void read_line(struct perf_reader *rd, char *line, size_t n)
{
	struct prof_perf_event ev;
	struct frame fr;
	size_t at;

	if (n == 0) {
		rd->chains = rd->want = 1;
		return;
	}
	if (line[0] == '#')
		return;
	if (memmem(line, n, "PERF_RECORD_", 12)) {
		rd->perf_like++;
		if (memmem(line, n, "PERF_RECORD_MMAP", 16))
			parse_mmap(rd, line);
		return;
	}
	if (buildid_line(rd, line, n))
		return;
	/*
	 * A frame line, unless a number follows its "pc": then it may be the
	 * "comm pid" of a sample line whose comm looks like hex, which the
	 * sample line grammar decides. Frames first spares that grammar's
	 * search for the comm on every line of -F ip,sym,symoff,dso.
	 */
	if (parse_frame(line, n, &fr) && !(fr.sym && fr.sym[0] >= '0' && fr.sym[0] <= '9')) {
		frame_line(rd, &fr);
	} else if (prof_perfscript_sample_line(line, n, &ev, &at) &&
		   parse_frame(line + at, n - at, &fr)) {
		rd->perf_like++;
		rd->frames++;
		set_event(rd, &ev);
		add_sample(rd, &fr);
		rd->want = 0;
	} else if (parse_frame(line, n, &fr)) {
		frame_line(rd, &fr);
	} else if (!is_blank(line[0]) && prof_perfscript_event_line(line, n, &ev) && ev.has_event) {
		rd->perf_like++;
		rd->chains = rd->want = 1;
		set_event(rd, &ev);
	} else {	/* perf script -F without ip prints "comm tid" lines, no frame */
		at = strspn(line, " \t");
		rd->perf_like += prof_perfscript_event_line(line + at, n - at, &ev);
	}
}

/* Build-ids from mappings, unplaced samples said; -1 when nothing is usable. */
static int finish(struct perf_reader *rd)
{
	struct prof_ann_samples *s = rd->s;
	int bids = 0;

	for (size_t f = 0; f < s->nfiles; f++) {
		for (size_t i = rd->nmaps; i-- > 0 && !s->files[f].build_id;)
			if (rd->maps[i].build_id && strcmp(rd->maps[i].path, s->files[f].path) == 0)
				s->files[f].build_id = xstrdup(rd->maps[i].build_id);
		bids += s->files[f].build_id != NULL;
		if (rd->pf[f].unplaced)	/* chatter: often a library's few samples */
			prof_info(1, "%s: %lu samples in %s not placed: %s", rd->name,
				  rd->pf[f].unplaced, s->files[f].path, rd->pf[f].unknown_sym ?
				  "their symbols are not in its symbol table (perf script "
				  "--show-mmap-events gives its mappings)" :
				  "a PIE or shared library needs sym+offset (perf script -F "
				  "ip,sym,symoff,dso) or its mappings (--show-mmap-events)");
	}
	if (s->nfiles && !bids)
		prof_info(1, "%s: no build-id in the input: the binaries are not checked against the "
			  "recording (perf record --buildid-mmap and perf script --show-mmap-events, or "
			  "perf buildid-list output before the samples)", rd->name);
	if (rd->frames && rd->no_dso == rd->frames) {
		prof_input_warn(rd->name, 0, "perf script text without the dso field: "
				"perf script -F ip,sym,symoff,dso");
		return -1;
	}
	if (!rd->frames) {
		prof_input_warn(rd->name, 0, rd->perf_like ?
				"perf script text without the ip field: perf script -F ip,sym,symoff,dso" :
				"neither profrec TSV with the ip column (profrec -o FILE.tsv) nor perf "
				"script text (perf script -F ip,sym,symoff,dso)");
		return -1;
	}
	return 0;
}

int prof_ann_perf_read(struct prof_lines *lr, char *line, size_t len, int after_blank,
		       struct prof_ann_samples *s)
{
	struct perf_reader rd = { .s = s, .name = prof_lines_name(lr), .chains = after_blank,
				  .want = 1 };
	int rc;

	prof_hashmap_init(&rd.file_of, sizeof(uint32_t));
	prof_hashmap_init(&rd.syms, sizeof(struct sym));
	for (; line; line = prof_lines_next(lr, &len))
		read_line(&rd, line, len);
	prof_ann_hits_merge(s);
	rc = finish(&rd);
	for (size_t i = 0; i < s->nfiles; i++) {
		prof_elfcode_close(rd.pf[i].elf);
		for (size_t j = 0; j < rd.pf[i].ndnames; j++)
			free(rd.pf[i].dnames[j].name);
		free(rd.pf[i].dnames);
	}
	for (size_t i = 0; i < prof_hashmap_count(&rd.syms); i++)
		free(((struct sym *)prof_hashmap_at(&rd.syms, i, NULL))->name);
	for (size_t i = 0; i < rd.nmaps; i++) {
		free(rd.maps[i].path);
		free(rd.maps[i].build_id);
	}
	free(rd.maps);
	free(rd.pf);
	prof_ann_hit_index_release(&rd.hits);
	prof_hashmap_release(&rd.file_of);
	prof_hashmap_release(&rd.syms);
	return rc;
}
