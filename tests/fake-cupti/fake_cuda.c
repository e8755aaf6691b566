/*
 * A stand-in libcuda.so.1 (and the runtime's cudaLaunchKernel) for
 * tests/profgpu-kernels.sh: cuInit loads $CUDA_INJECTION64_PATH and calls
 * its InitializeInjection, as the real driver does; each API call tells
 * the fake CUPTI (fake_cupti.c, found once the injection loaded it) so
 * that it runs the subscriber's callbacks and writes activity records.
 * A "function" (CUfunction) is a struct fake_fn: name and GPU duration.
 * Built without frame pointers, as NVIDIA's libraries are.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

struct fake_fn { const char *name; uint64_t ns; };
struct fake_ctx { uint32_t id, dev; };

static uint32_t (*api)(int, uint32_t, const char *, int, uint32_t);
static void (*kern)(uint32_t, uint32_t, uint32_t, uint32_t, const char *, const int *, const int *, uint64_t);
static void (*copy)(uint32_t, uint32_t, uint32_t, int, int, uint64_t, uint64_t);
static void (*ctx_create)(uint32_t);
static void (*ctx_destroy)(uint32_t);
static struct fake_ctx *current;
static uint32_t next_ctx = 1;

int cuInit(unsigned flags);
int cuCtxCreate(struct fake_ctx **ctx, unsigned flags, int dev);
int cuCtxDestroy(struct fake_ctx *ctx);
int cuLaunchKernel(const struct fake_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		   unsigned by, unsigned bz, unsigned smem, uintptr_t stream, void **params, void **extra);
int cudaLaunchKernel(const struct fake_fn *f, unsigned gx, unsigned bx, void **args, size_t smem,
		     uintptr_t stream);
int cuMemcpyHtoD(uint64_t dst, const void *src, size_t bytes);
int cuMemcpyDtoH(void *dst, uint64_t src, size_t bytes);
int cuMemsetD8(uint64_t dst, unsigned char value, size_t n);

int cuInit(unsigned flags)
{
	static int done;
	const char *path = getenv("CUDA_INJECTION64_PATH");

	(void)flags;
	if (done++ || !path)
		return 0;
	void *h = dlopen(path, RTLD_NOW);
	int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;

	if (init)
		init();
	*(void **)&api = dlsym(RTLD_DEFAULT, "fakecupti_api");
	*(void **)&kern = dlsym(RTLD_DEFAULT, "fakecupti_kernel");
	*(void **)&copy = dlsym(RTLD_DEFAULT, "fakecupti_copy");
	*(void **)&ctx_create = dlsym(RTLD_DEFAULT, "fakecupti_ctx_create");
	*(void **)&ctx_destroy = dlsym(RTLD_DEFAULT, "fakecupti_ctx_destroy");
	return 0;
}

int cuCtxCreate(struct fake_ctx **ctx, unsigned flags, int dev)
{
	(void)flags;
	*ctx = calloc(1, sizeof(**ctx));
	(*ctx)->id = next_ctx++;
	(*ctx)->dev = (uint32_t)dev;
	if (ctx_create)
		ctx_create((*ctx)->id);
	current = *ctx;
	return 0;
}

int cuCtxDestroy(struct fake_ctx *ctx)
{
	if (ctx_destroy)
		ctx_destroy(ctx->id);
	if (current == ctx)
		current = NULL;
	free(ctx);
	return 0;
}

/* The driver's launch: callbacks around it, the kernel's record. corr: the runtime's, or 0. */
static int launch(const struct fake_fn *f, const int grid[3], const int block[3], uintptr_t stream,
		  uint32_t rt_corr)
{
	uint32_t corr = 0;

	if (api)
		corr = api(1, 307, "cuLaunchKernel", 0, 0);
	if (kern && current)
		kern(current->id, current->dev, (uint32_t)stream, rt_corr ? rt_corr : corr, f->name, grid,
		     block, f->ns);
	if (api)
		api(1, 307, "cuLaunchKernel", 1, corr);
	return 0;
}

int cuLaunchKernel(const struct fake_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		   unsigned by, unsigned bz, unsigned smem, uintptr_t stream, void **params, void **extra)
{
	(void)smem; (void)params; (void)extra;
	return launch(f, (const int[3]){ (int)gx, (int)gy, (int)gz },
		      (const int[3]){ (int)bx, (int)by, (int)bz }, stream, 0);
}

/* The runtime's launch calls the driver's; its kernel record carries the runtime's id. */
int cudaLaunchKernel(const struct fake_fn *f, unsigned gx, unsigned bx, void **args, size_t smem,
		     uintptr_t stream)
{
	uint32_t corr = 0;

	(void)args; (void)smem;
	if (api)
		corr = api(2, 211, "cudaLaunchKernel_v7000", 0, 0);
	launch(f, (const int[3]){ (int)gx, 1, 1 }, (const int[3]){ (int)bx, 1, 1 }, stream, corr);
	if (api)
		api(2, 211, "cudaLaunchKernel_v7000", 1, corr);
	return 0;
}

int cuMemcpyHtoD(uint64_t dst, const void *src, size_t bytes)
{
	(void)dst; (void)src;
	if (copy && current)
		copy(current->id, current->dev, 0, -1, 1, bytes, bytes / 10);	/* 10 GB/s */
	return 0;
}

int cuMemcpyDtoH(void *dst, uint64_t src, size_t bytes)
{
	(void)dst; (void)src;
	if (copy && current)
		copy(current->id, current->dev, 0, -1, 2, bytes, bytes / 20);
	return 0;
}

int cuMemsetD8(uint64_t dst, unsigned char value, size_t n)
{
	(void)dst;
	if (copy && current)
		copy(current->id, current->dev, 0, value, 0, n, n / 100);
	return 0;
}
