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

# ---- the summary and the findings (proftools-profile(1), FINDINGS) ----
# rules DIR: the report of DIR written, the rules of its findings in order
rules() {
	"$R" -q "$1" 2>"$TMP/rules.err" || echo "exit $?: $(head -c 200 "$TMP/rules.err")"
	_r=$(grep -o 'data-rule="[a-z-]*"' "$1/index.html" | sed 's/data-rule="\(.*\)"/\1/' | tr '\n' ' ')
	echo "${_r:-none}"
}
# summary DIR KEY: the value of a row of the summary table, as text
summary() {
	sed -n "s/.*<tr><th>$2<\/th><td>\(.*\)<\/td><\/tr>.*/\1/p" "$1/index.html" | sed 's/<br>/ | /g; s/&#39;/'"'"'/g'
}
# A clean run: one CPU-bound function, no leak, few allocations, the GPU
# busy and unthrottled while the command computes, no lock: only "hot".
C=$TMP/clean
mkdir -p "$C"
printf '# mode=all\n# command=./clean\n# freq=999\n# call_graph=fp\n# unwind=fp\n# cpu_wall_s=2.5\n' >"$C/run.meta"
printf '# source=profrec event=cpu-clock unit=ns\nclean;main;compute 2000000000\nclean;main 100000000\n' >"$C/cpu.folded"
"$BIN/proffold" -q --top 10 -o "$C/cpu.top.tsv" "$C/cpu.folded"
printf 'profrec: 2.5 s, 2100 samples (cpu-clock 2100), 0 lost\n' >"$C/cpu.log"
printf '# source=profrec event=offcpu-time unit=ns\nclean;main;clock_nanosleep;hrtimer_nanosleep_[k] 300000000\nclean;worker;pthread_cond_wait;futex_wait_[k] 200000000\n' >"$C/offcpu.folded"
printf '# source=profrec event=cpu-clock unit=ns\nclean;main;compute 2000000000\n' >"$C/offcpu-oncpu.folded"
printf '# tool=profheap report=peak unit=bytes\nclean;main;make 1048576\n' >"$C/memory-peak.folded"
printf '# tool=profheap report=leak unit=bytes\n' >"$C/memory-leak.folded"
printf '# tool=profheap report=count unit=allocations\nclean;main;make 5000\n' >"$C/memory-count.folded"
printf '# tool=profheap report=temp unit=allocations\nclean;main;make 900\n' >"$C/memory-temp.folded"
# gpu.tsv and host.tsv of 10 s: the GPU at 90% while the command computes
gpu_tsv() { # UTIL_FIRST_HALF THROTTLE_FIRST_HALF
	printf 'time_ns\tgpu\tname\tutil_pct\tmem_used_bytes\tpower_w\tthrottle\n'
	for i in $(seq 0 100); do
		if [ "$i" -lt 50 ]; then u=$1 th=$2; else u=90 th=none; fi
		printf '%d\t0\tGPU X\t%s\t%d\t%d\t%s\n' $((i * 100000000)) "$u" $((1000000 * i)) $((100 + i)) "$th"
	done
}
host_tsv() {
	printf 'time_ns\tprocs\tthreads\tcpu_pct\thost_cpu_pct\trss_bytes\n'
	for i in $(seq 0 100); do printf '%d\t1\t4\t100\t50\t%d\n' $((i * 100000000)) $((50000000 + i * 100000)); done
}
gpu_tsv 90 none >"$C/gpu.tsv"
host_tsv >"$C/host.tsv"
printf 'profgpu: gpu 0 GPU X (nvml): 101 samples over 10 s\n' >"$C/gpu.log"
check "findings: a clean run gives the hottest function alone" 0 "hot " rules "$C"
check "findings: the hottest function, its time and share, linked to its section" 0 1 \
	grep -c '<li class="info" data-rule="hot"><b>The hottest function by self time:</b> compute 2 s (95.2% of the CPU time) <a href="#cpu">' "$C/index.html"
check "summary: wall time" 0 "cpu run 2.5 s; gpu run 10 s" summary "$C" "Wall time"
check "summary: CPU time and its share of the run" 0 "2.1 s (84% of one core over the cpu run)" summary "$C" "CPU time"
check "summary: off-CPU share" 0 "20.0% of the threads' time (500 ms off-CPU, 2 s on-CPU)" summary "$C" "Off-CPU share"
check "summary: peak heap" 0 "1.00 MiB" summary "$C" "Peak heap"
check "summary: peak RSS (the host monitor's)" 0 "57.2 MiB (gpu run, the command's tree)" summary "$C" "Peak RSS"
check "summary: leaks measured as none" 0 "0 B" summary "$C" "Leaked"
check "summary: allocations and temporary ones" 0 "5000, 900 temporary (18.0% of all)" summary "$C" "Allocations"
check "summary: GPU utilisation" 0 "90.0% on average (peak 90%) over 10 s, 1 GPU" summary "$C" "GPU utilisation"
check "summary: GPU idle share" 0 "0.0% of the sampled time (0 ns below 5%)" summary "$C" "GPU idle"
check "summary: GPU not throttled" 0 "0 ns" summary "$C" "GPU throttled"
check "summary: alerts: none fired" 0 "none fired" summary "$C" "Alerts"

# each rule: a directory made to trigger it beside the clean one
T=$TMP/trig
rm -rf "$T"; cp -r "$C" "$T"
printf 'profrec: 2.5 s, 2100 samples\nprofrec: 87%% of the user stacks stop after one or two frames: the program seems to be built without frame pointers (try --call-graph dwarf)\n' >"$T/cpu.log"
check "cut-short: a recorder's warning with frame pointers walked" 0 "hot cut-short " rules "$T"
check "cut-short: names the option that fixes it" 0 1 grep -c 'Run again with proftools-profile --dwarf (or --unwind=dwarf)' "$T/index.html"
sed -i 's/call_graph=fp/call_graph=dwarf/; s/unwind=fp/unwind=dwarf/' "$T/run.meta"
check "cut-short: not when the run already walked DWARF" 0 "hot " rules "$T"

rm -rf "$T"; cp -r "$C" "$T"
printf 'clean;worker;pthread_mutex_lock;__lll_lock_wait;futex_wait_[k] 150000000\n' >>"$T/offcpu.folded"
check "lock-wait: off-CPU in a mutex, 23% of the off-CPU time" 0 "hot lock-wait " rules "$T"
check "lock-wait: the evidence names the time, its share and the lock" 0 1 \
	grep -c '150 ms off-CPU in stacks through a lock (23.1% of the off-CPU time), most under pthread_mutex_lock. <a href="#offcpu">' "$T/index.html"
rm -rf "$T"; cp -r "$C" "$T"
printf 'clean;worker;std::unique_lock<std::mutex>::lock;syscall 100000000\n' >>"$T/offcpu.folded"
check "lock-wait: std::unique_lock counts" 0 "hot lock-wait " rules "$T"
rm -rf "$T"; cp -r "$C" "$T"
printf 'clean;main;clock_nanosleep;do_nanosleep_[k] 900000000\nclean;pool;pthread_join;futex_wait_[k] 900000000\nclean;main;blocklist_scan 900000000\n' >>"$T/offcpu.folded"
check "lock-wait: not clock_nanosleep, pthread_join, condition variables or 'block'" 0 "hot " rules "$T"
rm -rf "$T"; cp -r "$C" "$T"
printf 'clean;worker;pthread_mutex_lock 5000000\n' >>"$T/offcpu.folded"
check "lock-wait: not under 10 ms" 0 "hot " rules "$T"

rm -rf "$T"; cp -r "$C" "$T"
gpu_tsv 0 gpu_idle >"$T/gpu.tsv"
check "gpu-idle: the GPU idle for half the run while the command uses a core" 0 "hot gpu-idle " rules "$T"
check "gpu-idle: evidence" 0 1 grep -c 'the GPU was idle (below 5%) for 4.9 s, 49% of the 10 s the command ran, while the command used 50% or more of a core; the longest stretch from 0 ns to 4.9 s. <a href="#timeline">' "$T/index.html"
check "summary: GPU idle share" 0 "49.0% of the sampled time (4.9 s below 5%)" summary "$T" "GPU idle"
sed -i 's/\t100\t50\t/\t3\t50\t/' "$T/host.tsv"
check "gpu-idle: not while the command's CPU idles too" 0 "hot " rules "$T"
rm -rf "$T"; cp -r "$C" "$T"
gpu_tsv 0 gpu_idle | sed 's/\t90\t/\t10\t/' >"$T/gpu.tsv"
check "gpu-idle: not in a run where the GPU never did work (a peak under 20%)" 0 "hot " rules "$T"

rm -rf "$T"; cp -r "$C" "$T"
gpu_tsv 95 sw_power_cap,hw_slowdown >"$T/gpu.tsv"
check "throttle: 5 s of power cap and slowdown" 0 "hot throttle " rules "$T"
check "summary: throttled time and reasons" 0 "4.9 s (sw_power_cap 4.9 s, hw_slowdown 4.9 s)" summary "$T" "GPU throttled"
gpu_tsv 95 gpu_idle,app_clocks >"$T/gpu.tsv"
check "throttle: gpu_idle and app_clocks are not throttling" 0 "hot " rules "$T"
gpu_tsv 95 '' | sed 's/\tnone$/\t/' >"$T/gpu.tsv"
rules "$T" >/dev/null
check "summary: throttling not reported by the device (empty reasons)" 0 "not reported by the device" summary "$T" "GPU throttled"

rm -rf "$T"; cp -r "$C" "$T"
printf '# tool=profheap report=temp unit=allocations\nclean;main;make 1000\nclean;main;parse 2000\n' >"$T/memory-temp.folded"
check "temp-alloc: 3000 of 5000 allocations temporary" 0 "hot temp-alloc " rules "$T"
check "temp-alloc: evidence" 0 1 grep -c '3000 of 5000 allocations (60.0%) were freed' "$T/index.html"
printf '# tool=profheap report=count unit=allocations\nclean;main;make 500\n' >"$T/memory-count.folded"
printf '# tool=profheap report=temp unit=allocations\nclean;main;make 400\n' >"$T/memory-temp.folded"
check "temp-alloc: not under 1,000 temporary allocations" 0 "hot " rules "$T"

rm -rf "$T"; cp -r "$C" "$T"
printf '# tool=profheap report=leak unit=bytes\nclean;main;lost 4096\n' >"$T/memory-leak.folded"
check "leak: bytes still allocated at exit" 0 "hot leak " rules "$T"

rm -rf "$T"; cp -r "$C" "$T"
printf 'profgpu: alert: gpu 0 (GPU X): temp>85: 86 \302\260C at 3.20 s\n' >>"$T/gpu.log"
check "alert: a profgpu alert that fired" 0 "hot alert " rules "$T"
check "summary: the alert" 0 "profgpu: alert: gpu 0 (GPU X): temp&gt;85: 86 °C at 3.20 s" summary "$T" "Alerts"
# x = 80 + 3.2 s / 10 s * 904 px: the same place in each chart
check "alert: a red line at 3.2 s on every chart of the time axis" 0 "$(grep -c '<svg class="chart"' "$T/index.html")" \
	grep -c '<line class="alert" x1="369.3"' "$T/index.html"

# tables in words: amounts in units beside their share of the total
printf 'state\ttime_ms\tshare_pct\non-cpu\t2000.0\t80.0\noff-cpu\t500.0\t20.0\n' >"$T/offcpu.shares.tsv"
rules "$T" >/dev/null
check "tables in words: on- and off-CPU time in units and % of total" 0 \
	'<tr><td>off-cpu</td><td class="n">500 ms</td><td class="n">20.0%</td></tr>' \
	grep -o '<tr><td>off-cpu</td>.*</tr>' "$T/index.html"
check "tables in words: the hottest functions' self time in units and % of total" 0 \
	'<td class="n">1</td><td>compute</td><td class="n">2 s</td><td class="n">95.2%</td>' \
	grep -o '<td class="n">1</td><td>compute</td><td class="n">2 s</td><td class="n">95.2%</td>' "$T/index.html"
check "sections titled in words, the file named beside" 0 2 \
	sh -c "grep -c -e '<h2>Where the CPU time goes</h2>' -e '<h3>The hottest functions (self time)</h3>' '$T/index.html'"

# a heat map page over 4 MiB is linked, not embedded (sparse: no disk used)
truncate -s 5M "$T/cpu.heatmap.html"
rules "$T" >/dev/null
check "a heat map page over 4 MiB is linked beside the page, not embedded" 0 "1 0" \
	sh -c "echo \$(grep -c 'Too large to embed (5.00 MiB): <a href=\"cpu.heatmap.html\">' '$T/index.html') \$(grep -c 'srcdoc' '$T/index.html')"
rm -f "$T/cpu.heatmap.html"

# nothing recorded: a cpu run alone says "not recorded" for the rest
N=$TMP/cpuonly
mkdir -p "$N"
cp "$C/cpu.folded" "$C/cpu.top.tsv" "$N/"
printf '# mode=cpu\n# freq=999\n' >"$N/run.meta"
check "a cpu run alone: the hottest function only" 0 "hot " rules "$N"
check "summary: what the run did not record reads 'not recorded'" 0 "not recorded|not recorded|not recorded|not recorded|not recorded|not recorded|not recorded|not recorded" \
	sh -c "for k in 'Wall time' 'Off-CPU share' 'Peak heap' 'Peak RSS' 'Leaked' 'Allocations' 'GPU utilisation' 'Alerts'; do sed -n \"s/.*<tr><th>\$k<\\/th><td>\\(.*\\)<\\/td><\\/tr>.*/\\1/p\" '$N/index.html'; done | paste -sd'|'"
# no GPU: the summary and the timeline say why
G=$TMP/nogpu
mkdir -p "$G"
printf 'time_ns\tgpu\tname\tutil_pct\n' >"$G/gpu.tsv"
printf 'profgpu: no GPU found (nvml: cannot load libnvidia-ml.so.1); running the command without GPU samples\n' >"$G/gpu.log"
check "no GPU: no finding" 0 "none" rules "$G"
check "no GPU: the summary gives profgpu's reason" 0 "no GPU found (nvml: cannot load libnvidia-ml.so.1); running the command without GPU samples" summary "$G" "GPU utilisation"
check "no GPU: the section says why it is empty" 0 1 grep -c 'gpu.tsv: no samples (header only): no GPU found (nvml' "$G/index.html"
# no allocation: the memory section says so
A=$TMP/noalloc
mkdir -p "$A"
printf '# tool=profheap report=count unit=allocations\n' >"$A/memory-count.folded"
printf '# tool=profheap report=leak unit=bytes\n' >"$A/memory-leak.folded"
printf 'profheap: 7: 0 allocations, 0 B allocated, peak 0 bytes (0 B)\n' >"$A/memory.log"
rules "$A" >/dev/null
check "no allocation: the memory section says why it is empty" 0 1 grep -c 'No allocation: the program made no heap allocation' "$A/index.html"

# the real capture of a PyTorch run on an H100 (tests/data/h100-torch: the
# first 20 s of its gpu.tsv and host.tsv, cpu.top.tsv of its cpu.folded);
# the figures as awk finds them in the TSV: 200 samples, util 29.6% on
# average, peak 100; 63 samples of sw_power_cap (6.3 s); RSS 836141056
H1=$TMP/h100
mkdir -p "$H1"
for f in gpu.tsv host.tsv; do gzip -dc "$TESTS/data/h100-torch/$f.gz" >"$H1/$f"; done
cp "$TESTS/data/h100-torch/cpu.top.tsv" "$H1/"
printf '# mode=all\n# command=python3%%20workload.py%%203\n# freq=999\n# call_graph=fp\n' >"$H1/run.meta"
# the GPU idle 6 s while python imports torch and sets CUDA up at 100% of a core
check "H100 run: findings" 0 "hot gpu-idle throttle " rules "$H1"
check "H100 run: the GPU waits for the CPU at start-up" 0 1 \
	grep -c 'the GPU was idle (below 5%) for 6 s, 30% of the 19.9 s the command ran, while the command used 50% or more of a core; the longest stretch from 2.1 s to 6.1 s.' "$H1/index.html"
check "H100 run: GPU utilisation" 0 "29.6% on average (peak 100%) over 19.9 s, 1 GPU" summary "$H1" "GPU utilisation"
check "H100 run: throttled at the power cap" 0 "6.3 s (sw_power_cap 6.3 s)" summary "$H1" "GPU throttled"
check "H100 run: peak RSS of the command's tree" 0 "797 MiB (gpu run, the command's tree)" summary "$H1" "Peak RSS"

# ---- progress on a terminal's stderr, never in a pipe (issue 24 point 5) ----
if python3 -c 'import pty, termios' 2>/dev/null; then
	python3 "$TESTS/tools/on-tty.py" 60 2 "$R" -o "$TMP/tty.html" "$D" >"$TMP/tty.out"
	if grep -q "$(printf '\rprofreport: file [0-9]*/[0-9]*: cpu.svg')" "$TMP/tty.out" &&
		[ "$(tr '\r' '\n' <"$TMP/tty.out" | awk '/file [0-9]/ { if (length($0) > 59) n++ } END { print n + 0 }')" = 0 ] &&
		grep -q "$(printf '\r *\rprofreport: report in')" "$TMP/tty.out"; then
		pass "progress on a terminal's stderr: file by file, cut to its width, blanked before the last message"
	else
		fail "progress on a terminal" "$(od -c "$TMP/tty.out" | tail -n 6 | tr '\n' '|')"
	fi
	run "$R" -o "$TMP/pipe.html" "$D"
	if [ "$STATUS" = 0 ] && ! grep -q 'file [0-9]' "$TMP/stderr"; then
		pass "no progress when stderr is a pipe"
	else
		fail "no progress in a pipe" "$(head -c 200 "$TMP/stderr")"
	fi
else
	skip "progress on a terminal" "no python3 with pty and termios"
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
	# (a loaded machine may capture the page before its frame is painted:
	# the best of three screenshots)
	best_warm() {
		_best=0
		for _i in 1 2 3; do
			_w=$(warm "$(shot "$1")")
			[ "${_w:-0}" -le "$_best" ] || _best=$_w
			[ "$_best" -lt "$2" ] || break
		done
		echo "$_best"
	}
	px=$(best_warm "$H" 20000)
	if [ "$px" -ge 20000 ] 2>/dev/null; then
		pass "browser: the screenshot shows the flame graph ($px pixels of its palette)"
	else
		fail "browser: screenshot shows the flame graph" "$px pixels of its palette"
	fi
	B=$TMP/big
	mkdir -p "$B"
	awk 'BEGIN { for (i = 0; i < 8000; i++) print "app;mod_" i % 7 ";function_number_" i ";leaf_function_" i " 1" }' >"$B/cpu.folded"
	"$BIN/profflame" --compact-width 0 -o "$B/cpu.svg" "$B/cpu.folded"
	"$R" -q "$B"
	px=$(best_warm "$B/index.html" 5000)
	# (its wide rows, all, app and 7 modules, are some 50,000 such pixels;
	# a loaded machine may capture it before the last is painted)
	if [ "$(wc -c <"$B/cpu.svg")" -gt 1600000 ] && [ "$px" -ge 5000 ] 2>/dev/null; then
		pass "browser: a graph of 2 MB is drawn in the report ($px pixels of its palette)"
	else
		fail "browser: a graph of 2 MB in the report" "$(wc -c <"$B/cpu.svg") bytes: $px pixels of its palette"
	fi

	# ---- the summary, findings, time axis and heat map in the page ----
	V=$TMP/view
	rm -rf "$V"
	cp -r "$C" "$V"
	printf 'clean;worker;pthread_mutex_lock;__lll_lock_wait 150000000\n' >>"$V/offcpu.folded"
	printf 'profgpu: alert: gpu 0 (GPU X): temp>85: 86 \302\260C at 3.20 s\n' >>"$V/gpu.log"
	# a heat map page of 3 s of a recording: work in one of every two 100 ms
	awk 'BEGIN {
		print "# source=profrec event=cpu-clock unit=ns"
		print "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"
		for (ms = 0; ms < 3000; ms++)
			if (int(ms / 100) % 2 == 0) {
				id = 1 + int(ms / 250) % 4
				printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t1000000\t%d\t%s\n", ms * 1000000, id,
					seen[id]++ ? "" : "main;work;phase" id
			}
	}' >"$TMP/rec.tsv"
	"$BIN/profflame" --heatmap --format html -o "$V/cpu.heatmap.html" "$TMP/rec.tsv"
	"$R" -q "$V"
	cat >"$TMP/view.js" <<'JS'
var errors = [];
window.addEventListener("error", function (e) { errors.push(e.message); });
window.addEventListener("load", function () {
  var out = [], h2 = document.querySelectorAll("h2");
  out.push("first=" + h2[0].textContent + "," + h2[1].textContent + "," + h2[2].textContent);
  var rules = [], links = 0, dead = 0;
  document.querySelectorAll("ol.findings li").forEach(function (li) {
    rules.push(li.getAttribute("data-rule"));
    li.querySelectorAll("a").forEach(function (a) {
      links++;
      if (!document.getElementById(a.getAttribute("href").slice(1))) dead++;
    });
  });
  out.push("rules=" + rules.join(","));
  out.push("links=" + links + " dead=" + dead);
  /* one time axis: the "2 s" tick and the alert line at one x in every chart */
  var charts = document.querySelectorAll("#timeline svg.chart"), ticks = {}, alerts = {};
  charts.forEach(function (svg) {
    svg.querySelectorAll("text").forEach(function (t) { if (t.textContent === "2 s") ticks[t.getAttribute("x")] = 1; });
    svg.querySelectorAll("line.alert").forEach(function (l) { alerts[l.getAttribute("x1")] = 1; });
  });
  out.push("charts=" + charts.length + " tick-x=" + Object.keys(ticks).join(",") + " alert-x=" + Object.keys(alerts).join(","));
  var alertLines = document.querySelectorAll("#timeline line.alert").length;
  out.push("alert-lines=" + alertLines);
  var hm = document.querySelector("iframe[title='cpu.heatmap.html']");
  out.push("heatmap=" + (hm ? (hm.getAttribute("srcdoc").indexOf("profHeatmap") >= 0) + " " + (hm.getBoundingClientRect().height > 500) : "none"));
  out.push("errors=" + errors.length + (errors.length ? ":" + errors.join("|") : ""));
  var pre = document.createElement("pre");
  pre.id = "result";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
});
JS
	{ sed '/<\/body>/,$d' "$V/index.html"; printf '<script>\n'; cat "$TMP/view.js"; printf '</script>\n</body>\n</html>\n'; } >"$V/harness.html"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chromium" \
		--virtual-time-budget=3000 --dump-dom "file://$V/harness.html" >"$TMP/dom.html" 2>"$TMP/chromium.err" || true
	sed -n '/<pre id="result">/,/<\/pre>/p' "$TMP/dom.html" | sed 's/<pre id="result">//; s/<\/pre>.*//; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' >"$TMP/result"
	if [ ! -s "$TMP/result" ]; then
		skip "browser: summary" "chromium did not run the page: $(tail -c 200 "$TMP/chromium.err")"
	else
		check "browser: the page opens on the summary and the findings" 0 "Summary,Findings,Over time" got first
		check "browser: the findings, the clean run's one first" 0 "hot,lock-wait,alert" got rules
		check "browser: each finding links to a section of the page" 0 "3 dead=0" got links
		# the RSS of the gpu run's host monitor, GPU memory and power (the
		# rest constant), each over the longest run's 10 s: the 2 s tick
		# at 80 + 2 s / 10 s * 904 px, the alert at 80 + 3.2 s / 10 s * 904
		check "browser: one time axis: the 2 s tick and the alert at one x in all 3 charts" 0 \
			"3 tick-x=260.8 alert-x=369.3" got charts
		check "browser: the alert drawn on every chart" 0 3 got alert-lines
		check "browser: the heat map page is in the page, laid out" 0 "true true" got heatmap
		check "browser: no script error" 0 0 got errors
	fi
	# pixels: the heat map's cells on the screenshot, and a range selected
	# in it (its first cell, then the last of the third second) draws the
	# range's flame graph under it: its frames are more pixels of the palette
	HM=$TMP/hmrun
	mkdir -p "$HM"
	printf '# mode=cpu\n# command=app\n' >"$HM/run.meta"
	cp "$V/cpu.heatmap.html" "$HM/"
	"$R" -q "$HM"
	before=$(best_warm "$HM/index.html" 10000)
	{ sed '/<\/body>/,$d' "$V/cpu.heatmap.html"; cat <<'JS'; } >"$HM/cpu.heatmap.html"
<script>
window.addEventListener("load", function () {
  var P = profHeatmap;
  function click(s, b) {
    var p = P.client(s * P.D.per + b), el = document.elementFromPoint(p.x, p.y) || document.getElementById("cells");
    ["mousedown", "mouseup", "click"].forEach(function (type) {
      el.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: p.x, clientY: p.y }));
    });
  }
  click(0, 0); click(2, P.D.per - 1);
});
</script>
</body>
</html>
JS
	"$R" -q "$HM"
	after=$(best_warm "$HM/index.html" $((before + 20000)))
	if [ "${before:-0}" -ge 10000 ] && [ "${after:-0}" -ge $((before + 20000)) ] 2>/dev/null; then
		pass "browser: the heat map is drawn in the report ($before pixels), a range selected in it draws its flame graph ($after)"
	else
		fail "browser: heat map and its range's flame graph on the screenshot" "before $before, after $after pixels of the palette"
	fi
fi
