/*
 * Continuous recording: one file per interval (rotate.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "io/input.h"
#include "io/output.h"
#include "record/rotate.h"
#include "record/sample_writer.h"

#define NS 1000000000LL
#define MAX_INTERVAL_S 86400

/* ---- options ---- */

const char *prof_rotate_option(struct prof_rotate_options *o, const char *name, const char *arg)
{
	static char why[160];
	uint64_t v;
	double s;

	if (strcmp(name, "rotate") == 0) {
		if (prof_parse_duration(arg, 1, &s) != 0 || s < 1 || s > MAX_INTERVAL_S ||
		    s != (double)(unsigned)s) {
			snprintf(why, sizeof(why), "--rotate: invalid interval '%s' (whole seconds, 1s to 24h)", arg);
			return why;
		}
		o->interval_s = (unsigned)s;
	} else if (strcmp(name, "keep") == 0) {
		if (prof_parse_u64(arg, &v) != 0 || v == 0) {
			snprintf(why, sizeof(why), "--keep: invalid file count '%s'", arg);
			return why;
		}
		o->keep = v;
	} else {
		if (prof_parse_size(arg, &v) != 0 || v == 0) {
			snprintf(why, sizeof(why), "--max-bytes: invalid size '%s'", arg);
			return why;
		}
		o->max_bytes = v;
	}
	return NULL;
}

const char *prof_rotate_check(struct prof_rotate_options *o, const char *output, int no_header)
{
	if (!o->interval_s)
		return o->keep || o->max_bytes ? "--keep and --max-bytes need --rotate" : NULL;
	if (!output || strcmp(output, "-") == 0)
		return "--rotate needs -o DIR (the directory of the interval files)";
	if (no_header)
		return "--rotate keeps the metadata line (each file's interval): no --no-header";
	o->dir = output;
	return NULL;
}

/* ---- the rotation ---- */

/*
 * Hold DIR/.profrec.lock (flock, released when the process ends however
 * it ends) with this process's id in it; -1 after reporting when another
 * recorder holds it: two recorders in one directory would replace each
 * other's interval files (named by the second they start) and prune
 * each other's. The holder removes the file when done
 * (prof_rotation_free()), so a lock taken on a file just removed is
 * taken again on the new one (the path must still name the file locked).
 */
static int lock_dir(const char *dir, char **pathp)
{
	char *path = xasprintf("%s/.profrec.lock", dir), pid[32] = "";
	struct stat held, named;
	int fd, n;

	for (int tries = 0;; tries++) {
		int locked;

		if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0) {
			prof_warn_errno("%s", path);
			goto fail;
		}
		locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
		if (!locked && errno != EWOULDBLOCK) {
			prof_warn_errno("%s", path);
			goto fail;
		}
		if (!locked || tries == 100) {
			ssize_t r = pread(fd, pid, sizeof(pid) - 1, 0);

			pid[r > 0 ? r : 0] = 0;
			pid[strcspn(pid, "\n")] = 0;
			prof_warn("%s: another recorder%s%s%s is writing its intervals here (it holds %s): "
				  "one directory per recording", dir, *pid ? " (pid " : "", pid,
				  *pid ? ")" : "", path);
			goto fail;
		}
		if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_ino == named.st_ino &&
		    held.st_dev == named.st_dev)
			break;
		close(fd);	/* removed by its last holder meanwhile: lock the new one */
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		prof_warn_errno("%s", path);	/* the lock holds all the same */
	*pathp = path;
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(path);
	return -1;
}

struct prof_rotation *prof_rotation_new(const struct prof_rotate_options *o, int folded)
{
	struct prof_rotation *rot = xcalloc(1, sizeof(*rot));
	char *dir = xstrdup(o->dir);
	size_t len = strlen(dir);
	struct stat st;

	/* "DIR/" names DIR: no doubled slash in the file names. */
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = 0;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		goto fail;
	if (stat(dir, &st) != 0)
		goto fail;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		goto fail;
	}
	if (access(dir, W_OK | X_OK) != 0)
		goto fail;
	if ((rot->lock_fd = lock_dir(dir, &rot->lock_path)) < 0) {
		free(dir);
		free(rot);
		return NULL;
	}
	rot->opt = *o;
	rot->opt.dir = dir;
	rot->folded = folded;
	rot->suffix = folded ? "folded" : "tsv";
	return rot;
fail:
	prof_warn_errno("%s", dir);
	free(dir);
	free(rot);
	return NULL;
}

void prof_rotation_free(struct prof_rotation *rot)
{
	if (!rot)
		return;
	if (rot->out) {
		prof_output_abort(rot->out);
		if (rot->stage)
			unlink(rot->stage);
	}
	prof_meta_release(&rot->meta);
	unlink(rot->lock_path);	/* before the lock goes: see lock_dir() */
	close(rot->lock_fd);
	free(rot->lock_path);
	free(rot->stage);
	free(rot->name);
	free((char *)rot->opt.dir);
	free(rot);
}

/* The metadata's from and until: Unix seconds, three decimals. */
static void set_time(struct prof_rotation *rot, const char *key, uint64_t mono_ns)
{
	int64_t wall = (int64_t)mono_ns + rot->wall_minus_mono;

	prof_meta_setf(&rot->meta, key, "%lld.%03lld", (long long)(wall / NS),
		       (long long)(wall % NS / 1000000));
}

/*
 * Open the interval starting at from: names, metadata, its hidden file
 * (or /dev/null when that cannot be made: the interval is dropped, the
 * recording goes on), the writer restarted on it.
 */
static int open_interval(struct prof_rotation *rot, struct prof_sample_writer *w, uint64_t from)
{
	int64_t len = (int64_t)rot->opt.interval_s * NS, wall = (int64_t)from + rot->wall_minus_mono;
	time_t sec = (time_t)(wall / NS);
	char base[40], iso[32];
	struct tm tm;
	int rc = 0;

	rot->from_ns = from;
	rot->until_ns = (uint64_t)((wall / len + 1) * len - rot->wall_minus_mono);
	gmtime_r(&sec, &tm);
	strftime(base, sizeof(base), "profrec-%Y%m%dT%H%M%SZ", &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	free(rot->name);
	free(rot->stage);
	rot->name = xasprintf("%s/%s.%s", rot->opt.dir, base, rot->suffix);
	rot->stage = xasprintf("%s/.%s.%s", rot->opt.dir, base, rot->suffix);
	prof_meta_set(&rot->meta, "start_time", iso);
	set_time(rot, "from", rot->from_ns);
	set_time(rot, "until", rot->until_ns);
	rot->out = prof_output_open(rot->stage, PROF_OUT_STREAM, PROF_COMP_NONE);
	if (!rot->out) {
		rot->failed++;
		free(rot->stage);
		rot->stage = NULL;
		rot->out = prof_output_open("/dev/null", PROF_OUT_STREAM, PROF_COMP_NONE);
		if (!rot->out)
			prof_die("/dev/null: cannot be opened");
		rc = -1;
	}
	prof_sample_writer_restart(w, rot->out, from);
	if (prof_sample_writer_begin(w, &rot->meta) != 0)
		rc = -1;
	return rc;
}

/*
 * The stage file of a TSV interval cut short, under its final name with
 * the metadata line of its real end: the first line (the metadata line
 * written when the interval opened) replaced, the rest copied.
 */
static int copy_with_meta(struct prof_rotation *rot)
{
	struct prof_input *in = prof_input_open(rot->stage);
	struct prof_output *o;
	struct prof_buf b = PROF_BUF_INIT;
	char buf[1 << 16];
	int skipping = 1, rc = 0;
	ssize_t n;

	if (!in)
		return -1;
	o = prof_output_open(rot->name, PROF_OUT_ATOMIC, PROF_COMP_NONE);
	if (!o) {
		prof_input_close(in);
		return -1;
	}
	prof_meta_format(&rot->meta, &b);
	prof_output_write(o, b.data, b.len);
	while ((n = prof_input_read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;

		if (skipping) {
			char *nl = memchr(buf, '\n', (size_t)n);

			if (!nl)
				continue;
			p = nl + 1;
			skipping = 0;
		}
		prof_output_write(o, p, (size_t)(buf + n - p));
	}
	if (n < 0 || prof_input_failed(in)) {
		prof_output_abort(o);
		rc = -1;
	} else if (prof_output_close(o) != 0) {
		rc = -1;
	}
	prof_input_close(in);
	prof_buf_release(&b);
	return rc;
}

/* Interval files: "profrec-YYYYMMDDTHHMMSSZ." and a suffix. */
static int interval_file(const char *name)
{
	if (strncmp(name, "profrec-", 8) != 0)
		return 0;
	for (int i = 0; i < 15; i++)
		if (i == 8 ? name[8 + i] != 'T' : !isdigit((unsigned char)name[8 + i]))
			return 0;
	return name[23] == 'Z' && name[24] == '.' && name[25];
}

struct dir_file {
	char *name;
	unsigned long long size;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct dir_file *)a)->name, ((const struct dir_file *)b)->name);
}

/* Delete the oldest interval files beyond keep or max_bytes (rotate.h). */
static void prune(struct prof_rotation *rot)
{
	struct dir_file *f = NULL;
	size_t n = 0, i;
	unsigned long long total = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (!rot->opt.keep && !rot->opt.max_bytes)
		return;
	if (!(d = opendir(rot->opt.dir))) {
		prof_warn_errno("%s", rot->opt.dir);
		return;
	}
	while ((de = readdir(d))) {
		if (!interval_file(de->d_name) || fstatat(dirfd(d), de->d_name, &st, 0) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		f = xreallocarray(f, n + 1, sizeof(*f));
		f[n].name = xstrdup(de->d_name);
		f[n].size = (unsigned long long)st.st_size;
		total += f[n++].size;
	}
	qsort(f, n, sizeof(*f), by_name);	/* UTC times: oldest first */
	for (i = 0; i + 1 < n && ((rot->opt.keep && n - i > rot->opt.keep) ||
				  (rot->opt.max_bytes && total > rot->opt.max_bytes)); i++) {
		if (unlinkat(dirfd(d), f[i].name, 0) != 0 && errno != ENOENT)
			prof_warn_errno("%s/%s", rot->opt.dir, f[i].name);
		else
			prof_info(2, "%s/%s: deleted (--keep/--max-bytes)", rot->opt.dir, f[i].name);
		total -= f[i].size;
	}
	for (i = 0; i < n; i++)
		free(f[i].name);
	free(f);
	closedir(d);
}

/* Finish the open interval at end: its file complete under its name, then prune. */
static void end_interval(struct prof_rotation *rot, struct prof_sample_writer *w, uint64_t end)
{
	int cut = end != rot->until_ns, ok;
	struct stat st;

	set_time(rot, "until", end);
	ok = prof_sample_writer_finish(w, &rot->meta) == 0;
	if (prof_output_close(rot->out) != 0)
		ok = 0;
	rot->out = NULL;
	w->out = NULL;
	if (!rot->stage)	/* dropped: counted when it opened */
		return;
	if (ok && cut && !rot->folded)
		ok = copy_with_meta(rot) == 0;
	else if (ok && rename(rot->stage, rot->name) != 0) {
		prof_warn_errno("%s", rot->name);
		ok = 0;
	}
	unlink(rot->stage);
	if (!ok) {
		rot->failed++;
		return;
	}
	rot->files++;
	if (stat(rot->name, &st) == 0)
		rot->bytes += (unsigned long long)st.st_size;
	prof_info(2, "%s: written", rot->name);
	prune(rot);
}

int prof_rotation_begin(struct prof_rotation *rot, struct prof_sample_writer *w,
			const struct prof_meta *meta, uint64_t start_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	rot->wall_minus_mono = (int64_t)ts.tv_sec * NS + ts.tv_nsec - (int64_t)prof_now_ns();
	prof_meta_merge(&rot->meta, meta);
	return open_interval(rot, w, start_ns);
}

void prof_rotation_advance(struct prof_rotation *rot, struct prof_sample_writer *w,
			   uint64_t time_ns)
{
	while (time_ns >= rot->until_ns) {
		uint64_t next = rot->until_ns;

		end_interval(rot, w, next);
		open_interval(rot, w, next);
	}
}

int prof_rotation_finish(struct prof_rotation *rot, struct prof_sample_writer *w,
			 uint64_t end_ns)
{
	if (end_ns > rot->until_ns)
		prof_rotation_advance(rot, w, end_ns - 1);
	end_interval(rot, w, end_ns > rot->from_ns ? end_ns : rot->from_ns);
	return rot->failed ? -1 : 0;
}

const char *prof_rotation_describe(struct prof_rotation *rot)
{
	snprintf(rot->describe, sizeof(rot->describe), "%llu file%s in %.60s", rot->files,
		 rot->files == 1 ? "" : "s", rot->opt.dir);
	return rot->describe;
}
