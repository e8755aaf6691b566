#ifndef PROF_GPU_KERNELS_H
#define PROF_GPU_KERNELS_H
/*
 * CUDA kernel tracing (profgpu --kernels): the command runs with the
 * CUDA driver told to load libprofgpu-cupti.so (lib/gpu/cupti/inject.c,
 * through CUDA_INJECTION64_PATH), which writes each CUDA process's
 * kernels, copies and launch stacks to a private directory
 * (gpu/kernels_format.h). When the command has ended, the records of
 * every process are read, the launch stacks symbolized, and written as:
 *  - the profgpu-kernels TSV (prof-formats(5)): one row per kernel,
 *    memcpy and memset, in start order, times on profgpu's clock;
 *  - folded stacks "process;cpu frames...;[launch] API;[gpu] kernel",
 *    weighted by GPU nanoseconds (copies: "process;[gpu] [memcpy HtoD]");
 *  - the kernel and memory summaries (cf. nsys stats cuda_gpu_kern_sum)
 *    on stderr, unless prof_verbosity is 0 (-q).
 * Lifecycle: prof_gpu_kernels_setup before the command starts (the
 * environment to run it with), prof_gpu_kernels_finish after it exited.
 */
#include <stdint.h>

/* profgpu's options of kernel tracing: help lines, long options, parsing. */
#define PROF_GPU_KERNELS_HELP \
	"      --kernels=file     trace CUDA kernels, copies and memsets of command\n" \
	"                         (CUPTI) to file (schema profgpu-kernels); kernel\n" \
	"                         and memory summaries on stderr\n" \
	"      --kernel-stacks=file  folded stacks of the launches, weighted by GPU\n" \
	"                         ns: process;frames;[launch] API;[gpu] kernel\n" \
	"      --kernel-unwind=how  launch stacks: dwarf (default) or fp\n" \
	"      --no-demangle      kernel names as CUDA gives them\n"
enum {
	PROF_GPU_KERNELS_OPT_TSV, PROF_GPU_KERNELS_OPT_STACKS, PROF_GPU_KERNELS_OPT_UNWIND,
	PROF_GPU_KERNELS_OPT_NO_DEMANGLE,
};
/* struct option entries, their values first + PROF_GPU_KERNELS_OPT_* */
#define PROF_GPU_KERNELS_OPTIONS(first) \
	{ "kernels", required_argument, NULL, (first) + PROF_GPU_KERNELS_OPT_TSV }, \
	{ "kernel-stacks", required_argument, NULL, (first) + PROF_GPU_KERNELS_OPT_STACKS }, \
	{ "kernel-unwind", required_argument, NULL, (first) + PROF_GPU_KERNELS_OPT_UNWIND }, \
	{ "no-demangle", no_argument, NULL, (first) + PROF_GPU_KERNELS_OPT_NO_DEMANGLE }

struct prof_gpu_kernels {
	/* options */
	int on;				/* --kernels or --kernel-stacks given */
	const char *tsv_path;		/* --kernels FILE, or NULL */
	const char *folded_path;	/* --kernel-stacks FILE, or NULL */
	int raw_names;			/* --no-demangle */
	const char *unwind;		/* "fp" or "dwarf" (NULL: dwarf) */
	/* state */
	char *dir;			/* the records' directory */
	char **envp;			/* the command's environment */
};

/*
 * Take option opt (PROF_GPU_KERNELS_OPT_*) with its argument; returns 0,
 * or -1 when opt is none of them or its value is bad (said): the caller
 * then reports a usage error.
 */
int prof_gpu_kernels_option(struct prof_gpu_kernels *k, int opt, const char *arg);

/* Nonzero when an output of k is standard output ("-"): the command's goes to stderr. */
int prof_gpu_kernels_stdout(const struct prof_gpu_kernels *k);

/*
 * Make the records' directory and the command's environment (k->envp):
 * the current one with CUDA_INJECTION64_PATH and PROFGPU_KERNELS_DIR.
 * Returns 0, or -1 (reported: the injection library not found beside
 * the tool, or no temporary directory).
 */
int prof_gpu_kernels_setup(struct prof_gpu_kernels *k);

/*
 * Read what the command's processes wrote, write the outputs and the
 * summaries, remove the directory. t0 is the prof_now_ns() that times
 * of profgpu's timeline count from. Says "no CUDA activity" when no
 * process initialised CUDA, the injection's errors, dropped records,
 * processes that ended without flushing. Returns 0, or -1 when an output
 * could not be written or tracing failed (reported).
 */
int prof_gpu_kernels_finish(struct prof_gpu_kernels *k, uint64_t t0);

#endif
