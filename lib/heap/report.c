#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/term.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "formats/folded.h"
#include "formats/pprof.h"
#include "heap/launch.h"
#include "heap/records.h"
#include "heap/report.h"
#include "heap/roots.h"
#include "heap/suppressions.h"
#include "io/output.h"
#include "symbolize/symbolize.h"

static const char *const report_names[PROF_HEAP_NREPORTS] = {
	"alloc", "count", "leak", "peak", "temp",
};
static const char *const report_units[PROF_HEAP_NREPORTS] = {
	"bytes", "allocations", "bytes", "bytes", "allocations",
};

const char *prof_heap_report_name(enum prof_heap_column report)
{
	return report_names[report];
}

const char *prof_heap_report_unit(enum prof_heap_column report)
{
	return report_units[report];
}

int prof_heap_report_parse(const char *name)
{
	int r;

	for (r = 0; r < PROF_HEAP_NREPORTS; r++)
		if (!strcmp(name, report_names[r]))
			return r;
	return -1;
}

char *prof_heap_fmt_count(char *buf, size_t n, double v)
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

/* ---- one record file into the table ------------------------------------------ */

/* The state of symbolizing one process's stacks. */
struct stack_walk {
	struct prof_heap_process *p;
	struct prof_symbolizer *sym;
	struct prof_addrspace *as;
	const struct prof_heapfile *f;
	const struct prof_heap_supp *supp;
	uint32_t *frames;		/* root first */
	size_t nframes, cap;
};

static void push_frame(struct stack_walk *w, const char *name, size_t len)
{
	PROF_GROW(w->frames, w->nframes + 1, w->cap);
	w->frames[w->nframes++] = prof_stacks_frame(&w->p->stacks, name, len);
}

/*
 * Symbolize pcs[0..depth) (innermost first) into w->frames, root first.
 * With check_supp, returns 1 when a frame or the object holding it
 * matches a suppression, when every frame lies in the runtime and the
 * walk reached the stack's start, or when the walk was cut short in the
 * loader's start-up (PH_PC_STARTUP: a library's initialiser, below the
 * loader's frames, which the builtin suppressions match when a walk gets
 * there). A walk cut short elsewhere ([truncated]: libstdc++ keeps no
 * frame pointers) hides who called the runtime, often the program (a
 * leaked new std::string is allocated inside libstdc++): its blocks are
 * leaks.
 */
static int symbolize_stack(struct stack_walk *w, const uint64_t *pcs, size_t depth, int check_supp)
{
	int suppressed = 0, runtime_only = depth > 0, startup = 0;
	size_t k;

	w->nframes = 0;
	for (k = depth; k-- > 0;) {
		struct prof_frame fr[32];
		const struct prof_map *mp;
		size_t n, j;

		if (pcs[k] == PH_PC_TRUNCATED) {
			/* the walk was cut short: one honest frame, not garbage */
			push_frame(w, "[truncated]", 11);
			runtime_only = 0;
			continue;
		}
		if (pcs[k] == PH_PC_STARTUP) {
			push_frame(w, "[start-up]", 10);
			startup = 1;
			continue;
		}
		if (pcs[k] & PH_PC_PYTHON) {
			/* --python: a Python frame, named in the file */
			const char *name = prof_heapfile_pyframe(w->f, pcs[k], &n);

			if (!name) {
				w->p->damaged++;
				name = "[bad Python frame]";
				n = strlen(name);
			}
			push_frame(w, name, n);
			if (check_supp && !suppressed)
				suppressed = prof_heap_supp_match(w->supp, name);
			runtime_only = 0;
			continue;
		}
		n = prof_symbolize(w->sym, w->as, pcs[k], PROF_SYM_RETURN, fr, 32);
		mp = prof_addrspace_find(w->as, pcs[k]);
		for (j = n; j-- > 0;) {
			push_frame(w, fr[j].name, strlen(fr[j].name));
			if (check_supp && !suppressed)
				suppressed = prof_heap_supp_match(w->supp, fr[j].name);
		}
		if (check_supp && !suppressed && mp && mp->path[0])
			suppressed = prof_heap_supp_match(w->supp, mp->path);
		if (!mp || !prof_heap_runtime_object(mp->path))
			runtime_only = 0;
	}
	if (!w->nframes)
		push_frame(w, "[no stack]", 10);
	return suppressed || runtime_only || startup;
}

/* Add one call site's counters to the table and the totals. */
static void add_site(struct stack_walk *w, const struct prof_heap_site *s, int suppressed)
{
	struct prof_heap_process *p = w->p;
	prof_weight row[PROF_HEAP_NCOLUMNS];

	row[PROF_HEAP_ALLOC] = s->alloc_bytes;
	row[PROF_HEAP_COUNT] = s->alloc_count;
	row[PROF_HEAP_LEAK] = suppressed ? 0 : s->live_bytes;
	row[PROF_HEAP_PEAK] = s->peak_bytes;
	row[PROF_HEAP_TEMP] = s->temp_count;
	row[PROF_HEAP_LEAK_BLOCKS] = suppressed ? 0 : s->live_blocks;
	prof_stacks_add(&p->stacks, w->frames, w->nframes, row);
	p->alloc_bytes += s->alloc_bytes;
	p->alloc_count += s->alloc_count;
	if (suppressed) {
		p->supp_bytes += s->live_bytes;
		p->supp_blocks += s->live_blocks;
	} else if (s->live_bytes > 0) {
		p->leak_bytes += s->live_bytes;
		p->leak_blocks += s->live_blocks;
	}
}

/* Every stack of f with something recorded into the table. */
static void read_sites(struct stack_walk *w, struct prof_heapfile *f, const struct prof_heap_site *sites)
{
	struct prof_heap_process *p = w->p;
	size_t id;

	for (id = 0; id < f->nstacks; id++) {
		const struct prof_heap_site *s = &sites[id];
		const uint64_t *pcs;
		size_t depth;
		int suppressed;

		if (!s->alloc_count && !s->live_bytes && !s->peak_bytes && !s->temp_count)
			continue;
		pcs = prof_heapfile_stack(f, id, &depth);
		if (!pcs && id) {
			f->damaged++;
			continue;
		}
		suppressed = symbolize_stack(w, pcs, depth, s->live_bytes != 0);
		if (depth && pcs[0] != PH_PC_TRUNCATED && pcs[0] != PH_PC_STARTUP &&
		    !(pcs[0] & PH_PC_PYTHON))	/* the naming line */
			prof_symbolizer_account(w->sym, w->as, pcs[0], PROF_SYM_RETURN,
						(uint64_t)s->alloc_bytes);
		if (!(p->flags & PH_FLAG_DWARF) && depth) {
			p->fp_allocs += s->alloc_count;
			if (pcs[depth - 1] == PH_PC_TRUNCATED && depth <= 3)
				p->fp_short += s->alloc_count;
		}
		add_site(w, s, suppressed);
	}
}

int prof_heap_process_read(struct prof_heap_process *p, const char *heap_path,
			   const char *maps_path, struct prof_symbolizer *sym,
			   const struct prof_heap_supp *supp, const struct prof_heap_roots *roots)
{
	struct prof_heapfile f;
	struct prof_heap_site *sites;
	struct stack_walk w = { .p = p, .sym = sym, .f = &f, .supp = supp };

	memset(p, 0, sizeof(*p));
	prof_stacks_init(&p->stacks, PROF_HEAP_NCOLUMNS);
	if (prof_heapfile_open(&f, heap_path) < 0)
		return -1;
	p->pid = f.h->pid;
	p->ppid = f.h->ppid;
	p->start_ns = f.h->start_ns;
	p->flags = f.h->flags;
	p->peak_bytes = f.h->peak_bytes;
	/*
	 * A peak is committed, with its time, at the first drop after it; one
	 * still pending lasted until the exit: the heap was at its peak then.
	 */
	p->peak_ns = f.h->peak_pending && f.h->end_ns > f.h->start_ns ? f.h->end_ns - f.h->start_ns
									: f.h->peak_ns;
	p->sample_mean = f.h->sample_mean;
	p->used = f.size;
	p->exe = xstrndup(f.h->exe, strnlen(f.h->exe, sizeof(f.h->exe)));
	if (p->flags & (PH_FLAG_PYTHON | PH_FLAG_PYTHON_UNSUPPORTED))
		snprintf(p->python, sizeof(p->python), "%.*s",
			 (int)strnlen(f.h->python, sizeof(f.h->python)), f.h->python);
	if (p->flags & PH_FLAG_EXEC)
		p->exec_path = xstrndup(f.h->exec_path, strnlen(f.h->exec_path, sizeof(f.h->exec_path)));
	sites = xcalloc(f.nstacks ? f.nstacks : 1, sizeof(*sites));
	prof_heapfile_sum(&f, sites);
	w.as = prof_addrspace_new(sym, f.h->pid);
	if (f.h->mnt_ino && f.h->root_ino) {
		/*
		 * Its paths are those of the tree it saw: another one than ours
		 * is reached through the root it handed over, never at the same
		 * path here (another file, or none, may be there).
		 */
		struct prof_procns tree = { .mnt_dev = f.h->mnt_dev, .mnt_ino = f.h->mnt_ino,
					    .root_dev = f.h->root_dev, .root_ino = f.h->root_ino };
		int dirfd = -1, nsfd = -1;

		prof_heap_roots_find(roots, &tree, &dirfd, &nsfd);
		prof_addrspace_saw(w.as, &tree, dirfd, nsfd);
	}
	if (maps_path && access(maps_path, R_OK) == 0)
		prof_addrspace_load_maps(w.as, maps_path);
	else if (maps_path)
		prof_warn("%s: missing: frames stay unresolved", maps_path);
	read_sites(&w, &f, sites);
	p->damaged += f.damaged;
	free(w.frames);
	free(sites);
	prof_addrspace_free(w.as);
	prof_heapfile_close(&f);
	return 0;
}

void prof_heap_process_release(struct prof_heap_process *p)
{
	prof_stacks_release(&p->stacks);
	free(p->exe);
	free(p->exec_path);
	p->exe = p->exec_path = NULL;
}

/* ---- what comes out of the table ------------------------------------------------ */

static int compare_leaks(const void *a, const void *b)
{
	const struct prof_heap_leak *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct prof_heap_leak *prof_heap_leaks(const struct prof_stacks *t, size_t *n)
{
	struct prof_heap_leak *leaks = NULL;
	size_t cap = 0, id;

	*n = 0;
	for (id = 0; id < prof_stacks_count(t); id++) {
		const prof_weight *w = prof_stacks_weights(t, (uint32_t)id);

		if (w[PROF_HEAP_LEAK] > 0) {
			PROF_GROW(leaks, *n + 1, cap);
			leaks[*n].bytes = (double)w[PROF_HEAP_LEAK];
			leaks[*n].blocks = (double)w[PROF_HEAP_LEAK_BLOCKS];
			leaks[*n].id = (uint32_t)id;
			(*n)++;
		}
	}
	if (*n)
		qsort(leaks, *n, sizeof(*leaks), compare_leaks);
	return leaks;
}

void prof_heap_site_format(const struct prof_stacks *t, uint32_t id, size_t max_frames,
			   struct prof_buf *out)
{
	size_t depth, k;
	const uint32_t *fr = prof_stacks_frames(t, id, &depth);

	for (k = depth; k-- > 0;) {
		if (!strncmp(prof_stacks_frame_name(t, fr[k], NULL), "py::", 4)) {
			depth = k + 1;	/* frames root first: the innermost Python one */
			break;
		}
	}
	for (k = depth; k-- > 0 && depth - k <= max_frames;) {
		if (k + 1 < depth)
			prof_buf_addstr(out, " < ");
		prof_buf_addstr(out, prof_stacks_frame_name(t, fr[k], NULL));
	}
	if (depth > max_frames)
		prof_buf_addstr(out, " < ...");
}

/* Column report of t as folded stacks; p (or NULL) names the process. */
static int write_folded(const struct prof_stacks *t, enum prof_heap_column report, int pid,
			const struct prof_heap_process *p, struct prof_output *out)
{
	struct prof_stacks one;
	struct prof_meta m = PROF_META_INIT;
	int rc;

	prof_stacks_init(&one, 1);
	prof_stacks_merge_column(&one, 0, t, (size_t)report);
	prof_meta_set(&m, "tool", "profheap");
	prof_meta_set(&m, "report", report_names[report]);
	prof_meta_set(&m, "unit", report_units[report]);
	if (pid > 0)
		prof_meta_setf(&m, "pid", "%d", pid);
	if (p && p->ppid > 0)
		prof_meta_setf(&m, "ppid", "%d", p->ppid);
	if (p && p->start_ns)
		prof_meta_setf(&m, "start_ns", "%llu", (unsigned long long)p->start_ns);
	if (p && p->peak_bytes && p->peak_ns)
		prof_meta_setf(&m, "peak_ns", "%llu", (unsigned long long)p->peak_ns);
	if (p && p->exe && p->exe[0])
		prof_meta_set(&m, "exe", p->exe);
	if (p && (p->flags & PH_FLAG_PYTHON))
		prof_meta_set(&m, "python", p->python);
	/* without it, objects of 512 bytes or less come from pymalloc's arenas, unseen */
	if (p && (p->flags & PH_FLAG_PYTHON))
		prof_meta_set(&m, "pythonmalloc", p->flags & PH_FLAG_PYTHONMALLOC ? "malloc" : "pymalloc");
	rc = prof_folded_write(&one, &m, 1, out) < 0 ? -1 : 0;
	prof_meta_release(&m);
	prof_stacks_release(&one);
	return rc;
}

int prof_heap_write_folded(const struct prof_stacks *t, enum prof_heap_column report, int pid,
			   struct prof_output *out)
{
	return write_folded(t, report, pid, NULL, out);
}

int prof_heap_write_pprof(const struct prof_stacks *t, enum prof_heap_column report,
			  struct prof_output *out)
{
	/* each report's types: pprof's names, as Go's heap profiles have them */
	static const struct prof_pprof_type types[PROF_HEAP_NREPORTS][2] = {
		[PROF_HEAP_ALLOC] = { { "alloc_space", "bytes", PROF_HEAP_ALLOC },
				      { "alloc_objects", "count", PROF_HEAP_COUNT } },
		[PROF_HEAP_COUNT] = { { "alloc_objects", "count", PROF_HEAP_COUNT },
				      { "alloc_space", "bytes", PROF_HEAP_ALLOC } },
		[PROF_HEAP_LEAK] = { { "leak_space", "bytes", PROF_HEAP_LEAK },
				     { "leak_objects", "count", PROF_HEAP_LEAK_BLOCKS } },
		[PROF_HEAP_PEAK] = { { "peak_space", "bytes", PROF_HEAP_PEAK } },
		[PROF_HEAP_TEMP] = { { "temp_objects", "count", PROF_HEAP_TEMP } },
	};
	struct prof_pprof_profile p;
	size_t i;

	memset(&p, 0, sizeof(p));
	p.t = t;
	p.default_type = 0;
	for (i = 0; i < 2 && types[report][i].type; i++)
		p.types[p.ntypes++] = types[report][i];
	return prof_pprof_write(&p, out);
}

int prof_heap_process_write(const struct prof_heap_process *p, const char *dir, const char *tag)
{
	char path[PATH_MAX];
	int r, rc = 0;

	for (r = 0; r < PROF_HEAP_NREPORTS; r++) {
		struct prof_output *out;

		snprintf(path, sizeof(path), "%s/%s.%s.folded", dir, tag, report_names[r]);
		out = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);
		if (!out || write_folded(&p->stacks, (enum prof_heap_column)r, p->pid, p, out) < 0)
			rc = -1;
		if (out && prof_output_close(out) < 0)
			rc = -1;
	}
	return rc;
}

/* ---- the report on stderr ------------------------------------------------------ */

static const char *plural(double n)
{
	return n == 1 ? "" : "s";
}

/* The largest leak sites, then where the rest is. */
static void report_leak_sites(const struct prof_heap_process *p, const char *tag, const char *more_in)
{
	struct prof_buf site = PROF_BUF_INIT;
	char n1[40], n2[40];
	size_t nleaks, i, shown;
	struct prof_heap_leak *leaks = prof_heap_leaks(&p->stacks, &nleaks);

	/* on a terminal each site is one line, its outer callers giving way */
	unsigned width = prof_term_width(STDERR_FILENO);
	char line[1024];

	shown = prof_verbosity >= 2 ? nleaks : nleaks < 10 ? nleaks : 10;
	for (i = 0; i < shown; i++) {
		prof_buf_reset(&site);
		prof_buf_addf(&site, "  %s bytes in %s block%s at ",
			      prof_heap_fmt_count(n1, sizeof(n1), leaks[i].bytes),
			      prof_heap_fmt_count(n2, sizeof(n2), leaks[i].blocks), plural(leaks[i].blocks));
		prof_heap_site_format(&p->stacks, leaks[i].id, 5, &site);
		prof_warn("%s", prof_term_cut(line, sizeof(line), prof_buf_cstr(&site),
					      width > strlen(prof_progname) + 22 ?
					      width - strlen(prof_progname) - 2 : 20 * !!width));
	}
	if (nleaks > shown && !more_in)
		prof_warn("  ... and %zu more call sites (-v -v lists them all)", nleaks - shown);
	else if (nleaks > shown)
		prof_warn("  ... and %zu more call sites (see %s/%s.leak.folded)", nleaks - shown, more_in,
			  tag);
	prof_buf_release(&site);
	free(leaks);
}

/*
 * Sampling saw no leak: that is not "no leaks". Leaked blocks of L bytes
 * in all escape every sample with probability e^(-L / mean), more than
 * 1 time in 20 below mean * ln 20 (about 3 means).
 */
static void report_unsampled(const struct prof_heap_process *p, const char *tag, const char *how)
{
	char mean[40], miss[40];

	prof_fmt_bytes(mean, sizeof(mean), (double)p->sample_mean);
	prof_fmt_bytes(miss, sizeof(miss), (double)p->sample_mean * log(20.0));
	prof_warn("%s: no leak was sampled%s; sampling every %s on average misses leaks of under %s "
		  "in all more than 1 time in 20 (run without --sample for an exact leak check)",
		  tag, how, mean, miss);
}

void prof_heap_process_report(const struct prof_heap_process *p, const char *tag, int execed,
			      const char *more_in)
{
	int exited = (p->flags & PH_FLAG_EXITED) != 0, sampled = (p->flags & PH_FLAG_SAMPLED) != 0;
	int replaced = execed || (p->flags & PH_FLAG_EXEC);
	const char *how = exited || replaced ? "" : " (did not exit normally: blocks live at its death)";
	char n1[40], n2[40], n3[40], hb[40], why[512];

	if (prof_verbosity < 1)
		return;
	if (!execed && (p->flags & PH_FLAG_EXEC) && p->exec_path)
		prof_warn("%s: exec'd %s, which was not profiled (%s); the figures of %s are those of "
			  "%s up to the exec", tag, p->exec_path,
			  prof_heap_unfollowed_reason(p->exec_path, p->flags, why, sizeof(why)), tag,
			  p->exe && p->exe[0] ? p->exe : "the program it replaced");
	if (sampled)
		prof_warn("%s: sampled every %llu bytes on average: figures are estimates", tag,
			  (unsigned long long)p->sample_mean);
	prof_warn("%s: %s allocation%s, %s allocated, peak %s bytes (%s)", tag,
		  prof_heap_fmt_count(n1, sizeof(n1), p->alloc_count), plural(p->alloc_count),
		  prof_fmt_bytes(hb, sizeof(hb), p->alloc_bytes),
		  prof_heap_fmt_count(n2, sizeof(n2), (double)p->peak_bytes),
		  prof_fmt_bytes(n3, sizeof(n3), (double)p->peak_bytes));
	if (p->leak_bytes > 0) {
		prof_heap_fmt_count(n1, sizeof(n1), p->leak_bytes);
		prof_heap_fmt_count(n2, sizeof(n2), p->leak_blocks);
		if (replaced && !exited) {
			/* not leaks, so no leak sites: they stay in the image's own TAG.leak.folded */
			prof_warn("%s: %s bytes in %s block%s live when exec replaced the image (not leaks)",
				  tag, n1, n2, plural(p->leak_blocks));
		} else {
			prof_warn("%s: leaked %s%s bytes in %s block%s%s", tag, sampled ? "an estimated " : "",
				  n1, n2, plural(p->leak_blocks), how);
			report_leak_sites(p, tag, more_in);
		}
	} else if (sampled) {
		report_unsampled(p, tag, how);
	} else {
		prof_warn("%s: no leaks%s", tag, how);
	}
	if (p->supp_bytes > 0 && prof_verbosity >= 2)
		prof_warn("%s: %s bytes in %s block%s of glibc internals or suppressed not reported",
			  tag, prof_heap_fmt_count(n1, sizeof(n1), p->supp_bytes),
			  prof_heap_fmt_count(n2, sizeof(n2), p->supp_blocks), plural(p->supp_blocks));
	if (p->flags & PH_FLAG_FULL)
		prof_warn("%s: the stack table filled up; later stacks are counted as [no stack]", tag);
	if ((p->flags & PH_FLAG_PYTHON) && !(p->flags & PH_FLAG_PYTHONMALLOC))
		prof_warn("%s: Python %s ran with PYTHONMALLOC set: objects of up to 512 bytes from "
			  "pymalloc's arenas were not seen (unset it, or set it to malloc)", tag, p->python);
}

void prof_heap_totals_report(const struct prof_heap_totals *tot)
{
	char n1[40], n2[40];

	if (prof_verbosity < 1)
		return;
	if (tot->fp_allocs > 0 && tot->fp_short * 2 > tot->fp_allocs)
		prof_warn("most stacks stop after one or two frames: the program seems to be built "
			  "without frame pointers (-fno-omit-frame-pointer); try --unwind dwarf");
	if (tot->processes > 1)
		prof_warn("all %d processes: leaked %s bytes in %s block%s", tot->processes,
			  prof_heap_fmt_count(n1, sizeof(n1), tot->leak_bytes),
			  prof_heap_fmt_count(n2, sizeof(n2), tot->leak_blocks), plural(tot->leak_blocks));
}

/* ---- the whole run --------------------------------------------------------------- */

/* Record files ordered by pid, then sequence. */
static int compare_tags(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	unsigned long px = strtoul(x, NULL, 10), py = strtoul(y, NULL, 10);
	const char *dx = strchr(x, '.'), *dy = strchr(y, '.');
	unsigned long sx = dx ? strtoul(dx + 1, NULL, 10) : 0, sy = dy ? strtoul(dy + 1, NULL, 10) : 0;

	if (px != py)
		return px < py ? -1 : 1;
	return sx < sy ? -1 : sx > sy;
}

/* 1 if path is a record file of run run_id. */
static int is_run_file(const char *path, uint64_t run_id)
{
	struct ph_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, PH_MAGIC, 8) &&
	     h.run_id == run_id;
	close(fd);
	return ok;
}

char **prof_heap_run_tags(const char *dir, uint64_t run_id, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **tags = NULL, path[PATH_MAX];
	size_t cap = 0;

	*n = 0;
	if (!d) {
		prof_warn_errno("%s", dir);
		return NULL;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".heap"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (is_run_file(path, run_id)) {
			PROF_GROW(tags, *n + 1, cap);
			tags[(*n)++] = xstrndup(e->d_name, len - 5);
		}
	}
	closedir(d);
	if (*n)
		qsort(tags, *n, sizeof(*tags), compare_tags);
	return tags ? tags : xcalloc(1, sizeof(*tags));
}

/* The record files of tag are read: remove them, or trim them to what is used. */
static void dispose_record_files(const struct prof_heap_run *run, const char *tag, uint64_t used)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.heap", run->dir, tag);
	if (run->keep) {
		if (used && truncate(path, (off_t)used) < 0)
			prof_warn_errno("%s", path);
		return;
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s.maps", run->dir, tag);
	unlink(path);
}

/* Empty the leak columns of t (its own files are written). */
static void clear_leaks(struct prof_stacks *t)
{
	uint32_t id, n = (uint32_t)prof_stacks_count(t);

	for (id = 0; id < n; id++) {
		prof_weight *w = prof_stacks_weights(t, id);

		w[PROF_HEAP_LEAK] = w[PROF_HEAP_LEAK_BLOCKS] = 0;
	}
}

static int postprocess_one(const struct prof_heap_run *run, const char *tag, int execed,
			   struct prof_symbolizer *sym, struct prof_stacks *merged,
			   struct prof_heap_totals *tot)
{
	struct prof_heap_process p;
	char heap[PATH_MAX], maps[PATH_MAX];
	int rc = 0, leaks;

	snprintf(heap, sizeof(heap), "%s/%s.heap", run->dir, tag);
	snprintf(maps, sizeof(maps), "%s/%s.maps", run->dir, tag);
	if (prof_heap_process_read(&p, heap, maps, sym, run->supp, run->roots) < 0) {
		prof_heap_process_release(&p);
		return -1;
	}
	if (prof_heap_process_write(&p, run->dir, tag) < 0)
		rc = -1;
	/* Blocks live when exec replaced an image are not leaks, followed or not. */
	leaks = !(execed || (p.flags & PH_FLAG_EXEC)) || (p.flags & PH_FLAG_EXITED);
	if (!leaks)
		clear_leaks(&p.stacks);
	prof_stacks_merge(merged, &p.stacks);
	if (leaks) {
		tot->leak_bytes += p.leak_bytes;
		tot->leak_blocks += p.leak_blocks;
	}
	tot->supp_bytes += p.supp_bytes;
	tot->supp_blocks += p.supp_blocks;
	tot->fp_allocs += p.fp_allocs;
	tot->fp_short += p.fp_short;
	tot->processes++;
	tot->python += (p.flags & PH_FLAG_PYTHON) != 0;
	tot->python_unsupported += (p.flags & PH_FLAG_PYTHON_UNSUPPORTED) != 0;
	prof_heap_process_report(&p, tag, execed, run->more_in);
	if (p.damaged)
		prof_warn("%s: %lu damaged records left out", tag, p.damaged);
	dispose_record_files(run, tag, p.used);
	prof_heap_process_release(&p);
	return rc;
}

int prof_heap_postprocess(const struct prof_heap_run *run, struct prof_stacks *merged,
			  struct prof_heap_totals *tot)
{
	struct prof_sym_options so;
	struct prof_symbolizer *sym;
	size_t n, i;
	char **tags = prof_heap_run_tags(run->dir, run->run_id, &n);
	int rc = 0;

	if (!tags)
		return -1;
	tot->files += (int)n;
	if (!n) {
		prof_warn("no heap records (a static or setuid program, or the shim could not write)");
		free(tags);
		return -1;
	}
	prof_sym_options_init(&so);
	so.demangle = !run->no_demangle;
	sym = prof_symbolizer_new(&so);
	for (i = 0; i < n; i++) {
		/* The next tag of the same pid is a later image: this one exec'd. */
		size_t pl = strcspn(tags[i], ".");
		int execed = i + 1 < n && !strncmp(tags[i], tags[i + 1], pl) && tags[i + 1][pl] == '.';

		if (postprocess_one(run, tags[i], execed, sym, merged, tot) < 0)
			rc = -1;
		free(tags[i]);
	}
	free(tags);
	prof_symbolizer_naming_report(sym, "allocated bytes");
	prof_symbolizer_free(sym);
	return rc;
}
