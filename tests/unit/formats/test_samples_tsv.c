/*
 * formats/samples_tsv: profrec TSV with the ip, map_id and map columns
 * (profrec 0.4) folds to the same stacks as the same rows without them
 * (older files); a malformed ip is an error with file:line; the schema
 * validates every form; the addrs column (0.5) gives on_address the
 * other frames' addresses and their mappings, named in the column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "core/meta.h"
#include "core/stack.h"
#include "formats/profile.h"
#include "formats/samples_tsv.h"
#include "formats/tsv.h"
#include "io/input.h"
#include "../unit.h"

static char dir[] = "/tmp/test_samples_tsv.XXXXXX";

#define HEAD "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"

static const char old_rows[] =
	"# source=profrec event=cpu-clock\n" HEAD "\n"
	"1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tmain;work\n"
	"2\t7\t7\tapp\t0\tcpu-clock\t10\t0\t\n"
	"3\t7\t7\tapp\t0\tcpu-clock\t5\t1\tmain\n";

static const char ip_rows[] =
	"# source=profrec event=cpu-clock\n" HEAD "\tip\tmap_id\tmap\n"
	"1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tmain;work\t401136\t0\t0x401000 0x1000 - /bin/app\n"
	"2\t7\t7\tapp\t0\tcpu-clock\t10\t0\t\t40113a\t0\t\n"
	"3\t7\t7\tapp\t0\tcpu-clock\t5\t1\tmain\tffffffff81000000\t\t\n";

/*
 * profrec 0.5: the callers' return addresses; a path with ';' and '%'
 * escaped in the addrs column; a kernel frame without a mapping; a
 * marker without an address; stack 1 reached from another call site
 * (stack 2, same text); an off-CPU row (no ip, no addresses).
 */
static const char addrs_rows[] =
	"# source=profrec event=cpu-clock\n" HEAD "\tip\tmap_id\tmap\taddrs\n"
	"1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tstart;main;work\t401136\t0\t0x401000 0x1000 - /bin/app\t"
	"7f0010@0=0x7f0000 0x0 ab12 /lib/a%3bb%25c.so;401210@1=0x401000 0x1000 - /bin/app\n"
	"2\t7\t7\tapp\t0\tcpu-clock\t10\t0\t\t40113a\t0\t\t\n"
	"3\t7\t7\tapp\t0\tcpu-clock\t5\t1\t[truncated];main;sys_[k]\tffffffff81000000\t\t\t-;401220@1\n"
	"4\t7\t7\tapp\t0\tcpu-clock\t5\t2\t[truncated];main;sys_[k]\tffffffff81000000\t\t\t-;401230@1\n"
	"5\t7\t7\tapp\t0\toffcpu-time\t5\t1\t\t\t\t\t\n";

/* on_address's arguments, one line each: "id first n ip@map addr@map,..." */
static void on_addr(void *ctx, uint32_t id, const struct prof_samples_addrs *a)
{
	struct prof_buf *b = ctx;

	prof_buf_addf(b, "%u %zu %zu %llx@%s", id, a->first, a->n, (unsigned long long)a->ip,
		      a->map ? a->map->path : "-");
	for (size_t i = 0; i < a->n; i++)
		prof_buf_addf(b, "%s%llx@%s", i ? "," : " ", (unsigned long long)a->addr[i],
			      a->maps[i] ? a->maps[i]->path : "-");
	prof_buf_addch(b, '\n');
}

static char *addresses(const char *path, int *rv)
{
	struct prof_profile_opts o;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_buf b = PROF_BUF_INIT;

	prof_profile_opts_init(&o);
	o.on_address = on_addr;
	o.on_address_ctx = &b;
	prof_stacks_init(&t, 1);
	*rv = prof_profile_read(path, &o, &t, &meta, NULL);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	prof_buf_addch(&b, 0);	/* never NULL */
	b.len--;
	return prof_buf_detach(&b, NULL);
}

static const char *put(const char *name, const char *text)
{
	static char path[4][256];
	static int k;
	char *p = path[k++ % 4];
	FILE *f;

	snprintf(p, 256, "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/* The stacks read from path as "stack weight\n" lines, sorted; *rv the read's result. */
static char *fold(const char *path, int *rv)
{
	struct prof_profile_opts o;
	struct prof_stacks t;
	struct prof_meta meta = PROF_META_INIT;
	struct prof_buf b = PROF_BUF_INIT;
	uint32_t *ids;
	size_t n;

	prof_profile_opts_init(&o);
	prof_stacks_init(&t, 1);
	*rv = prof_profile_read(path, &o, &t, &meta, NULL);
	ids = prof_stacks_sorted(&t, &n);
	for (size_t i = 0; i < n; i++) {
		prof_stacks_format(&t, ids[i], &b);
		prof_buf_addf(&b, " %g\n", (double)prof_stacks_weights(&t, ids[i])[0]);
	}
	free(ids);
	prof_stacks_release(&t);
	prof_meta_release(&meta);
	return prof_buf_detach(&b, NULL);
}

static unsigned long validate(const char *path)
{
	struct prof_lines *lr = prof_lines_open(path);
	unsigned long problems;

	if (!lr)
		return 999;
	problems = prof_tsv_validate(lr, prof_tsv_schema_find("profrec-samples"));
	prof_lines_close(lr);
	return problems;
}

int main(int argc, char **argv)
{
	char *a, *b;
	int rva, rvb;

	(void)argc;
	prof_set_progname(argv[0]);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	TEST("rows with ip, map_id and map fold as the same rows without them") {
		a = fold(put("old.tsv", old_rows), &rva);
		b = fold(put("ip.tsv", ip_rows), &rvb);
		CHECK(rva == 0 && rvb == 0);
		CHECK_STR(a, "app;main 5\napp;main;work 20\n");
		CHECK_STR(b, a);
		free(a);
		free(b);
	}
	TEST("both forms are valid profrec-samples; a header cut inside the new columns is not") {
		CHECK(validate(put("old.tsv", old_rows)) == 0);
		CHECK(validate(put("ip.tsv", ip_rows)) == 0);
		CHECK(validate(put("cut.tsv", HEAD "\tip\n1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tmain\t1\n")) > 0);
		CHECK(validate(put("cut2.tsv", HEAD "\tip\tmap\n1\t7\t7\tapp\t0\tc\t1\t0\tm\t1\t\n")) > 0);
	}
	TEST("a bad ip or a row of the old width under the new header: file:line, rest kept") {
		a = fold(put("bad.tsv", "# source=profrec\n" HEAD "\tip\tmap_id\tmap\n"
				 "1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tmain\tzz\t\t\n"
				 "2\t7\t7\tapp\t0\tcpu-clock\t10\t1\tmain\n"
				 "3\t7\t7\tapp\t0\tcpu-clock\t4\t2\tmain;x\t1f\t\t\n"), &rva);
		CHECK(rva == -1);
		CHECK_STR(a, "app;main;x 4\n");
		free(a);
	}
	TEST("the addrs column: callers' addresses and mappings, the ip's frames after them") {
		a = addresses(put("addrs.tsv", addrs_rows), &rva);
		CHECK(rva == 0);
		CHECK_STR(a, "0 1 2 401136@/bin/app 7f0010@/lib/a;b%c.so,401210@/bin/app\n"
			     "0 1 2 40113a@/bin/app 7f0010@/lib/a;b%c.so,401210@/bin/app\n"
			     "1 1 2 ffffffff81000000@- 0@-,401220@/bin/app\n"
			     "1 1 2 ffffffff81000000@- 0@-,401230@/bin/app\n");
		free(a);
		a = fold(put("addrs.tsv", addrs_rows), &rva);
		b = fold(put("addrs-old.tsv", "# source=profrec event=cpu-clock\n" HEAD "\n"
			     "1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tstart;main;work\n"
			     "2\t7\t7\tapp\t0\tcpu-clock\t10\t0\t\n"
			     "3\t7\t7\tapp\t0\tcpu-clock\t10\t1\t[truncated];main;sys_[k]\n"), &rvb);
		CHECK(rva == 0 && rvb == 0);
		CHECK_STR(a, b);
		CHECK(validate(put("addrs.tsv", addrs_rows)) == 0);
		free(a);
		free(b);
	}
	TEST("without the addrs column the leaf alone is the ip's") {
		a = addresses(put("ip.tsv", ip_rows), &rva);
		CHECK(rva == 0);
		CHECK_STR(a, "0 2 0 401136@/bin/app\n0 2 0 40113a@/bin/app\n");
		free(a);
	}
	TEST("a malformed addrs entry, an undefined map_id, more addresses than frames: file:line") {
		static const char *const bad_addrs[] = { "zz", "401000@7", "1;2;3;4", "401000@0=0x1 0x0 - /a;401000@1", "401000@x=0x1 0x0 - /a",
							 "401000@1=nonsense" };

		for (size_t i = 0; i < sizeof(bad_addrs) / sizeof(bad_addrs[0]); i++) {
			char text[512];

			snprintf(text, sizeof(text), "# source=profrec\n" HEAD "\tip\tmap_id\tmap\taddrs\n"
				 "1\t7\t7\tapp\t0\tcpu-clock\t10\t0\tmain;work\t401136\t\t\t%s\n",
				 bad_addrs[i]);
			free(addresses(put("badaddrs.tsv", text), &rva));
			CHECK(rva == -1);
		}
	}
	unlink(put("addrs.tsv", ""));
	unlink(put("addrs-old.tsv", ""));
	unlink(put("badaddrs.tsv", ""));
	unlink(put("old.tsv", ""));
	unlink(put("ip.tsv", ""));
	unlink(put("cut.tsv", ""));
	unlink(put("cut2.tsv", ""));
	unlink(put("bad.tsv", ""));
	rmdir(dir);
	return UNIT_RESULT();
}
