#!/bin/sh
# profreport: the HTML page of a run directory: sections, escaping of
# hostile names, charts, errors, and the page in a real browser.
. "$(dirname "$0")/lib.sh"
R=$BIN/profreport
D=$TMP/run
mkdir -p "$D"

# A run directory as proftools-profile writes it, with hostile names.
printf '# command=./app%%20--fast mode=cpu status=0 freq=999\n' >"$D/run.meta"
hostile='<script>document.title="pwned"</script>'
printf 'app;main;%s 60\napp;main;say_"hi"_&_bye 30\napp;main;caf\303\251 10\n' "$hostile" >"$D/cpu.folded"
"$BIN/profflame" --title 'CPU <b>' -o "$D/cpu.svg" "$D/cpu.folded"
"$BIN/proffold" --top 10 -o "$D/cpu.top.tsv" "$D/cpu.folded"
{
	echo '# tool=profheap'
	printf 'time_ns\tlive_bytes\tlive_blocks\talloc_bytes\talloc_count\trss_bytes\n'
	for i in 0 1 2 3 4 5 6 7 8 9; do
		printf '%d\t%d\t7\t%d\t%d\t1000\n' $((i * 100000000)) $((i * i * 1000)) $((i * 5000)) $((i * 3))
	done
} >"$D/memory.timeline.tsv"
printf 'profheap: 42: leaked 12,345 bytes in 3 blocks\nprofheap:   <leak> & more\n' >"$D/memory.log"
printf 'time_ns\tgpu\tutil_pct\n' >"$D/gpu.tsv"
printf 'not shown\n' >"$D/cpu.samples.tsv.zst"

run "$R" "$D"
H=$D/index.html
if [ "$STATUS" = 0 ] && [ -s "$H" ] && [ ! -s "$TMP/stdout" ]; then
	pass "DIR/index.html written, nothing on stdout"
else
	fail "DIR/index.html written" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
if grep -q '<title>proftools report: ./app --fast</title>' "$H" &&
	grep -q '<th>freq</th><td>999</td>' "$H"; then
	pass "run.meta: title and metadata table (values decoded)"
else
	fail "run.meta in the page" "$(grep -o '<title>.*</title>' "$H")"
fi
if grep -q '<section id="cpu">' "$H" && grep -q '<section id="memory">' "$H" &&
	grep -q '<section id="timeline">' "$H" && ! grep -q '<section id="offcpu">' "$H" &&
	! grep -q '<section id="gpu">' "$H"; then
	pass "a section per prefix present (cpu, memory; timelines over time), none for absent ones"
else
	fail "sections" "$(grep -o '<section id="[^"]*"' "$H" | tr '\n' ' ')"
fi
if grep -q '&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;' "$H" &&
	! grep -q '<script>document.title' "$H" && grep -q 'say_&quot;hi&quot;_&amp;_bye' "$H" &&
	grep -q "$(printf 'caf\303\251')" "$H"; then
	pass "hostile function names in the tables are escaped text, UTF-8 kept"
else
	fail "hostile names escaped" "$(grep -o '.\{20\}pwned.\{20\}' "$H" | head -3 | tr '\n' '|')"
fi
if grep -q '<pre>profheap: 42: leaked 12,345 bytes in 3 blocks' "$H" && grep -q '&lt;leak&gt; &amp; more' "$H"; then
	pass "logs shown as escaped preformatted text"
else
	fail "logs as <pre>" "missing"
fi
n=$(grep -o '<svg class="chart"' "$H" | wc -l)
if [ "$n" = 3 ] && grep -q 'data-chart="{&quot;w&quot;:1000' "$H" && ! grep -q '>Heap: blocks live</text>' "$H" &&
	! grep -q '>Resident memory (RSS) of the memory run</text>' "$H" &&
	grep -q '>Heap: allocations since the start</text>' "$H"; then
	pass "timeline: one chart per varying column (3), constant live_blocks and rss_bytes left out"
else
	fail "timeline charts" "$n charts"
fi
if grep -q 'gpu.tsv: no samples (header only).' "$H" && grep -q 'Beside this page: cpu.folded, cpu.samples.tsv.zst' "$H"; then
	pass "a header-only timeline says so; other files are named beside the page"
else
	fail "header-only and kept files" "$(grep -o 'Beside this page[^<]*' "$H")"
fi
# srcdoc='&lt;!DOCTYPE html>...&lt;body>SVG&lt;/body>&lt;/html>', & and ' escaped
awk '/ srcdoc=\x27/ { p = 1; sub(/.*&lt;body>/, "") } p && /^&lt;\/body>&lt;\/html>\x27><\/iframe>$/ { exit } p' "$H" |
	sed "s/&#39;/'/g; s/&amp;/\\&/g" >"$TMP/embedded.svg"
if [ "$(grep -c ' srcdoc=' "$H")" = 1 ] && sed -n '/^<svg/,$p' "$D/cpu.svg" | cmp -s - "$TMP/embedded.svg"; then
	pass "the flame graph is embedded whole (srcdoc decodes to the SVG byte for byte)"
else
	fail "flame graph embedded" "srcdoc missing or not the SVG: $(sed -n '/^<svg/,$p' "$D/cpu.svg" | cmp - "$TMP/embedded.svg" 2>&1)"
fi
if ! grep -Eq '(src|href)="(https?:)?//' "$H" && grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$H"; then
	pass "nothing loaded from the network (no http URL, CSP default-src 'none')"
else
	fail "no network" "$(grep -Eo '(src|href)="(https?:)?//[^"]*' "$H" | head -3)"
fi
check_status "-o - writes the page to stdout" 0 sh -c "'$R' -o - '$D' | grep -q '^<!DOCTYPE html>'"

# errors
mkdir -p "$TMP/empty"
check_error "an empty directory: nothing to report" 1 'nothing to report' "$R" "$TMP/empty"
[ -f "$TMP/empty/index.html" ] && fail "no page left behind for nothing" || pass "no page left behind for nothing"
check_error "a missing directory" 1 'nosuch: No such file or directory' "$R" "$TMP/nosuch"
check_error "a file is not a directory" 1 'run.meta: not a directory' "$R" "$D/run.meta"
check_error "no directory is a usage error" 2 'no directory' "$R"
check_error "two directories are a usage error" 2 'one directory only' "$R" "$D" "$D"
# a FIFO (or a device) among the run's files is named and left out, never
# opened: its open blocked for ever (issue 25); the rest is still shown
F=$TMP/fiforun
mkdir -p "$F"
cp "$D/cpu.folded" "$D/cpu.svg" "$F/"
mkfifo "$F/memory.log" "$F/gpu.tsv"
run timeout 20 "$R" "$F"
if [ "$STATUS" = 1 ] && grep -q "fiforun/memory.log: not a regular file (a FIFO): left out" "$TMP/stderr" &&
	grep -q "fiforun/gpu.tsv: not a regular file (a FIFO): left out" "$TMP/stderr" &&
	grep -q 'id="cpu.svg"' "$F/index.html" && ! grep -q 'memory.log' "$F/index.html"; then
	pass "FIFOs in the run directory: each named and left out, the rest shown, exit 1"
else
	fail "FIFOs in the run directory" "exit $STATUS: $(head -c 400 "$TMP/stderr")"
fi

# Inputs read through the shared line cap (PROFTOOLS_MAX_LINE) and the
# SVG size cap: a long line is named, what came before it shown, what
# follows it never read (issue 25), exit 1.
L=$TMP/longrun
mkdir -p "$L"
long=$(head -c 5000 /dev/zero | tr '\0' x)
printf '# command=app status=0\n# %s\n' "$long" >"$L/run.meta"
printf 'first line\n%s\nlast line\n' "$long" >"$L/memory.log"
printf 'function\tself\nparse\t10\n%s\t5\nrender\t7\n' "$long" >"$L/cpu.top.tsv"
PROFTOOLS_MAX_LINE=4096 run "$R" "$L"
want="profreport: $L/cpu.top.tsv:3: line longer than 4096 bytes (PROFTOOLS_MAX_LINE raises the cap)
profreport: $L/memory.log:2: line longer than 4096 bytes (PROFTOOLS_MAX_LINE raises the cap)
profreport: $L/run.meta:2: line longer than 4096 bytes (PROFTOOLS_MAX_LINE raises the cap)"
if [ "$STATUS" = 1 ] && [ "$(sort "$TMP/stderr")" = "$want" ]; then
	pass "lines over PROFTOOLS_MAX_LINE in run.meta, a log and a table: each named, exit 1"
else
	fail "long lines named" "exit $STATUS: $(head -c 600 "$TMP/stderr")"
fi
if grep -q '<pre>first line$' "$L/index.html" && ! grep -q '^last line$' "$L/index.html" &&
	grep -q '<td>parse</td>' "$L/index.html" && ! grep -q '<td>render</td>' "$L/index.html" &&
	grep -q '<title>proftools report: app</title>' "$L/index.html" && ! grep -q xxxxxxxx "$L/index.html"; then
	pass "the lines before the long ones are shown, the long ones and the lines after them are not"
else
	fail "good lines kept" "$(grep -c . "$L/index.html") lines in the page"
fi
# ... in bounded memory: 300 MB lines (sparse files: no disk used) through
# 150 MB of address space (each file was once read whole: out of memory)
if [ -z "$SANITIZE" ]; then
	printf '# command=app status=0\n' >"$L/run.meta"
	printf 'first line\n' >"$L/memory.log"
	printf 'function\tself\nparse\t10\n' >"$L/cpu.top.tsv"
	for f in run.meta memory.log cpu.top.tsv; do
		truncate -s 300M "$L/$f"
		printf '\n' >>"$L/$f"
	done
	printf 'last line\n' >>"$L/memory.log"
	printf 'render\t7\n' >>"$L/cpu.top.tsv"
	STATUS=0
	( ulimit -v 150000; "$R" "$L" >"$TMP/stdout" 2>"$TMP/stderr" ) || STATUS=$?
	if [ "$STATUS" = 1 ] && [ "$(grep -c 'line longer than 16777216 bytes' "$TMP/stderr")" = 3 ] &&
		grep -q '<pre>first line$' "$L/index.html" && grep -q '<td>parse</td>' "$L/index.html" &&
		grep -q '<title>proftools report: app</title>' "$L/index.html"; then
		pass "300 MB lines in run.meta, a log and a table within 150 MB of address space"
	else
		fail "bounded memory" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi
rm -f "$L/run.meta" "$L/memory.log" "$L/cpu.top.tsv" "$L/index.html"
cp "$D/cpu.svg" "$L/cpu.svg"
truncate -s 65M "$L/cpu-huge.svg"	# sparse: no disk used
run "$R" "$L"
if [ "$STATUS" = 1 ] && [ "$(cat "$TMP/stderr")" = "profreport: $L/cpu-huge.svg: larger than 67108864 bytes" ] &&
	[ "$(grep -c ' srcdoc=' "$L/index.html")" = 1 ]; then
	pass "an SVG over 64 MiB is named and left out, exit 1; the other is embedded"
else
	fail "SVG size cap" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# ---- in a real browser (optional) ----
CHROMIUM=
for c in chromium chromium-browser google-chrome; do
	have "$c" && { CHROMIUM=$c; break; }
done
if [ -z "$CHROMIUM" ]; then
	skip "browser" "no chromium installed (package chromium)"
elif [ -n "$SANITIZE" ]; then
	skip "browser" "not repeated in the sanitizer pass"
else
	# The page with a harness appended: errors, hover on a chart, title.
	cat >"$TMP/harness.js" <<'JS'
var errors = [];
window.addEventListener("error", function (e) { errors.push(e.message); });
window.addEventListener("load", function () {
  setTimeout(function () {
    var out = [], chart = document.querySelector("svg.chart");
    var r = chart.getBoundingClientRect();
    chart.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + r.width * 0.95, clientY: r.top + 50, bubbles: true }));
    out.push("hover=" + chart.querySelector(".hover").textContent);
    out.push("mark=" + (chart.querySelector(".mark").style.display !== "none"));
    out.push("title=" + document.title);
    out.push("frames=" + document.querySelectorAll("iframe").length);
    var f = document.querySelector("iframe").getBoundingClientRect();
    out.push("frame-size=" + (f.width > 500 && f.height > 100));
    out.push("sections=" + Array.prototype.map.call(document.querySelectorAll("h2"), function (h) { return h.textContent; }).join(","));
    out.push("errors=" + errors.length + (errors.length ? ":" + errors.join("|") : ""));
    var pre = document.createElement("pre");
    pre.id = "result";
    pre.textContent = out.join("\n");
    document.body.appendChild(pre);
  }, 300);
});
JS
	{ sed '/<\/body>/,$d' "$H"; printf '<script>\n'; cat "$TMP/harness.js"; printf '</script>\n</body>\n</html>\n'; } >"$TMP/harness.html"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chromium" \
		--virtual-time-budget=3000 --dump-dom "file://$TMP/harness.html" >"$TMP/dom.html" 2>"$TMP/chromium.err" || true
	sed -n '/<pre id="result">/,/<\/pre>/p' "$TMP/dom.html" | sed 's/<pre id="result">//; s/<\/pre>.*//; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' >"$TMP/result"
	if [ ! -s "$TMP/result" ]; then
		skip "browser" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		got() { grep "^$1=" "$TMP/result" | sed "s/^$1=//"; }
		check "browser: no script error on the page" 0 "0" got errors
		check "browser: the hostile name ran no script (title unchanged)" 0 "proftools report: ./app --fast" got title
		check "browser: hovering a chart shows the value and time under the pointer" 0 "79.1 KiB at 0.9 s" sh -c "grep '^hover=' '$TMP/result' | sed 's/^hover=//' | head -n 1"
		check "browser: the hover marker is drawn" 0 "true" got mark
		check "browser: the flame graph frame is laid out (width > 500, height > 100)" 0 "true" got frame-size
		check "browser: sections in order" 0 "Summary,Findings,Over time,Where the CPU time goes,Where the memory goes,The run" got sections
	fi
	# Screenshots, looked at: the flame graph's frames are on them (pixels
	# of its palette), in the report of this run and in that of a graph of
	# 2 MB, which as a data: URL (2.8 MB of base64; Chromium loads none over
	# 2 MiB) was an empty box (issue 24)
	shot() { # PAGE: "WxH warm=N match=N" of its screenshot, or "none"
		rm -f "$TMP/page.png"
		timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chromium" \
			--virtual-time-budget=3000 --window-size=1280,1600 --screenshot="$TMP/page.png" "file://$1" >/dev/null 2>&1 || true
		"$BUILD/tests/tools/pngpixels" "$TMP/page.png" 2>/dev/null || echo none
	}
	warm() { echo "$1" | sed -n 's/^[0-9]*x[0-9]* warm=\([0-9]*\) .*/\1/p'; }
	px=$(shot "$H")
	if [ "$(warm "$px")" -ge 20000 ] 2>/dev/null; then
		pass "browser: the screenshot shows the flame graph ($px)"
	else
		fail "browser: screenshot shows the flame graph" "$px"
	fi
	B=$TMP/big
	mkdir -p "$B"
	awk 'BEGIN { for (i = 0; i < 8000; i++) print "app;mod_" i % 7 ";function_number_" i ";leaf_function_" i " 1" }' >"$B/cpu.folded"
	"$BIN/profflame" --compact-width 0 -o "$B/cpu.svg" "$B/cpu.folded"
	"$R" -q "$B"
	px=$(shot "$B/index.html")
	# (its wide rows, all, app and 7 modules, are some 50,000 such pixels;
	# a loaded machine may capture it before the last is painted)
	if [ "$(wc -c <"$B/cpu.svg")" -gt 1600000 ] && [ "$(warm "$px")" -ge 5000 ] 2>/dev/null; then
		pass "browser: a graph of 2 MB is drawn in the report ($px)"
	else
		fail "browser: a graph of 2 MB in the report" "$(wc -c <"$B/cpu.svg") bytes: $px"
	fi
fi
