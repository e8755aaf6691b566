#ifndef PROF_REPORT_CHART_H
#define PROF_REPORT_CHART_H
/*
 * Timeline charts for the HTML report: one column of a timeline TSV
 * (profheap-timeline, profgpu-timeline, the host monitor's) drawn against
 * its time_ns column as an inline SVG line chart with axes, the unit
 * taken from the column name (_bytes, _pct, _c, _w, _j, _mhz, _ns,
 * _per_s), and the value under the pointer shown by the page's script
 * (report/html.h). Long timelines are thinned to at most 1,000 points per
 * series, keeping each bucket's largest value so peaks stay visible.
 */
#include <stddef.h>

struct prof_output;
struct prof_table;

/*
 * The time axis charts share, so that a dip in one lines up with the
 * others: with tmax_s > 0, time_ns is taken as the time since the start
 * of the run (as profgpu and profheap write it, not moved to the first
 * row) and the x axis spans [0, tmax_s] in every chart; marks (seconds,
 * with a label each) are drawn as vertical lines (alerts).
 */
struct prof_chart_axis {
	double tmax_s;
	const double *marks;
	const char *const *mark_labels;
	size_t nmarks;
	int height;		/* of each chart, pixels (0: 220) */
	/* one more line, blue and dashed: a peak (heap's), at peak_s (NULL label: none) */
	double peak_s;
	const char *peak_label;
};

/*
 * Draw column of t against time_ns, one line per distinct value of
 * series_column (NULL: one line), titled title, on axis (NULL: the
 * chart's own, from its first row to its last). Rows whose cell is
 * empty or not a number are skipped. Returns 0, or -1 when t has no
 * time_ns column, no such column or no value to draw (nothing is
 * written).
 */
int prof_chart_timeline(struct prof_output *o, const struct prof_table *t, const char *column,
			const char *series_column, const char *title,
			const struct prof_chart_axis *axis);

/*
 * A value of the column named column formatted for a person, with its
 * unit: "1.5 GiB", "87%", "71 °C", "250 W", "1.20 ms", "3.4/s". Returns buf.
 */
char *prof_chart_format(char *buf, size_t n, const char *column, double v);

#endif
