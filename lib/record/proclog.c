#include "record/proclog.h"

#include <string.h>

#include "core/meta.h"
#include "io/output.h"

void prof_proclog_init(struct prof_proclog *l)
{
	memset(l, 0, sizeof(*l));
}

/* A name as one TSV cell: a kernel comm may hold tabs, newlines, any byte below 0x20. */
static void add_name(struct prof_buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++)
		prof_buf_addch(b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
}

void prof_proclog_fork(struct prof_proclog *l, uint64_t time_ns, int pid, int ppid, const char *comm)
{
	prof_buf_addf(&l->rows, "%llu\tfork\t%d\t%d\t", (unsigned long long)time_ns, pid, ppid);
	add_name(&l->rows, comm, strlen(comm));
	prof_buf_addch(&l->rows, '\n');
}

void prof_proclog_exec(struct prof_proclog *l, uint64_t time_ns, int pid, const char *comm, size_t len)
{
	prof_buf_addf(&l->rows, "%llu\texec\t%d\t\t", (unsigned long long)time_ns, pid);
	add_name(&l->rows, comm, len);
	prof_buf_addch(&l->rows, '\n');
}

int prof_proclog_write(const struct prof_proclog *l, const char *path, const struct prof_meta *meta)
{
	struct prof_output *out = prof_output_open(path, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	struct prof_buf head = { 0 };
	int rc = 0;

	if (!out)
		return -1;
	if (meta)
		prof_meta_format(meta, &head);
	prof_buf_addstr(&head, "time_ns\tevent\tpid\tppid\tcomm\n");
	if (prof_output_write(out, head.len ? head.data : "", head.len) < 0 ||
	    prof_output_write(out, l->rows.len ? l->rows.data : "", l->rows.len) < 0)
		rc = -1;
	prof_buf_release(&head);
	if (prof_output_close(out) < 0)
		rc = -1;
	return rc;
}

void prof_proclog_release(struct prof_proclog *l)
{
	prof_buf_release(&l->rows);
}
