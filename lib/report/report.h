#ifndef PROF_REPORT_REPORT_H
#define PROF_REPORT_REPORT_H
/*
 * The HTML report of a profiling run directory (profreport(1), written
 * by proftools-profile(1)): one page gathering what the directory holds,
 * section by section, each section the files whose names start with its
 * prefix ("cpu.svg", "cpu.top.tsv", "memory-leak.svg"...):
 *
 *   cpu, offcpu, memory, gpu, host, compare   in this order, then
 *   anything else                            under "other files"
 *
 * and, per file kind:
 *   NAME.svg        a flame graph, embedded whole (zoom and search work)
 *   NAME.top.tsv    a hotspot table (proffold --top), first 25 rows
 *   NAME.tsv        with a time_ns column: a chart per varying numeric
 *                   column (one line per GPU in profgpu's); otherwise a
 *                   table (profcmp results, summaries), first 40 rows
 *   NAME.log, .txt  preformatted text (leak summaries, alerts, gates)
 * run.meta ("# key=value" lines: command, status, host, kernel, cpu,
 * date, event, freq, version...) heads the page. Folded stacks and raw
 * recordings stay beside the page as files; it names them.
 */

struct prof_output;

/*
 * Write the report of directory dir to o. Returns 0, or -1 after
 * reporting a directory that cannot be read or holds nothing to show.
 * Files that cannot be read are reported and left out (the rest is
 * written; *bad counts them).
 */
int prof_report_write(const char *dir, struct prof_output *o, unsigned long *bad);

#endif
