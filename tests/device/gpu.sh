#!/bin/sh
# tests/device/gpu.sh: profgpu and proftools-profile on a machine with an
# NVIDIA GPU and PyTorch (issue 22). Not run by make check: CI has no GPU.
#
#   BIN=bin LD_LIBRARY_PATH=... sh tests/device/gpu.sh
#
# It takes the built tools in BIN (default bin; the libraries they link,
# carried beside them, through LD_LIBRARY_PATH) and:
#  1. runs workload.py (the PyTorch capture of ../shared/corpus/real-h100-torch:
#     idle, 16 GiB allocated, bf16 matmuls, freed, idle) under profgpu with
#     --processes and --host-output, nvidia-smi -lms 100 beside it;
#  2. runs it under proftools-profile all (index.html must be written);
#  3. runs 20 short commands under profgpu (10 x true, 10 x a CUDA init);
#  4. runs nvidia-smi (the fields of issue 22) and profgpu side by side for
#     10 s at 10 Hz with no command, and measures the CPU time of each;
# and prints one table: the runs that ended with their command (within a
# second), profgpu against nvidia-smi on the same interval (mean util, peak
# memory, mean power), and the CPU cost of each at 10 Hz.
#
# DRY_RUN=1: the same script against the fake libnvidia-ml of
# tests/fake-nvml (built here) with "sleep" standing in for the workload
# and nvidia-smi left out: checks the script itself on a machine without
# a GPU. OUT (default a new temporary directory) keeps what the runs wrote.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
DRY_RUN=${DRY_RUN:-0}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gpudevice.XXXXXX")}
mkdir -p "$OUT" || exit 1
export LC_ALL=C
PROFGPU=$BIN/profgpu
WRAPPER=$BIN/proftools-profile
[ -x "$WRAPPER" ] || WRAPPER=$TOP/scripts/profile.sh
export PROFTOOLS_BIN="$BIN"
[ -x "$PROFGPU" ] || { echo "gpu.sh: $PROFGPU: build it first (make)" >&2; exit 1; }
SMI_FIELDS=utilization.gpu,memory.used,power.draw,temperature.gpu,clocks.sm,pcie.link.gen.current

if [ "$DRY_RUN" = 1 ]; then
	${CC:-cc} -O2 -shared -fPIC -pthread -o "$OUT/libnvidia-ml.so.1" \
		"$TOP/tests/fake-nvml/fake_nvml.c" || exit 1
	export PROFGPU_NVML_LIB="$OUT/libnvidia-ml.so.1" FAKE_NVML_UTIL=0,0,99 \
		FAKE_NVML_MEMUSED=0,0,18374000000 FAKE_NVML_POWER=70000,70000,697000
	WORKLOAD="sleep 3"
	SHORT_CUDA="sleep 0.2"
	HAVE_SMI=0
else
	python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
		{ echo "gpu.sh: python3 with PyTorch and a CUDA GPU needed (DRY_RUN=1 to check the script)" >&2; exit 1; }
	WORKLOAD="python3 $TOP/tests/device/workload.py 6"
	SHORT_CUDA="python3 -c 'import torch; torch.ones(1, device=\"cuda\")'"
	HAVE_SMI=1
	command -v nvidia-smi >/dev/null 2>&1 || HAVE_SMI=0
fi

now_ms() { date +%s%3N; }

# after NAME CMD: run CMD (a shell command line) under profgpu with a 5 min
# limit; prints "ended MS_AFTER_THE_COMMAND" or "hung" (killed).
under_profgpu() {
	_name=$1 _cmd=$2
	shift 2
	rm -f "$OUT/$_name.end"
	timeout 300 "$PROFGPU" "$@" -- sh -c "$_cmd; rc=\$?; date +%s%3N >\"\$0\"; exit \$rc" \
		"$OUT/$_name.end" >"$OUT/$_name.stdout" 2>"$OUT/$_name.stderr"
	_st=$? _end=$(now_ms)
	if [ "$_st" = 124 ] || [ ! -s "$OUT/$_name.end" ]; then
		echo "hung"
	else
		echo "ended $((_end - $(cat "$OUT/$_name.end"))) $_st"
	fi
}

# nvidia-smi at 100 ms into FILE, each line stamped with the epoch in ms.
smi_start() {
	nvidia-smi --query-gpu=$SMI_FIELDS --format=csv,noheader,nounits -lms 100 |
		while IFS= read -r l; do echo "$(now_ms), $l"; done >"$1" &
	SMI_PID=$!
}
smi_stop() {
	pkill -INT -P "$SMI_PID" nvidia-smi 2>/dev/null
	wait "$SMI_PID" 2>/dev/null
}

# ---- 1. the workload under profgpu, nvidia-smi beside it
[ "$HAVE_SMI" = 1 ] && smi_start "$OUT/smi.csv"
sleep 0.5
t0=$(now_ms)
r1=$(under_profgpu workload "$WORKLOAD" -i 100ms -o "$OUT/gpu.tsv" \
	--processes "$OUT/gpu-processes.tsv" --host-output "$OUT/host.tsv")
t1=$(now_ms)
[ "$HAVE_SMI" = 1 ] && smi_stop

# ---- 2. proftools-profile all
w0=$(now_ms)
# shellcheck disable=SC2086
timeout 900 "$WRAPPER" all -q -o "$OUT/prof" -- $WORKLOAD >"$OUT/prof.stdout" 2>"$OUT/prof.stderr"
wst=$? w1=$(now_ms)
if [ "$wst" = 124 ]; then
	r2="hung (killed after 900 s)"
elif [ -s "$OUT/prof/index.html" ] && [ -s "$OUT/prof/gpu.tsv" ]; then
	r2="yes: index.html, gpu.tsv (exit $wst, $(( (w1 - w0) / 1000 )) s)"
else
	r2="NO: exit $wst, no index.html or gpu.tsv"
fi

# ---- 3. 20 short commands
ok=0 worst=0 bad=
i=0
while [ "$i" -lt 20 ]; do
	if [ "$i" -lt 10 ]; then c=true; else c=$SHORT_CUDA; fi
	r=$(under_profgpu short "$c" -q -i 100ms -o /dev/null)
	case $r in
	ended*)
		set -- $r
		if [ "$2" -lt 1000 ]; then ok=$((ok + 1)); else bad="$bad late:$2ms"; fi
		[ "$2" -gt "$worst" ] && worst=$2 ;;
	*) bad="$bad hung" ;;
	esac
	i=$((i + 1))
done

# ---- 4. CPU at 10 Hz for 10 s, side by side
cpu_of() { # FILE CMD...: user+sys seconds of CMD and its children into FILE
	_f=$1
	shift
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.4f\n" % (r.ru_utime + r.ru_stime))' "$_f" "$@"
}
cpu_of "$OUT/cpu.profgpu" "$PROFGPU" -q -i 100ms -c 100 -o "$OUT/cost.tsv" &
p1=$!
if [ "$HAVE_SMI" = 1 ]; then
	cpu_of "$OUT/cpu.smi" timeout -s INT 10 nvidia-smi --query-gpu=$SMI_FIELDS \
		--format=csv,noheader -lms 100 &
	p2=$!
	wait "$p2"
fi
wait "$p1"

# ---- the table
# profgpu's figures over its rows; nvidia-smi's over its lines stamped
# between profgpu's start and end.
pg_stats=$(awk -F '\t' 'NR > 1 && $2 == 0 {
		if ($5 != "") { u += $5; nu++ }
		if ($7 != "" && $7 > m) m = $7
		if ($10 != "") { p += $10; np++ } }
	END { printf "%.1f %.0f %.1f", nu ? u / nu : -1, m / 1048576, np ? p / np : -1 }' "$OUT/gpu.tsv")
if [ "$HAVE_SMI" = 1 ] && [ -s "$OUT/smi.csv" ]; then
	smi_stats=$(awk -F ', *' -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b && $2 ~ /^[0-9]/ {
			u += $2; n++; if ($3 > m) m = $3; p += $4 }
		END { if (n) printf "%.1f %.0f %.1f", u / n, m, p / n; else printf "- - -" }' "$OUT/smi.csv")
else
	smi_stats="- - -"
fi
cpu_pg=$(cat "$OUT/cpu.profgpu" 2>/dev/null || echo -)
cpu_smi=$(cat "$OUT/cpu.smi" 2>/dev/null || echo -)
case $r1 in
ended*) set -- $r1; [ "$2" -lt 1000 ] && r1t="yes ($2 ms after, exit $3)" || r1t="LATE ($2 ms after)" ;;
*) r1t="NO: hung (killed after 300 s)" ;;
esac
set -- $pg_stats
pu=$1 pm=$2 pp=$3
set -- $smi_stats
su=$1 sm=$2 sp=$3
{
	if [ "$DRY_RUN" = 1 ]; then
		echo "issue 22 device check: fake NVML (DRY_RUN)"
	else
		echo "issue 22 device check: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
	fi
	printf '%-46s %s\n' "check" "result"
	printf '%-46s %s\n' "workload under profgpu ended with it" "$r1t"
	printf '%-46s %s\n' "proftools-profile all wrote its report" "$r2"
	printf '%-46s %s\n' "20 short commands ended with them (< 1 s)" "$ok/20 (worst $worst ms)${bad:+;$bad}"
	printf '%-46s %s\n' "" "profgpu / nvidia-smi, same interval"
	printf '%-46s %s / %s\n' "util mean %" "$pu" "$su"
	printf '%-46s %s / %s\n' "memory peak MiB" "$pm" "$sm"
	printf '%-46s %s / %s\n' "power mean W" "$pp" "$sp"
	printf '%-46s %s / %s\n' "CPU s over 10 s at 10 Hz" "$cpu_pg" "$cpu_smi"
	awk -v a="$cpu_pg" -v b="$cpu_smi" 'BEGIN {
		if (a != "-") printf "%-46s %.3f%%\n", "profgpu share of one core (target < 0.5%)", a * 10
		if (a != "-" && b != "-" && b > 0) printf "%-46s %.2f (target <= 1)\n", "CPU ratio profgpu / nvidia-smi", a / b }'
	[ "$HAVE_SMI" = 1 ] || echo "(nvidia-smi not run: $([ "$DRY_RUN" = 1 ] && echo DRY_RUN || echo not found))"
	echo "outputs in $OUT"
} | tee "$OUT/table.txt"
