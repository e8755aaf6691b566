#!/bin/sh
# python.sh: the cost of profrec --python (issue 26) on a CPU-bound Python
# script of fixed work (75% leaf_a, 25% leaf_b), run bare, under
# profrec --python -F FREQ and under profrec --python --native -F NFREQ
# (each thread stopped per sample), interleaved, the best (least target
# CPU) of ROUNDS kept. py-spy, the reference, is not packaged by Debian:
# where `py-spy` is on PATH it runs beside them (py-spy record -r FREQ,
# and --native -r NFREQ).
#
# Prints per mode: wall and its overhead over the bare run (what the
# target's threads stopped by --native lose shows here: a stopped thread
# spends no CPU; on a busy machine waiting for a CPU shows too), the
# target's own CPU (its time.process_time()) and its overhead, and the
# profiler's own CPU (the tree's user+sys less the target's); then what
# --native's summary says a sample cost (the time a thread stays
# stopped is what the target loses).
#
# Environment: BIN (default bin), PYTHON (default python3), N (work units,
# default 300), ROUNDS (default 5), FREQ (default 999), NFREQ (default 99,
# --native's default rate).
# Target: the target's CPU within 5% of the bare run's at 999 Hz.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
PYTHON=${PYTHON:-python3}
N=${N:-300}
ROUNDS=${ROUNDS:-5}
FREQ=${FREQ:-999}
NFREQ=${NFREQ:-99}
[ -x "$BIN/profrec" ] || { echo "python.sh: $BIN/profrec: build it first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "python.sh: needs /usr/bin/time (package time)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pybench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C

cp "$TOP/tests/data/split.py" "$WORK/work.py"

# measure NAME CMD...: keep "wall tree_cpu target_cpu" of the run with the
# least target CPU in $WORK/NAME.best.
measure() {
	name=$1
	shift
	/usr/bin/time -f "time %e %U %S" -o "$WORK/t" "$@" >/dev/null 2>"$WORK/err" || {
		echo "python.sh: $name failed: $(tail -n 3 "$WORK/err")" >&2
		exit 1
	}
	tc=$(awk '/^target_cpu/ { print $2 }' "$WORK/err")
	awk -v tc="$tc" '{ print $2, $3 + $4, tc }' "$WORK/t" >"$WORK/last"
	if [ ! -f "$WORK/$name.best" ] ||
	   awk 'NR == FNR { c = $3; next } { exit !(c < $3) }' "$WORK/last" "$WORK/$name.best"; then
		cp "$WORK/last" "$WORK/$name.best"
		grep -e '--native:' "$WORK/err" >"$WORK/$name.note" || :
	fi
}

modes="bare profrec native"
command -v py-spy >/dev/null 2>&1 && modes="$modes py-spy py-spy-n"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	measure bare "$PYTHON" "$WORK/work.py" --units "$N"
	measure profrec "$BIN/profrec" -q --python -F "$FREQ" --folded -o "$WORK/p.folded" -- \
		"$PYTHON" "$WORK/work.py" --units "$N"
	measure native "$BIN/profrec" --python --native -F "$NFREQ" --folded -o "$WORK/n.folded" -- \
		"$PYTHON" "$WORK/work.py" --units "$N"
	case $modes in *py-spy*)
		measure py-spy py-spy record -r "$FREQ" -f raw -o "$WORK/s.txt" -- "$PYTHON" "$WORK/work.py" --units "$N"
		measure py-spy-n py-spy record --native -r "$NFREQ" -f raw -o "$WORK/sn.txt" -- \
			"$PYTHON" "$WORK/work.py" --units "$N" ;;
	esac
	r=$((r + 1))
done

echo "python.sh: $("$PYTHON" --version 2>&1), $N units, $FREQ Hz (--native: $NFREQ Hz), best of $ROUNDS (least target CPU)"
printf '%-8s %8s %9s %11s %9s %13s\n' mode wall_s overhead target_cpu_s overhead profiler_cpu_s
base=$(awk '{ print $3 }' "$WORK/bare.best")
wall=$(awk '{ print $1 }' "$WORK/bare.best")
for m in $modes; do
	awk -v m="$m" -v base="$base" -v wall="$wall" '{ printf "%-8s %8.3f %8.1f%% %11.3f %8.1f%% %13.3f\n",
		m, $1, 100 * ($1 - wall) / wall, $3, 100 * ($3 - base) / base, m == "bare" ? 0 : $2 - $3 }' "$WORK/$m.best"
done
# what stopping the threads cost, per sample (profrec's summary)
sed 's/^profrec: /native: /' "$WORK/native.note"
awk -v base="$base" '{ o = 100 * ($3 - base) / base
	print "target: overhead of profrec --python on the CPU of the target " (o <= 5 ? "within" : "OVER") " 5% (" sprintf("%.1f", o) "%)"
	exit (o > 5) }' "$WORK/profrec.best"
