/*
 * lib/heap/report.c: record files (written here, with return addresses
 * into this program and the mappings of this process) into the stack
 * table, the folded reports, the leak report and the run's sums.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "heap/records.h"
#include "heap/report.h"
#include "heap/suppressions.h"
#include "io/output.h"
#include "symbolize/symbolize.h"

#define FILE_SIZE (1u << 20)

/* The call sites the records point into (return addresses: start + 1). */
__attribute__((noinline, used)) static void leaf_site(void) { __asm__ volatile(""); }
__attribute__((noinline, used)) static void mid_site(void) { __asm__ volatile(""); }
__attribute__((noinline, used)) static void outer_site(void) { __asm__ volatile(""); }
__attribute__((noinline, used)) static void other_site(void) { __asm__ volatile(""); }

#define RA(fn) ((uint64_t)(uintptr_t)(fn) + 1)

struct site {
	uint64_t pcs[4];		/* innermost first */
	uint32_t depth;
	uint64_t alloc_bytes, alloc_count, temp_count;
	int64_t live_bytes, live_blocks, peak_bytes;
};

static char dir[] = "/tmp/test_report.XXXXXX";

static uint64_t put(char *image, uint64_t *used, const void *p, size_t n)
{
	uint64_t off = *used;

	memcpy(image + off, p, n);
	*used += (n + 63) & ~(size_t)63;
	return off;
}

/*
 * Write dir/TAG.heap: one thread, sites[i] as stack id i (sites[0] must
 * be the empty stack), every peak committed. Returns its used size.
 */
static uint64_t write_heap(const char *tag, int pid, uint32_t flags, uint64_t run_id,
			   const struct site *sites, size_t n)
{
	char *image = xcalloc(1, FILE_SIZE), path[512];
	struct ph_header *h = (struct ph_header *)image;
	struct ph_counters c[8];
	struct ph_thread t;
	uint64_t used = (sizeof(*h) + 63) & ~(uint64_t)63, dirofs = used, usedsz;
	FILE *f;
	size_t i;

	memcpy(h->magic, PH_MAGIC, 8);
	h->version = PH_VERSION;
	h->header_size = sizeof(*h);
	h->count_unit = 1;
	h->run_id = run_id;
	h->pid = pid;
	h->flags = flags;
	h->peak_bytes = 12345;
	used += PH_DIR_CHUNK * 8;
	memset(c, 0, sizeof(c));
	for (i = 0; i < n; i++) {
		uint64_t rec[2 + 4] = { 0, sites[i].depth };

		memcpy(rec + 2, sites[i].pcs, sites[i].depth * sizeof(uint64_t));
		((uint64_t *)(image + dirofs))[i] = put(image, &used, rec, (2 + sites[i].depth) * 8);
		c[i].alloc_bytes = sites[i].alloc_bytes;
		c[i].alloc_count = sites[i].alloc_count;
		c[i].temp_count = sites[i].temp_count;
		c[i].live_bytes = sites[i].live_bytes;
		c[i].live_blocks = sites[i].live_blocks;
		c[i].peak_bytes = sites[i].peak_bytes;
		c[i].gen = 1;
	}
	h->stack_dir[0] = dirofs;
	h->nstacks = n;
	memset(&t, 0, sizeof(t));
	t.counters = put(image, &used, c, n * sizeof(c[0]));
	t.cap = n;
	h->threads[0] = put(image, &used, &t, sizeof(t));
	h->nthreads = 1;
	h->peak_gen = 1;
	h->used = used;
	snprintf(path, sizeof(path), "%s/%s.heap", dir, tag);
	f = fopen(path, "wb");
	if (f) {
		fwrite(image, 1, FILE_SIZE, f);
		fclose(f);
	}
	usedsz = used;
	free(image);
	return usedsz;
}

/* Mark dir/TAG.heap as having exec'd path, from the image /usr/bin/old-image. */
static void set_exec_path(const char *tag, const char *path)
{
	char file[512], exe[512] = "/usr/bin/old-image", exec_path[512] = { 0 };
	int fd;

	snprintf(file, sizeof(file), "%s/%s.heap", dir, tag);
	snprintf(exec_path, sizeof(exec_path), "%s", path);
	fd = open(file, O_WRONLY);
	if (fd < 0)
		return;
	if (pwrite(fd, exe, sizeof(exe), offsetof(struct ph_header, exe)) != (ssize_t)sizeof(exe) ||
	    pwrite(fd, exec_path, sizeof(exec_path), offsetof(struct ph_header, exec_path)) !=
	    (ssize_t)sizeof(exec_path))
		fprintf(stderr, "cannot write %s\n", file);
	close(fd);
}

/* This process's mappings as TAG.maps (what the shim saves). */
static void write_maps(const char *tag)
{
	char path[512], buf[1 << 16];
	FILE *in = fopen("/proc/self/maps", "r"), *out;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s.maps", dir, tag);
	out = fopen(path, "w");
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* The sites of the main test process (stack id = index). */
static void main_sites(struct site *s)
{
	memset(s, 0, 5 * sizeof(*s));
	s[0].alloc_bytes = 8, s[0].alloc_count = 1;			/* no stack */
	s[1] = (struct site){ { RA(leaf_site), RA(mid_site), RA(outer_site) }, 3,
			      1000, 10, 2, 300, 3, 500 };
	s[2] = (struct site){ { RA(other_site), RA(outer_site) }, 2, 200, 2, 0, 200, 2, 200 };
	s[3] = (struct site){ { RA(getpid) }, 1, 50, 1, 0, 50, 1, 50 };	/* the runtime's own */
	s[4] = (struct site){ { RA(leaf_site), PH_PC_TRUNCATED }, 2, 40, 4, 4, 0, 0, 0 };
}

static uint32_t find_stack(const struct prof_stacks *t, const char *text)
{
	struct prof_buf b = PROF_BUF_INIT;
	uint32_t id, found = UINT32_MAX;

	for (id = 0; id < prof_stacks_count(t); id++) {
		prof_buf_reset(&b);
		prof_stacks_format(t, id, &b);
		if (!strcmp(prof_buf_cstr(&b), text))
			found = id;
	}
	prof_buf_release(&b);
	return found;
}

static int row_is(const struct prof_stacks *t, const char *text, const double *want)
{
	uint32_t id = find_stack(t, text);
	const prof_weight *w;
	int i;

	if (id == UINT32_MAX)
		return 0;
	w = prof_stacks_weights(t, id);
	for (i = 0; i < PROF_HEAP_NCOLUMNS; i++)
		if (w[i] != want[i])
			return 0;
	return 1;
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

/* Write v at offset off of dir/TAG.heap. */
static void patch_heap(const char *tag, size_t off, const void *v, size_t n)
{
	char file[512];
	int fd;

	snprintf(file, sizeof(file), "%s/%s.heap", dir, tag);
	fd = open(file, O_WRONLY);
	if (fd < 0 || pwrite(fd, v, n, (off_t)off) != (ssize_t)n)
		fprintf(stderr, "cannot write %s\n", file);
	if (fd >= 0)
		close(fd);
}

/* prof_heap_process_report() of p into a string (static). */
static char *report_text(const struct prof_heap_process *p, const char *tag)
{
	char err[512];
	int saved = dup(2), fd;
	char *text;

	snprintf(err, sizeof(err), "%s/stderr", dir);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	prof_verbosity = 1;
	prof_heap_process_report(p, tag, 0, NULL);
	prof_verbosity = 0;
	dup2(saved, 2);
	close(saved);
	text = slurp(err);
	unlink(err);
	return text;
}

/*
 * Frames of the runtime (getpid: libc) in a walk cut short: who called
 * the runtime is unknown, often the program (a new std::string leaked
 * inside libstdc++), so the block is a leak; cut short in the loader's
 * start-up, it is a library initialiser's, as under the loader's frames.
 * Sampled: never "no leaks".
 */
static void test_runtime_and_sampled(struct prof_symbolizer *sym, struct prof_heap_supp *supp)
{
	struct prof_heap_process p;
	struct site s[4];
	char heap[512], maps[512];
	uint64_t mean = 1u << 20;
	uint32_t flags = PH_FLAG_EXITED | PH_FLAG_SAMPLED;

	memset(s, 0, sizeof(s));
	s[0].alloc_bytes = 8, s[0].alloc_count = 1;
	s[1] = (struct site){ { RA(getpid), PH_PC_TRUNCATED }, 2, 64, 1, 0, 64, 1, 64 };
	s[2] = (struct site){ { RA(getpid), PH_PC_STARTUP }, 2, 128, 1, 0, 128, 1, 128 };
	s[3] = (struct site){ { RA(leaf_site), PH_PC_STARTUP }, 2, 256, 1, 0, 256, 1, 256 };
	write_heap("4343", 4343, PH_FLAG_EXITED, 9, s, 4);	/* not run 1 (test_run) */
	write_maps("4343");
	snprintf(heap, sizeof(heap), "%s/4343.heap", dir);
	snprintf(maps, sizeof(maps), "%s/4343.maps", dir);
	TEST("process: runtime frames cut short are a leak; a stack cut in the loader's start-up is not") {
		CHECK(prof_heap_process_read(&p, heap, maps, sym, supp, NULL) == 0);
		CHECK(p.leak_bytes == 64 && p.leak_blocks == 1);
		CHECK(p.supp_bytes == 128 + 256 && p.supp_blocks == 2);
		CHECK(find_stack(&p.stacks, "[start-up];leaf_site") != UINT32_MAX);
		prof_heap_process_release(&p);
	}
	s[1].live_bytes = s[1].live_blocks = 0;
	write_heap("4343", 4343, flags, 9, s, 4);
	patch_heap("4343", offsetof(struct ph_header, sample_mean), &mean, sizeof(mean));
	TEST("process: sampled, nothing leaked seen: not \"no leaks\", what sampling can miss") {
		const char *text;

		CHECK(prof_heap_process_read(&p, heap, maps, sym, supp, NULL) == 0);
		text = report_text(&p, "4343");
		CHECK(strstr(text, "figures are estimates") != NULL);
		CHECK(strstr(text, "no leaks") == NULL);
		CHECK(strstr(text, "test_report: 4343: no leak was sampled; sampling every 1.00 MiB on "
			      "average misses leaks of under 3.00 MiB in all more than 1 time in 20") != NULL);
		prof_heap_process_release(&p);
	}
}

static void test_process(struct prof_symbolizer *sym, struct prof_heap_supp *supp)
{
	struct prof_heap_process p;
	char heap[512], path[512];
	struct site s[5];
	uint64_t used;

	main_sites(s);
	used = write_heap("4242", 4242, PH_FLAG_EXITED, 1, s, 5);
	write_maps("4242");
	snprintf(heap, sizeof(heap), "%s/4242.heap", dir);
	snprintf(path, sizeof(path), "%s/4242.maps", dir);
	TEST("process: one table, six columns; suppressed and runtime blocks apart") {
		static const double deep[] = { 1000, 10, 300, 500, 2, 3 };
		static const double other[] = { 200, 2, 0, 200, 0, 0 };	/* suppressed */
		static const double none[] = { 8, 1, 0, 0, 0, 0 };
		static const double cut[] = { 40, 4, 0, 0, 4, 0 };

		CHECK(prof_heap_process_read(&p, heap, path, sym, supp, NULL) == 0);
		CHECK(p.stacks.nweights == PROF_HEAP_NCOLUMNS);
		CHECK(p.pid == 4242 && p.flags == PH_FLAG_EXITED && p.peak_bytes == 12345);
		CHECK(p.used == used && p.damaged == 0);
		CHECK(row_is(&p.stacks, "outer_site;mid_site;leaf_site", deep));
		CHECK(row_is(&p.stacks, "outer_site;other_site", other));
		CHECK(row_is(&p.stacks, "[no stack]", none));
		CHECK(row_is(&p.stacks, "[truncated];leaf_site", cut));
		CHECK(p.alloc_bytes == 1298 && p.alloc_count == 18);
		CHECK(p.leak_bytes == 300 && p.leak_blocks == 3);
		CHECK(p.supp_bytes == 250 && p.supp_blocks == 3);
		CHECK(p.fp_allocs == 17 && p.fp_short == 4);	/* all but [no stack]; the cut one */
	}
	TEST("process: leaks largest first, sites innermost first") {
		struct prof_buf b = PROF_BUF_INIT;
		struct prof_heap_leak *leaks;
		size_t n;

		leaks = prof_heap_leaks(&p.stacks, &n);
		CHECK(n == 1 && leaks && leaks[0].bytes == 300 && leaks[0].blocks == 3);
		if (n) {
			prof_heap_site_format(&p.stacks, leaks[0].id, 5, &b);
			CHECK_STR(prof_buf_cstr(&b), "leaf_site < mid_site < outer_site");
			prof_buf_reset(&b);
			prof_heap_site_format(&p.stacks, leaks[0].id, 2, &b);
			CHECK_STR(prof_buf_cstr(&b), "leaf_site < mid_site < ...");
		}
		free(leaks);
		prof_buf_release(&b);
	}
	TEST("process: the five folded files") {
		CHECK(prof_heap_process_write(&p, dir, "4242") == 0);
		snprintf(path, sizeof(path), "%s/4242.leak.folded", dir);
		CHECK_STR(slurp(path), "# tool=profheap report=leak unit=bytes pid=4242\n"
			  "outer_site;mid_site;leaf_site 300\n");
		snprintf(path, sizeof(path), "%s/4242.temp.folded", dir);
		CHECK_STR(slurp(path), "# tool=profheap report=temp unit=allocations pid=4242\n"
			  "[truncated];leaf_site 4\nouter_site;mid_site;leaf_site 2\n");
		snprintf(path, sizeof(path), "%s/4242.count.folded", dir);
		CHECK(strstr(slurp(path), "\n[no stack] 1\n") != NULL);
	}
	TEST("process: the folded files name the process: parent, start, program") {
		p.ppid = 4000;
		p.start_ns = 123456789;
		CHECK(prof_heap_process_write(&p, dir, "4242") == 0);
		snprintf(path, sizeof(path), "%s/4242.alloc.folded", dir);
		CHECK(strncmp(slurp(path), "# tool=profheap report=alloc unit=bytes pid=4242 ppid=4000 start_ns=123456789\n",
			      strlen("# tool=profheap report=alloc unit=bytes pid=4242 ppid=4000 start_ns=123456789\n")) == 0);
		p.ppid = 0;
		p.start_ns = 0;
	}
	TEST("process: the leak report on stderr") {
		char err[512];
		int saved = dup(2), fd;

		snprintf(err, sizeof(err), "%s/stderr", dir);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		close(fd);
		prof_verbosity = 1;
		prof_heap_process_report(&p, "4242", 0, NULL);
		prof_verbosity = 0;
		prof_heap_process_report(&p, "4242", 0, NULL);	/* quiet */
		dup2(saved, 2);
		close(saved);
		CHECK_STR(slurp(err),
			  "test_report: 4242: 18 allocations, 1.27 KiB allocated, peak 12,345 bytes (12.1 KiB)\n"
			  "test_report: 4242: leaked 300 bytes in 3 blocks\n"
			  "test_report:   300 bytes in 3 blocks at leaf_site < mid_site < outer_site\n");
		unlink(err);
	}
	prof_heap_process_release(&p);
}

static void test_run(struct prof_heap_supp *supp)
{
	struct site s[5], e[2];
	struct prof_stacks merged;
	struct prof_heap_totals tot = { 0 };
	struct prof_heap_run run = { .dir = dir, .run_id = 1, .supp = supp };
	char path[512];
	struct stat st;
	char **tags;
	size_t n, i;
	uint64_t used;

	main_sites(s);
	write_heap("4242", 4242, PH_FLAG_EXITED, 1, s, 5);	/* exec'd: its leaks are not */
	memset(e, 0, sizeof(e));
	e[1] = (struct site){ { RA(leaf_site), RA(mid_site), RA(outer_site) }, 3, 70, 7, 0, 70, 7, 70 };
	used = write_heap("4242.1", 4242, PH_FLAG_EXECED, 1, e, 2);	/* did not exit */
	write_heap("77", 77, PH_FLAG_EXITED, 1, e, 2);
	write_heap("99", 99, PH_FLAG_EXITED, 2, e, 2);		/* another run */
	write_maps("4242");
	write_maps("4242.1");
	write_maps("77");
	TEST("run: its record files, by pid then sequence") {
		tags = prof_heap_run_tags(dir, 1, &n);
		CHECK(tags && n == 3);
		if (tags && n == 3) {
			CHECK_STR(tags[0], "77");
			CHECK_STR(tags[1], "4242");
			CHECK_STR(tags[2], "4242.1");
		}
		for (i = 0; tags && i < n; i++)
			free(tags[i]);
		free(tags);
		tags = prof_heap_run_tags(dir, 3, &n);
		CHECK(tags && n == 0);
		free(tags);
	}
	TEST("run: merged table, sums, files trimmed with keep") {
		static const double deep[] = { 1000 + 70 + 70, 10 + 7 + 7, 300 + 70 + 70, 500 + 70 + 70, 2, 3 + 7 + 7 };

		prof_verbosity = 0;
		prof_stacks_init(&merged, PROF_HEAP_NCOLUMNS);
		run.keep = 1;
		CHECK(prof_heap_postprocess(&run, &merged, &tot) == 0);
		CHECK(row_is(&merged, "outer_site;mid_site;leaf_site", deep));
		CHECK(tot.files == 3 && tot.processes == 3);
		/* 4242 exec'd but exited normally later: its leaks count; 4242.1 counts as not exited */
		CHECK(tot.leak_bytes == 300 + 70 + 70 && tot.leak_blocks == 3 + 7 + 7);
		CHECK(tot.supp_bytes == 250 && tot.supp_blocks == 3);
		snprintf(path, sizeof(path), "%s/4242.1.heap", dir);
		CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == used);
		snprintf(path, sizeof(path), "%s/77.peak.folded", dir);
		CHECK_STR(slurp(path), "# tool=profheap report=peak unit=bytes pid=77\n"
			  "outer_site;mid_site;leaf_site 70\n");
		prof_stacks_release(&merged);
	}
	TEST("run: a later image's blocks live at exec are not leaks; files removed") {
		memset(&tot, 0, sizeof(tot));
		write_heap("4242", 4242, 0, 1, s, 5);		/* replaced by exec, never exited */
		prof_stacks_init(&merged, PROF_HEAP_NCOLUMNS);
		run.keep = 0;
		CHECK(prof_heap_postprocess(&run, &merged, &tot) == 0);
		CHECK(tot.leak_bytes == 70 + 70 && tot.processes == 3);
		snprintf(path, sizeof(path), "%s/4242.heap", dir);
		CHECK(stat(path, &st) < 0);
		snprintf(path, sizeof(path), "%s/4242.maps", dir);
		CHECK(stat(path, &st) < 0);
		snprintf(path, sizeof(path), "%s/99.heap", dir);
		CHECK(stat(path, &st) == 0);			/* not this run's */
		prof_stacks_release(&merged);
	}
	TEST("run: an exec the shim could not follow: a note, the blocks live at exec are not leaks") {
		static const double deep[] = { 1000 + 70, 10 + 7, 70, 500 + 70, 2, 7 };
		char err[512], *text;
		int saved = dup(2), fd;

		memset(&tot, 0, sizeof(tot));
		write_heap("4242", 4242, PH_FLAG_EXEC, 1, s, 5);	/* no later image */
		set_exec_path("4242", "/nonexistent/static");
		write_maps("4242");
		write_heap("77", 77, PH_FLAG_EXITED, 1, e, 2);
		write_maps("77");
		snprintf(err, sizeof(err), "%s/stderr", dir);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		close(fd);
		prof_verbosity = 1;
		prof_stacks_init(&merged, PROF_HEAP_NCOLUMNS);
		CHECK(prof_heap_postprocess(&run, &merged, &tot) == 0);
		prof_heap_totals_report(&tot);
		prof_verbosity = 0;
		dup2(saved, 2);
		close(saved);
		text = slurp(err);
		CHECK(strstr(text, "test_report: 4242: exec'd /nonexistent/static, which was not profiled "
			      "(it cannot be examined any more: No such file or directory); the figures of "
			      "4242 are those of /usr/bin/old-image up to the exec\n") != NULL);
		CHECK(strstr(text, "test_report: 4242: 300 bytes in 3 blocks live when exec replaced the "
			      "image (not leaks)\n") != NULL);
		CHECK(strstr(text, "300 bytes in 3 blocks at") == NULL);	/* not listed as leak sites */
		CHECK(strstr(text, "test_report: all 2 processes: leaked 70 bytes in 7 blocks\n") != NULL);
		CHECK(tot.leak_bytes == 70 && tot.leak_blocks == 7 && tot.processes == 2);
		CHECK(row_is(&merged, "outer_site;mid_site;leaf_site", deep));
		/* its own file keeps what was live at the exec */
		snprintf(path, sizeof(path), "%s/4242.leak.folded", dir);
		CHECK_STR(slurp(path), "# tool=profheap report=leak unit=bytes pid=4242 exe=/usr/bin/old-image\n"
			  "outer_site;mid_site;leaf_site 300\n");
		prof_stacks_release(&merged);
		unlink(err);
	}
	TEST("run: no record files is an error") {
		memset(&tot, 0, sizeof(tot));
		prof_stacks_init(&merged, PROF_HEAP_NCOLUMNS);
		CHECK(prof_heap_postprocess(&run, &merged, &tot) == -1 && tot.files == 0);
		prof_stacks_release(&merged);
	}
}

static void test_names(void)
{
	TEST("report names and units; thousands") {
		char b[40];

		CHECK(prof_heap_report_parse("alloc") == PROF_HEAP_ALLOC);
		CHECK(prof_heap_report_parse("temp") == PROF_HEAP_TEMP);
		CHECK(prof_heap_report_parse("leak_blocks") == -1 && prof_heap_report_parse("") == -1);
		CHECK_STR(prof_heap_report_name(PROF_HEAP_PEAK), "peak");
		CHECK_STR(prof_heap_report_unit(PROF_HEAP_COUNT), "allocations");
		CHECK_STR(prof_heap_fmt_count(b, sizeof(b), 1234567.4), "1,234,567");
		CHECK_STR(prof_heap_fmt_count(b, sizeof(b), 999), "999");
		CHECK_STR(prof_heap_fmt_count(b, sizeof(b), -5), "0");
	}
}

/* Remove what the tests left in dir, then dir. */
static void cleanup(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

int main(void)
{
	struct prof_heap_supp supp = PROF_HEAP_SUPP_INIT;
	struct prof_sym_options so;
	struct prof_symbolizer *sym;

	prof_set_progname("test_report");
	if (!mkdtemp(dir))
		return 2;
	prof_sym_options_init(&so);
	so.cache = 0;
	sym = prof_symbolizer_new(&so);
	prof_heap_supp_add(&supp, "^other_site", 11);
	prof_heap_supp_add_builtin(&supp);
	test_names();
	test_process(sym, &supp);
	test_runtime_and_sampled(sym, &supp);
	prof_symbolizer_free(sym);
	setenv("PROFTOOLS_NO_CACHE", "1", 1);
	test_run(&supp);
	prof_heap_supp_release(&supp);
	cleanup();
	return UNIT_RESULT();
}
