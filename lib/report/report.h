#ifndef PROF_REPORT_REPORT_H
#define PROF_REPORT_REPORT_H
/*
 * The HTML report of a profiling run directory (profreport(1), written
 * by proftools-profile(1)): one page that opens on the run's summary and
 * findings (report/summary.h), then its timelines on one time axis
 * ("Over time": host.tsv, gpu.tsv, memory.timeline.tsv), then what else
 * the directory holds, section by section, each section the files whose
 * names start with its prefix ("cpu.svg", "cpu.top.tsv"...), titled in
 * words:
 *
 *   cpu, offcpu, memory, gpu, host, compare   in this order, then
 *   anything else                            under "other files"
 *
 * and, per file kind:
 *   NAME.heatmap.html  a heat map page (profflame --heatmap --format
 *                   html), embedded up to PROF_REPORT_MAX_HEATMAP, else
 *                   linked
 *   NAME.svg        a flame graph, embedded whole (zoom and search work);
 *                   one larger than PROF_REPORT_MAX_SVG is reported and
 *                   left out (the page would be as large)
 *   NAME.top.tsv    a hotspot table (proffold --top), first 25 rows
 *   NAME.tsv        with a time_ns column: a chart per varying numeric
 *                   column (one line per GPU in profgpu's); otherwise a
 *                   table (profcmp results, summaries), first 40 rows
 *   NAME.log, .txt  preformatted text (leak summaries, alerts, gates)
 * run.meta ("# key=value" lines: command, status, host, kernel, cpu,
 * date, event, freq, version...) titles the page and ends it. Folded stacks and raw
 * recordings stay beside the page as files; it names them.
 *
 * Memory stays bounded whatever the directory holds: tables, logs and
 * run.meta are read through io/input.h's line reader (a line longer than
 * PROFTOOLS_MAX_LINE is reported, ends that file, and counts as a bad file),
 * logs streamed line by line, and an SVG is held whole only up to
 * PROF_REPORT_MAX_SVG.
 */

struct prof_output;

/* The largest SVG embedded (64 MiB: a flame graph of a million frames is ~30 MiB). */
#define PROF_REPORT_MAX_SVG ((size_t)64 << 20)

/*
 * The largest heat map page (NAME.heatmap.html) embedded; a larger one
 * (a run of many minutes) is linked beside the page instead.
 */
#define PROF_REPORT_MAX_HEATMAP ((size_t)4 << 20)

/*
 * Write the report of directory dir to o. Returns 0, or -1 after
 * reporting a directory that cannot be read or holds nothing to show.
 * Files that cannot be read are reported and left out (the rest is
 * written; *bad counts them).
 */
int prof_report_write(const char *dir, struct prof_output *o, unsigned long *bad);

#endif
