/*
 * The TSV column sets of every tool, declared once (tsv.h). The text of
 * man/prof-formats.5 describes the same columns; keep them together.
 */
#include <stddef.h>
#include "formats/tsv.h"

#define COLS(a) a, sizeof(a) / sizeof((a)[0]), { 0 }
/* Columns of which older files hold only the first n (or m, ...). */
#define COLS_FROM(a, ...) a, sizeof(a) / sizeof((a)[0]), { __VA_ARGS__ }

static const struct prof_tsv_column profrec_samples[] = {
	{ "time_ns", PROF_TSV_INT },
	{ "pid", PROF_TSV_INT },
	{ "tid", PROF_TSV_INT },
	{ "comm", PROF_TSV_TEXT },
	{ "cpu", PROF_TSV_INT },
	{ "event", PROF_TSV_TEXT },
	{ "weight", PROF_TSV_NUM },
	{ "stack_id", PROF_TSV_INT },
	{ "stack", PROF_TSV_TEXT },
	/* Added in 0.4 (profannotate); older files stop after stack. */
	{ "ip", PROF_TSV_TEXT },
	{ "map_id", PROF_TSV_OPTINT },
	{ "map", PROF_TSV_TEXT },
	/* Added in 0.5 (pprof's caller addresses); 0.4's files stop after map. */
	{ "addrs", PROF_TSV_TEXT },
};

static const struct prof_tsv_column proffold_top[] = {
	{ "rank", PROF_TSV_INT },
	{ "function", PROF_TSV_TEXT },
	{ "self", PROF_TSV_NUM },
	{ "self_pct", PROF_TSV_NUM },
	{ "total", PROF_TSV_NUM },
	{ "total_pct", PROF_TSV_NUM },
	{ "flag", PROF_TSV_TEXT },
};

static const struct prof_tsv_column proffold_heatmap[] = {
	{ "second", PROF_TSV_INT },
	{ "offset_ms", PROF_TSV_NUM },
	{ "event", PROF_TSV_TEXT },
	{ "samples", PROF_TSV_INT },
	{ "weight", PROF_TSV_NUM },
};

static const struct prof_tsv_column profheap_timeline[] = {
	{ "time_ns", PROF_TSV_INT },
	{ "live_bytes", PROF_TSV_INT },
	{ "live_blocks", PROF_TSV_INT },
	{ "alloc_bytes", PROF_TSV_INT },
	{ "alloc_count", PROF_TSV_INT },
	{ "rss_bytes", PROF_TSV_OPTINT },
};

static const struct prof_tsv_column profgpu_timeline[] = {
	{ "time_ns", PROF_TSV_INT },
	{ "gpu", PROF_TSV_INT },
	{ "name", PROF_TSV_TEXT },
	{ "uuid", PROF_TSV_TEXT },
	{ "util_pct", PROF_TSV_OPTNUM },
	{ "mem_util_pct", PROF_TSV_OPTNUM },
	{ "mem_used_bytes", PROF_TSV_OPTINT },
	{ "mem_total_bytes", PROF_TSV_OPTINT },
	{ "temp_c", PROF_TSV_OPTNUM },
	{ "power_w", PROF_TSV_OPTNUM },
	{ "energy_j", PROF_TSV_OPTNUM },
	{ "sm_clock_mhz", PROF_TSV_OPTINT },
	{ "mem_clock_mhz", PROF_TSV_OPTINT },
	{ "pcie_rx_bytes_per_s", PROF_TSV_OPTINT },
	{ "pcie_tx_bytes_per_s", PROF_TSV_OPTINT },
	{ "throttle", PROF_TSV_TEXT },
};

static const struct prof_tsv_column profgpu_processes[] = {
	{ "time_ns", PROF_TSV_INT },
	{ "gpu", PROF_TSV_INT },
	{ "pid", PROF_TSV_INT },
	{ "comm", PROF_TSV_TEXT },
	{ "mem_used_bytes", PROF_TSV_OPTINT },
	{ "sm_util_pct", PROF_TSV_OPTNUM },
	{ "mem_util_pct", PROF_TSV_OPTNUM },
};

static const struct prof_tsv_column profgpu_summary[] = {
	{ "gpu", PROF_TSV_INT },
	{ "name", PROF_TSV_TEXT },
	{ "samples", PROF_TSV_INT },
	{ "duration_s", PROF_TSV_NUM },
	{ "util_avg_pct", PROF_TSV_OPTNUM },
	{ "util_max_pct", PROF_TSV_OPTNUM },
	{ "mem_max_bytes", PROF_TSV_OPTINT },
	{ "power_avg_w", PROF_TSV_OPTNUM },
	{ "power_max_w", PROF_TSV_OPTNUM },
	{ "energy_j", PROF_TSV_OPTNUM },
	{ "energy_source", PROF_TSV_TEXT },
	{ "temp_max_c", PROF_TSV_OPTNUM },
	{ "throttled_s", PROF_TSV_OPTNUM },
	{ "throttle_reasons", PROF_TSV_TEXT },
};

static const struct prof_tsv_column profcompress_results[] = {
	{ "input", PROF_TSV_TEXT },
	{ "codec", PROF_TSV_TEXT },
	{ "level", PROF_TSV_TEXT },
	{ "block_bytes", PROF_TSV_INT },
	{ "orig_bytes", PROF_TSV_INT },
	{ "comp_bytes", PROF_TSV_OPTINT },
	{ "ratio", PROF_TSV_OPTNUM },
	{ "comp_mb_per_s", PROF_TSV_OPTNUM },
	{ "decomp_mb_per_s", PROF_TSV_OPTNUM },
	{ "comp_cpu_mb_per_s", PROF_TSV_OPTNUM },
	{ "decomp_cpu_mb_per_s", PROF_TSV_OPTNUM },
	{ "comp_mem_bytes", PROF_TSV_OPTINT },
	{ "decomp_mem_bytes", PROF_TSV_OPTINT },
	{ "status", PROF_TSV_TEXT },
	{ "flags", PROF_TSV_TEXT },
};

static const struct prof_tsv_column profgpu_host[] = {
	{ "time_ns", PROF_TSV_INT },
	{ "procs", PROF_TSV_OPTINT },
	{ "threads", PROF_TSV_OPTINT },
	{ "cpu_pct", PROF_TSV_OPTNUM },
	{ "host_cpu_pct", PROF_TSV_OPTNUM },
	{ "rss_bytes", PROF_TSV_OPTINT },
	{ "swap_bytes", PROF_TSV_OPTINT },
	{ "major_faults_per_s", PROF_TSV_OPTNUM },
	{ "ctx_switches_per_s", PROF_TSV_OPTNUM },
	{ "read_bytes_per_s", PROF_TSV_OPTNUM },
	{ "write_bytes_per_s", PROF_TSV_OPTNUM },
	{ "net_rx_bytes_per_s", PROF_TSV_OPTNUM },
	{ "net_tx_bytes_per_s", PROF_TSV_OPTNUM },
	{ "temp_c", PROF_TSV_OPTNUM },
};

static const struct prof_tsv_column profcmp_functions[] = {
	{ "function", PROF_TSV_TEXT },
	{ "base_self", PROF_TSV_NUM },
	{ "new_self", PROF_TSV_NUM },
	{ "base_total", PROF_TSV_NUM },
	{ "new_total", PROF_TSV_NUM },
	{ "delta", PROF_TSV_NUM },
	{ "delta_pct", PROF_TSV_OPTNUM },
	{ "ratio", PROF_TSV_OPTNUM },
	{ "verdict", PROF_TSV_TEXT },
	{ "base_share", PROF_TSV_NUM },
	{ "new_share", PROF_TSV_NUM },
	{ "sigmas", PROF_TSV_OPTNUM },
	{ "p_value", PROF_TSV_OPTNUM },
	{ "ratio_lo", PROF_TSV_OPTNUM },
	{ "ratio_hi", PROF_TSV_OPTNUM },
};

static const struct prof_tsv_column profcmp_table[] = {
	{ "key", PROF_TSV_TEXT },
	{ "metric", PROF_TSV_TEXT },
	{ "better", PROF_TSV_TEXT },
	{ "base", PROF_TSV_OPTNUM },
	{ "base_min", PROF_TSV_OPTNUM },
	{ "base_runs", PROF_TSV_INT },
	{ "new", PROF_TSV_OPTNUM },
	{ "new_min", PROF_TSV_OPTNUM },
	{ "new_runs", PROF_TSV_INT },
	{ "ratio", PROF_TSV_OPTNUM },
	{ "change_pct", PROF_TSV_OPTNUM },
	{ "spread_pct", PROF_TSV_OPTNUM },
	{ "verdict", PROF_TSV_TEXT },
	{ "p_value", PROF_TSV_OPTNUM },
	{ "ratio_lo", PROF_TSV_OPTNUM },
	{ "ratio_hi", PROF_TSV_OPTNUM },
};

static const struct prof_tsv_column profannotate[] = {
	{ "function", PROF_TSV_TEXT },
	{ "file", PROF_TSV_TEXT },
	{ "address", PROF_TSV_TEXT },
	{ "samples", PROF_TSV_INT },
	{ "percent", PROF_TSV_NUM },
	{ "hot", PROF_TSV_TEXT },
	{ "source", PROF_TSV_TEXT },
	{ "instruction", PROF_TSV_TEXT },
};

static const struct prof_tsv_column profannotate_simd[] = {
	{ "function", PROF_TSV_TEXT },
	{ "instructions", PROF_TSV_INT },
	{ "scalar", PROF_TSV_INT },
	{ "sse", PROF_TSV_INT },
	{ "avx", PROF_TSV_INT },
	{ "avx2", PROF_TSV_INT },
	{ "avx512", PROF_TSV_INT },
	{ "neon", PROF_TSV_INT },
	{ "sve", PROF_TSV_INT },
	{ "widest_bits", PROF_TSV_INT },
	{ "undecoded_bytes", PROF_TSV_INT },
};

/* profgpu --kernels: CUDA kernels, memcpys and memsets (gpu/kernels.h). */
static const struct prof_tsv_column profgpu_kernels[] = {
	{ "start_ns", PROF_TSV_INT },
	{ "end_ns", PROF_TSV_INT },
	{ "duration_ns", PROF_TSV_INT },
	{ "pid", PROF_TSV_INT },
	{ "tid", PROF_TSV_INT },
	{ "device", PROF_TSV_INT },
	{ "context", PROF_TSV_INT },
	{ "stream", PROF_TSV_INT },
	{ "kind", PROF_TSV_TEXT },
	{ "name", PROF_TSV_TEXT },
	{ "grid", PROF_TSV_TEXT },
	{ "block", PROF_TSV_TEXT },
	{ "registers", PROF_TSV_INT },
	{ "shared_bytes", PROF_TSV_INT },
	{ "bytes", PROF_TSV_INT },
	{ "direction", PROF_TSV_TEXT },
	{ "correlation", PROF_TSV_INT },
	{ "stack_id", PROF_TSV_INT },
};

static const struct prof_tsv_schema schemas[] = {
	{ "profrec-samples", COLS_FROM(profrec_samples, 9, 12) },
	{ "proffold-top", COLS(proffold_top) },
	{ "proffold-heatmap", COLS(proffold_heatmap) },
	{ "profheap-timeline", COLS(profheap_timeline) },
	{ "profgpu-timeline", COLS(profgpu_timeline) },
	{ "profgpu-processes", COLS(profgpu_processes) },
	{ "profgpu-summary", COLS(profgpu_summary) },
	{ "profgpu-host", COLS(profgpu_host) },
	{ "profgpu-kernels", COLS(profgpu_kernels) },
	{ "profcompress", COLS(profcompress_results) },
	{ "profcmp-functions", COLS(profcmp_functions) },
	{ "profcmp-table", COLS(profcmp_table) },
	{ "profannotate", COLS(profannotate) },
	{ "profannotate-simd", COLS(profannotate_simd) },
};

const struct prof_tsv_schema *const prof_tsv_schemas[] = {
	&schemas[0], &schemas[1], &schemas[2], &schemas[3],
	&schemas[4], &schemas[5], &schemas[6], &schemas[7], &schemas[8], &schemas[9], &schemas[10],
	&schemas[11], &schemas[12], &schemas[13], NULL,
};
