#!/bin/sh
# profgpu --kernels against a fake CUDA: tests/fake-cupti builds a stand-in
# libcupti.so (activity buffers completed on its own thread, dropped
# records, one subscriber), a stand-in libcuda.so.1 (cuInit loads
# CUDA_INJECTION64_PATH as the driver does) and a CUDA program whose two
# functions launch kernels of 3:1 GPU time on two devices, two streams.
. "$(dirname "$0")/lib.sh"

P=$BIN/profgpu
F=$TMP/fake
mkdir -p "$F" "$TMP/nosys"
export PROFGPU_SYSFS_ROOT="$TMP/nosys"
export PROFGPU_NVML_LIB="$TMP/no-such-libnvidia-ml.so.1"
unset PROFGPU_TEST_VIRTUAL_TIME CUDA_INJECTION64_PATH PROFGPU_KERNELS_DIR PROFGPU_KERNELS_UNWIND
for v in $(env | sed -n 's/^\(FAKE_CUPTI_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# (built with every tool: its absence is a failure, not a skip)
if [ ! -f "$CUPTI_INJ" ]; then
	fail "all" "no libprofgpu-cupti.so beside $BIN/profgpu or in ../lib/proftools"
	exit 0
fi
if ! sh "$TESTS/fake-cupti/build.sh" "$F" 2>"$TMP/cc.err"; then
	fail "build the fake CUDA" "$(head -c 300 "$TMP/cc.err")"
	exit 1
fi
export LD_LIBRARY_PATH="$F${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PROFGPU_CUPTI="$F/libcupti.so"
APP=$F/app
K=$TMP/k.tsv
S=$TMP/k.folded

same() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}
# col NAME: the column's number in $K
col() { head -1 "$K" | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
# sum_where KIND NAME: GPU ns of rows of that kind and name
gpu_ns() { awk -F'\t' -v n="$1" 'NR > 1 && $10 == n { s += $3 } END { print s + 0 }' "$K"; }

# ---------------------------------------------------------------- usage
check_error "--kernels needs a command" 2 'trace a command' "$P" --kernels "$K"
check_error "bad --kernel-unwind" 2 "kernel-unwind: 'x' is not fp or dwarf" "$P" --kernel-unwind x --kernels "$K" -- true
run "$P" -h
if grep -q -- '--kernels=file' "$TMP/stdout" && grep -q -- '--kernel-stacks=file' "$TMP/stdout"; then
	pass "help names --kernels and --kernel-stacks"
else
	fail "help names --kernels and --kernel-stacks"
fi

# ---------------------------------------------------------------- the mix
run "$P" -o /dev/null --kernels "$K" --kernel-stacks "$S" -- "$APP" mix
same "exit status is the command's" 5 "$STATUS"
validate_tsv "kernel TSV is valid" profgpu-kernels "$K"
same "40 kernels, 2 memcpys, 1 memset" "40 2 1" \
	"$(awk -F'\t' 'NR > 1 { n[$9]++ } END { print n["kernel"] + 0, n["memcpy"] + 0, n["memset"] + 0 }' "$K")"
same "names demangled" "attention(float const*, float*, int)|void gelu::kernel<float>(float*)" \
	"$(awk -F'\t' 'NR > 1 && $9 == "kernel" { print $10 }' "$K" | sort -u | tr '\n' '|' | sed 's/|$//')"
same "two devices, three streams" "0:1 0:2 1:3" \
	"$(awk -F'\t' 'NR > 1 && $9 == "kernel" { print $6 ":" $8 }' "$K" | sort -u | tr '\n' ' ' | sed 's/ $//')"
same "a second context after the first was destroyed" "1 2" \
	"$(awk -F'\t' 'NR > 1 && $9 == "kernel" { print $7 }' "$K" | sort -u | tr '\n' ' ' | sed 's/ $//')"
same "GPU time 3:1" "6000000 2000000" \
	"$(gpu_ns 'attention(float const*, float*, int)') $(gpu_ns 'void gelu::kernel<float>(float*)')"
# Times are on profgpu's clock (ns since it started), not CUPTI's.
run_ns=$(awk -F'\t' 'NR > 1 { if ($1 < 0 || $1 > 60e9) bad++ } END { print bad + 0 }' "$K")
same "times on profgpu's clock" 0 "$run_ns"
same "rows in start order" "" "$(awk -F'\t' 'NR > 2 && $1 < prev { print NR } NR > 1 { prev = $1 }' "$K")"
same "grid, block, registers, shared memory" "128,1,1 256,1,1 32 3072" \
	"$(awk -F'\t' 'NR > 1 && $10 ~ /^attention/ { print $11, $12, $13, $14; exit }' "$K")"
same "copies: bytes and direction" "1048576 DtoH|1048576 HtoD|65536 -" \
	"$(awk -F'\t' 'NR > 1 && $9 != "kernel" { print $15, $16 }' "$K" | sort | tr '\n' '|' | sed 's/|$//')"
same "kernels name their thread and a stack" "" \
	"$(awk -F'\t' 'NR > 1 && $9 == "kernel" && ($5 == 0 || $18 == 0)' "$K")"
same "folded: each kernel under the function that launched it" \
	"main;activation_layer;[launch] cudaLaunchKernel;[gpu] void gelu::kernel<float>(float*) 2000000|main;attention_layer;[launch] cuLaunchKernel;[gpu] attention(float const*, float*, int) 6000000" \
	"$(grep '\[launch\]' "$S" | sed 's/^.*;main;/main;/' | sort | tr '\n' '|' | sed 's/|$//')"
same "folded: no frame of the CUDA libraries" "" "$(grep -E 'cuLaunchKernel;cuLaunch|fakecupti|on_api' "$S")"
same "folded: copies weighted by GPU ns" "app;[gpu] [memcpy HtoD] 104857" "$(grep 'memcpy HtoD' "$S")"
if grep -q '^profgpu:  Time (%)  Total Time (ns)  Instances' "$TMP/stderr" &&
   grep -Eq '^profgpu: +75\.0 +6000000 +20 +300000\.0 +300000 +300000  attention' "$TMP/stderr" &&
   grep -Eq '^profgpu: +25\.0 +2000000 +20 ' "$TMP/stderr"; then
	pass "kernel summary: time %, total, instances, avg, min, max"
else
	fail "kernel summary: time %, total, instances, avg, min, max" "$(head -c 600 "$TMP/stderr")"
fi
if grep -Eq '^profgpu: .* 1048576 +10\.00  \[memcpy HtoD\]' "$TMP/stderr"; then
	pass "memory summary: bytes and GB/s"
else
	fail "memory summary: bytes and GB/s" "$(head -c 600 "$TMP/stderr")"
fi
if [ -x "$BIN/proffold" ]; then
	run "$BIN/proffold" --top 1 "$S"
	if grep -q 'attention' "$TMP/stdout"; then
		pass "proffold --top ranks the kernels"
	else
		fail "proffold --top ranks the kernels" "$(head -c 300 "$TMP/stdout") $(head -c 300 "$TMP/stderr")"
	fi
fi
mkdir -p "$TMP/t"
run env TMPDIR="$TMP/t" "$P" -q -o /dev/null --kernels "$K" -- "$APP" mix
same "records directory removed" "" "$(ls "$TMP/t")"

# frame pointers asked for: the fakes keep none, so stacks may stop at them, but nothing breaks
run "$P" -q -o /dev/null --kernel-unwind fp --kernel-stacks "$S" -- "$APP" mix
same "--kernel-unwind fp: all kernel time kept" 8000000 \
	"$(awk '/\[gpu\] (attention|void gelu)/ { s += $NF } END { print s + 0 }' "$S")"

# -q: no summary tables
run "$P" -q -o /dev/null --kernels "$K" -- "$APP" mix
same "-q: no summary" "" "$(grep 'Total Time' "$TMP/stderr")"

# --no-demangle
run "$P" -q -o /dev/null --no-demangle --kernels "$K" -- "$APP" mix
same "--no-demangle: raw names" "_Z9attentionPKfPfi|_ZN4gelu6kernelIfEEvPT_" \
	"$(awk -F'\t' 'NR > 1 && $9 == "kernel" { print $10 }' "$K" | sort -u | tr '\n' '|' | sed 's/|$//')"

# ---------------------------------------------------------------- hostile names
run "$P" -q -o /dev/null --kernels "$K" --kernel-stacks "$S" -- "$APP" hostile
validate_tsv "hostile names: TSV valid" profgpu-kernels "$K"
same "hostile names: one row each" 4 "$(awk -F'\t' 'NR > 1 && $9 == "kernel"' "$K" | wc -l | tr -d ' ')"
same "hostile names: tab, newline made spaces; bad UTF-8 as ?" "bad??utf8|new line|semi;colon|tab here" \
	"$(awk -F'\t' 'NR > 1 && $9 == "kernel" { print $10 }' "$K" | sort | tr '\n' '|' | sed 's/|$//')"
same "hostile names: folded lines split nothing" "" \
	"$(grep -v -E '^[^ ].* [0-9]+$' "$S")"
same "hostile names: no ';' inside a frame" 1 "$(grep -c '\[gpu\] semi:colon' "$S")"

# ---------------------------------------------------------------- dropped records
run env FAKE_CUPTI_BUFFERS=2 FAKE_CUPTI_RECORDS_PER_BUFFER=100 \
	"$P" -q -o /dev/null --kernels "$K" -- "$APP" drop
same "dropped: exit status the command's" 0 "$STATUS"
if grep -Eq 'profgpu: --kernels: [0-9]+ CUDA activity records dropped' "$TMP/stderr"; then
	pass "dropped records are said"
else
	fail "dropped records are said" "$(head -c 400 "$TMP/stderr")"
fi
kept=$(awk -F'\t' 'NR > 1' "$K" | wc -l | tr -d ' ')
said=$(sed -n 's/.*: \([0-9]*\) CUDA activity records dropped.*/\1/p' "$TMP/stderr")
same "dropped + kept = all records" 502 "$((kept + ${said:-0}))"

# ---------------------------------------------------------------- failures
# tracing failed: a command's 0 becomes 1, as for profgpu's other failures
check_error "CUPTI in use by another profiler" 1 'already in use by another profiler' \
	env FAKE_CUPTI_BUSY=1 "$P" -q -o /dev/null --kernels "$K" -- "$APP" init-only
run env FAKE_CUPTI_BUSY=1 "$P" -q -o /dev/null --kernels "$K" -- "$APP" mix
same "CUPTI in use, command failed otherwise not: exit 5 kept" 5 "$STATUS"
check_error "CUPTI too old" 1 'CUPTI API version 12 is too old' \
	env FAKE_CUPTI_VERSION=12 "$P" -q -o /dev/null --kernels "$K" -- "$APP" init-only
check_error "CUPTI newer than known" 1 'CUPTI API version 99 is newer than profgpu knows' \
	env FAKE_CUPTI_VERSION=99 "$P" -q -o /dev/null --kernels "$K" -- "$APP" init-only
check_error "CUPTI absent" 1 'CUPTI not found \(tried PROFGPU_CUPTI=' \
	env PROFGPU_CUPTI="$F/none.so" "$P" -q -o /dev/null --kernels "$K" -- "$APP" init-only
run "$P" -q -o /dev/null --kernels "$K" -- "$APP" none
same "no CUDA: exit status the command's" 3 "$STATUS"
if grep -q 'profgpu: --kernels: no CUDA activity' "$TMP/stderr"; then
	pass "no CUDA: said"
else
	fail "no CUDA: said" "$(head -c 300 "$TMP/stderr")"
fi
validate_tsv "no CUDA: header-only TSV valid" profgpu-kernels "$K"
run "$P" -q -o /dev/null --kernels "$K" -- "$APP" exec
same "exec: the kernels of both images of the process" "5 42" \
	"$STATUS $(awk -F'\t' 'NR > 1 && $9 == "kernel"' "$K" | wc -l | tr -d ' ')"
run "$P" -q -o /dev/null --kernels "$K" -- "$APP" killed
if grep -q 'ended without flushing its CUDA records' "$TMP/stderr"; then
	pass "killed process: its lost records are said"
else
	fail "killed process: its lost records are said" "$(head -c 300 "$TMP/stderr")"
fi

# ---------------------------------------------------------------- one pipeline
# folded stacks on stdout, the command's output on stderr, into profflame
run sh -c "'$P' -q -o /dev/null --kernel-stacks - -- '$APP' mix | '$BIN/profflame' >'$TMP/gpu.svg'"
same "pipeline: exit status" 0 "$STATUS"
if grep -q '<svg' "$TMP/gpu.svg" && grep -q 'attention_layer' "$TMP/gpu.svg"; then
	pass "pipeline: GPU flame graph drawn"
else
	fail "pipeline: GPU flame graph drawn" "$(head -c 300 "$TMP/stderr")"
fi
run "$P" -q -o /dev/null --kernel-stacks - -- "$APP" none
same "--kernel-stacks -: the command's output goes to stderr" "no cuda here" "$(grep 'no cuda' "$TMP/stderr")"
