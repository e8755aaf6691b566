/*
 * formats/samples_tsv: profrec TSV with the ip, map_id and map columns
 * (profrec 0.4) folds to the same stacks as the same rows without them
 * (older files); a malformed ip is an error with file:line; the schema
 * validates both forms.
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
	unlink(put("old.tsv", ""));
	unlink(put("ip.tsv", ""));
	unlink(put("cut.tsv", ""));
	unlink(put("cut2.tsv", ""));
	unlink(put("bad.tsv", ""));
	rmdir(dir);
	return UNIT_RESULT();
}
