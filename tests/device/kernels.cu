// tests/device/kernels.sh's CUDA program: two compute-bound kernels, the
// same grid, heavy doing 3 times light's dependent FMAs per thread, each
// launched from its own host function (kept out of line so that the
// launch stacks name them). GPU time splits 75/25.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void heavy(float *out, int iters)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = 0; i < iters; i++)
		x = x * 0.9999999f + 0.5f;
	out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void light(float *out, int iters)
{
	float x = threadIdx.x * 1e-3f;
	for (int i = 0; i < iters; i++)
		x = x * 0.9999999f + 0.5f;
	out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

static const int BLOCKS = 1024, THREADS = 256, LIGHT_ITERS = 20000;

__attribute__((noinline)) void launch_heavy(float *out)
{
	heavy<<<BLOCKS, THREADS>>>(out, 3 * LIGHT_ITERS);
	__asm__ volatile("");	/* no tail call: this frame stays on the stack */
}

__attribute__((noinline)) void launch_light(float *out)
{
	light<<<BLOCKS, THREADS>>>(out, LIGHT_ITERS);
	__asm__ volatile("");
}

int main()
{
	float *out;

	if (cudaMalloc(&out, sizeof(float) * BLOCKS * THREADS) != cudaSuccess) {
		fprintf(stderr, "kernels: cudaMalloc failed\n");
		return 1;
	}
	for (int i = 0; i < 100; i++) {
		launch_heavy(out);
		launch_light(out);
	}
	if (cudaDeviceSynchronize() != cudaSuccess) {
		fprintf(stderr, "kernels: a kernel failed\n");
		return 1;
	}
	cudaFree(out);
	printf("kernels: 100 heavy, 100 light\n");
	return 0;
}
