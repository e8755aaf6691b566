#ifndef PROF_GPU_KERNELS_FORMAT_H
#define PROF_GPU_KERNELS_FORMAT_H
/*
 * The record file libprofgpu-cupti.so (lib/gpu/cupti/) writes in every
 * process that initialises CUDA, and profgpu --kernels (gpu/kernels.h)
 * reads: DIR/PID.rec, with DIR/PID.maps (a copy of /proc/PID/maps taken
 * at the process's end, to symbolize its launch stacks). Native byte
 * order: both sides run on the same machine, at the same time.
 *
 * The file: a struct pgk_header, then records, each a struct pgk_rec
 * followed by len payload bytes (len a multiple of 8). A file whose last
 * record is not PGK_END belongs to a process that did not end normally
 * (killed): what CUPTI still held is lost, and the reader says so.
 */
#include <stdint.h>

#define PGK_MAGIC "PGKREC01"
#define PGK_MAX_PCS 128		/* frames of one launch stack */
#define PGK_MAX_NAME 4096	/* a kernel name is cut to this many bytes */

struct pgk_header {
	char magic[8];
	uint32_t pid, cupti_version;
	/* CLOCK_MONOTONIC minus CUPTI's clock (cuptiGetTimestamp), in ns */
	int64_t clock_offset;
	char comm[16];		/* /proc/self/comm, NUL-padded */
};

enum pgk_type {
	PGK_STACK = 1,		/* struct pgk_stack, then n uint64_t pcs */
	PGK_LAUNCH,		/* struct pgk_launch */
	PGK_KERNEL,		/* struct pgk_kernel, then name_len bytes (padded to 8) */
	PGK_COPY,		/* struct pgk_copy: a memcpy or a memset */
	PGK_DROPPED,		/* uint64_t: records CUPTI dropped (buffer full) */
	PGK_ERROR,		/* a message (padded with NULs): why nothing is traced */
	PGK_END,		/* the process ended normally: everything flushed */
};

struct pgk_rec {
	uint32_t type, len;
};

struct pgk_stack {
	uint32_t id, n;		/* ids from 1, in the order first seen */
};

/* The API call that launched a kernel (its correlation id), and where from. */
struct pgk_launch {
	uint32_t correlation, tid, stack, api;	/* api: index in pgk_api_names */
};

/* The launch APIs traced, in the order of pgk_api_names. */
#define PGK_API_NAMES { "cudaLaunchKernel", "cudaLaunchCooperativeKernel", \
	"cudaLaunchKernelExC", "cudaGraphLaunch", "cuLaunchKernel", \
	"cuLaunchCooperativeKernel", "cuLaunchKernelEx", "cuGraphLaunch" }
#define PGK_NAPI 8

struct pgk_kernel {
	uint64_t start, end;	/* CUPTI's clock */
	uint32_t device, context, stream, correlation;
	int32_t grid[3], block[3];
	uint32_t registers, static_shared, dynamic_shared, name_len;
};

struct pgk_copy {
	uint64_t start, end, bytes;
	uint32_t device, context, stream, correlation;
	uint32_t memset;	/* 1: a memset (value in kind), 0: a memcpy */
	uint32_t kind;		/* memcpy: CUPTI's copy kind (1 HtoD, 2 DtoH, 8 DtoD ...) */
};

#endif
