#include <unistd.h>
#include <cstdlib>
volatile unsigned long sink;
namespace calc {
template <typename T> struct Acc {
	__attribute__((noinline)) static T sum(unsigned long n) { T s = 0; for (unsigned long i = 0; i < n; i++) s += (T)(i * i); return s; }
};
__attribute__((noinline)) void spin(unsigned long n) { sink += Acc<unsigned long>::sum(n); }
}
__attribute__((noinline)) static void sys(int n) { for (int i = 0; i < n; i++) sink += (unsigned long)getppid(); }
int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	for (int k = 0; k < rounds; k++) { calc::spin(600000); sys(400); }
	return sink == 42;
}
