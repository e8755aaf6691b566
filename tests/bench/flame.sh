#!/bin/sh
# flame.sh: profflame against flamegraph.pl on the same ~100 MB folded file
# (tests/bench/mkfolded.sh), in one run: runs interleaved, best of each
# kept, wall and CPU time, throughput, peak RSS, SVG size and the ratios.
#
# Environment: BIN (directory of profflame, default bin), FLAMEGRAPH_DIR
# (a FlameGraph checkout; default ../ref/FlameGraph when present, else our
# figures alone), ROUNDS (profflame runs, default 3), PERL_ROUNDS (default
# 1: flamegraph.pl is slow), INPUT (a folded file instead of the built one).
#
# Targets (issue 3): >= 100 MB/s of folded input, RSS <= 1/4 of
# flamegraph.pl's, SVG no larger than flamegraph.pl's at the same minwidth.
#
# Then the subsecond heat map's HTML page (issue 18) of a 10-minute
# recording (600 s x 50 buckets of 20 ms, 1 sample a ms, a few hundred
# distinct stacks; HEATMAP_SECONDS changes the length): generation time,
# RSS, page size and how much of it is the per-cell stack data; with
# chromium, the time the page takes to draw the flame graph of the whole
# recording (every cell summed) when its first and last cells are clicked.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=flame.sh
. "$TOP/tests/bench/lib.sh"
bench_setup profflame flamegraph.pl
INPUT=${INPUT:-$(sh "$TOP/tests/bench/mkfolded.sh")}
BYTES=$(wc -c <"$INPUT")
LINES=$(wc -l <"$INPUT")
echo "input: $INPUT: $BYTES bytes, $LINES lines; --width 1200, default minwidth 0.1 px"

# measure NAME CMD...: bench_measure, plus the SVG's size and frame count.
measure() {
	bench_measure "$@"
	wc -c <"$WORK/$1.out" >"$WORK/$1.size"
	grep -c '<rect' "$WORK/$1.out" >"$WORK/$1.rects" || true
}

r=1
while [ $r -le "$ROUNDS" ] || { [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; }; do
	[ $r -le "$ROUNDS" ] && measure profflame "$BIN/profflame" --width 1200 "$INPUT"
	if [ -n "$FLAMEGRAPH_DIR" ] && [ $r -le "$PERL_ROUNDS" ]; then
		measure flamegraph.pl perl "$FLAMEGRAPH_DIR/flamegraph.pl" --width 1200 "$INPUT"
	fi
	r=$((r + 1))
done

report() {
	read -r wall user sys rss <"$WORK/$1.best"
	awk -v n="$1" -v b="$BYTES" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
	    -v size="$(cat "$WORK/$1.size")" -v rects="$(cat "$WORK/$1.rects")" 'BEGIN {
		cpu = u + s
		printf "%-14s wall %6.2f s  cpu %6.2f s  %7.1f MB/s (cpu) %7.1f MB/s (wall)  RSS %6.1f MB  SVG %6.2f MB, %d frames\n",
		    n, w, cpu, b / 1e6 / (cpu > 0 ? cpu : 0.01), b / 1e6 / (w > 0 ? w : 0.01), r / 1024, size / 1e6, rects - 1
	}'
}
report profflame

# heatmap_bench: the heat map page of a long recording (see the top)
heatmap_bench() {
	secs=${HEATMAP_SECONDS:-600}
	# 1 sample a ms; 320 stacks of depth 8 to 23 (40 per phase of 8, the phase
	# changing every 3 s), picked by an LCG, weights near 1 ms as cpu-clock's
	awk -v secs="$secs" 'BEGIN {
		print "# source=profrec event=cpu-clock unit=ns"
		print "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"
		x = 12345
		for (ms = 0; ms < secs * 1000; ms++) {
			x = (x * 1103515245 + 12345) % 2147483648
			id = int(ms / 3000) % 8 * 40 + int(x / 65536) % 40
			st = ""
			if (!(id in seen)) {
				seen[id] = 1
				st = "main;run;module" int(id / 40)
				for (d = 0; d < 5 + id % 16; d++)
					st = st ";fn_" (id * 7 + d * 13) % 97 "_" d
			}
			printf "%.0f\t1\t1\tapp\t0\tcpu-clock\t%d\t%d\t%s\n", ms * 1000000, 999000 + int(x / 65536) % 2000, id, st
		}
	}' >"$WORK/rec.tsv"
	for r in 1 2 3; do
		bench_measure heatmap "$BIN/profflame" --heatmap --format html "$WORK/rec.tsv"
	done
	read -r wall user sys rss <"$WORK/heatmap.best"
	size=$(wc -c <"$WORK/heatmap.out")
	data=$(sed -n '/^var HM = /,/^function profFlame/p' "$WORK/heatmap.out" | wc -c)
	echo "heat map html: ${secs} s x 50 buckets, $(($(wc -l <"$WORK/rec.tsv") - 2)) samples, $(grep -c '	[^	]*;' "$WORK/rec.tsv") stacks:" \
		"wall $wall s, cpu $(echo "$user $sys" | awk '{ print $1 + $2 }') s, RSS $((rss / 1024)) MB," \
		"page $(awk -v b="$size" 'BEGIN { printf "%.2f", b / 1e6 }') MB (per-cell stack data $(awk -v b="$data" 'BEGIN { printf "%.2f", b / 1e6 }') MB)"
	chromium=
	for c in chromium chromium-browser google-chrome; do
		command -v "$c" >/dev/null 2>&1 && { chromium=$c; break; }
	done
	[ -n "$chromium" ] || { echo "heat map page in a browser: no chromium installed"; return 0; }
	last=$((secs - 1))
	{ sed '/<\/body>/,$d' "$WORK/heatmap.out"; cat <<JS; } >"$WORK/page.html"
<script>
window.addEventListener("load", function () {
  function cell(s, b) { return document.querySelector('#cells rect[data-s="' + s + '"][data-b="' + b + '"]'); }
  function click(el) { ["mousedown", "mouseup", "click"].forEach(function (t) { el.dispatchEvent(new MouseEvent(t, { bubbles: true })); }); }
  var t0 = performance.now();
  click(cell(0, 0)); click(cell($last, 49));
  var t1 = performance.now(), pre = document.createElement("pre");
  pre.id = "result";
  pre.textContent = "load " + Math.round(t0) + " ms, whole range drawn in " + Math.round(t1 - t0) + " ms, " +
    document.querySelectorAll("#range #frames > g").length + " frames";
  document.body.appendChild(pre);
});
</script>
</body>
</html>
JS
	res=$(timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$WORK/chromium" \
		--dump-dom "file://$WORK/page.html" 2>/dev/null | sed -n 's/.*<pre id="result">\([^<]*\)<.*/\1/p')
	echo "heat map page in $chromium: ${res:-did not run}"
}
heatmap_bench
[ -n "$FLAMEGRAPH_DIR" ] || { echo "(FLAMEGRAPH_DIR not set: flamegraph.pl not run)"; exit 0; }
report flamegraph.pl
read -r pw pu ps prss <"$WORK/profflame.best"
read -r fw fu fs frss <"$WORK/flamegraph.pl.best"
awk -v pw="$pw" -v pc="$(echo "$pu $ps" | awk '{print $1 + $2}')" -v prss="$prss" \
    -v fw="$fw" -v fc="$(echo "$fu $fs" | awk '{print $1 + $2}')" -v frss="$frss" \
    -v ps="$(cat "$WORK/profflame.size")" -v fs="$(cat "$WORK/flamegraph.pl.size")" 'BEGIN {
	printf "ratios: %.1fx faster (wall), %.1fx less CPU, RSS %.3f of flamegraph.pl%s, SVG %.2f of its size%s\n",
	    fw / (pw > 0 ? pw : 0.01), fc / (pc > 0 ? pc : 0.01), prss / frss,
	    prss * 4 <= frss ? " (target <= 0.25: met)" : " (target <= 0.25: MISSED)",
	    ps / fs, ps <= fs ? " (target <= 1: met)" : " (target <= 1: MISSED)"
}'
