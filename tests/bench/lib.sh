# Shared helpers of the benchmark scripts (tests/bench/*.sh) that compare
# a tool with a FlameGraph script. Source it after setting TOP (the
# repository) and BENCH (the script's name, for messages), then call
# bench_setup.

# bench_setup TOOL PERL_SCRIPT: BIN (default TOP/bin) must hold TOOL;
# ROUNDS and PERL_ROUNDS get their defaults (3 and 1); FLAMEGRAPH_DIR
# defaults to ../ref/FlameGraph when it holds PERL_SCRIPT (empty: ours
# alone); WORK is a scratch directory removed at exit.
bench_setup() {
	BIN=${BIN:-$TOP/bin}
	case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
	ROUNDS=${ROUNDS:-3}
	PERL_ROUNDS=${PERL_ROUNDS:-1}
	if [ -z "${FLAMEGRAPH_DIR+x}" ]; then
		FLAMEGRAPH_DIR=
		[ -f "$TOP/../ref/FlameGraph/$2" ] && FLAMEGRAPH_DIR=$TOP/../ref/FlameGraph
	fi
	[ -x "$BIN/$1" ] || { echo "$BENCH: $BIN/$1: build it first (make)" >&2; exit 1; }
	[ -x /usr/bin/time ] || { echo "$BENCH: needs /usr/bin/time (package time)" >&2; exit 1; }
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	export LC_ALL=C
}

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
