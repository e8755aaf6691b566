/*
 * Sampled addresses of profrec TSV, counted per file offset (samples.h).
 */
#include <stdlib.h>
#include <string.h>

#include "annotate/samples.h"
#include "annotate/samples_read.h"
#include "base/error.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "formats/tsv.h"
#include "io/input.h"

#define NCOLS 13	/* profrec-samples with ip, map_id, map, addrs */

struct reader {
	struct prof_ann_samples *s;
	uint32_t *map_file;	/* map_id -> file index + 1 (0: not defined) */
	uint64_t *map_base;	/* map_id -> start - pgoff */
	size_t nmaps;
	size_t ncols;		/* of the header: 12 (profrec 0.4), or NCOLS with addrs */
	struct prof_ann_hit_index hits;
	size_t files_cap;
	const char *name;
	unsigned long bad;
};

/* "0xSTART 0xPGOFF BUILD_ID PATH" of map_id id. */
static int define_map(struct reader *rd, uint64_t id, char *text)
{
	char *bid, *path, *end;
	uint64_t start, pgoff;
	size_t f;

	/*
	 * profrec numbers mappings 0, 1, 2... in the order of first use: a
	 * new id beyond the next one is malformed (fuzz_annotate_samples: id
	 * 3333333333333330 asked for a petabyte of tables).
	 */
	if (id > rd->nmaps)
		return -1;
	start = strtoull(text, &end, 16);
	if (*end != ' ')
		return -1;
	pgoff = strtoull(end + 1, &end, 16);
	if (*end != ' ' || !(path = strchr(bid = end + 1, ' ')))
		return -1;
	*path++ = 0;
	f = prof_ann_file_index(rd->s, &rd->files_cap, path, strcmp(bid, "-") ? bid : NULL, start,
				pgoff);
	if (id >= rd->nmaps) {
		size_t n = (size_t)id + 1;

		rd->map_file = xreallocarray(rd->map_file, n, sizeof(*rd->map_file));
		rd->map_base = xreallocarray(rd->map_base, n, sizeof(*rd->map_base));
		memset(rd->map_file + rd->nmaps, 0, (n - rd->nmaps) * sizeof(*rd->map_file));
		rd->nmaps = n;
	}
	rd->map_file[id] = (uint32_t)f + 1;
	rd->map_base[id] = start - pgoff;
	return 0;
}

/* One row: fields f[0..NCOLS). */
static int read_row(struct reader *rd, char **f)
{
	struct prof_ann_samples *s = rd->s;
	uint64_t ip, id;
	char *end;

	s->rows++;
	if (!s->event)
		s->event = xstrdup(f[5]);
	if (strcmp(s->event, f[5]) != 0) {
		s->other_events++;
		return 0;
	}
	if (!f[9][0]) {
		s->no_ip++;
		return 0;
	}
	ip = strtoull(f[9], &end, 16);
	if (*end)
		return -1;
	if (!f[10][0]) {
		s->outside_files++;
		return 0;
	}
	if (prof_parse_u64(f[10], &id) < 0 || (f[11][0] && define_map(rd, id, f[11]) != 0) ||
	    id >= rd->nmaps || !rd->map_file[id])
		return -1;
	prof_ann_hit_add(s, &rd->hits, rd->map_file[id] - 1, ip - rd->map_base[id]);
	s->files[rd->map_file[id] - 1].samples++;
	s->counted++;
	return 0;
}

/* The lines after the header; -1 on a malformed row (reported, the first 10). */
static void read_rows(struct reader *rd, struct prof_lines *lr)
{
	char *line, *f[NCOLS + 1];
	size_t len;

	while ((line = prof_lines_next(lr, &len)) != NULL) {
		if (!len || line[0] == '#')
			continue;
		if (prof_tsv_split(line, len, f, NCOLS + 1) != rd->ncols || read_row(rd, f) != 0) {
			if (++rd->bad <= 10)
				prof_input_warn(rd->name, prof_lines_lineno(lr), "malformed row");
		}
	}
}

int prof_ann_samples_read(const char *path, struct prof_ann_samples *s)
{
	const char *header = prof_tsv_header(prof_tsv_schema_find("profrec-samples"));
	size_t old = (size_t)(strstr(header, "\tip\t") - header);
	size_t no_addrs = (size_t)(strstr(header, "\taddrs") - header);
	struct prof_lines *lr = prof_lines_open(path);
	struct reader rd = { .s = s, .name = path };
	char *line;
	size_t len;
	int rc = 0, blank = 0;

	memset(s, 0, sizeof(*s));
	if (!lr)
		return -1;
	while ((line = prof_lines_next(lr, &len)) != NULL && (!len || line[0] == '#'))
		blank |= !len;
	/* the leaf's ip and mapping are read: the addrs column (0.5) is not needed */
	if (line && ((len == strlen(header) - 1 && (rd.ncols = NCOLS)) ||
		     (len == no_addrs && (rd.ncols = NCOLS - 1))) && memcmp(line, header, len) == 0) {
		read_rows(&rd, lr);
		prof_ann_hits_merge(s);
	} else if (line && len == old && memcmp(line, header, old) == 0) {
		prof_input_warn(path, 0, "recorded without the ip column (profrec before 0.4): "
				"record again");
		rc = -1;
	} else {	/* anything else is perf script text, or said not to be */
		rc = prof_ann_perf_read(lr, line, len, blank, s);
	}
	if (rd.bad || prof_lines_failed(lr) || prof_lines_too_long(lr))
		rc = -1;
	prof_lines_close(lr);
	free(rd.map_file);
	free(rd.map_base);
	prof_ann_hit_index_release(&rd.hits);
	return rc;
}
