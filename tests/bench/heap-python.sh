#!/bin/sh
# heap-python.sh: the cost of profheap --python (issue 26) on an
# allocation-heavy CPython script (three functions deep, ~1.2 M
# allocations with PYTHONMALLOC=malloc), beside the bare interpreter, plain
# profheap (pymalloc: objects of up to 512 bytes unseen), plain profheap
# with PYTHONMALLOC=malloc (every object seen, native stacks), --python
# exact and --python --sample 64K, and heaptrack and memray when present.
# Runs interleaved, ROUNDS rounds, the best wall time of each kept.
#
# Environment: BIN (default bin), PY (default: the newest pyenv CPython
# 3.9-3.13, else python3), N (loop count, default 300000), ROUNDS
# (default 3).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
N=${N:-300000}
ROUNDS=${ROUNDS:-3}
if [ -z "${PY:-}" ]; then
	PY=python3
	for v in 3.9 3.10 3.11 3.12 3.13; do
		for exe in /root/.pyenv/versions/$v.*/bin/python$v; do [ -x "$exe" ] && PY=$exe; done
	done
fi
[ -x "$BIN/profheap" ] || { echo "heap-python.sh: $BIN/profheap: build it first (make)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/heappybench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C
cat >"$WORK/load.py" <<PYEOF
def leaf(i):
    return [i, i + 1, {"k": i}]
def mid(n):
    s = 0
    for i in range(n):
        s += len(leaf(i))
    return s
def top():
    return mid($N)
top()
PYEOF
echo "workload: $PY load.py (N=$N); $ROUNDS rounds, best kept; $(nproc) cores; load average $(cut -d" " -f1-3 /proc/loadavg)"

# one NAME CMD...: run once, keep the best wall time in $WORK/NAME.best
one() {
	name=$1
	shift
	/usr/bin/time -f "%e" -o "$WORK/$name.t" "$@" >/dev/null 2>"$WORK/$name.err" ||
		{ echo "heap-python.sh: $name failed: $(tail -n 3 "$WORK/$name.err")" >&2; exit 1; }
	t=$(tail -n 1 "$WORK/$name.t")
	if [ ! -f "$WORK/$name.best" ] || awk -v t="$t" '{ exit !(t < $1) }' "$WORK/$name.best"; then
		echo "$t" >"$WORK/$name.best"
	fi
	[ -f "$WORK/names" ] && grep -qx "$name" "$WORK/names" || echo "$name" >>"$WORK/names"
}
HT=$(command -v heaptrack || true)
MR=$(command -v memray || true)
r=0
while [ $r -lt "$ROUNDS" ]; do
	one bare env -u PYTHONMALLOC "$PY" "$WORK/load.py"
	one profheap env -u PYTHONMALLOC "$BIN/profheap" -q -- "$PY" "$WORK/load.py"
	one profheap-malloc env PYTHONMALLOC=malloc "$BIN/profheap" -q -- "$PY" "$WORK/load.py"
	one profheap--python env -u PYTHONMALLOC "$BIN/profheap" -q --python -- "$PY" "$WORK/load.py"
	one profheap--python-s64K env -u PYTHONMALLOC "$BIN/profheap" -q --python -s 64K -- "$PY" "$WORK/load.py"
	[ -z "$HT" ] || one heaptrack-malloc env PYTHONMALLOC=malloc "$HT" -o "$WORK/ht" "$PY" "$WORK/load.py"
	[ -z "$MR" ] || { rm -f "$WORK/mr.bin"; one memray "$MR" run -q -o "$WORK/mr.bin" "$WORK/load.py"; }
	r=$((r + 1))
done
n=$(env PYTHONMALLOC=malloc "$BIN/profheap" -- "$PY" "$WORK/load.py" 2>&1 >/dev/null |
	sed -n 's/^profheap: [0-9]*: \([0-9,]*\) allocations.*/\1/p' | head -n 1)
bare=$(cat "$WORK/bare.best")
echo "allocations with PYTHONMALLOC=malloc: $n"
while read -r name; do
	awk -v n="$name" -v b="$bare" '{ printf "%-24s %7.2f s  %6.1fx\n", n, $1, (b > 0 ? $1 / b : 0) }' "$WORK/$name.best"
done <"$WORK/names"
[ -n "$HT" ] || echo "heaptrack: not installed"
[ -n "$MR" ] || echo "memray: not installed"
