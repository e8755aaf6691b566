#!/bin/sh
# gopclntab.sh: what naming a stripped Go program by its function table
# (.gopclntab, lib/symbolize/gopclntab.c) costs the symbolizer, on the
# stripped Go programs of this machine (Debian's golang-go: go, gofmt;
# more with GO_BINS="FILE..."). For each: the table read (one sample: a
# new symbolizer reads and sorts the whole table, names the address),
# then SAMPLES samples drawn uniformly over its .text (nearly all of them
# distinct addresses: every one a lookup), by tests/tools/symbench, the
# persistent cache off, best of ROUNDS.
#
# Environment: BUILD (build directory holding tests/tools/symbench,
# default build), SAMPLES (default 100000), ROUNDS (default 5), GO_BINS.
#
# Target: every sample named (no "+0x", no FDE name), and the table read
# under 1 us per function of the table.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
SAMPLES=${SAMPLES:-100000}
ROUNDS=${ROUNDS:-5}
SB=$BUILD/tests/tools/symbench
[ -x "$SB" ] || { echo "gopclntab.sh: $SB: build it first (make tests-build)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gopclnbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C

bins=${GO_BINS:-$(ls /usr/lib/go-*/bin/go /usr/lib/go-*/bin/gofmt 2>/dev/null || true)}
if [ -z "$bins" ]; then
	echo "gopclntab.sh: no stripped Go program here (Debian: golang-go; or GO_BINS=FILE...)"
	exit 0
fi
missed=
for f in $bins; do
	# its .text (file offset, size) and its table's size; a file with a .symtab is no case
	if readelf -SW "$f" | grep -q ' \.symtab '; then
		echo "gopclntab.sh: $f has a .symtab: skipped"
		continue
	fi
	# shellcheck disable=SC2046
	set -- $(readelf -SW "$f" | awk '$2 == ".text" { print $5, $6 } $3 == ".text" { print $6, $7 }')
	tab=$(readelf -SW "$f" | awk '$2 ~ /gopclntab$/ { print $6 } $3 ~ /gopclntab$/ { print $7 }')
	printf '%x\n' $((0x$1)) >"$WORK/one"
	awk -v off=$((0x$1)) -v size=$((0x$2)) -v n="$SAMPLES" 'BEGIN {
		srand(17); for (i = 0; i < n; i++) printf "%x\n", off + int(rand() * size) }' >"$WORK/offsets"
	: >"$WORK/read"
	: >"$WORK/many"
	for _ in $(seq "$ROUNDS"); do
		"$SB" "$f" "$WORK/one" 1 >>"$WORK/read"
		"$SB" "$f" "$WORK/offsets" 1 >>"$WORK/many"
	done
	read_ns=$(sort -n -k4 "$WORK/read" | head -n 1 | awk '{ print $4 }')
	best=$(sort -n -k4 "$WORK/many" | head -n 1)
	names=$(echo "$best" | awk '{ print $6 }')
	weak=$(echo "$best" | awk '{ print $8 + $10 }')
	# the functions of the table: its header's word after the magic (8 bytes, little-endian)
	nfunc=$(od -An -t u8 -j $((0x$(readelf -SW "$f" | awk '$2 ~ /gopclntab$/ { print $5 } $3 ~ /gopclntab$/ { print $6 }') + 8)) -N 8 "$f" | tr -d ' ')
	printf '%s: %d functions (table %d KiB): table read %.2f ms (%.0f ns/function); %s\n' \
		"$f" "$nfunc" $((0x$tab / 1024)) "$(echo "$read_ns" | awk '{ print $1 / 1e6 }')" \
		"$(awk -v a="$read_ns" -v n="$nfunc" 'BEGIN { print a / n }')" "$best"
	if [ "$weak" -ne 0 ]; then
		echo "gopclntab.sh: $f: $weak samples not named by the table" >&2
		missed=1
	elif ! awk -v a="$read_ns" -v n="$nfunc" 'BEGIN { exit !(a < 1000 * n) }'; then
		echo "gopclntab.sh: $f: table read over 1 us per function" >&2
		missed=1
	fi
	[ "$names" -gt 0 ] || missed=1
done
if [ -n "$missed" ]; then
	echo "target every sample named, table read < 1 us/function: MISSED"
	exit 1
fi
echo "target every sample named, table read < 1 us/function: met"
