/*
 * Messages, numbers and writes for the shim, with no allocation (they run
 * inside malloc), and its spin lock's slow path (internal.h).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "heap/shim/internal.h"

__attribute__((noinline)) void ph_spin_wait(int *l)
{
	unsigned spins = 0;

	while (__atomic_exchange_n(l, 1, ACQUIRE)) {
		while (__atomic_load_n(l, RELAXED)) {
			if (++spins > 200) {
				sched_yield();
				spins = 0;
			} else {
				__builtin_ia32_pause();
			}
		}
	}
}

void ph_say(const char *a, const char *b)
{
	char buf[512];
	size_t n = 0, l;

	l = strlen("libprofheap: ");
	memcpy(buf, "libprofheap: ", l);
	n = l;
	l = strlen(a);
	if (l > 200)
		l = 200;
	memcpy(buf + n, a, l), n += l;
	if (b) {
		l = strlen(b);
		if (l > 250)
			l = 250;
		memcpy(buf + n, ": ", 2), n += 2;
		memcpy(buf + n, b, l), n += l;
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

size_t ph_cat(char *dst, size_t n, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > n)
		return 0;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb);
	memcpy(dst + la + lb, c, lc + 1);
	return la + lb + lc;
}

char *ph_utoa(char *end, uint64_t v)
{
	*--end = 0;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

char *ph_itoa64(char *end, int64_t v)
{
	char *p;

	if (v >= 0)
		return ph_utoa(end, (uint64_t)v);
	p = ph_utoa(end, (uint64_t)-v);
	*--p = '-';
	return p;
}

int ph_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w, n -= (size_t)w;
	}
	return 0;
}
