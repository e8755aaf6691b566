# Shared helpers of the benchmark scripts (tests/bench/*.sh). Source it
# after setting WORK (a scratch directory) and BENCH (the script's name,
# for messages).

# bench_measure NAME CMD...: run CMD once under /usr/bin/time, its stdout
# in $WORK/NAME.out; keep the run with the least wall time per NAME in
# $WORK/NAME.best as "wall user sys maxrss_kb". A failing CMD ends the
# benchmark.
bench_measure() {
	_name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/$_name.time" "$@" >"$WORK/$_name.out" 2>"$WORK/$_name.err" || {
		echo "$BENCH: $_name failed: $(tail -n 3 "$WORK/$_name.err")" >&2
		exit 1
	}
	tail -n 1 "$WORK/$_name.time" >"$WORK/$_name.last"
	if [ ! -f "$WORK/$_name.best" ] ||
	   awk 'NR == FNR { w = $1; next } { exit !(w < $1) }' "$WORK/$_name.last" "$WORK/$_name.best"; then
		cp "$WORK/$_name.last" "$WORK/$_name.best"
	fi
}
