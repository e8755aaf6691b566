/*
 * A CUDA program for the fake driver (tests/profgpu-kernels.sh):
 * scenario argv[1]. Built with frame pointers; the launching functions
 * are kept out of line so that stacks name them.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct fake_fn { const char *name; uint64_t ns; };

static int (*cuInit_)(unsigned);
static int (*cuCtxCreate_)(void **, unsigned, int);
static int (*cuCtxDestroy_)(void *);
static int (*cuLaunchKernel_)(const struct fake_fn *, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, unsigned, uintptr_t, void **, void **);
static int (*cudaLaunchKernel_)(const struct fake_fn *, unsigned, unsigned, void **, size_t, uintptr_t);
static int (*htod)(uint64_t, const void *, size_t);
static int (*dtoh)(void *, uint64_t, size_t);
static int (*memset8)(uint64_t, unsigned char, size_t);

/* 3:1: attention 300 us, activation 100 us per launch */
static const struct fake_fn attention = { "_Z9attentionPKfPfi", 300000 };
static const struct fake_fn activation = { "_ZN4gelu6kernelIfEEvPT_", 100000 };

__attribute__((noinline)) static void attention_layer(uintptr_t stream)
{
	cuLaunchKernel_(&attention, 128, 1, 1, 256, 1, 1, 0, stream, NULL, NULL);
	__asm__ volatile("");
}

__attribute__((noinline)) static void activation_layer(uintptr_t stream)
{
	cudaLaunchKernel_(&activation, 64, 128, NULL, 0, stream);
	__asm__ volatile("");
}

__attribute__((noinline)) static void hostile(void)
{
	static const struct fake_fn names[] = {
		{ "tab\there", 1000 }, { "semi;colon", 1000 }, { "new\nline", 1000 },
		{ "bad\xff\xfeutf8", 1000 },
	};
	for (int i = 0; i < 4; i++)
		cuLaunchKernel_(&names[i], 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "mix";
	void *h, *ctx0, *ctx1;

	if (strcmp(s, "none") == 0) {
		puts("no cuda here");
		return 3;
	}
	if (!(h = dlopen("libcuda.so.1", RTLD_NOW))) {
		fprintf(stderr, "app: %s\n", dlerror());
		return 99;
	}
	*(void **)&cuInit_ = dlsym(h, "cuInit");
	*(void **)&cuCtxCreate_ = dlsym(h, "cuCtxCreate");
	*(void **)&cuCtxDestroy_ = dlsym(h, "cuCtxDestroy");
	*(void **)&cuLaunchKernel_ = dlsym(h, "cuLaunchKernel");
	*(void **)&cudaLaunchKernel_ = dlsym(h, "cudaLaunchKernel");
	*(void **)&htod = dlsym(h, "cuMemcpyHtoD");
	*(void **)&dtoh = dlsym(h, "cuMemcpyDtoH");
	*(void **)&memset8 = dlsym(h, "cuMemsetD8");
	cuInit_(0);
	if (strcmp(s, "init-only") == 0)
		return 0;
	if (strcmp(s, "exec") == 0) {
		/* two kernels, delivered when their context goes; then the same
		 * process, a new image, which initialises CUDA again */
		cuCtxCreate_(&ctx0, 0, 0);
		attention_layer(1);
		attention_layer(1);
		cuCtxDestroy_(ctx0);
		execl("/proc/self/exe", argv[0], "mix", (char *)NULL);
		return 98;
	}
	cuCtxCreate_(&ctx0, 0, 0);
	htod(0, NULL, 1 << 20);
	memset8(0, 0, 1 << 16);
	if (strcmp(s, "hostile") == 0) {
		hostile();
		cuCtxDestroy_(ctx0);
		return 0;
	}
	if (strcmp(s, "track") == 0) {
		/* busy for longer: 1, 2, 3 kernels in successive 100 ms */
		for (int i = 1; i <= 3; i++) {
			for (int j = 0; j < i; j++)
				attention_layer(1);
			usleep(100000);
		}
		cuCtxDestroy_(ctx0);
		return 0;
	}
	if (strcmp(s, "drop") == 0) {
		for (int i = 0; i < 500; i++)
			attention_layer(1);
		cuCtxDestroy_(ctx0);
		return 0;
	}
	for (int i = 0; i < 10; i++) {
		attention_layer(1 + (i & 1));	/* two streams */
		activation_layer(1);
	}
	dtoh(NULL, 0, 1 << 20);
	/* the context destroyed mid-run; work goes on on another device */
	cuCtxDestroy_(ctx0);
	cuCtxCreate_(&ctx1, 0, 1);
	for (int i = 0; i < 10; i++) {
		attention_layer(3);
		activation_layer(3);
	}
	if (strcmp(s, "killed") == 0)
		kill(getpid(), SIGKILL);
	return 5;
}
