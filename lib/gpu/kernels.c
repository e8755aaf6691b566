/*
 * CUDA kernel tracing: the records of the injection library read back
 * and written as the toolkit's formats (kernels.h).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/demangle.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "gpu/kernels.h"
#include "gpu/kernels_format.h"
#include "heap/format.h"
#include "io/output.h"
#include "symbolize/symbolize.h"

extern char **environ;

/* One row: a kernel, a memcpy or a memset of one process. */
struct row {
	int64_t start, end;		/* profgpu's clock */
	size_t proc;
	int copy;			/* 0 kernel, else struct pgk_copy */
	struct pgk_kernel k;
	struct pgk_copy c;
	char *name;			/* kernels: as shown (demangled unless raw), escaped */
};

struct stack {
	uint32_t n;
	uint64_t *pcs;
	char *folded;			/* "f1;f2;..." outermost first, once symbolized */
};

struct proc {
	struct pgk_header hd;
	struct prof_hashmap stacks;	/* local id -> struct stack */
	struct prof_hashmap launches;	/* correlation -> struct pgk_launch */
	uint64_t dropped;
	uint32_t stack_base;		/* global stack id = stack_base + local id */
	char *maps;			/* its maps file: the record file's name, .maps */
	uint64_t untimed;		/* records CUPTI could not time (start 0) */
	int ended, traced;
	char *error;
	struct prof_addrspace *as;
};

struct run {
	struct prof_gpu_kernels *k;
	struct proc *procs;
	size_t nprocs;
	struct row *rows;
	size_t nrows, cap;
	uint64_t t0;
	struct prof_symbolizer *sym;
};

static const char *const api_names[PGK_NAPI] = PGK_API_NAMES;

static char *find_injection(void)
{
	static const char *const places[] = { "/libprofgpu-cupti.so",
					      "/../lib/proftools/libprofgpu-cupti.so" };
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = 0;
	if (!(slash = strrchr(self, '/')))
		return NULL;
	*slash = 0;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		char *p = xasprintf("%s%s", self, places[i]);

		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

int prof_gpu_kernels_option(struct prof_gpu_kernels *k, int opt, const char *arg)
{
	switch (opt) {
	case PROF_GPU_KERNELS_OPT_TSV:
		k->tsv_path = arg;
		break;
	case PROF_GPU_KERNELS_OPT_STACKS:
		k->folded_path = arg;
		break;
	case PROF_GPU_KERNELS_OPT_UNWIND:
		if (strcmp(arg, "fp") != 0 && strcmp(arg, "dwarf") != 0) {
			prof_warn("--kernel-unwind: '%s' is not fp or dwarf", arg);
			return -1;	/* the caller's usage error */
		}
		k->unwind = arg;
		return 0;
	case PROF_GPU_KERNELS_OPT_NO_DEMANGLE:
		k->raw_names = 1;
		return 0;
	default:
		return -1;
	}
	k->on = 1;
	return 0;
}

int prof_gpu_kernels_stdout(const struct prof_gpu_kernels *k)
{
	return (k->tsv_path && strcmp(k->tsv_path, "-") == 0) ||
	       (k->folded_path && strcmp(k->folded_path, "-") == 0);
}

int prof_gpu_kernels_setup(struct prof_gpu_kernels *k)
{
	const char *tmp = getenv("TMPDIR");
	char *lib = find_injection(), *dir;
	size_t n = 0, i = 0;

	if (!lib) {
		prof_warn("--kernels: libprofgpu-cupti.so not found beside profgpu "
			  "(or in ../lib/proftools): is proftools installed whole?");
		return -1;
	}
	dir = xasprintf("%s/profgpu-kernels.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		prof_warn_errno("--kernels: %s", dir);
		free(dir);
		free(lib);
		return -1;
	}
	k->dir = dir;
	while (environ[n])
		n++;
	k->envp = xcalloc(n + 4, sizeof(*k->envp));
	for (size_t j = 0; j < n; j++)
		if (strncmp(environ[j], "CUDA_INJECTION64_PATH=", 22) != 0 &&
		    strncmp(environ[j], "PROFGPU_KERNELS_", 16) != 0)
			k->envp[i++] = environ[j];
	k->envp[i++] = xasprintf("CUDA_INJECTION64_PATH=%s", lib);
	k->envp[i++] = xasprintf("PROFGPU_KERNELS_DIR=%s", dir);
	if (k->unwind)
		k->envp[i++] = xasprintf("PROFGPU_KERNELS_UNWIND=%s", k->unwind);
	free(lib);
	return 0;
}

/* ---- reading ---- */

/* A name as shown: demangled unless raw, invalid UTF-8 as '?', no control characters. */
static char *show_name(const char *raw, size_t len, int keep_raw)
{
	struct prof_buf b = PROF_BUF_INIT, clean = PROF_BUF_INIT;
	char *nul = xmalloc(len + 1), *d;
	size_t i = 0;

	memcpy(nul, raw, len);
	nul[len] = 0;
	d = prof_demangle_shown(nul, keep_raw || memchr(raw, 0, len) != NULL);
	free(nul);
	while (d[i]) {
		size_t l = prof_utf8_seqlen((const unsigned char *)d + i, strlen(d + i));

		if (l == 0) {
			prof_buf_addch(&b, '?');
			i++;
		} else {
			prof_buf_add(&b, d + i, l);
			i += l;
		}
	}
	free(d);
	prof_tsv_text(&clean, b.data ? b.data : "", b.len);
	prof_buf_release(&b);
	if (!clean.data)
		prof_buf_addstr(&clean, "");
	return prof_buf_detach(&clean, NULL);
}

static void add_row(struct run *r, const struct row *row)
{
	if (r->nrows == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->rows = xrealloc(r->rows, r->cap * sizeof(*r->rows));
	}
	r->rows[r->nrows++] = *row;
}

/* Read one PID.rec file; complaints name it. */
static void read_rec(struct run *r, const char *path, const char *file)
{
	struct proc *p;
	FILE *f = fopen(path, "rb");
	struct pgk_rec rec;
	char *payload = NULL;
	size_t cap = 0;

	if (!f)
		return;
	r->procs = xrealloc(r->procs, (r->nprocs + 1) * sizeof(*r->procs));
	p = &r->procs[r->nprocs];
	memset(p, 0, sizeof(*p));
	if (fread(&p->hd, sizeof(p->hd), 1, f) != 1 || memcmp(p->hd.magic, PGK_MAGIC, 8) != 0) {
		prof_warn("--kernels: %s: not a record file of libprofgpu-cupti.so", file);
		fclose(f);
		return;
	}
	p->hd.comm[sizeof(p->hd.comm) - 1] = 0;
	p->maps = xasprintf("%.*s.maps", (int)(strlen(path) - 4), path);
	prof_hashmap_init(&p->stacks, sizeof(struct stack));
	prof_hashmap_init(&p->launches, sizeof(struct pgk_launch));
	r->nprocs++;
	while (fread(&rec, sizeof(rec), 1, f) == 1) {
		if (rec.len > cap) {
			cap = rec.len;
			payload = xrealloc(payload, cap);
		}
		if (rec.len && fread(payload, rec.len, 1, f) != 1)
			break;	/* cut short: the process was killed while writing */
		if (rec.type == PGK_STACK && rec.len >= sizeof(struct pgk_stack)) {
			struct pgk_stack st;
			struct stack *s;

			memcpy(&st, payload, sizeof(st));
			if (st.n > PGK_MAX_PCS || sizeof(st) + st.n * 8ull > rec.len)
				continue;
			s = prof_hashmap_put(&p->stacks, st.id, NULL);
			s->n = st.n;
			s->pcs = xmalloc(st.n * 8ull + 1);
			memcpy(s->pcs, payload + sizeof(st), st.n * 8ull);
			s->folded = NULL;
		} else if (rec.type == PGK_LAUNCH && rec.len >= sizeof(struct pgk_launch)) {
			memcpy(prof_hashmap_put(&p->launches, ((struct pgk_launch *)(void *)payload)->correlation,
						NULL), payload, sizeof(struct pgk_launch));
		} else if (rec.type == PGK_KERNEL && rec.len >= sizeof(struct pgk_kernel)) {
			struct row row = { .proc = r->nprocs - 1 };

			memcpy(&row.k, payload, sizeof(row.k));
			if (row.k.name_len > rec.len - sizeof(row.k))
				continue;
			if (!row.k.start || row.k.end < row.k.start) {
				p->untimed++;	/* no device memory for its timestamps */
				continue;
			}
			row.start = (int64_t)row.k.start + p->hd.clock_offset - (int64_t)r->t0;
			row.end = (int64_t)row.k.end + p->hd.clock_offset - (int64_t)r->t0;
			row.name = show_name(payload + sizeof(row.k), row.k.name_len, r->k->raw_names);
			add_row(r, &row);
			p->traced = 1;
		} else if (rec.type == PGK_COPY && rec.len >= sizeof(struct pgk_copy)) {
			struct row row = { .proc = r->nprocs - 1, .copy = 1 };

			memcpy(&row.c, payload, sizeof(row.c));
			if (!row.c.start || row.c.end < row.c.start) {
				p->untimed++;
				continue;
			}
			row.start = (int64_t)row.c.start + p->hd.clock_offset - (int64_t)r->t0;
			row.end = (int64_t)row.c.end + p->hd.clock_offset - (int64_t)r->t0;
			add_row(r, &row);
			p->traced = 1;
		} else if (rec.type == PGK_DROPPED && rec.len >= 8) {
			uint64_t d;

			memcpy(&d, payload, 8);
			p->dropped += d;
		} else if (rec.type == PGK_ERROR && rec.len) {
			payload[rec.len - 1] = 0;
			free(p->error);
			p->error = xstrdup(payload);
		} else if (rec.type == PGK_END) {
			p->ended = 1;
		}
	}
	free(payload);
	fclose(f);
}

static int by_start(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void read_all(struct run *r)
{
	DIR *d = opendir(r->k->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char *path;

		if (l < 5 || strcmp(e->d_name + l - 4, ".rec") != 0)
			continue;
		path = xasprintf("%s/%s", r->k->dir, e->d_name);
		read_rec(r, path, e->d_name);
		free(path);
	}
	if (d)
		closedir(d);
	if (r->nrows)
		qsort(r->rows, r->nrows, sizeof(*r->rows), by_start);
}

/* ---- stacks ---- */

/* The object a pc lies in is one of CUDA's own (the launch API's insides). */
static int cuda_internal(struct proc *p, uint64_t pc)
{
	const struct prof_map *m = prof_addrspace_find(p->as, pc);
	const char *base;

	if (!m || !m->path || !*m->path)
		return 0;
	base = strrchr(m->path, '/');
	base = base ? base + 1 : m->path;
	return strncmp(base, "libcuda.", 8) == 0 || strncmp(base, "libcudart", 9) == 0 ||
	       strncmp(base, "libcupti", 8) == 0 || strncmp(base, "libprofgpu-cupti", 16) == 0;
}

/* The folded frames of a launch stack, outermost first ("" when unknown). */
static const char *folded_stack(struct run *r, struct proc *p, uint32_t id)
{
	struct stack *s = id ? prof_hashmap_get(&p->stacks, id) : NULL;
	struct prof_buf b = PROF_BUF_INIT;
	struct prof_frame fr[16];
	uint32_t first = 0;

	if (!s)
		return "";
	if (s->folded)
		return s->folded;
	if (!p->as) {
		p->as = prof_addrspace_new(r->sym, (pid_t)p->hd.pid);
		/* none when the process did not end normally (said already): frames unknown */
		if (access(p->maps, R_OK) == 0)
			prof_addrspace_load_maps(p->as, p->maps);
	}
	while (first < s->n && cuda_internal(p, s->pcs[first]))
		first++;
	for (uint32_t i = s->n; i-- > first;) {
		size_t n;

		if (s->pcs[i] == PH_PC_TRUNCATED) {
			prof_buf_addstr(&b, "[truncated];");
			continue;
		}
		n = prof_symbolize(r->sym, p->as, s->pcs[i], PROF_SYM_RETURN, fr, 16);
		while (n--) {
			char *clean = show_name(fr[n].name, strlen(fr[n].name), 1);

			for (char *c = clean; *c; c++)
				if (*c == ';')
					*c = ':';
			prof_buf_addstr(&b, clean);
			prof_buf_addch(&b, ';');
			free(clean);
		}
	}
	if (!b.data)
		prof_buf_addstr(&b, "");
	s->folded = prof_buf_detach(&b, NULL);
	return s->folded;
}

/* ---- outputs ---- */

static const char *direction(const struct pgk_copy *c)
{
	static const char *const kinds[] = { "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					     "AtoD", "DtoA", "DtoD", "HtoH", "PtoP" };

	if (c->memset)
		return "-";
	return c->kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[c->kind] : "unknown";
}

/* The name of a row: the kernel's, "[memcpy HtoD]", "[memset]". */
static const char *row_name(const struct row *w, char *buf, size_t n)
{
	if (!w->copy)
		return w->name;
	if (w->c.memset)
		return "[memset]";
	snprintf(buf, n, "[memcpy %s]", direction(&w->c));
	return buf;
}

static const struct pgk_launch *launch_of(struct run *r, const struct row *w)
{
	uint32_t corr = w->copy ? w->c.correlation : w->k.correlation;

	return prof_hashmap_get(&r->procs[w->proc].launches, corr);
}

static int write_tsv(struct run *r, const char *path)
{
	struct prof_output *o = prof_output_open(path, PROF_OUT_STREAM, prof_compression_from_suffix(path));
	char nb[64];

	if (!o)
		return -1;
	prof_output_puts(o, "start_ns\tend_ns\tduration_ns\tpid\ttid\tdevice\tcontext\tstream\tkind\t"
			 "name\tgrid\tblock\tregisters\tshared_bytes\tbytes\tdirection\tcorrelation\tstack_id\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		const struct pgk_launch *l = launch_of(r, w);
		const struct proc *p = &r->procs[w->proc];
		uint32_t dev = w->copy ? w->c.device : w->k.device;
		uint32_t ctx = w->copy ? w->c.context : w->k.context;
		uint32_t stream = w->copy ? w->c.stream : w->k.stream;
		uint32_t corr = w->copy ? w->c.correlation : w->k.correlation;

		prof_output_printf(o, "%lld\t%lld\t%lld\t%u\t%u\t%u\t%u\t%u\t%s\t%s\t",
				   (long long)w->start, (long long)w->end, (long long)(w->end - w->start),
				   p->hd.pid, l ? l->tid : 0, dev, ctx, stream,
				   !w->copy ? "kernel" : w->c.memset ? "memset" : "memcpy",
				   row_name(w, nb, sizeof(nb)));
		if (w->copy)
			prof_output_printf(o, "-\t-\t0\t0\t%llu\t%s", (unsigned long long)w->c.bytes,
					   direction(&w->c));
		else
			prof_output_printf(o, "%d,%d,%d\t%d,%d,%d\t%u\t%u\t0\t-", w->k.grid[0], w->k.grid[1],
					   w->k.grid[2], w->k.block[0], w->k.block[1], w->k.block[2],
					   w->k.registers, w->k.static_shared + w->k.dynamic_shared);
		prof_output_printf(o, "\t%u\t%u\n", corr,
				   l && l->stack ? p->stack_base + l->stack : 0);
	}
	return prof_output_close(o);
}

struct folded_line {
	char *stack;
	uint64_t ns;
};

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->stack, ((const struct folded_line *)b)->stack);
}

static int write_folded(struct run *r, const char *path)
{
	struct folded_line *lines = xcalloc(r->nrows + 1, sizeof(*lines));
	struct prof_output *o;
	size_t n = 0, i, j;
	char nb[64];
	int rc;

	for (i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		struct proc *p = &r->procs[w->proc];
		const struct pgk_launch *l = launch_of(r, w);
		char *name = xstrdup(row_name(w, nb, sizeof(nb))), *comm;
		struct prof_buf b = PROF_BUF_INIT;

		for (char *c = name; *c; c++)
			if (*c == ';')
				*c = ':';
		comm = show_name(p->hd.comm, strlen(p->hd.comm), 1);
		for (char *c = comm; *c; c++)
			if (*c == ';' || *c == ' ')
				*c = *c == ';' ? ':' : '_';
		prof_buf_addstr(&b, *comm ? comm : "[unknown]");
		prof_buf_addch(&b, ';');
		free(comm);
		if (l) {
			prof_buf_addstr(&b, folded_stack(r, p, l->stack));
			prof_buf_addf(&b, "[launch] %s;", l->api < PGK_NAPI ? api_names[l->api] : "launch");
		}
		prof_buf_addf(&b, "[gpu] %s", name);
		free(name);
		lines[n].stack = prof_buf_detach(&b, NULL);
		lines[n++].ns = w->end > w->start ? (uint64_t)(w->end - w->start) : 0;
	}
	qsort(lines, n, sizeof(*lines), by_stack);
	if (!(o = prof_output_open(path, PROF_OUT_STREAM, prof_compression_from_suffix(path)))) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < n; i = j) {
		uint64_t sum = 0;

		for (j = i; j < n && strcmp(lines[j].stack, lines[i].stack) == 0; j++)
			sum += lines[j].ns;
		if (sum)
			prof_output_printf(o, "%s %llu\n", lines[i].stack, (unsigned long long)sum);
	}
	rc = prof_output_close(o);
out:
	for (i = 0; i < n; i++)
		free(lines[i].stack);
	free(lines);
	return rc;
}

/* ---- summaries ---- */

struct sum {
	const char *name;
	uint64_t total, min, max, count, bytes;
};

static int by_total(const void *a, const void *b)
{
	const struct sum *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sum *)a)->name, ((const struct sum *)b)->name);
}

/* Rows of one sort (copies or kernels) summed per name, largest total first. */
static struct sum *summarize(struct run *r, int copies, size_t *nsum, uint64_t *all)
{
	struct sum *s = xcalloc(r->nrows + 1, sizeof(*s));
	size_t n = 0, i, j;
	static char dirs[16][24];

	*all = 0;
	for (i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		uint64_t d = w->end > w->start ? (uint64_t)(w->end - w->start) : 0;

		if (!!w->copy != copies)
			continue;
		if (copies) {
			unsigned slot = w->c.memset ? 15 : w->c.kind < 15 ? w->c.kind : 0;

			row_name(w, dirs[slot], sizeof(dirs[slot]));
			s[n].name = w->c.memset ? "[memset]" : dirs[slot];
			s[n].bytes = w->c.bytes;
		} else {
			s[n].name = w->name;
		}
		s[n].total = s[n].min = s[n].max = d;
		s[n++].count = 1;
		*all += d;
	}
	qsort(s, n, sizeof(*s), by_name);
	for (i = j = 0; i < n; i++) {
		if (j && strcmp(s[j - 1].name, s[i].name) == 0) {
			s[j - 1].total += s[i].total;
			s[j - 1].count++;
			s[j - 1].bytes += s[i].bytes;
			if (s[i].min < s[j - 1].min)
				s[j - 1].min = s[i].min;
			if (s[i].max > s[j - 1].max)
				s[j - 1].max = s[i].max;
		} else {
			s[j++] = s[i];
		}
	}
	qsort(s, j, sizeof(*s), by_total);
	*nsum = j;
	return s;
}

static void print_summaries(struct run *r)
{
	size_t n, i;
	uint64_t all;
	struct sum *s = summarize(r, 0, &n, &all);

	if (n) {
		fprintf(stderr, "%s: CUDA kernels (cf. nsys stats cuda_gpu_kern_sum):\n", prof_progname);
		fprintf(stderr, "%s:  Time (%%)  Total Time (ns)  Instances    Avg (ns)    Min (ns)    Max (ns)  Name\n", prof_progname);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s: %9.1f  %15llu  %9llu  %10.1f  %10llu  %10llu  %s\n",
				prof_progname, all ? 100.0 * (double)s[i].total / (double)all : 0.0,
				(unsigned long long)s[i].total, (unsigned long long)s[i].count,
				(double)s[i].total / (double)s[i].count, (unsigned long long)s[i].min,
				(unsigned long long)s[i].max, s[i].name);
	}
	free(s);
	s = summarize(r, 1, &n, &all);
	if (n) {
		fprintf(stderr, "%s: CUDA memory operations (cf. cuda_gpu_mem_time_sum):\n", prof_progname);
		fprintf(stderr, "%s:  Time (%%)  Total Time (ns)      Count      Total (B)      GB/s  Operation\n", prof_progname);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s: %9.1f  %15llu  %9llu  %13llu  %8.2f  %s\n",
				prof_progname, all ? 100.0 * (double)s[i].total / (double)all : 0.0,
				(unsigned long long)s[i].total, (unsigned long long)s[i].count,
				(unsigned long long)s[i].bytes,
				s[i].total ? (double)s[i].bytes / (double)s[i].total : 0.0, s[i].name);
	}
	free(s);
}

/* Errors, drops, unflushed processes; returns 1 when some process could not be traced. */
static int report_problems(struct run *r)
{
	uint64_t dropped = 0, untimed = 0;
	int failed = 0;

	for (size_t i = 0; i < r->nprocs; i++) {
		struct proc *p = &r->procs[i];

		dropped += p->dropped;
		untimed += p->untimed;
		if (p->error) {
			prof_warn("--kernels: process %u (%s): %s", p->hd.pid, p->hd.comm, p->error);
			failed = 1;
		} else if (!p->ended) {
			prof_warn("--kernels: process %u (%s) ended without flushing its CUDA records "
				  "(killed, or replaced by exec): its last kernels are missing", p->hd.pid, p->hd.comm);
		}
	}
	if (dropped)
		prof_warn("--kernels: %llu CUDA activity record%s dropped (CUPTI's buffers were full): "
			  "the kernel tables are incomplete", (unsigned long long)dropped,
			  dropped == 1 ? "" : "s");
	if (untimed)
		prof_warn("--kernels: %llu CUDA activity record%s without timestamps (CUPTI had no device "
			  "memory for them) left out", (unsigned long long)untimed, untimed == 1 ? "" : "s");
	return failed;
}

static void cleanup(struct run *r)
{
	DIR *d = opendir(r->k->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		path = xasprintf("%s/%s", r->k->dir, e->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(r->k->dir);
	for (size_t i = 0; i < r->nprocs; i++) {
		struct proc *p = &r->procs[i];

		for (size_t j = 0; j < prof_hashmap_count(&p->stacks); j++) {
			struct stack *s = prof_hashmap_at(&p->stacks, j, NULL);

			free(s->pcs);
			free(s->folded);
		}
		prof_hashmap_release(&p->stacks);
		prof_hashmap_release(&p->launches);
		prof_addrspace_free(p->as);
		free(p->error);
		free(p->maps);
	}
	for (size_t i = 0; i < r->nrows; i++)
		free(r->rows[i].name);
	free(r->rows);
	free(r->procs);
}

int prof_gpu_kernels_finish(struct prof_gpu_kernels *k, uint64_t t0)
{
	struct run r = { .k = k, .t0 = t0 };
	uint32_t base = 0;
	int rc = 0, traced = 0;

	read_all(&r);
	for (size_t i = 0; i < r.nprocs; i++) {
		r.procs[i].stack_base = base;
		base += (uint32_t)prof_hashmap_count(&r.procs[i].stacks);
		traced |= r.procs[i].traced;
	}
	if (report_problems(&r) && !traced)
		rc = -1;
	else if (!traced)
		prof_warn("--kernels: no CUDA activity (the command launched no kernel and copied nothing)");
	r.sym = prof_symbolizer_new(NULL);
	if (k->tsv_path && write_tsv(&r, k->tsv_path) < 0)
		rc = -1;
	if (k->folded_path && write_folded(&r, k->folded_path) < 0)
		rc = -1;
	if (prof_verbosity > 0)
		print_summaries(&r);
	cleanup(&r);
	prof_symbolizer_free(r.sym);
	for (size_t i = 0; k->envp && k->envp[i]; i++)
		if (strncmp(k->envp[i], "CUDA_INJECTION64_PATH=", 22) == 0 ||
		    strncmp(k->envp[i], "PROFGPU_KERNELS_", 16) == 0)
			free(k->envp[i]);
	free(k->envp);
	free(k->dir);
	return rc;
}
