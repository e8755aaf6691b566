#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/sysfile.h"
#include "base/xalloc.h"

ssize_t prof_read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0) {
		buf[0] = '\0';
		return -1;
	}
	/* /proc files may come in several reads even when small. */
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			buf[0] = '\0';
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t prof_read_file_line(const char *path, char *buf, size_t size)
{
	ssize_t len = prof_read_small_file(path, buf, size);

	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '\r')
		buf[--len] = '\0';
	return len;
}

long long prof_read_file_ll(const char *path, long long dflt)
{
	char buf[64], *end;
	long long v;

	if (prof_read_small_file(path, buf, sizeof(buf)) <= 0)
		return dflt;
	errno = 0;
	v = strtoll(buf, &end, 10);
	return end == buf || errno ? dflt : v;
}

int prof_read_file_key(const char *path, const char *prefix, char *out, size_t n)
{
	size_t size = 65536, plen = strlen(prefix);
	char *buf = xmalloc(size), *line, *next;
	int found = -1;

	if (n)
		out[0] = '\0';
	if (prof_read_small_file(path, buf, size) < 0) {
		free(buf);
		return -1;
	}
	for (line = buf; line && *line; line = next) {
		char *v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, prefix, plen) != 0)
			continue;
		v = line + strcspn(line, ":\t");
		if (!*v)
			continue;
		v += *v == ':' ? 1 : 0;
		v += strspn(v, " \t:");
		if (n) {
			size_t len = strlen(v);

			if (len >= n)
				len = n - 1;
			memcpy(out, v, len);
			out[len] = '\0';
		}
		found = 0;
		break;
	}
	free(buf);
	return found;
}
