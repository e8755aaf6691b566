/*
 * profheap: run a command with the heap profiling shim preloaded, then turn
 * its record files into folded stacks (bytes allocated, allocations,
 * leaked bytes, bytes live at the peak, temporary allocations) and a leak
 * report. See profheap(1); the record format is lib/heap/format.h.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "formats/folded.h"
#include "heap/records.h"
#include "io/input.h"
#include "core/meta.h"
#include "base/options.h"
#include "io/output.h"
#include "base/proc.h"
#include "core/stack.h"
#include "symbolize/symbolize.h"
#include "base/units.h"
#include "base/xalloc.h"

#define SYNOPSIS "profheap [-fkqv] [-i interval] [-o dir] [-r report] [-S file] " \
	"[-s bytes] [-u fp|dwarf] [--no-follow-fork] command [arg ...]"

static const char help_text[] =
	"usage: " SYNOPSIS "\n"
	"Run a command under the heap profiler and report where its memory goes.\n"
	"\n"
	"  -f, --fail-on-leak     exit 1 when the command exited 0 but leaked memory\n"
	"  -i, --interval TIME    timeline interval (default 10ms)\n"
	"  -k, --keep             keep the raw record files (PID.heap, PID.maps)\n"
	"      --no-follow-fork   profile only the command's own process, no children\n"
	"  -o, --output DIR       output directory (default profheap.PID)\n"
	"  -q, --quiet            no leak report or summary on stderr\n"
	"  -r, --report WHAT      write folded stacks of WHAT to stdout:\n"
	"                         alloc, count, leak, peak or temp\n"
	"  -s, --sample BYTES     Poisson sampling, one sample per BYTES allocated\n"
	"                         on average (512K is a good start): estimates\n"
	"  -S, --suppressions FILE  LSAN-format leak suppressions (repeatable)\n"
	"  -u, --unwind fp|dwarf  stack walking: frame pointers (default) or libunwind\n"
	"  -v, --verbose          more detail on stderr\n"
	"  -h, --help             this help\n"
	"\n"
	"Writes PID.{alloc,count,leak,peak,temp}.folded and PID.timeline.tsv per\n"
	"process into DIR. Exit status: the command's (126 cannot execute, 127 not\n"
	"found, 128+N killed by signal N); 1 on failure or with --fail-on-leak;\n"
	"2 on usage errors.\n";

enum report { R_NONE = -1, R_ALLOC, R_COUNT, R_LEAK, R_PEAK, R_TEMP, NREPORTS };
static const char *const report_names[NREPORTS] = { "alloc", "count", "leak", "peak", "temp" };
static const char *const report_units[NREPORTS] = {
	"bytes", "allocations", "bytes", "bytes", "allocations",
};

/* Columns of the per-process table. */
enum { C_ALLOC, C_COUNT, C_LEAK, C_PEAK };	/* table a */
enum { C_TEMP, C_LEAK_BLOCKS };			/* table b */

/* ---- suppressions (LeakSanitizer syntax) ------------------------------------ */

struct supp {
	char **pats;
	size_t n, cap;
	size_t builtin;		/* the first builtin patterns are glibc's own */
};

/*
 * glibc's (and the C++ runtime's) never-freed internal blocks: stdio
 * buffers, atexit lists, locale and time zone data, NSS and iconv caches,
 * dynamic loader data (thread TLS, dlopen), per-thread strerror/dlerror
 * buffers, libstdc++'s emergency exception pool.
 */
static const char *const builtin_supp[] = {
	"_IO_file_doallocate", "^__new_exitfn", "^__cxa_thread_atexit", "^_nl_", "^__tz",
	"^tzset", "^__nss_", "^nss_", "^__gconv", "^__libc_dlopen", "^_dl_", "/ld-linux",
	"^__strerror", "^strerror", "^_dlerror_run", "^dlerror", "^__libc_early_init",
	"(anonymous namespace)::pool::pool", "^__cxa_get_globals", "^__libc_setlocale",
	"^setlocale", "^_IO_vfscanf", "^__printf_fp",
};

static void supp_add(struct supp *s, const char *pat, size_t len)
{
	PROF_GROW(s->pats, s->n + 1, s->cap);
	s->pats[s->n] = xmalloc(len + 1);
	memcpy(s->pats[s->n], pat, len);
	s->pats[s->n][len] = 0;
	s->n++;
}

/* Load an LSAN suppression file; returns the number of bad lines. */
static unsigned long supp_load(struct supp *s, const char *path)
{
	struct prof_lines *lr = prof_lines_open(path);
	unsigned long bad = 0;
	size_t len;
	char *line;

	if (!lr)
		return 1;
	while ((line = prof_lines_next(lr, &len)) != NULL) {
		char *p = line, *e = line + len;

		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "leak:", 5) && p[5]) {
			supp_add(s, p + 5, strlen(p + 5));
		} else if (strchr(p, ':')) {
			prof_input_warn(path, prof_lines_lineno(lr),
					"unsupported suppression type (only leak: applies)");
		} else {
			prof_input_warn(path, prof_lines_lineno(lr),
					"malformed suppression (expected leak:PATTERN)");
			bad++;
		}
	}
	if (prof_lines_failed(lr))
		bad++;
	prof_lines_close(lr);
	return bad;
}

/*
 * Nonzero if path is one of the C/C++ runtime's own objects. Blocks still
 * live whose every frame lies in them were allocated by the runtime for
 * itself (start-up, libstdc++'s emergency exception pool...), not by the
 * program: they are not its leaks.
 */
static int runtime_object(const char *path)
{
	static const char *const names[] = {
		"libc.so", "ld-linux", "ld64.so", "libstdc++.so", "libgcc_s.so", "libm.so",
		"libpthread.so", "libdl.so",
	};
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(b, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* Glob with '*' over the whole string. */
static int glob_match(const char *p, const char *pe, const char *s, const char *se)
{
	while (p < pe) {
		if (*p == '*') {
			p++;
			if (p == pe)
				return 1;
			for (; s <= se; s++)
				if (glob_match(p, pe, s, se))
					return 1;
			return 0;
		}
		if (s == se || *p != *s)
			return 0;
		p++, s++;
	}
	return s == se;
}

/* LeakSanitizer's template match: a substring unless anchored with ^ or $; '*' globs. */
static int supp_match1(const char *pat, const char *str)
{
	size_t pl = strlen(pat);
	char buf[4100];
	size_t n = 0;

	if (pl + 3 > sizeof(buf))
		return 0;
	if (pat[0] == '^')
		pat++, pl--;
	else
		buf[n++] = '*';
	if (pl && pat[pl - 1] == '$') {
		memcpy(buf + n, pat, pl - 1);
		n += pl - 1;
	} else {
		memcpy(buf + n, pat, pl);
		n += pl;
		buf[n++] = '*';
	}
	return glob_match(buf, buf + n, str, str + strlen(str));
}

/* ---- helpers ------------------------------------------------------------------ */

static char *thousands(char *buf, size_t n, double v)
{
	char tmp[40];
	unsigned long long u = v < 0 ? 0 : (unsigned long long)(v + 0.5);
	size_t len, i, o = 0;

	len = (size_t)snprintf(tmp, sizeof(tmp), "%llu", u);
	for (i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

/* Find cmd in PATH (like execvp); malloc'ed path or NULL. */
static char *find_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;;) {
		const char *c = strchr(p, ':');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		char *full = xasprintf("%.*s/%s", l ? (int)l : 1, l ? p : ".", cmd);

		if (access(full, X_OK) == 0)
			return full;
		free(full);
		if (!c)
			return NULL;
		p = c + 1;
	}
}

/* 1 if path is an ELF executable without an interpreter (static), else 0. */
static int is_static_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), st = 0;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned i;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(ph))
		goto out;
	st = 1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph)) {
			st = 0;
			break;
		}
		if (ph.p_type == PT_INTERP) {
			st = 0;
			break;
		}
	}
	/* A shared library without PT_INTERP is not an executable: leave it to exec. */
	if (st && eh.e_type == ET_DYN) {
		for (i = 0; i < eh.e_phnum; i++)
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) ==
				    (ssize_t)sizeof(ph) && ph.p_type == PT_DYNAMIC)
				break;
		/* static-pie has PT_DYNAMIC too; both are refused: no interpreter, no preload */
	}
out:
	close(fd);
	return st;
}

static char *shim_path(void)
{
	char self[PATH_MAX], *slash, *p;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	p = xasprintf("%s/libprofheap.so", self);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	p = xasprintf("%s/../lib/proftools/libprofheap.so", self);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* ---- post-processing ----------------------------------------------------------- */

struct opts {
	const char *dir;
	enum report report;
	int fail_on_leak, keep;
	int temp;		/* dir is ours: removed at the end unless kept */
	struct supp supp;
};

struct totals {
	double leak_bytes, leak_blocks, supp_bytes, supp_blocks;
	/* allocations on frame-pointer stacks, and those cut short after 1 or 2 frames */
	double fp_allocs, fp_short;
	int processes, failed;
};

struct leak_site {
	double bytes, blocks;
	uint32_t id;
};

static int cmp_leak(const void *a, const void *b)
{
	const struct leak_site *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int write_folded(const struct opts *o, const char *tag, int pid, enum report r,
			const struct prof_stacks *src, size_t col)
{
	struct prof_stacks t;
	struct prof_meta m = PROF_META_INIT;
	struct prof_output *out;
	char path[PATH_MAX];
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s.%s.folded", o->dir, tag, report_names[r]);
	prof_stacks_init(&t, 1);
	prof_stacks_merge_column(&t, 0, src, col);
	prof_meta_set(&m, "tool", "profheap");
	prof_meta_set(&m, "report", report_names[r]);
	prof_meta_set(&m, "unit", report_units[r]);
	prof_meta_setf(&m, "pid", "%d", pid);
	out = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	if (!out || prof_folded_write(&t, &m, 1, out) < 0)
		rc = -1;
	if (out && prof_output_close(out) < 0)
		rc = -1;
	prof_meta_release(&m);
	prof_stacks_release(&t);
	return rc;
}

/* Process one record file into folded files; adds to the merged tables. */
static int process_one(const struct opts *o, const char *tag, int execed,
		       struct prof_symbolizer *sym, struct prof_stacks *ma, struct prof_stacks *mb,
		       struct totals *tot)
{
	struct prof_heapfile f;
	struct prof_heap_site *sites;
	struct prof_addrspace *as;
	struct prof_stacks a, b;
	struct leak_site *leaks = NULL;
	size_t nleaks = 0, lcap = 0, id, i;
	char path[PATH_MAX], n1[40], n2[40], n3[40], hb[40];
	uint32_t *frames = NULL;
	size_t fcap = 0;
	double leak_b = 0, leak_n = 0, supp_b = 0, supp_n = 0, alloc_b = 0, alloc_n = 0;
	int rc = 0, r;
	const struct ph_header *h;

	snprintf(path, sizeof(path), "%s/%s.heap", o->dir, tag);
	if (prof_heapfile_open(&f, path) < 0)
		return -1;
	h = f.h;
	sites = xcalloc(f.nstacks ? f.nstacks : 1, sizeof(*sites));
	prof_heapfile_sum(&f, sites);
	as = prof_addrspace_new(sym, h->pid);
	snprintf(path, sizeof(path), "%s/%s.maps", o->dir, tag);
	if (access(path, R_OK) == 0)
		prof_addrspace_load_maps(as, path);
	else
		prof_warn("%s: missing: frames stay unresolved", path);
	prof_stacks_init(&a, 4);
	prof_stacks_init(&b, 2);
	for (id = 0; id < f.nstacks; id++) {
		const struct prof_heap_site *s = &sites[id];
		const uint64_t *pcs;
		size_t depth, nf = 0, k;
		int suppressed = 0, runtime_only;
		prof_weight wa[4], wb[2];

		if (!s->alloc_count && !s->live_bytes && !s->peak_bytes && !s->temp_count)
			continue;
		pcs = prof_heapfile_stack(&f, id, &depth);
		if (!pcs && id) {
			f.damaged++;
			continue;
		}
		runtime_only = depth > 0;
		for (k = depth; k-- > 0;) {
			struct prof_frame fr[32];
			size_t n, j;
			const struct prof_map *mp;

			if (pcs[k] == PH_PC_TRUNCATED) {
				/* the walk was cut short: one honest frame, not garbage */
				PROF_GROW(frames, nf + 1, fcap);
				frames[nf++] = prof_stacks_frame(&a, "[truncated]", 11);
				continue;
			}
			n = prof_symbolize(sym, as, pcs[k], PROF_SYM_RETURN, fr, 32);
			mp = prof_addrspace_find(as, pcs[k]);

			PROF_GROW(frames, nf + n, fcap);
			for (j = n; j-- > 0;) {
				size_t x;

				frames[nf++] = prof_stacks_frame(&a, fr[j].name, strlen(fr[j].name));
				for (x = 0; x < o->supp.n && !suppressed && s->live_bytes; x++)
					suppressed = supp_match1(o->supp.pats[x], fr[j].name);
			}
			for (i = 0; mp && mp->path[0] && i < o->supp.n && !suppressed && s->live_bytes; i++)
				suppressed = supp_match1(o->supp.pats[i], mp->path);
			if (!mp || !runtime_object(mp->path))
				runtime_only = 0;
		}
		if (runtime_only)
			suppressed = 1;
		if (!(h->flags & PH_FLAG_DWARF) && depth) {
			tot->fp_allocs += s->alloc_count;
			if (pcs[depth - 1] == PH_PC_TRUNCATED && depth <= 3)
				tot->fp_short += s->alloc_count;
		}
		if (!nf) {
			PROF_GROW(frames, 1, fcap);
			frames[nf++] = prof_stacks_frame(&a, "[no stack]", 10);
		}
		wa[C_ALLOC] = s->alloc_bytes;
		wa[C_COUNT] = s->alloc_count;
		wa[C_LEAK] = suppressed ? 0 : s->live_bytes;
		wa[C_PEAK] = s->peak_bytes;
		wb[C_TEMP] = s->temp_count;
		wb[C_LEAK_BLOCKS] = suppressed ? 0 : s->live_blocks;
		alloc_b += s->alloc_bytes;
		alloc_n += s->alloc_count;
		if (suppressed) {
			supp_b += s->live_bytes;
			supp_n += s->live_blocks;
		} else if (s->live_bytes > 0) {
			leak_b += s->live_bytes;
			leak_n += s->live_blocks;
		}
		{
			/* b gets the same stacks in the same order, so the same ids. */
			uint32_t *fb = xmalloc(nf * sizeof(*fb));

			prof_stacks_add(&a, frames, nf, wa);
			for (k = 0; k < nf; k++) {
				size_t l;
				const char *nm = prof_stacks_frame_name(&a, frames[k], &l);

				fb[k] = prof_stacks_frame(&b, nm, l);
			}
			prof_stacks_add(&b, fb, nf, wb);
			free(fb);
		}
	}
	for (id = 0; id < prof_stacks_count(&a); id++) {
		double lb = prof_stacks_weights(&a, (uint32_t)id)[C_LEAK];

		if (lb > 0) {
			PROF_GROW(leaks, nleaks + 1, lcap);
			leaks[nleaks].bytes = lb;
			leaks[nleaks].blocks = prof_stacks_weights(&b, (uint32_t)id)[C_LEAK_BLOCKS];
			leaks[nleaks].id = (uint32_t)id;
			nleaks++;
		}
	}
	for (r = 0; r < NREPORTS; r++) {
		static const struct { int table; size_t col; } where[NREPORTS] = {
			{ 0, C_ALLOC }, { 0, C_COUNT }, { 0, C_LEAK }, { 0, C_PEAK }, { 1, C_TEMP },
		};

		if (write_folded(o, tag, h->pid, (enum report)r, where[r].table ? &b : &a, where[r].col) < 0)
			rc = -1;
	}
	prof_stacks_merge(ma, &a);
	prof_stacks_merge(mb, &b);
	if (!execed || (h->flags & PH_FLAG_EXITED)) {
		/* Blocks live when an image was replaced by exec are not leaks. */
		tot->leak_bytes += leak_b;
		tot->leak_blocks += leak_n;
	}
	tot->supp_bytes += supp_b;
	tot->supp_blocks += supp_n;
	tot->processes++;

	if (prof_verbosity >= 1) {
		const char *how = h->flags & PH_FLAG_EXITED ? "" :
				  execed ? "" :
				  " (did not exit normally: blocks live at its death)";

		if (h->flags & PH_FLAG_SAMPLED)
			prof_warn("%s: sampled every %llu bytes on average: figures are estimates", tag,
				  (unsigned long long)h->sample_mean);
		prof_warn("%s: %s allocation%s, %s allocated, peak %s bytes (%s)", tag,
			  thousands(n1, sizeof(n1), alloc_n), alloc_n == 1 ? "" : "s",
			  prof_fmt_bytes(hb, sizeof(hb), alloc_b),
			  thousands(n2, sizeof(n2), (double)h->peak_bytes),
			  prof_fmt_bytes(n3, sizeof(n3), (double)h->peak_bytes));
		if (leak_b > 0) {
			struct prof_buf site = PROF_BUF_INIT;

			if (execed && !(h->flags & PH_FLAG_EXITED))
				prof_warn("%s: %s bytes in %s block%s live when exec replaced the image (not leaks)",
					  tag, thousands(n1, sizeof(n1), leak_b), thousands(n2, sizeof(n2), leak_n),
					  leak_n == 1 ? "" : "s");
			else
				prof_warn("%s: leaked %s bytes in %s block%s%s", tag, thousands(n1, sizeof(n1), leak_b),
					  thousands(n2, sizeof(n2), leak_n), leak_n == 1 ? "" : "s", how);
			qsort(leaks, nleaks, sizeof(*leaks), cmp_leak);
			for (i = 0; i < nleaks && i < (prof_verbosity >= 2 ? nleaks : 10); i++) {
				size_t depth, k;
				const uint32_t *fr = prof_stacks_frames(&a, leaks[i].id, &depth);

				prof_buf_reset(&site);
				for (k = depth; k-- > 0 && depth - k <= 5;) {
					if (k + 1 < depth)
						prof_buf_addstr(&site, " < ");
					prof_buf_addstr(&site, prof_stacks_frame_name(&a, fr[k], NULL));
				}
				if (depth > 5)
					prof_buf_addstr(&site, " < ...");
				prof_warn("  %s bytes in %s block%s at %s", thousands(n1, sizeof(n1), leaks[i].bytes),
					  thousands(n2, sizeof(n2), leaks[i].blocks),
					  leaks[i].blocks == 1 ? "" : "s", prof_buf_cstr(&site));
			}
			if (nleaks > i && o->temp && !o->keep)
				prof_warn("  ... and %zu more call sites (-v -v lists them all)", nleaks - i);
			else if (nleaks > i)
				prof_warn("  ... and %zu more call sites (see %s/%s.leak.folded)", nleaks - i,
					  o->dir, tag);
			prof_buf_release(&site);
		} else {
			prof_warn("%s: no leaks%s", tag, how);
		}
		if (supp_b > 0 && prof_verbosity >= 2)
			prof_warn("%s: %s bytes in %s block%s of glibc internals or suppressed not reported",
				  tag, thousands(n1, sizeof(n1), supp_b), thousands(n2, sizeof(n2), supp_n),
				  supp_n == 1 ? "" : "s");
		if (h->flags & PH_FLAG_FULL)
			prof_warn("%s: the stack table filled up; later stacks are counted as [no stack]", tag);
	}
	if (f.damaged)
		prof_warn("%s: %lu damaged records left out", tag, f.damaged);
	free(leaks);
	free(frames);
	free(sites);
	prof_stacks_release(&a);
	prof_stacks_release(&b);
	prof_addrspace_free(as);
	if (!o->keep) {
		snprintf(path, sizeof(path), "%s/%s.heap", o->dir, tag);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s.maps", o->dir, tag);
		unlink(path);
	} else {
		snprintf(path, sizeof(path), "%s/%s.heap", o->dir, tag);
		if (truncate(path, (off_t)f.size) < 0)
			prof_warn_errno("%s", path);
	}
	prof_heapfile_close(&f);
	return rc;
}

/* Record files of this run, ordered by pid then sequence. */
static int cmp_tag(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	unsigned long px = strtoul(x, NULL, 10), py = strtoul(y, NULL, 10);
	const char *dx = strchr(x, '.'), *dy = strchr(y, '.');
	unsigned long sx = dx ? strtoul(dx + 1, NULL, 10) : 0, sy = dy ? strtoul(dy + 1, NULL, 10) : 0;

	if (px != py)
		return px < py ? -1 : 1;
	return sx < sy ? -1 : sx > sy;
}

static int postprocess(const struct opts *o, uint64_t run_id, struct totals *tot)
{
	DIR *d = opendir(o->dir);
	struct dirent *e;
	char **tags = NULL;
	size_t n = 0, cap = 0, i;
	struct prof_symbolizer *sym;
	struct prof_stacks ma, mb;
	int rc = 0;

	if (!d) {
		prof_warn_errno("%s", o->dir);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char path[PATH_MAX];
		struct ph_header h;
		int fd;

		if (l < 6 || strcmp(e->d_name + l - 5, ".heap"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", o->dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, PH_MAGIC, 8) &&
		    h.run_id == run_id) {
			PROF_GROW(tags, n + 1, cap);
			tags[n++] = xstrndup(e->d_name, l - 5);
		}
		close(fd);
	}
	closedir(d);
	if (!n) {
		prof_warn("no heap records (a static or setuid program, or the shim could not write)");
		free(tags);
		return -1;
	}
	qsort(tags, n, sizeof(*tags), cmp_tag);
	sym = prof_symbolizer_new(NULL);
	prof_stacks_init(&ma, 4);
	prof_stacks_init(&mb, 2);
	for (i = 0; i < n; i++) {
		/* The next tag of the same pid is a later image: this one exec'd. */
		size_t pl = strcspn(tags[i], ".");
		int execed = i + 1 < n && !strncmp(tags[i], tags[i + 1], pl) && tags[i + 1][pl] == '.';

		if (process_one(o, tags[i], execed, sym, &ma, &mb, tot) < 0)
			rc = -1;
		free(tags[i]);
	}
	free(tags);
	if (o->report != R_NONE) {
		static const struct { int table; size_t col; } where[NREPORTS] = {
			{ 0, C_ALLOC }, { 0, C_COUNT }, { 0, C_LEAK }, { 0, C_PEAK }, { 1, C_TEMP },
		};
		struct prof_stacks t;
		struct prof_meta m = PROF_META_INIT;
		struct prof_output *out = prof_output_open(NULL, PROF_OUT_STREAM, PROF_COMP_NONE);

		prof_stacks_init(&t, 1);
		prof_stacks_merge_column(&t, 0, where[o->report].table ? &mb : &ma, where[o->report].col);
		prof_meta_set(&m, "tool", "profheap");
		prof_meta_set(&m, "report", report_names[o->report]);
		prof_meta_set(&m, "unit", report_units[o->report]);
		if (!out || prof_folded_write(&t, &m, 1, out) < 0)
			rc = -1;
		if (out && prof_output_close(out) < 0)
			rc = -1;
		prof_meta_release(&m);
		prof_stacks_release(&t);
	}
	prof_stacks_release(&ma);
	prof_stacks_release(&mb);
	prof_symbolizer_free(sym);
	return rc;
}

/* ---- the output directory ---------------------------------------------------------- */

/* Remove dir and the files in it (our private directory: nothing else is there). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char *path;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			path = xasprintf("%s/%s", dir, e->d_name);
			if (unlink(path) < 0)
				prof_warn_errno("%s", path);
			free(path);
		}
		closedir(d);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		prof_warn_errno("%s", dir);
}

/*
 * The file a shim marks when it could not record (its path is in
 * PROFHEAP_FAILED): created here with one byte '0', which the shim
 * overwrites in place with '1', so marking needs no free space.
 * Returns 0, or -1 after reporting.
 */
static int failed_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, "0", 1) != 1 || fsync(fd) < 0) {
		prof_warn_errno("cannot create '%s'", path);
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	return close(fd);
}

/* 1 if a shim marked the file (or it is gone), else 0. */
static int failed_marked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char c = '1';

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '1';
		close(fd);
	}
	return c != '0';
}

/* ---- main ------------------------------------------------------------------------ */

static char **build_env(const char *shim, const char *failed, const char *dir, uint64_t run,
			uint64_t interval,
			uint64_t sample, int dwarf, int follow)
{
	extern char **environ;
	size_t n = 0, i, k = 0;
	char **env;
	const char *old = getenv("LD_PRELOAD");

	while (environ[n])
		n++;
	env = xcalloc(n + 9, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "PROFHEAP_", 9) && strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	env[k++] = xasprintf("LD_PRELOAD=%s%s%s", shim, old && *old ? ":" : "", old ? old : "");
	env[k++] = xasprintf("PROFHEAP_DIR=%s", dir);
	env[k++] = xasprintf("PROFHEAP_RUN=%llu", (unsigned long long)run);
	env[k++] = xasprintf("PROFHEAP_INTERVAL=%llu", (unsigned long long)interval);
	env[k++] = xasprintf("PROFHEAP_SAMPLE=%llu", (unsigned long long)sample);
	env[k++] = xasprintf("PROFHEAP_FAILED=%s", failed);
	env[k++] = xstrdup(dwarf ? "PROFHEAP_UNWIND=dwarf" : "PROFHEAP_UNWIND=fp");
	env[k++] = xstrdup(follow ? "PROFHEAP_FOLLOW_FORK=1" : "PROFHEAP_FOLLOW_FORK=0");
	env[k] = NULL;
	return env;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fail-on-leak", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, 'i' },
		{ "keep", no_argument, NULL, 'k' },
		{ "list-options", no_argument, NULL, PROF_OPT_LIST_OPTIONS },
		{ "no-follow-fork", no_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "report", required_argument, NULL, 'r' },
		{ "sample", required_argument, NULL, 's' },
		{ "suppressions", required_argument, NULL, 'S' },
		{ "unwind", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .report = R_NONE };
	double interval_s = 0.01;
	uint64_t sample = 0, run_id;
	int dwarf = 0, follow = 1, created = 0, c, status, r;
	unsigned long bad = 0;
	char *dir = NULL, *cmd = NULL, *shim = NULL, **env = NULL, *failed = NULL;
	int child_started = 0;
	char dirbuf[PATH_MAX];
	struct prof_child child;
	struct totals tot = { 0 };
	struct sigaction sa;
	struct stat st;
	size_t i;

	prof_set_progname(argv[0]);
	while ((c = prof_getopt_long(argc, argv, "+fhi:ko:qr:s:S:u:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.fail_on_leak = 1;
			break;
		case 'F':
			follow = 0;
			break;
		case 'h':
			prof_help(help_text);
		case 'i':
			if (prof_parse_duration(optarg, 1e-3, &interval_s) < 0 || interval_s < 1e-4 ||
			    interval_s > 3600)
				prof_usage_error(SYNOPSIS, "bad interval '%s' (from 100us to 1h; a bare number is ms)",
						 optarg);
			break;
		case 'k':
			o.keep = 1;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'q':
			prof_verbosity = 0;
			break;
		case 'r':
			for (r = 0; r < NREPORTS && strcmp(optarg, report_names[r]); r++)
				;
			if (r == NREPORTS)
				prof_usage_error(SYNOPSIS, "bad report '%s' (alloc, count, leak, peak or temp)",
						 optarg);
			o.report = (enum report)r;
			break;
		case 's':
			if (prof_parse_size(optarg, &sample) < 0 || sample == 0)
				prof_usage_error(SYNOPSIS, "bad sampling interval '%s' (--sample takes a size "
						 "in bytes, e.g. --sample 512K)", optarg);
			break;
		case 'S':
			bad += supp_load(&o.supp, optarg);
			break;
		case 'u':
			if (!strcmp(optarg, "dwarf"))
				dwarf = 1;
			else if (!strcmp(optarg, "fp"))
				dwarf = 0;
			else
				prof_usage_error(SYNOPSIS, "bad unwinder '%s' (fp or dwarf)", optarg);
			break;
		case 'v':
			prof_verbosity++;
			break;
		case PROF_OPT_LIST_OPTIONS:
			prof_list_option_values(longopts, (const struct prof_option_values[]){
				{ "report", "alloc,count,leak,peak,temp" }, { "unwind", "fp,dwarf" },
				{ NULL, NULL } });
		default:
			prof_usage_error(SYNOPSIS, NULL);
		}
	}
	if (optind >= argc)
		prof_usage_error(SYNOPSIS, "no command given");
	status = PROF_EXIT_FAIL;
	if (bad)
		goto out;
	for (i = 0; i < sizeof(builtin_supp) / sizeof(builtin_supp[0]); i++)
		supp_add(&o.supp, builtin_supp[i], strlen(builtin_supp[i]));

	cmd = find_command(argv[optind]);
	if (cmd && is_static_elf(cmd)) {
		prof_warn("%s: statically linked: the heap shim cannot be preloaded into it "
			  "(relink it dynamically)", argv[optind]);
		goto out;
	}
	shim = shim_path();
	if (!shim) {
		prof_warn("libprofheap.so not found beside the profheap executable");
		goto out;
	}
	if (!dir) {
		/*
		 * A private directory, removed at the end; with -k it is kept
		 * as ./profheap.PID, so it is made beside that name.
		 */
		const char *tmp = getenv("TMPDIR");

		if (o.keep)
			tmp = ".";
		else if (!tmp || !*tmp)
			tmp = "/tmp";
		if ((size_t)snprintf(dirbuf, sizeof(dirbuf), "%s/profheap.XXXXXX", tmp) >= sizeof(dirbuf)) {
			prof_warn("TMPDIR '%s' is too long", tmp);
			goto out;
		}
		if (!mkdtemp(dirbuf)) {
			prof_warn_errno("cannot create a directory in '%s'", tmp);
			goto out;
		}
		dir = dirbuf;
		created = o.temp = 1;
	} else if (mkdir(dir, 0777) == 0)
		created = 1;
	else if (errno != EEXIST) {
		prof_warn_errno("cannot create output directory '%s'", dir);
		goto out;
	}
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		prof_warn("output directory '%s' is not a directory", dir);
		goto out;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		prof_warn_errno("output directory '%s' is not writable", dir);
		goto out;
	}
	o.dir = realpath(dir, NULL);
	if (!o.dir) {
		prof_warn_errno("%s", dir);
		goto out;
	}
	run_id = prof_now_ns() ^ ((uint64_t)getpid() << 40);
	failed = xasprintf("%s/run-%llu.failed", o.dir, (unsigned long long)run_id);
	if (failed_create(failed) < 0) {
		free(failed);
		failed = NULL;
		goto out;
	}
	env = build_env(shim, failed, o.dir, run_id, (uint64_t)(interval_s * 1e9 + 0.5), sample, dwarf,
			follow);

	/* With the report on our standard output, the command's goes to the standard error. */
	if (prof_child_spawn_flags(&child, argv + optind, env,
				   o.report != R_NONE ? PROF_CHILD_STDOUT_TO_STDERR : 0) < 0)
		goto out;
	child_pid = child.pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = forward_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	status = prof_child_start(&child, argv[optind]);
	if (status)
		goto out;	/* nothing ran: the directory goes if we made it */
	child_started = 1;
	status = prof_child_wait(child.pid, NULL);
	child_pid = 0;
	/* The command is gone: ^C may interrupt the post-processing again. */
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);

	if (postprocess(&o, run_id, &tot) < 0 && status == 0)
		status = PROF_EXIT_FAIL;
	if (failed_marked(failed)) {
		prof_warn("a profiled process could not write its heap records: the figures are incomplete");
		if (status == 0)
			status = PROF_EXIT_FAIL;
	}
	unlink(failed);
	free(failed);
	failed = NULL;
	if (prof_verbosity >= 1 && tot.fp_allocs > 0 && tot.fp_short * 2 > tot.fp_allocs)
		prof_warn("most stacks stop after one or two frames: the program seems to be built "
			  "without frame pointers (-fno-omit-frame-pointer); try --unwind dwarf");
	if (prof_verbosity >= 1 && tot.processes > 1) {
		char n1[40], n2[40];

		prof_warn("all %d processes: leaked %s bytes in %s block%s", tot.processes,
			  thousands(n1, sizeof(n1), tot.leak_bytes), thousands(n2, sizeof(n2), tot.leak_blocks),
			  tot.leak_blocks == 1 ? "" : "s");
	}
	if (o.temp && o.keep) {
		/* Kept: named after the command's pid, as the files in it are. */
		snprintf(dirbuf, sizeof(dirbuf), "profheap.%d", (int)child.pid);
		if (rename(o.dir, dirbuf) == 0) {
			free((char *)o.dir);
			o.dir = realpath(dirbuf, NULL);
			o.temp = 0;
			if (!o.dir) {
				prof_warn_errno("%s", dirbuf);
				status = status ? status : PROF_EXIT_FAIL;
			}
		} else {
			prof_warn_errno("cannot rename '%s' to '%s'", o.dir, dirbuf);
			o.temp = 0;	/* keep it where it is */
		}
	}
	if (prof_verbosity >= 1 && o.dir && (!o.temp || o.keep))
		prof_warn("output in %s", o.dir);
	if (o.fail_on_leak && tot.leak_bytes > 0 && status == 0) {
		char n1[40];

		prof_warn("--fail-on-leak: %s bytes leaked", thousands(n1, sizeof(n1), tot.leak_bytes));
		status = PROF_EXIT_FAIL;
	}
out:
	if (failed) {
		unlink(failed);
		free(failed);
	}
	if ((o.temp && !o.keep) || (created && !child_started))
		remove_dir(o.dir ? o.dir : dir);	/* ours, or nothing ran: leave nothing */
	for (i = 0; i < o.supp.n; i++)
		free(o.supp.pats[i]);
	free(o.supp.pats);
	for (i = 0; env && env[i]; i++)
		if (!strncmp(env[i], "PROFHEAP_", 9) || !strncmp(env[i], "LD_PRELOAD=", 11))
			free(env[i]);
	free(env);
	free(cmd);
	free(shim);
	free((char *)o.dir);
	c = prof_close_stdout();
	return status ? status : c;
}
