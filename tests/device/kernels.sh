#!/bin/sh
# tests/device/kernels.sh: profgpu --kernels on a machine with an NVIDIA
# GPU, nvcc and PyTorch (issue 23). Not run by make check: CI has no GPU
# (tests/profgpu-kernels.sh covers every path on a fake CUPTI).
#
#   BIN=bin LD_LIBRARY_PATH=... sh tests/device/kernels.sh
#
# 1. kernels.cu (two kernels of 3:1 GPU work, launched from launch_heavy
#    and launch_light) under profgpu --kernel-stacks: the folded GPU time
#    splits 75/25 within 2 points, each kernel under the function that
#    launched it.
# 2. kernels_workload.py (bf16 matmul, gelu, mul/add, tanh) traced by
#    profgpu --kernels and, in a separate run, by torch.profiler (Chrome
#    trace, events of category "kernel"): the same kernel names with the
#    same instance counts, and total kernel time within 2 %.
# 3. The workload's loop wall time plain, under profgpu --kernels and
#    under torch.profiler (best of RUNS=3 each, alternated): profgpu's
#    overhead no more than torch.profiler's, and under 5 %.
# Prints one table; exit 1 when a check fails, 2 when it could not run.
#
# DRY_RUN=1: part 1 against the fake CUDA of tests/fake-cupti (its "mix"
# program, attention_layer/activation_layer standing in for
# launch_heavy/launch_light); parts 2 and 3 are skipped. Checks the script
# itself on a machine without a GPU. OUT (default a new temporary
# directory) keeps what the runs wrote.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
DRY_RUN=${DRY_RUN:-0}
RUNS=${RUNS:-3}
STEPS=${STEPS:-300}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kernelsdevice.XXXXXX")}
mkdir -p "$OUT" || exit 2
export LC_ALL=C
PROFGPU=$BIN/profgpu
[ -x "$PROFGPU" ] && [ -f "$BIN/libprofgpu-cupti.so" ] ||
	{ echo "kernels.sh: $PROFGPU and $BIN/libprofgpu-cupti.so: build them first (make)" >&2; exit 2; }
FAILED=0
row() { printf '%-44s %-26s %s\n' "$1" "$2" "$3"; }
# verdict NAME MEASURED OK: the row; a failure fails the script
verdict() { if [ "$3" = 1 ]; then row "$1" "$2" ok; else FAILED=1; row "$1" "$2" FAIL; fi; }

if [ "$DRY_RUN" = 1 ]; then
	sh "$TOP/tests/fake-cupti/build.sh" "$OUT/fake" || exit 2
	export LD_LIBRARY_PATH="$OUT/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export PROFGPU_CUPTI="$OUT/fake/libcupti.so"
	PROG="$OUT/fake/app mix"
	HEAVY_FN=attention_layer HEAVY_K='attention(' LIGHT_FN=activation_layer LIGHT_K='gelu::kernel'
else
	command -v nvcc >/dev/null 2>&1 || { echo "kernels.sh: nvcc needed" >&2; exit 2; }
	python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
		{ echo "kernels.sh: python3 with PyTorch and a CUDA GPU needed (DRY_RUN=1 to check the script)" >&2; exit 2; }
	nvcc -O2 -g -Xcompiler -fno-omit-frame-pointer,-fno-optimize-sibling-calls \
		-o "$OUT/kernels" "$TOP/tests/device/kernels.cu" ||
		exit 2
	PROG="$OUT/kernels"
	HEAVY_FN=launch_heavy HEAVY_K='heavy(' LIGHT_FN=launch_light LIGHT_K='light('
fi

row "check" "measured" "verdict"
# ---- 1. the 3:1 split, each kernel under its launcher
# shellcheck disable=SC2086
"$PROFGPU" -q -o /dev/null --kernel-stacks "$OUT/split.folded" -- $PROG >"$OUT/split.out" 2>"$OUT/split.err"
# GPU ns of the kernels whose name holds K (the [gpu] frame), under
# function F (a frame before [launch]); kernel_ns: under any function.
under() { awk -v f=";$1;" -v k="$2" '{ n = $NF; s = substr($0, 1, length($0) - length(n) - 1)
	g = index(s, ";[gpu] "); if (!g || !index(substr(s, g), k)) next
	if (f == ";;" || (index(s, f) && index(s, f) < index(s, "[launch]"))) t += n } END { print t + 0 }' \
	"$OUT/split.folded"; }
kernel_ns() { under "" "$1"; }
h=$(under "$HEAVY_FN" "$HEAVY_K") l=$(under "$LIGHT_FN" "$LIGHT_K")
ha=$(kernel_ns "$HEAVY_K") la=$(kernel_ns "$LIGHT_K")
share=$(awk -v h="$h" -v l="$l" 'BEGIN { if (h + l > 0) printf "%.1f", 100 * h / (h + l); else print "none" }')
ok=$(awk -v s="$share" 'BEGIN { print (s != "none" && s >= 73 && s <= 77) ? 1 : 0 }')
verdict "3:1 kernels: heavy's share (75 +- 2)" "$share % ($h + $l ns)" "$ok"
ok=$([ "$h" -gt 0 ] && [ "$l" -gt 0 ] && [ "$h" = "$ha" ] && [ "$l" = "$la" ] && echo 1 || echo 0)
verdict "each kernel under the function that launched it" "$h/$ha, $l/$la ns" "$ok"

if [ "$DRY_RUN" = 1 ]; then
	row "PyTorch vs torch.profiler" "skipped (dry run)" "-"
	row "overhead" "skipped (dry run)" "-"
	exit "$FAILED"
fi

# ---- 2. PyTorch: profgpu against torch.profiler
W="python3 $TOP/tests/device/kernels_workload.py $STEPS"
# shellcheck disable=SC2086
"$PROFGPU" -q -o /dev/null --kernels "$OUT/torch-kernels.tsv" -- $W >"$OUT/pg.out" 2>"$OUT/pg.err"
# shellcheck disable=SC2086
$W --torch-profiler "$OUT/torch-trace.json" >"$OUT/tp.out" 2>"$OUT/tp.err"
awk -F'\t' 'NR > 1 && $9 == "kernel" { n[$10]++; t[$10] += $3 } END { for (k in n) printf "%s\t%d\t%d\n", k, n[k], t[k] }' \
	"$OUT/torch-kernels.tsv" | sort >"$OUT/pg.kernels"
python3 - "$OUT/torch-trace.json" >"$OUT/tp.kernels" <<'PY'
import json, sys, collections
ev = json.load(open(sys.argv[1]))
ev = ev.get("traceEvents", ev) if isinstance(ev, dict) else ev
n, t = collections.Counter(), collections.Counter()
for e in ev:
    if e.get("cat") == "kernel" and e.get("ph") == "X":
        n[e["name"]] += 1
        t[e["name"]] += float(e.get("dur", 0)) * 1000  # us -> ns
for k in sorted(n):
    print("%s\t%d\t%d" % (k, n[k], t[k]))
PY
cut -f1,2 "$OUT/pg.kernels" >"$OUT/a"
cut -f1,2 "$OUT/tp.kernels" >"$OUT/b"
same_names=$(cmp -s "$OUT/a" "$OUT/b" && [ -s "$OUT/a" ] && echo 1 || echo 0)
nk=$(wc -l <"$OUT/pg.kernels" | tr -d ' ') nt=$(wc -l <"$OUT/tp.kernels" | tr -d ' ')
verdict "same kernel names and instance counts" "$nk names vs $nt" "$same_names"
[ "$same_names" = 1 ] || diff "$OUT/a" "$OUT/b" | head -n 10 >&2
tp=$(awk -F'\t' '{ t += $3 } END { print t + 0 }' "$OUT/pg.kernels")
tt=$(awk -F'\t' '{ t += $3 } END { print t + 0 }' "$OUT/tp.kernels")
d=$(awk -v a="$tp" -v b="$tt" 'BEGIN { if (b > 0) printf "%.2f", 100 * (a - b) / b; else print "none" }')
ok=$(awk -v d="$d" 'BEGIN { print (d != "none" && d <= 2 && d >= -2) ? 1 : 0 }')
verdict "total kernel time vs torch.profiler (2 %)" "$tp vs $tt ns ($d %)" "$ok"

# ---- 3. overhead on the loop's wall time, best of RUNS, alternated
best() { sort -n | head -n 1; }
: >"$OUT/plain.s"; : >"$OUT/pg.s"; : >"$OUT/tp.s"
k=0
while [ "$k" -lt "$RUNS" ]; do
	# shellcheck disable=SC2086
	$W 2>/dev/null | sed -n 's/^loop_s //p' >>"$OUT/plain.s"
	# shellcheck disable=SC2086
	"$PROFGPU" -q -o /dev/null --kernels "$OUT/ovh.tsv" -- $W 2>/dev/null | sed -n 's/^loop_s //p' >>"$OUT/pg.s"
	# shellcheck disable=SC2086
	$W --torch-profiler "$OUT/ovh.json" 2>/dev/null | sed -n 's/^loop_s //p' >>"$OUT/tp.s"
	k=$((k + 1))
done
p=$(best <"$OUT/plain.s") g=$(best <"$OUT/pg.s") t=$(best <"$OUT/tp.s")
og=$(awk -v a="$g" -v b="$p" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')
ot=$(awk -v a="$t" -v b="$p" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')
ok=$(awk -v g="$og" -v t="$ot" 'BEGIN { print (g < 5 && g <= t) ? 1 : 0 }')
verdict "overhead: profgpu vs torch.profiler (< 5 %)" "$og % vs $ot % ($p s plain)" "$ok"
exit "$FAILED"
