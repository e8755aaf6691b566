/*
 * Kernel symbols (internal.h): the text symbols of /proc/kallsyms, the
 * kernel's and its modules', read once per symbolizer, or its parsed copy
 * cached per boot and module set (disk_cache.c), searched in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "symbolize/internal.h"

int prof_sym_parse_kallsyms_line(char *line, uint64_t *addr, char *type, char **name)
{
	char *q, *tab;
	unsigned long long a = strtoull(line, &q, 16);

	if (q == line || q[0] != ' ' || !q[1] || q[2] != ' ')
		return 0;
	if (q[1] != 't' && q[1] != 'T' && q[1] != 'w' && q[1] != 'W')
		return 0;
	*addr = a;
	*type = q[1];
	*name = q + 3;
	tab = strchr(*name, '\t');
	if (tab)
		*tab = 0;
	return 1;
}

/*
 * Read /proc/kallsyms whole into s->kstrings (NUL-terminated), in big
 * chunks: each read(2) walks the kernel's symbol table. Returns its length.
 */
static size_t read_kallsyms(struct prof_symbolizer *s)
{
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (;;) {
		if (cap - len < (1 << 16)) {
			cap = cap ? cap * 2 : (8 << 20);
			s->kstrings = xrealloc(s->kstrings, cap + 1);
		}
		n = read(fd, s->kstrings + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (s->kstrings)
		s->kstrings[len] = 0;
	return len;
}

/*
 * Parse s->kstrings[0..len) into s->ksyms, names left in the buffer.
 * Returns 0 when every address is 0 (kptr_restrict hides them): no
 * symbols then.
 */
static int parse_kallsyms(struct prof_symbolizer *s, size_t len)
{
	char *p = s->kstrings, *end = p + len;
	size_t cap = 0;
	int nonzero = 0, sorted = 1;

	for (; p < end; p++) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		uint64_t a;
		char type;

		if (!nl)
			nl = end;
		*nl = 0;
		if (prof_sym_parse_kallsyms_line(p, &a, &type, &name)) {
			if (a)
				nonzero = 1;
			PROF_GROW(s->ksyms, s->nksyms + 1, cap);
			if (s->nksyms && s->ksyms[s->nksyms - 1].addr > a)
				sorted = 0;
			s->ksyms[s->nksyms].addr = a;
			s->ksyms[s->nksyms].size = 0;
			s->ksyms[s->nksyms].end = 0;
			s->ksyms[s->nksyms].mini = 0;
			s->ksyms[s->nksyms].debug = 0;
			s->ksyms[s->nksyms].go = 0;
			s->ksyms[s->nksyms].rank = type == 'T' ? 0 : 1;
			s->ksyms[s->nksyms].name = name;
			s->nksyms++;
		}
		p = nl;
	}
	if (!nonzero) {
		free(s->ksyms);
		s->ksyms = NULL;
		s->nksyms = 0;
		return 0;
	}
	/* Sorted is the usual case: then the first of equal addresses is kept. */
	prof_sym_sort(s->ksyms, &s->nksyms, sorted);
	return 1;
}

int prof_symbolizer_kernel_ok(struct prof_symbolizer *s)
{
	size_t len;

	if (s->k_loaded)
		return s->k_ok;
	s->k_loaded = 1;
	if (prof_sym_kcache_load(s) == 0) {
		s->k_ok = 1;
		return 1;
	}
	len = read_kallsyms(s);
	if (!s->kstrings || !parse_kallsyms(s, len))
		return 0;
	s->k_ok = 1;
	prof_sym_kcache_store(s);
	return 1;
}

const char *prof_sym_kernel_name(const struct prof_symbolizer *s, uint64_t addr)
{
	const struct sym *sym;

	if (s->kmap)
		return prof_sym_kcache_find(s, addr);
	sym = prof_sym_find(s->ksyms, s->nksyms, addr);
	return sym ? sym->name : NULL;
}

void prof_sym_kernel_release(struct prof_symbolizer *s)
{
	free(s->ksyms);
	free(s->kstrings);
	if (s->kmap)
		munmap((void *)s->kmap, s->kmap_len);
	s->ksyms = NULL;
	s->kstrings = NULL;
	s->kmap = NULL;
	s->nksyms = s->kmap_len = s->kmap_n = 0;
}
