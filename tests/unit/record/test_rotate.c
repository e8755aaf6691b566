/*
 * lib/record/rotate.c: option parsing, and rotations driven with chosen
 * record times through the sample writer (no perf_event_open): one file
 * per interval, contiguous from/until, each file complete in itself, the
 * last interval cut at the end, --keep.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/meta.h"
#include "core/stack.h"
#include "io/input.h"
#include "record/rotate.h"
#include "record/sample_writer.h"

#define SEC 1000000000ULL

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted; *n of them (the caller frees). */
static char **list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;

	*n = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xreallocarray(names, *n + 1, sizeof(*names));
		names[(*n)++] = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, *n, sizeof(*names), by_str);
	return names;
}

static void free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* File dir/name's text and its metadata line parsed into m. */
static char *read_interval(const char *dir, const char *name, struct prof_meta *m)
{
	char *path = xasprintf("%s/%s", dir, name), *text;
	size_t len;

	text = prof_read_file(path, &len);
	free(path);
	if (text && text[0] == '#')
		prof_meta_parse_line(m, text, strcspn(text, "\n"));
	return text;
}

/* Remove dir and the files in it. */
static void remove_dir(const char *dir)
{
	size_t n;
	char **names = list_dir(dir, &n);

	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);

		unlink(p);
		free(p);
	}
	free_list(names, n);
	rmdir(dir);
}

static void add_row(struct prof_sample_writer *w, uint64_t time, uint32_t stack)
{
	struct prof_sample_row row = { .time = time, .pid = 1, .tid = 1, .comm = "app",
				       .event = "cpu-clock", .weight = 1, .stack = stack };

	prof_sample_writer_add(w, &row);
}

/* A table with the stack main;work as id 0. */
static uint32_t one_stack(struct prof_stacks *t)
{
	uint32_t f[2];

	prof_stacks_init(t, 1);
	f[0] = prof_stacks_frame(t, "main", 4);
	f[1] = prof_stacks_frame(t, "work", 4);
	return prof_stacks_intern(t, f, 2);
}

int main(void)
{
	TEST("options: intervals, counts, sizes") {
		struct prof_rotate_options o = { 0 };

		CHECK(prof_rotate_option(&o, "rotate", "60s") == NULL && o.interval_s == 60);
		CHECK(prof_rotate_option(&o, "rotate", "2m") == NULL && o.interval_s == 120);
		CHECK(prof_rotate_option(&o, "rotate", "1.5s") != NULL);
		CHECK(prof_rotate_option(&o, "rotate", "500ms") != NULL);
		CHECK(prof_rotate_option(&o, "rotate", "25h") != NULL);
		CHECK(prof_rotate_option(&o, "rotate", "x") != NULL);
		CHECK(prof_rotate_option(&o, "keep", "3") == NULL && o.keep == 3);
		CHECK(prof_rotate_option(&o, "keep", "0") != NULL);
		CHECK(prof_rotate_option(&o, "max-bytes", "1K") == NULL && o.max_bytes == 1024);
		CHECK(prof_rotate_option(&o, "max-bytes", "0") != NULL);
	}

	TEST("options: combinations") {
		struct prof_rotate_options o = { 0 };

		CHECK(prof_rotate_check(&o, NULL, 0) == NULL);
		o.keep = 2;
		CHECK(prof_rotate_check(&o, "dir", 0) != NULL);	/* --keep without --rotate */
		o.interval_s = 1;
		CHECK(prof_rotate_check(&o, NULL, 0) != NULL);
		CHECK(prof_rotate_check(&o, "-", 0) != NULL);
		CHECK(prof_rotate_check(&o, "dir", 1) != NULL);	/* --no-header */
		CHECK(prof_rotate_check(&o, "dir/", 0) == NULL && strcmp(o.dir, "dir/") == 0);
	}

	TEST("TSV: a file per interval, contiguous, complete in itself, the last one cut") {
		char tmpl[] = "/tmp/unit_rotate.XXXXXX", *dir = mkdtemp(tmpl), *sub;
		struct prof_rotate_options o = { .interval_s = 1 };
		struct prof_meta meta = PROF_META_INIT;
		struct prof_sample_writer w;
		struct prof_rotation *rot;
		struct prof_stacks t;
		uint64_t s = prof_now_ns(), u0, last_from;
		uint32_t id = one_stack(&t);
		char **names;
		size_t n;

		CHECK(dir != NULL);
		sub = xasprintf("%s/new/", dir);	/* made by the rotation */
		o.dir = sub;
		prof_meta_set(&meta, "source", "test");
		prof_sample_writer_init(&w, NULL, &t, 0);
		rot = prof_rotation_new(&o, 0);
		CHECK(rot != NULL);
		CHECK(prof_rotation_begin(rot, &w, &meta, s) == 0);
		u0 = rot->until_ns;
		CHECK(u0 > s && u0 <= s + SEC);
		add_row(&w, s, id);
		prof_rotation_advance(rot, &w, u0);	/* a record at the boundary: next interval */
		CHECK(rot->from_ns == u0 && rot->until_ns == u0 + SEC);
		add_row(&w, u0, id);
		prof_rotation_advance(rot, &w, u0 + SEC + SEC / 2);	/* past another one */
		last_from = rot->from_ns;
		CHECK(last_from == u0 + SEC);
		add_row(&w, u0 + SEC + SEC / 4, id);
		CHECK(prof_rotation_finish(rot, &w, last_from + SEC / 2) == 0);
		CHECK(rot->files == 3 && rot->failed == 0);
		names = list_dir(rot->opt.dir, &n);
		CHECK(n == 3);
		for (size_t i = 0; i < n && n == 3; i++) {
			struct prof_meta m = PROF_META_INIT;
			char *text = read_interval(rot->opt.dir, names[i], &m);
			const char *from = prof_meta_get(&m, "from"), *until = prof_meta_get(&m, "until");

			CHECK(strncmp(names[i], "profrec-", 8) == 0 && strstr(names[i], "Z.tsv"));
			CHECK(text && from && until && strcmp(prof_meta_get(&m, "source"), "test") == 0);
			/* each file names the stack's text once, and has one row */
			CHECK(text && strstr(text, "\t0\tmain;work\t") && strstr(text, "time_ns\tpid"));
			if (i == 1) {	/* a whole interval: one second, on the second */
				CHECK(strcmp(until + strlen(until) - 4, ".000") == 0);
				CHECK(atof(until) - atof(from) > 0.999 && atof(until) - atof(from) < 1.001);
			}
			if (i == 2)	/* cut half way at the end */
				CHECK(atof(until) - atof(from) > 0.499 && atof(until) - atof(from) < 0.501);
			if (i > 0) {	/* from = the previous file's until */
				struct prof_meta p = PROF_META_INIT;
				char *prev = read_interval(rot->opt.dir, names[i - 1], &p);

				CHECK(prev && strcmp(prof_meta_get(&p, "until"), from) == 0);
				free(prev);
				prof_meta_release(&p);
			}
			free(text);
			prof_meta_release(&m);
		}
		free_list(names, n);
		remove_dir(rot->opt.dir);
		prof_rotation_free(rot);
		prof_sample_writer_release(&w);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
		rmdir(dir);
		free(sub);
	}

	TEST("folded: weights per interval, --keep 2 keeps the newest two") {
		char tmpl[] = "/tmp/unit_rotate.XXXXXX", *dir = mkdtemp(tmpl);
		struct prof_rotate_options o = { .dir = dir, .interval_s = 1, .keep = 2 };
		struct prof_meta meta = PROF_META_INIT;
		struct prof_sample_writer w;
		struct prof_rotation *rot;
		struct prof_stacks t;
		uint64_t s = prof_now_ns();
		uint32_t id = one_stack(&t);
		char **names, *text;
		size_t n;

		prof_meta_set(&meta, "source", "test");
		prof_sample_writer_init(&w, NULL, &t, 1);
		rot = prof_rotation_new(&o, 1);
		CHECK(rot && prof_rotation_begin(rot, &w, &meta, s) == 0);
		for (int i = 0; rot && i < 4; i++) {	/* i + 1 samples in interval i */
			for (int k = 0; k <= i; k++)
				add_row(&w, rot->from_ns, id);
			prof_rotation_advance(rot, &w, rot->until_ns);
		}
		CHECK(rot && prof_rotation_finish(rot, &w, rot->from_ns + SEC / 10) == 0);
		CHECK(rot && rot->files == 5);
		names = list_dir(dir, &n);
		CHECK(n == 2);
		if (n == 2) {
			struct prof_meta m = PROF_META_INIT;

			text = read_interval(dir, names[0], &m);
			CHECK(text && strstr(text, "\nmain;work 4\n"));	/* the fourth interval */
			free(text);
			text = read_interval(dir, names[1], &m);
			CHECK(text && !strstr(text, "main;work"));	/* the empty last one */
			free(text);
			prof_meta_release(&m);
		}
		free_list(names, n);
		remove_dir(dir);
		prof_rotation_free(rot);
		prof_sample_writer_release(&w);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
	}

	TEST("--max-bytes: the oldest files go first, the newest stays") {
		char tmpl[] = "/tmp/unit_rotate.XXXXXX", *dir = mkdtemp(tmpl), *old;
		struct prof_rotate_options o = { .dir = dir, .interval_s = 1 };
		struct prof_meta meta = PROF_META_INIT;
		struct prof_sample_writer w;
		struct prof_rotation *rot;
		struct prof_stacks t;
		uint32_t id = one_stack(&t);
		struct stat st;
		char **names;
		size_t n;
		FILE *f;

		/* an interval file of an earlier run, the oldest: 1000 bytes */
		old = xasprintf("%s/profrec-20000101T000000Z.tsv", dir);
		f = fopen(old, "w");
		for (int i = 0; f && i < 100; i++)
			fputs("123456789\n", f);
		if (f)
			fclose(f);
		prof_meta_set(&meta, "source", "test");
		prof_sample_writer_init(&w, NULL, &t, 0);
		o.max_bytes = 600;	/* an interval file of one row is about 200 */
		rot = prof_rotation_new(&o, 0);
		CHECK(rot && prof_rotation_begin(rot, &w, &meta, prof_now_ns()) == 0);
		add_row(&w, rot->from_ns, id);
		prof_rotation_advance(rot, &w, rot->until_ns);
		CHECK(stat(old, &st) != 0);	/* the old run's file went first */
		names = list_dir(dir, &n);
		CHECK(n == 1);	/* this run's first interval (rot->name is the next one) */
		if (n == 1) {
			char *p = xasprintf("%s/%s", dir, names[0]);

			CHECK(stat(p, &st) == 0 && st.st_size < 600);
			free(p);
		}
		free_list(names, n);
		rot->opt.max_bytes = 1;		/* less than any file: the newest stays */
		add_row(&w, rot->from_ns, id);
		CHECK(prof_rotation_finish(rot, &w, rot->from_ns + SEC / 2) == 0);
		names = list_dir(dir, &n);
		CHECK(n == 1 && strcmp(names[0], strrchr(rot->name, '/') + 1) == 0);
		free_list(names, n);
		remove_dir(dir);
		free(old);
		prof_rotation_free(rot);
		prof_sample_writer_release(&w);
		prof_stacks_release(&t);
		prof_meta_release(&meta);
	}

	TEST("a directory another rotation holds is refused; free, it is taken; no lock file left") {
		char tmpl[] = "/tmp/unit_rot_lock.XXXXXX", *dir = mkdtemp(tmpl), *lock;
		struct prof_rotate_options o = { .dir = dir, .interval_s = 1 };
		struct prof_rotation *a, *b;
		struct stat st;

		lock = xasprintf("%s/.profrec.lock", dir);
		a = prof_rotation_new(&o, 0);
		CHECK(a != NULL);
		CHECK(stat(lock, &st) == 0);
		b = prof_rotation_new(&o, 1);	/* two writers replaced each other's files */
		CHECK(b == NULL);
		prof_rotation_free(b);
		prof_rotation_free(a);
		CHECK(stat(lock, &st) != 0);
		b = prof_rotation_new(&o, 0);
		CHECK(b != NULL);
		prof_rotation_free(b);
		CHECK(stat(lock, &st) != 0);
		rmdir(dir);
		free(lock);
	}

	TEST("a file where the directory should be") {
		char *path = unit_temp_file("x");
		struct prof_rotate_options o = { .dir = path, .interval_s = 1 };

		CHECK(prof_rotation_new(&o, 0) == NULL);
		unlink(path);
		free(path);
	}
	return UNIT_RESULT();
}
