// The workload of the perf-deep-* captures (tests/data/README): stacks of
// the shapes that folding must get right, in four threads for SECONDS of
// CPU each (default 0.4):
//   "deep fib"     recursion (fib) and mutual recursion (is_even/is_odd)
//   "deep sort"    std::sort through a lambda comparator and std::function,
//                  templates, operator(), malloc/free in libc
//   "deep-math"    libm (built without frame pointers: [unknown] callers),
//                  an always_inline helper (an "(inlined)" frame with
//                  --call-graph dwarf), getppid (kernel frames)
//   "deep jit"     machine code made at run time, named in /tmp/perf-PID.map
//                  as JIT compilers do (x86-64 only); the map is left for
//                  perf script to read: remove it afterwards
// Build: g++ -O1 -g -fno-omit-frame-pointer -pthread -o deep perf-deep.cc
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <vector>

static double seconds = 0.4;
static volatile unsigned long sink;

static double cpu_now()
{
	timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

namespace deep {
__attribute__((noinline)) unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) bool is_odd(unsigned n);
__attribute__((noinline)) bool is_even(unsigned n)
{
	sink++;
	return n == 0 ? true : is_odd(n - 1);
}
__attribute__((noinline)) bool is_odd(unsigned n)
{
	sink++;
	return n == 0 ? false : is_even(n - 1);
}

template <typename T> struct Table {
	std::vector<T> rows;
	__attribute__((noinline)) void fill(unsigned n, unsigned seed)
	{
		rows.resize(n);
		for (unsigned i = 0; i < n; i++)
			rows[i] = (T)((seed = seed * 1103515245u + 12345u) >> 8);
	}
	__attribute__((noinline)) void sort_by(const std::function<bool(T, T)> &less)
	{
		std::sort(rows.begin(), rows.end(), [&less](T a, T b) { return less(a, b); });
	}
};

static inline __attribute__((always_inline)) double wave(double x)
{
	return std::sin(x) * std::cos(x) + std::sqrt(x);
}

__attribute__((noinline)) double math_step(unsigned n)
{
	double s = 0;
	for (unsigned i = 1; i < n; i++)
		s += wave((double)i);
	return s;
}

__attribute__((noinline)) void syscalls(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += (unsigned long)getppid();
}
} // namespace deep

static void *fib_thread(void *)
{
	pthread_setname_np(pthread_self(), "deep fib");
	for (double end = cpu_now() + seconds; cpu_now() < end;) {
		sink += deep::fib(20);
		sink += deep::is_even(3000 + (unsigned)(sink & 7));
	}
	return nullptr;
}

static void *sort_thread(void *)
{
	deep::Table<unsigned long> t;
	unsigned seed = 1;

	pthread_setname_np(pthread_self(), "deep sort");
	for (double end = cpu_now() + seconds; cpu_now() < end;) {
		t.fill(20000, seed++);
		t.sort_by([](unsigned long a, unsigned long b) { return a % 1000 < b % 1000; });
		void *p = std::malloc(4096 + (seed & 255));
		sink += (unsigned long)p & 1;
		std::free(p);
	}
	return nullptr;
}

static void *math_thread(void *)
{
	pthread_setname_np(pthread_self(), "deep-math");
	for (double end = cpu_now() + seconds; cpu_now() < end;) {
		sink += (unsigned long)deep::math_step(20000);
		deep::syscalls(200);
	}
	return nullptr;
}

static void *jit_thread(void *)
{
#if defined(__x86_64__)
	// mov $100000, %ecx; 1: dec %ecx; jnz 1b; ret
	static const unsigned char code[] = { 0xb9, 0xa0, 0x86, 0x01, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };
	void *mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	pthread_setname_np(pthread_self(), "deep jit");
	if (mem == MAP_FAILED)
		return nullptr;
	std::memcpy(mem, code, sizeof(code));
	std::snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = std::fopen(path, "w")))
		return nullptr;
	std::fprintf(f, "%lx %zx LJitted;.loop(I)V\n", (unsigned long)mem, sizeof(code));
	std::fclose(f);
	void (*fn)();
	std::memcpy(&fn, &mem, sizeof(fn));
	for (double end = cpu_now() + seconds / 4; cpu_now() < end;)
		fn();
#endif
	return nullptr;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { fib_thread, sort_thread, math_thread, jit_thread };
	pthread_t t[4];

	if (argc > 1)
		seconds = std::atof(argv[1]);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], nullptr, fn[i], nullptr);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], nullptr);
	return sink == 42;
}
