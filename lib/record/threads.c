/*
 * Processes and threads of a recording (threads.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/sysfile.h"
#include "base/xalloc.h"
#include "record/threads.h"
#include "symbolize/dwarf_unwind.h"
#include "symbolize/symbolize.h"

void prof_threads_init(struct prof_threads *t, struct prof_symbolizer *sym,
		       struct prof_unwinder *unw)
{
	memset(t, 0, sizeof(*t));
	t->sym = sym;
	t->unw = unw;
	prof_hashmap_init(&t->threads, sizeof(struct prof_thread));
	prof_hashmap_init(&t->procs, sizeof(struct prof_addrspace *));
	prof_hashmap_init(&t->exited, sizeof(struct prof_rec_task));
	t->idle.pid = 0;
	snprintf(t->idle.comm, sizeof(t->idle.comm), "swapper");
}

void prof_threads_release(struct prof_threads *t)
{
	for (size_t i = 0; i < prof_hashmap_count(&t->procs); i++) {
		struct prof_addrspace **as = prof_hashmap_at(&t->procs, i, NULL);

		if (t->unw)
			prof_unwinder_forget(t->unw, *as);
		prof_addrspace_free(*as);
	}
	prof_hashmap_release(&t->procs);
	prof_hashmap_release(&t->threads);
	prof_hashmap_release(&t->exited);
}

/* Free the address space of pid, if any. */
static void forget_process(struct prof_threads *t, int pid)
{
	struct prof_addrspace **pas = prof_hashmap_get(&t->procs, (uint64_t)pid), *as;

	if (!pas)
		return;
	as = *pas;
	prof_hashmap_remove(&t->procs, (uint64_t)pid);
	if (t->unw)
		prof_unwinder_forget(t->unw, as);
	prof_addrspace_free(as);
}

void prof_threads_exit(struct prof_threads *t, const struct prof_rec_task *e)
{
	size_t i;

	if ((int)e->tid <= 0)
		return;
	*(struct prof_rec_task *)prof_hashmap_put(&t->exited, e->tid, NULL) = *e;
	/* backwards: a removal moves the last entry into the hole */
	for (i = prof_hashmap_count(&t->exited); i-- > 0;) {
		uint64_t tid;
		struct prof_rec_task gone = *(struct prof_rec_task *)prof_hashmap_at(&t->exited, i, &tid);

		if (gone.time + PROF_THREADS_EXIT_GRACE_NS > e->time)
			continue;
		prof_hashmap_remove(&t->exited, tid);
		prof_hashmap_remove(&t->threads, tid);
		if (gone.pid == gone.tid)
			forget_process(t, (int)gone.pid);
	}
}

size_t prof_threads_count(const struct prof_threads *t)
{
	return prof_hashmap_count(&t->threads);
}

size_t prof_threads_process_count(const struct prof_threads *t)
{
	return prof_hashmap_count(&t->procs);
}

/* The thread tid, added (process unknown, no name) when new. */
static struct prof_thread *thread_add(struct prof_threads *t, int tid)
{
	int added;
	struct prof_thread *th = prof_hashmap_put(&t->threads, (uint64_t)tid, &added);

	if (added) {
		th->tid = tid;
		th->pid = -1;
	}
	return th;
}

/* The name of thread tid of pid from /proc into comm; comm unchanged when it is gone. */
static void read_comm(int pid, int tid, char comm[16])
{
	char path[96], name[16];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (prof_read_file_line(path, name, sizeof(name)) > 0)
		memcpy(comm, name, sizeof(name));
}

struct prof_thread *prof_threads_get(struct prof_threads *t, int pid, int tid)
{
	struct prof_thread *th;

	if (tid <= 0)
		return &t->idle;
	th = thread_add(t, tid);
	if (th->pid < 0) {
		th->pid = pid;
		if (!th->comm[0])
			read_comm(pid, tid, th->comm);
		/*
		 * Gone already: a short-lived thread's sample can come from
		 * another CPU's buffer before its FORK record, which names it
		 * after its creator. A thread starts with its process's name.
		 */
		if (!th->comm[0] && tid != pid) {
			struct prof_thread *main_thread = prof_threads_find(t, pid);

			if (main_thread && main_thread->comm[0])
				memcpy(th->comm, main_thread->comm, sizeof(th->comm));
			else
				read_comm(pid, pid, th->comm);
		}
		if (!th->comm[0])
			snprintf(th->comm, sizeof(th->comm), "%d", tid);
	}
	return th;
}

struct prof_thread *prof_threads_find(struct prof_threads *t, int tid)
{
	return prof_hashmap_get(&t->threads, (uint64_t)tid);
}

/* The address space of pid, a new empty one when unknown. */
static struct prof_addrspace *addrspace_add(struct prof_threads *t, int pid, int *added)
{
	struct prof_addrspace **as = prof_hashmap_put(&t->procs, (uint64_t)pid, added);

	if (*added) {
		*as = prof_addrspace_new(t->sym, pid);
		/* its mappings' paths are as it sees them: a container's, say */
		prof_addrspace_live(*as);
	}
	return *as;
}

struct prof_addrspace *prof_threads_addrspace(struct prof_threads *t, int pid)
{
	struct prof_addrspace *as;
	char path[64];
	int added;

	if (pid <= 0)
		return NULL;
	as = addrspace_add(t, pid, &added);
	if (!added)
		return as;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (access(path, R_OK) == 0) {
		/* A process that just exited is no news. */
		int v = prof_verbosity;

		prof_verbosity = 0;
		prof_addrspace_load_maps(as, path);
		prof_verbosity = v;
	}
	return as;
}

void prof_threads_mmap(struct prof_threads *t, const struct prof_mmap2 *m)
{
	struct prof_map map;
	char *path;
	int added;

	if ((int)m->pid <= 0 || prof_is_kernel_addr(m->addr))
		return;
	memset(&map, 0, sizeof(map));
	if (m->build_id) {
		memcpy(map.build_id, m->build_id, m->build_id_len);
		map.build_id_len = m->build_id_len;
	}
	map.prot = m->prot;
	map.start = m->addr;
	map.end = m->addr + m->len;
	map.pgoff = m->pgoff;
	path = xstrndup(m->path, m->path_len);
	map.path = path;
	prof_addrspace_add_map(addrspace_add(t, (int)m->pid, &added), &map);
	free(path);
}

void prof_threads_comm(struct prof_threads *t, const struct prof_comm *c)
{
	struct prof_thread *th;
	int added;

	if ((int)c->tid <= 0 || (int)c->pid <= 0)
		return;
	th = thread_add(t, (int)c->tid);
	th->pid = (int)c->pid;
	snprintf(th->comm, sizeof(th->comm), "%.*s", (int)c->comm_len, c->comm);
	if (c->exec) {
		struct prof_addrspace *as = addrspace_add(t, (int)c->pid, &added);

		if (t->unw)
			prof_unwinder_forget(t->unw, as);
		prof_addrspace_reset(as);
	}
}

void prof_threads_fork(struct prof_threads *t, const struct prof_rec_task *f)
{
	struct prof_thread *th, *parent;
	struct prof_addrspace **pas;
	int pid = (int)f->pid, ppid = (int)f->ppid, tid = (int)f->tid, ptid = (int)f->ptid;

	if (tid <= 0 || pid <= 0)
		return;
	/* a tid reused within the grace time: the old thread (and process) is gone */
	if (prof_hashmap_remove(&t->exited, (uint64_t)tid)) {
		prof_hashmap_remove(&t->threads, (uint64_t)tid);
		if (pid != ppid)
			forget_process(t, pid);
	}
	/* Adding the child may move the table: look the parent up after. */
	th = thread_add(t, tid);
	parent = ptid > 0 && ptid != tid ? prof_threads_find(t, ptid) : NULL;
	th->pid = pid;
	if (parent)
		memcpy(th->comm, parent->comm, sizeof(th->comm));
	else
		read_comm(pid, tid, th->comm);
	if (pid != ppid && ppid > 0 && !prof_hashmap_get(&t->procs, (uint64_t)pid) &&
	    (pas = prof_hashmap_get(&t->procs, (uint64_t)ppid))) {
		struct prof_addrspace *as = prof_addrspace_clone(*pas, pid);

		*(struct prof_addrspace **)prof_hashmap_put(&t->procs, (uint64_t)pid, NULL) = as;
	}
}
