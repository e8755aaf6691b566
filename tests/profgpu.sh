#!/bin/sh
# profgpu: every backend against fakes (no GPU needed): a fake
# libnvidia-ml.so.1 built from tests/fake-nvml, a fake amdgpu sysfs tree,
# recorded tegrastats lines and a fake tegrastats program.
. "$(dirname "$0")/lib.sh"

P=$BIN/profgpu
DATA=$TESTS/data
NOTHING=$TMP/empty-sys		# a sysfs root without GPUs
mkdir -p "$NOTHING"

# Keep the host's real GPUs (if any) out of every test.
export PROFGPU_SYSFS_ROOT="$NOTHING"
export PROFGPU_NVML_LIB="$TMP/no-such-libnvidia-ml.so.1"
unset PROFGPU_TEST_VIRTUAL_TIME
for v in $(env | sed -n 's/^\(FAKE_NVML_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# The fake NVML in its three driver generations.
FAKE=$TMP/fake
for variant in new old v2; do
	case $variant in
	new) flags= ;;
	old) flags=-DOLD_DRIVER ;;
	v2) flags=-DPROCS_V2 ;;
	esac
	mkdir -p "$FAKE/$variant"
	if ! ${CC:-cc} -shared -fPIC -pthread $flags -o "$FAKE/$variant/libnvidia-ml.so.1" \
		"$TESTS/fake-nvml/fake_nvml.c" 2>"$TMP/cc.err"; then
		fail "build fake NVML ($variant)" "$(head -c 300 "$TMP/cc.err")"
		exit 1
	fi
done
NEW=$FAKE/new/libnvidia-ml.so.1
OLD=$FAKE/old/libnvidia-ml.so.1
V2=$FAKE/v2/libnvidia-ml.so.1

tsv() { tr '|' '\t'; }
# same NAME EXPECTED ACTUAL: two strings are equal.
same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}
rows() { echo $(($(wc -l <"$1") - 1)); }
HEADER=$(printf 'time_ns|gpu|name|uuid|util_pct|mem_util_pct|mem_used_bytes|mem_total_bytes|temp_c|power_w|energy_j|sm_clock_mhz|mem_clock_mhz|pcie_rx_bytes_per_s|pcie_tx_bytes_per_s|throttle' | tsv)
SUMHEADER=$(printf 'gpu|name|samples|duration_s|util_avg_pct|util_max_pct|mem_max_bytes|power_avg_w|power_max_w|energy_j|energy_source|temp_max_c|throttled_s|throttle_reasons' | tsv)
PROCHEADER=$(printf 'time_ns|gpu|pid|comm|mem_used_bytes|sm_util_pct|mem_util_pct' | tsv)
U0=GPU-fa4e0000-0000-0000-0000-000000000000
U1=GPU-fa4e0000-0000-0000-0000-000000000001

# nv CMD...: run with the new fake NVML only.
nv() { env PROFGPU_NVML_LIB="$NEW" "$@"; }
# virt CMD...: the test clock (sample k at k * interval, no waiting), and
# a driver that answers at once: each metric asked every sample.
virt() { env PROFGPU_TEST_VIRTUAL_TIME=1 FAKE_NVML_LATENCY=0 PROFGPU_NVML_LIB="${LIB:-$NEW}" "$@"; }

# ---------------------------------------------------------------- usage
run "$P" -h
if [ "$STATUS" = 0 ] && grep -q '^usage: profgpu \[-lqv\]' "$TMP/stdout"; then
	pass "help"
else
	fail "help" "exit $STATUS"
fi
check_error "unknown option" 2 '^usage: profgpu' "$P" --bogus
# The synopsis ends the message: no blank line after it.
same "usage error ends with the synopsis" "[--] [command [arg ...]]" \
	"$(tail -c 200 "$TMP/stderr" | sed -n '$p' | sed 's/^ *//')"
run "$P" -h
same "help: the synopsis is followed by the description" "timeline (prof-formats(5), schema profgpu-timeline)." \
	"$(sed -n 8p "$TMP/stdout")"
check_error "bad interval" 2 'profgpu: -i: bad interval' "$P" -i 0 -- true
check_error "bad interval unit" 2 'profgpu: -i: bad interval' "$P" -i 10parsecs -- true
check_error "bad duration" 2 'profgpu: -d: bad duration' "$P" -d -1 -- true
check_error "bad alert metric" 2 "unknown metric 'fan'" "$P" --alert 'fan>3' -- true
check_error "bad alert op" 2 'no comparison' "$P" --alert 'temp=3' -- true
check_error "bad alert value" 2 "bad memory value" "$P" --alert 'mem>lots' -- true
check_error "bad backend" 2 "unknown backend 'cuda'" "$P" -b cuda -- true
check_error "bad gpu index" 2 "bad GPU index 'x'" "$P" -g 0,x -- true
check_error "list with command" 2 'takes no command' "$P" -l true
check_error "two tables on stdout" 2 'already goes to stdout' "$P" --processes - -- true
run "$P" --list-options
if grep -qx -- '--alert=' "$TMP/stdout" && grep -qx -- '--fail-on-alert' "$TMP/stdout" &&
	grep -qx -- '--tegrastats=' "$TMP/stdout"; then
	pass "list-options"
else
	fail "list-options" "$(tr '\n' ' ' <"$TMP/stdout")"
fi

# ---------------------------------------------------------------- no GPU
printf '%s\n' "$HEADER" >"$TMP/header.tsv"
run "$P" -- sh -c 'echo ran >"$0"; exit 3' "$TMP/ran"
if [ "$STATUS" = 3 ] && cmp -s "$TMP/stdout" "$TMP/header.tsv" && [ -f "$TMP/ran" ] &&
	[ "$(grep -c 'no GPU found' "$TMP/stderr")" = 1 ] &&
	[ "$(wc -l <"$TMP/stderr")" = 1 ]; then
	pass "no GPU: command runs, its status, header-only TSV, one note"
else
	fail "no GPU: command runs, its status, header-only TSV, one note" \
		"exit $STATUS; $(head -c 300 "$TMP/stderr")"
fi
validate_tsv "no GPU: header-only TSV is valid" profgpu-timeline "$TMP/stdout"
check_error "no GPU, no command" 1 'no GPU found .*nothing to sample' "$P" -d 1
check_error "no GPU: -l fails" 1 'no GPU found \(nvml: cannot load' "$P" -l
check_error "nvmlInit failing" 0 'nvmlInit_v2: Driver Not Loaded' \
	env FAKE_NVML_INIT=9 PROFGPU_NVML_LIB="$NEW" "$P" -- true
# A gate that cannot judge does not pass.
check_error "--fail-on-alert with no GPU fails, naming why" 1 'fail-on-alert: no GPU found to judge util<10' \
	"$P" -q --fail-on-alert --alert 'util<10' -- true
check_status "--fail-on-alert with no GPU: --no-gpu-ok passes" 0 \
	"$P" -q --fail-on-alert --no-gpu-ok --alert 'util<10' -- true
check_status "--fail-on-alert with no GPU: the command's failure is kept" 3 \
	"$P" -q --fail-on-alert --alert 'util<10' -- sh -c 'exit 3'
check_status "--fail-on-alert with no GPU: a host alert is still judged" 0 \
	"$P" -q --host-output /dev/null --fail-on-alert --alert 'rss>100G' -- true
check_error "NVML with no GPUs" 0 'NVML found no GPU' \
	env FAKE_NVML_GPUS=0 PROFGPU_NVML_LIB="$NEW" "$P" -- true
check_error "not an NVML library" 0 'not an NVML library' \
	env PROFGPU_NVML_LIB=libc.so.6 "$P" -- true

# ---------------------------------------------------------------- listing
printf '0|nvml|Tesla T4|%s\n1|nvml|Fake GPU 1|%s\n' "$U0" "$U1" | tsv >"$TMP/list.expected"
check_file "list GPUs" 0 "$TMP/list.expected" \
	env FAKE_NVML_GPUS=2 FAKE_NVML_NAME='Tesla T4' PROFGPU_NVML_LIB="$NEW" "$P" -l
if grep -q 'nvml: 2 GPUs (driver 550.54.14)' "$TMP/stderr" &&
	grep -q 'amdgpu: no amdgpu card' "$TMP/stderr"; then
	pass "list backends"
else
	fail "list backends" "$(head -c 300 "$TMP/stderr")"
fi

# ---------------------------------------------------------------- NVML timeline
# One scripted GPU, four samples 100 ms apart on the test clock.
export FAKE_NVML_NAME='Tesla T4'
TL="FAKE_NVML_UTIL=0,50,100,25 FAKE_NVML_MEMUTIL=5,10,15,20
FAKE_NVML_MEMUSED=1073741824,2147483648,3221225472,2147483648 FAKE_NVML_MEMTOTAL=16106127360
FAKE_NVML_TEMP=40,50,60,55 FAKE_NVML_POWER=20000,60000,70500,30000
FAKE_NVML_ENERGY=1000000,1005000,1012000,1018500 FAKE_NVML_SMCLK=300,1590,1590,585
FAKE_NVML_MEMCLK=5000 FAKE_NVML_PCIERX=0,1000,2000,0 FAKE_NVML_PCIETX=0,500,0,0
FAKE_NVML_THROTTLE=1,4,0x44,2"
tsv >"$TMP/tl.expected" <<EOF
$HEADER
0|0|Tesla T4|$U0|0|5|1073741824|16106127360|40|20|0|300|5000|0|0|gpu_idle
100000000|0|Tesla T4|$U0|50|10|2147483648|16106127360|50|60|5|1590|5000|1024000|512000|sw_power_cap
200000000|0|Tesla T4|$U0|100|15|3221225472|16106127360|60|70.5|12|1590|5000|2048000|0|sw_power_cap,hw_thermal
300000000|0|Tesla T4|$U0|25|20|2147483648|16106127360|55|30|18.5|585|5000|0|0|app_clocks
EOF
# shellcheck disable=SC2086
check_file "NVML timeline, energy counter" 0 "$TMP/tl.expected" virt $TL "$P" -q -c 4
validate_tsv "NVML timeline is valid" profgpu-timeline "$TMP/stdout"

# The summary: averages over samples, energy from the counter, throttled
# time = intervals ending in a limiting reason (app_clocks is not one).
tsv >"$TMP/sum.expected" <<EOF
$SUMHEADER
0|Tesla T4|4|0.3|43.75|100|3221225472|45.125|70.5|18.5|counter|60|0.2|sw_power_cap:0.2,hw_thermal:0.1
EOF
# shellcheck disable=SC2086
check_file "NVML summary, energy counter" 0 "$TMP/sum.expected" virt $TL "$P" --summary -c 4
validate_tsv "summary is valid" profgpu-summary "$TMP/stdout"

# Without the energy counter: the trapezoid integral of power.
# (20+60)/2*0.1 = 4; +(60+70.5)/2*0.1 = 10.525; +(70.5+30)/2*0.1 = 15.55
# shellcheck disable=SC2086
run virt $TL FAKE_NVML_ENERGY=ns "$P" -q -c 4
if [ "$STATUS" = 0 ] && [ "$(cut -f 11 "$TMP/stdout" | tr '\n' ' ')" = "energy_j 0 4 10.525 15.55 " ]; then
	pass "energy integrated from power"
else
	fail "energy integrated from power" "exit $STATUS: $(cut -f 11 "$TMP/stdout" | tr '\n' ' ')"
fi
# shellcheck disable=SC2086
run virt $TL FAKE_NVML_ENERGY=ns "$P" --summary -c 4
if [ "$(cut -f 10,11 "$TMP/stdout" | sed -n 2p)" = "$(printf '15.55\tpower')" ]; then
	pass "summary energy integrated from power"
else
	fail "summary energy integrated from power" "$(sed -n 2p "$TMP/stdout")"
fi
# The human summary on stderr.
# shellcheck disable=SC2086
run virt $TL "$P" -c 4
if grep -q 'gpu 0 Tesla T4 (nvml): 4 samples over 300 ms' "$TMP/stderr" &&
	grep -q 'utilization  avg 43.8%  peak 100%' "$TMP/stderr" &&
	grep -q 'energy 18.5 J (energy counter)' "$TMP/stderr" &&
	grep -q 'throttled    0.2 s (sw_power_cap 0.2 s,hw_thermal 0.1 s)' "$TMP/stderr"; then
	pass "human summary"
else
	fail "human summary" "$(tr '\n' '|' <"$TMP/stderr")"
fi

# Counts of one are singular ("1 sample", "1 GPU"), others plural.
run virt FAKE_NVML_GPUS=1 "$P" -vv -c 1
same "one sample, one GPU: singular" "nvml: 1 GPU (driver|(nvml): 1 sample over 0 ns" \
	"$(sed -n 's/^profgpu: \(nvml: 1 GPU (driver\).*/\1/p; s/^profgpu: gpu 0 [^(]*//p' "$TMP/stderr" | paste -sd'|')"
run virt FAKE_NVML_GPUS=2 "$P" -vv -c 2
same "two samples, two GPUs: plural" "nvml: 2 GPUs (driver|(nvml): 2 samples over 100 ms" \
	"$(sed -n 's/^profgpu: \(nvml: 2 GPUs (driver\).*/\1/p; s/^profgpu: gpu 0 [^(]*//p' "$TMP/stderr" | paste -sd'|')"

# -d on the test clock: samples at 0, 0.1, ... 0.5 s.
run virt "$P" -q -i 100ms -d 0.5
same "duration bounds the samples" 6 "$(rows "$TMP/stdout")"
run virt "$P" -q -i 0.25s -d 1s
if [ "$(cut -f1 "$TMP/stdout" | tr '\n' ' ')" = "time_ns 0 250000000 500000000 750000000 1000000000 " ]; then
	pass "interval in seconds"
else
	fail "interval in seconds" "$(cut -f1 "$TMP/stdout" | tr '\n' ' ')"
fi

# A driver as slow as a real H100's (the fake's default): the energy
# counter (3.6 ms of CPU) is read at the first sample and then every ~18 s,
# the rows between adding the power integral; PCIe throughput (20 ms a
# direction) every ~10 s, the cells between empty.
run env PROFGPU_TEST_VIRTUAL_TIME=1 PROFGPU_NVML_LIB="$NEW" FAKE_NVML_POWER=100000 \
	FAKE_NVML_ENERGY=1000000,1002000 FAKE_NVML_PCIERX=2048 FAKE_NVML_PCIETX=1024 "$P" -q -c 250 -i 100ms
awk -F '\t' 'NR > 1 { print $1 / 1e8, $11, $14 }' "$TMP/stdout" >"$TMP/slow.rows"
e1=$(sed -n 2p "$TMP/slow.rows" | cut -d' ' -f2)
pcie=$(awk '$3 != ""' "$TMP/slow.rows" | wc -l)
counter=$(awk '$1 > 100 && $2 == 2' "$TMP/slow.rows" | wc -l)
if [ "$STATUS" = 0 ] && [ "$e1" = 10 ] && [ "$pcie" -ge 2 ] && [ "$pcie" -le 5 ] &&
	[ "$(sed -n 1p "$TMP/slow.rows")" = "0 0 2097152" ] && [ "$counter" -ge 1 ]; then
	pass "a slow driver: energy counter and PCIe throughput read seldom ($pcie PCIe cells of 250)"
else
	fail "slow energy counter and PCIe" "exit $STATUS, e(100 ms)=$e1, $pcie PCIe cells, $counter rows set back by the counter: $(head -n 3 "$TMP/slow.rows" | tr '\n' '|')"
fi

# ---------------------------------------------------------------- unsupported metrics
# SMCLK "ns,1500": NOT_SUPPORTED is remembered, the clock stays empty.
tsv >"$TMP/ns.expected" <<EOF
$HEADER
0|0|Tesla T4|$U0|7|1||||||||||
100000000|0|Tesla T4|$U0|8|1||||||||||
EOF
run virt FAKE_NVML_UTIL=7,8 FAKE_NVML_MEMUTIL=1 FAKE_NVML_MEMUSED=ns FAKE_NVML_TEMP=ns \
	FAKE_NVML_POWER=ns FAKE_NVML_THROTTLE=ns FAKE_NVML_SMCLK=ns,1500 FAKE_NVML_MEMCLK=ns,5000 \
	FAKE_NVML_PCIERX=ns,0 FAKE_NVML_PCIETX=ns,0 "$P" -q -c 2
if [ "$STATUS" = 0 ] && cmp -s "$TMP/ns.expected" "$TMP/stdout" && [ ! -s "$TMP/stderr" ]; then
	pass "NOT_SUPPORTED metrics are empty cells, quietly"
else
	fail "NOT_SUPPORTED metrics are empty cells, quietly" \
		"exit $STATUS: $(diff "$TMP/ns.expected" "$TMP/stdout" | tr '\n' '|') $(head -c 200 "$TMP/stderr")"
fi
run virt FAKE_NVML_POWER=perm "$P" -q -c 3
if [ "$STATUS" = 0 ] && [ "$(grep -c 'gpu 0: nvmlDeviceGetPowerUsage: Insufficient Permissions' "$TMP/stderr")" = 1 ] &&
	[ "$(cut -f 10 "$TMP/stdout" | tr '\n' ' ')" = "power_w    " ]; then
	pass "other NVML errors: empty cells, reported once"
else
	fail "other NVML errors: empty cells, reported once" "$(head -c 300 "$TMP/stderr")"
fi

# ---------------------------------------------------------------- driver generations
# An old driver: unversioned entry points, ...ClocksThrottleReasons, no
# energy counter, no PCIe throughput (missing = not supported).
tsv >"$TMP/old.expected" <<EOF
$HEADER
0|0|Tesla T4|$U0|50|5|1000|2000|40|100|0|1500|5000|||hw_slowdown,sw_thermal
100000000|0|Tesla T4|$U0|50|5|1000|2000|40|100|10|1500|5000|||hw_slowdown,sw_thermal
EOF
run env LIB="$OLD" FAKE_NVML_UTIL=50 FAKE_NVML_MEMUTIL=5 FAKE_NVML_MEMUSED=1000 FAKE_NVML_MEMTOTAL=2000 \
	FAKE_NVML_POWER=100000 FAKE_NVML_ENERGY=77 FAKE_NVML_PCIERX=9 FAKE_NVML_THROTTLE=0x28 \
	sh -c 'PROFGPU_TEST_VIRTUAL_TIME=1 PROFGPU_NVML_LIB=$LIB "$0" -q -c 2' "$P"
if [ "$STATUS" = 0 ] && cmp -s "$TMP/old.expected" "$TMP/stdout"; then
	pass "old driver: fallbacks, missing functions empty"
else
	fail "old driver: fallbacks, missing functions empty" \
		"exit $STATUS: $(diff "$TMP/old.expected" "$TMP/stdout" | tr '\n' '|') $(head -c 200 "$TMP/stderr")"
fi
run virt FAKE_NVML_MEMV2=mismatch FAKE_NVML_MEMUSED=1000 FAKE_NVML_MEMTOTAL=2000 "$P" -q -c 1
if [ "$(sed -n 2p "$TMP/stdout" | cut -f 7,8)" = "$(printf '1000\t2000')" ] && [ ! -s "$TMP/stderr" ]; then
	pass "memory _v2 version mismatch falls back to v1"
else
	fail "memory _v2 version mismatch falls back to v1" "$(sed -n 2p "$TMP/stdout") $(head -c 200 "$TMP/stderr")"
fi

# ---------------------------------------------------------------- lost GPU
tsv >"$TMP/lost.expected" <<EOF
$HEADER
0|0|Tesla T4|$U0|10|0|0|17179869184|40|50|0|1500|5000|0|0|none
0|1|Fake GPU 1|$U1|20|0|0|17179869184|40|50|0|1500|5000|0|0|none
100000000|0|Tesla T4|$U0|11|0|0|17179869184|40|50|5|1500|5000|0|0|none
100000000|1|Fake GPU 1|$U1|21|0|0|17179869184|40|50|5|1500|5000|0|0|none
200000000|0|Tesla T4|$U0|12|0|0|17179869184|40|50|10|1500|5000|0|0|none
300000000|0|Tesla T4|$U0|13|0|0|17179869184|40|50|15|1500|5000|0|0|none
EOF
run virt FAKE_NVML_GPUS=2 FAKE_NVML_UTIL='10,11,12,13;20,21,lost' "$P" -q -c 4
if [ "$STATUS" = 0 ] && cmp -s "$TMP/lost.expected" "$TMP/stdout" &&
	[ "$(wc -l <"$TMP/stderr")" = 1 ] &&
	grep -q '^profgpu: gpu 1 (Fake GPU 1): GPU is lost .* at 200 ms; no more samples' "$TMP/stderr"; then
	pass "GPU lost: one line, its rows stop, the others go on"
else
	fail "GPU lost: one line, its rows stop, the others go on" \
		"exit $STATUS: $(diff "$TMP/lost.expected" "$TMP/stdout" | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
# With a command its status is still the command's.
run nv env FAKE_NVML_UTIL='lost' "$P" -q -i 20ms -- sh -c 'sleep 0.1; exit 5'
if [ "$STATUS" = 5 ] && [ "$(grep -c 'GPU is lost' "$TMP/stderr")" = 1 ] &&
	[ "$(wc -l <"$TMP/stdout")" = 1 ]; then
	pass "GPU lost before any sample: command status kept"
else
	fail "GPU lost before any sample: command status kept" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# ---------------------------------------------------------------- with a command
run nv "$P" -q -i 20ms -o "$TMP/cmd.tsv" -- sh -c 'sleep 0.2; exit 7'
n=$(rows "$TMP/cmd.tsv")
# One sample per 20 ms of the run (plus the first and the last), no more.
max=$(($(tail -n 1 "$TMP/cmd.tsv" | cut -f1) / 20000000 + 2))
if [ "$STATUS" = 7 ] && [ "$n" -ge 5 ] && [ "$n" -le "$max" ] && [ ! -s "$TMP/stdout" ]; then
	pass "command: samples every interval until it exits, its status"
else
	fail "command: samples every interval until it exits, its status" "exit $STATUS, $n rows (max $max)"
fi
validate_tsv "command timeline is valid" profgpu-timeline "$TMP/cmd.tsv"
# Deadlines are absolute (t0 + k * 20 ms), so late wake-ups do not add up:
# most samples land just after a multiple of 20 ms (the last one is taken
# when the command exits).
if sed '1d;$d' "$TMP/cmd.tsv" | awk -F '\t' '{ n++; if ($1 % 20000000 < 5000000) ok++ }
	END { exit !(ok * 2 > n) }'; then
	pass "samples on absolute deadlines"
else
	fail "samples on absolute deadlines" "$(cut -f1 "$TMP/cmd.tsv" | tr '\n' ' ')"
fi
# The table on stdout: what the command prints goes to stderr, never into
# the TSV ("profgpu -- ./bench | ..." stays a valid timeline).
for mode in timeline summary; do
	case $mode in
	timeline) opt= schema=profgpu-timeline ;;
	summary) opt=--summary schema=profgpu-summary ;;
	esac
	run nv "$P" -q -i 10ms $opt -- sh -c 'echo printed by the command; echo second line'
	if [ "$STATUS" = 0 ] && ! grep -q 'printed by' "$TMP/stdout" &&
		grep -qx 'printed by the command' "$TMP/stderr" && grep -qx 'second line' "$TMP/stderr"; then
		pass "$mode on stdout: the command's stdout goes to stderr"
	else
		fail "$mode on stdout: the command's stdout goes to stderr" \
			"exit $STATUS; stdout: $(head -c 200 "$TMP/stdout" | tr '\n' '|'); stderr: $(head -c 200 "$TMP/stderr")"
	fi
	validate_tsv "$mode on stdout with a printing command is valid" "$schema" "$TMP/stdout"
done
# With -o the command keeps its stdout; --processes - puts a table there too.
run nv "$P" -q -i 10ms -o "$TMP/own.tsv" -- echo printed by the command
same "-o FILE: the command keeps its stdout" "0 printed by the command|" \
	"$STATUS $(tr '\n' '|' <"$TMP/stdout")"
run nv "$P" -q -i 10ms -o "$TMP/own.tsv" --processes - -- echo printed by the command
if [ "$STATUS" = 0 ] && grep -qx 'printed by the command' "$TMP/stderr"; then
	validate_tsv "--processes -: the command's stdout goes to stderr" profgpu-processes "$TMP/stdout"
else
	fail "--processes -: the command's stdout goes to stderr" "exit $STATUS; $(head -c 200 "$TMP/stdout")"
fi
check_status "command not found: 127" 127 nv "$P" -q -- /nonexistent/cmd
check_status "command not executable: 126" 126 nv "$P" -q -- "$TMP"
check_status "command killed by a signal: 128+N" 137 nv "$P" -q -- sh -c 'kill -9 $$'
run nv "$P" -q -c 3 -i 10ms -- sh -c 'sleep 0.3; exit 2'
same "-c with a command stops sampling, waits for it" "2 3" "$STATUS $(rows "$TMP/stdout")"
run nv "$P" -q -c 2 -i 10ms
same "-c without a command (real clock)" "0 2" "$STATUS $(rows "$TMP/stdout")"
# A loaded machine may skip a deadline, never add one.
run nv "$P" -q -i 20ms -d 0.1
n=$(rows "$TMP/stdout")
last=$(tail -n 1 "$TMP/stdout" | cut -f1)
if [ "$STATUS" = 0 ] && [ "$n" -ge 2 ] && [ "$n" -le 6 ] && [ "$last" -ge 100000000 ]; then
	pass "-d without a command (real clock)"
else
	fail "-d without a command (real clock)" "exit $STATUS, $n rows, last at $last"
fi

# SIGINT ends a free run cleanly: everything sampled so far is there.
env PROFGPU_NVML_LIB="$NEW" "$P" -q -i 10ms -o "$TMP/int.tsv" 2>"$TMP/int.err" &
pid=$!
sleep 0.3
kill -INT $pid
st=0
wait $pid || st=$?
n=$(($(wc -l <"$TMP/int.tsv") - 1))
if [ "$st" = 0 ] && [ "$n" -ge 3 ] && [ "$(tail -c 1 "$TMP/int.tsv" | od -An -c | tr -d ' ')" = '\n' ]; then
	pass "SIGINT ends sampling, rows kept"
else
	fail "SIGINT ends sampling, rows kept" "exit $st, $n rows, $(head -c 200 "$TMP/int.err")"
fi
validate_tsv "interrupted timeline is valid" profgpu-timeline "$TMP/int.tsv"

# A reader that goes away ends a free run quietly; with a command the
# command goes on and its status is kept.
run sh -c '{ PROFGPU_NVML_LIB=$1 "$0" -q -i 10ms; echo "rc=$?" >"$2"; } | head -n 1' "$P" "$NEW" "$TMP/rc"
same "closed pipe ends a free run quietly" "rc=0 0" "$(cat "$TMP/rc") $(wc -c <"$TMP/stderr" | tr -d ' ')"
run sh -c '{ PROFGPU_NVML_LIB=$1 "$0" -q -i 10ms -- sh -c "sleep 0.1; echo done >&2; exit 6"; echo "rc=$?" >"$2"; } | head -n 1' \
	"$P" "$NEW" "$TMP/rc"
same "closed pipe: the command goes on, its status" "rc=6 done" "$(cat "$TMP/rc") $(cat "$TMP/stderr")"

# A compressed timeline.
run nv "$P" -q -c 2 -i 10ms -o "$TMP/t.tsv.gz"
if [ "$STATUS" = 0 ] && [ "$(gzip -dc "$TMP/t.tsv.gz" | wc -l)" = 3 ]; then
	pass "gzip output"
else
	fail "gzip output" "exit $STATUS"
fi

# ---------------------------------------------------------------- the driver's thread, signals
# The fake, like libnvidia-ml, starts a thread in nvmlInit that can take
# signals. Each run must end with its command (within a second), however
# the SIGCHLD goes: end stamps of the command and of profgpu compared.
now_ms() { date +%s%3N; }
ends_with_command() { # NAME RUNS CMD...: every run ends < 1 s after its command
	name=$1 runs=$2 late= hung=0 worst=0 k=0
	shift 2
	while [ "$k" -lt "$runs" ]; do
		rm -f "$TMP/cmd-end"
		timeout 5 "$@" sh -c 'sleep 0.02; date +%s%3N >"$0"' "$TMP/cmd-end" >/dev/null 2>"$TMP/ends.err"
		st=$? end=$(now_ms)
		if [ "$st" = 124 ] || [ ! -s "$TMP/cmd-end" ]; then
			hung=$((hung + 1))
		else
			d=$((end - $(cat "$TMP/cmd-end")))
			[ "$d" -gt "$worst" ] && worst=$d
			[ "$d" -ge 1000 ] && late="$late $d"
		fi
		k=$((k + 1))
	done
	if [ "$hung" = 0 ] && [ -z "$late" ]; then
		pass "$name: $runs runs ended with the command (worst ${worst} ms after)"
	else
		fail "$name" "$hung of $runs runs did not end (killed after 5 s); late by ms:$late; $(head -c 200 "$TMP/ends.err")"
	fi
}
ends_with_command "profgpu -- cmd, driver thread with an empty mask" 50 \
	env PROFGPU_NVML_LIB="$NEW" "$P" -q -i 10ms -o "$TMP/e.tsv" --processes "$TMP/e.p.tsv" \
	--host-output "$TMP/e.h.tsv" --
ends_with_command "profgpu -- cmd, driver thread with the inherited mask" 10 \
	env PROFGPU_NVML_LIB="$NEW" FAKE_NVML_THREAD_MASK=inherit "$P" -q -i 10ms -o "$TMP/e.tsv" --
W=$BIN/proftools-profile
[ -x "$W" ] || W=$TOP/scripts/profile.sh
ends_with_command "proftools-profile gpu -- cmd" 10 \
	env PROFGPU_NVML_LIB="$NEW" PROFTOOLS_BIN="$BIN" "$W" gpu -q -o "$TMP/wrap" --

# No thread of profgpu can take a signal it reads: each blocks it, or
# the handler that passes it to the loop is installed (SigCgt).
sigs_safe() { # PID: the threads that could take SIGHUP/INT/TERM/CHLD unhandled
	mask=$(( (1 << 0) | (1 << 1) | (1 << 14) | (1 << 16) ))
	for f in /proc/"$1"/task/*/status; do
		blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$f") cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "$f")
		[ -n "$blk" ] || continue
		if [ $(( (0x$blk | 0x$cgt) & mask )) != "$mask" ]; then
			echo "$(cat "${f%status}comm") blk=$blk cgt=$cgt"
		fi
	done
}
for m in empty inherit; do
	timeout 10 env PROFGPU_NVML_LIB="$NEW" FAKE_NVML_THREAD_MASK=$m "$P" -q -i 50ms -o /dev/null -- sleep 1 &
	sleep 0.5
	pid=$(pgrep -n -f "^$P -q -i 50ms -o /dev/null -- sleep 1")
	nthr=$(ls /proc/"$pid"/task 2>/dev/null | wc -l)
	bad=$(sigs_safe "$pid")
	wait
	if [ "$nthr" -ge 2 ] && [ -z "$bad" ]; then
		pass "no thread can take a signal profgpu reads ($m mask, $nthr threads)"
	else
		fail "signals of every thread ($m mask)" "$nthr threads; $bad"
	fi
done

# SIGTERM, SIGHUP, or SIGINT sent by a process: passed on to the command
# (as SIGTERM when it ignores it: SIGINT in this background job), and the
# samples so far are kept under the requested names, marked.
for sig in TERM HUP INT; do
	rm -f "$TMP"/s.* "$TMP"/.s.*
	env PROFGPU_NVML_LIB="$NEW" FAKE_NVML_PROCS_FILE=/dev/null "$P" -q -i 20ms -o "$TMP/s.tsv" \
		--processes "$TMP/s.p.tsv" --host-output "$TMP/s.h.tsv" -- sleep 30 2>"$TMP/s.err" &
	pid=$!
	# shellcheck disable=SC2016
	sh -c 'sleep 20; kill -KILL "$0" 2>/dev/null' $pid &
	dog=$!
	sleep 0.6
	kill -$sig $pid
	st=0
	wait $pid || st=$?
	kill $dog 2>/dev/null
	num=$(kill -l "$sig")
	[ "$sig" = INT ] && num=15
	left=$(ls -a "$TMP" | grep -c '^\.s\.')
	if [ "$st" = $((128 + num)) ] && [ "$left" = 0 ] &&
		[ "$(head -n 1 "$TMP/s.tsv")" = "# stopped_by=SIG$sig" ] &&
		[ "$(head -n 1 "$TMP/s.h.tsv")" = "# stopped_by=SIG$sig" ] &&
		[ "$(head -n 1 "$TMP/s.p.tsv")" = "# stopped_by=SIG$sig" ] &&
		[ "$(grep -vc '^#' "$TMP/s.tsv")" -ge 5 ]; then
		pass "SIG$sig: passed on, the samples committed and marked, no temporary file"
	else
		fail "SIG$sig to profgpu -- cmd" "exit $st; $left temporary files; $(head -n 1 "$TMP/s.tsv" 2>&1); $(head -c 200 "$TMP/s.err")"
	fi
	validate_tsv "SIG$sig: the cut timeline is valid" profgpu-timeline "$TMP/s.tsv"
done

# ---------------------------------------------------------------- GPU selection
run virt FAKE_NVML_GPUS=3 "$P" -q -c 2 -g 2,0
same "-g selects GPUs" "0 2 0 2 " "$(sed 1d "$TMP/stdout" | cut -f2 | tr '\n' ' ')"
check_error "-g out of range" 1 'no GPU 3 \(3 found' virt FAKE_NVML_GPUS=3 "$P" -q -c 1 -g 3

# ---------------------------------------------------------------- alerts
AL="FAKE_NVML_TEMP=80,90,95,80,90 FAKE_NVML_MEMUSED=50,96,97,10,10 FAKE_NVML_MEMTOTAL=100"
# shellcheck disable=SC2086
run virt $AL "$P" -q -c 5 --alert 'temp>85' --alert 'mem>95%' --alert 'util<10'
if [ "$STATUS" = 0 ] &&
	[ "$(grep -c "alert: gpu 0 (Tesla T4): temp>85: 90 C at 100 ms" "$TMP/stderr")" = 1 ] &&
	[ "$(grep -c "alert: gpu 0 (Tesla T4): temp>85: 90 C at 400 ms" "$TMP/stderr")" = 1 ] &&
	[ "$(grep -c "temp>85" "$TMP/stderr")" = 2 ] &&
	[ "$(grep -c "mem>95%: 96% at 100 ms" "$TMP/stderr")" = 1 ] &&
	[ "$(grep -c "mem>95%" "$TMP/stderr")" = 1 ] &&
	[ "$(grep -c "util<10: 0% at 0 ns" "$TMP/stderr")" = 1 ]; then
	pass "alerts warn once per crossing"
else
	fail "alerts warn once per crossing" "exit $STATUS: $(tr '\n' '|' <"$TMP/stderr")"
fi
# shellcheck disable=SC2086
check_status "--fail-on-alert, no command" 1 virt $AL "$P" -q -c 5 --alert 'temp>=95' --fail-on-alert
# shellcheck disable=SC2086
check_status "no alert fired: 0" 0 virt $AL "$P" -q -c 5 --alert 'temp>95' --fail-on-alert
check_status "--fail-on-alert turns a 0 into 1" 1 \
	nv env FAKE_NVML_POWER=300000 "$P" -q -i 20ms --alert 'power>250W' --fail-on-alert -- true
check_status "--fail-on-alert never masks a failure" 4 \
	nv env FAKE_NVML_POWER=300000 "$P" -q -i 20ms --alert 'power>250W' --fail-on-alert -- sh -c 'exit 4'
run virt FAKE_NVML_MEMUSED=8589934592 "$P" -q -c 1 --alert 'mem>=8G' --alert 'energy>1' \
	--alert 'sm_clock<=1500MHz' --alert 'mem_clock>6000'
if grep -q 'mem>=8G: 8.00 GiB at 0 ns' "$TMP/stderr" && grep -q 'sm_clock<=1500MHz: 1500 MHz' "$TMP/stderr" &&
	[ "$(wc -l <"$TMP/stderr")" = 2 ]; then
	pass "alert units"
else
	fail "alert units" "$(tr '\n' '|' <"$TMP/stderr")"
fi

# ---------------------------------------------------------------- processes
# The command writes its own pid and a child's into the fake's process
# file; pid 1 (not in the tree) must be left out.
procs_test() {
	name=$1 lib=$2 driver=$3
	: >"$TMP/procs"
	run env PROFGPU_NVML_LIB="$lib" FAKE_NVML_DRIVER="$driver" FAKE_NVML_PROCS_FILE="$TMP/procs" \
		"$P" -q -i 20ms -o "$TMP/p-timeline.tsv" --processes "$TMP/p.tsv" -- \
		sh -c 'sleep 1 & echo "0 $! 2097152" >"$0.tmp"; echo "0 1 999 1 1" >>"$0.tmp";
			echo "0 $$ 1048576 40 10" >>"$0.tmp"; sleep 0.05; mv "$0.tmp" "$0";
			sleep 0.25; kill $!; wait' \
		"$TMP/procs"
	sed 1d "$TMP/p.tsv" | cut -f 2-7 | sort -u >"$TMP/p.rows"
	shpid=$(awk -F '\t' '$3 == "sh" { print $2; exit }' "$TMP/p.rows")
	slpid=$(awk -F '\t' '$3 == "sleep" { print $2; exit }' "$TMP/p.rows")
	printf '0|%s|sh|1048576|%s\n0|%s|sleep|2097152||\n' "$shpid" "$4" "$slpid" | tsv | sort >"$TMP/p.expected"
	if [ "$STATUS" = 0 ] && [ -n "$shpid" ] && [ -n "$slpid" ] && cmp -s "$TMP/p.expected" "$TMP/p.rows" &&
		[ "$(head -n 1 "$TMP/p.tsv")" = "$PROCHEADER" ]; then
		pass "processes: $name"
	else
		fail "processes: $name" "exit $STATUS: $(tr '\n' '|' <"$TMP/p.rows") $(head -c 200 "$TMP/stderr")"
	fi
}
procs_test "_v3, command tree only" "$NEW" 550.54.14 "$(printf '40\t10')"
procs_test "_v3 32-byte entries of driver 535.54" "$NEW" 535.54.03 "$(printf '40\t10')"
procs_test "_v3 24-byte entries of driver 535.104" "$NEW" 535.104.05 "$(printf '40\t10')"
procs_test "_v2 entries" "$V2" 550.54.14 "$(printf '40\t10')"
procs_test "v1 entries of an old driver" "$OLD" 470.82.01 "$(printf '\t')"
validate_tsv "processes TSV is valid" profgpu-processes "$TMP/p.tsv"
# The driver refreshes per-process utilisation every 200 ms and answers
# only samples newer than the last seen: polled every 50 ms, every row of
# a busy process still has its utilisation (held, not a hole).
run env PROFGPU_NVML_LIB="$NEW" FAKE_NVML_PROCS_FILE="$TMP/procs-busy" "$P" -q -i 50ms -o /dev/null \
	--processes "$TMP/busy.tsv" -- sh -c 'echo "0 $$ 1048576 97 33" >"$0"; sleep 1.2' "$TMP/procs-busy"
rows=$(grep -vc '^time_ns' "$TMP/busy.tsv")
holes=$(awk -F'\t' 'NR > 1 && $6 == ""' "$TMP/busy.tsv" | wc -l)
if [ "$STATUS" = 0 ] && [ "$rows" -ge 10 ] && [ "$holes" = 0 ] &&
	[ "$(awk -F'\t' 'NR > 1 { print $6 "/" $7 }' "$TMP/busy.tsv" | sort -u)" = 97/33 ]; then
	pass "processes: polled faster than the driver's 200 ms, no hole ($rows rows)"
else
	fail "processes: utilisation held between the driver's samples" "exit $STATUS, $holes of $rows rows empty"
fi
# A driver without per-process utilisation: said once, the cells empty.
run env PROFGPU_NVML_LIB="$OLD" FAKE_NVML_PROCS_FILE="$TMP/procs-busy" "$P" -q -i 20ms -o /dev/null \
	--processes "$TMP/old.tsv" -- sh -c 'echo "0 $$ 1048576 97 33" >"$0"; sleep 0.3' "$TMP/procs-busy"
if [ "$STATUS" = 0 ] && [ "$(grep -c 'no per-process utilisation' "$TMP/stderr")" = 1 ] &&
	[ "$(grep -vc '^time_ns' "$TMP/old.tsv")" -ge 3 ]; then
	pass "processes: a driver that cannot fill sm_util_pct says so once"
else
	fail "processes: no per-process utilisation said once" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
# Without a command every process is listed.
printf '0 1 4096\n0 2 8192\n' >"$TMP/procs"
run virt FAKE_NVML_PROCS_FILE="$TMP/procs" "$P" -q -c 1 -o /dev/null --processes -
same "processes without a command: all" "$(printf '%s\n0|0|1|%s|4096||\n0|0|2|%s|8192||' "$PROCHEADER" \
	"$(cat /proc/1/comm)" "$(cat /proc/2/comm 2>/dev/null)" | tsv)" "$(cat "$TMP/stdout")"

# ---------------------------------------------------------------- amdgpu
# make_amd ROOT: two AMD cards (one bare), an Intel card, a connector.
mk() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" >"$1"; }
make_amd() {
	d=$1/class/drm/card0/device
	mk "$d/vendor" 0x1002
	mk "$d/device" 0x73bf
	mk "$d/product_name" "AMD Radeon RX 6800"
	mk "$d/unique_id" 5a3c1b2d4e6f7081
	mk "$d/gpu_busy_percent" 37
	mk "$d/mem_busy_percent" 12
	mk "$d/mem_info_vram_used" 1610612736
	mk "$d/mem_info_vram_total" 17163091968
	mk "$d/hwmon/hwmon3/temp1_input" 54000
	mk "$d/hwmon/hwmon3/power1_average" 143250000
	mk "$d/hwmon/hwmon3/freq1_input" 2105000000
	mk "$d/hwmon/hwmon3/freq2_input" 1000000000
	mk "$d/hwmon/hwmon7/temp1_input" 99000
	mkdir -p "$1/class/drm/card0-DP-1"
	mk "$1/class/drm/card1/device/vendor" 0x8086
	mk "$1/class/drm/card1/device/gpu_busy_percent" 5
	d=$1/class/drm/card2/device
	mk "$d/vendor" 0x1002
	mk "$d/device" 0x744c
	mk "$d/gpu_busy_percent" 99
	mk "$d/mem_info_vram_used" 1000
	mk "$d/hwmon/hwmon4/power1_input" 15500000
}
AMD=$TMP/amd-sys
make_amd "$AMD"
printf '0|amdgpu|AMD Radeon RX 6800|5a3c1b2d4e6f7081\n1|amdgpu|AMD GPU 0x744c|\n' | tsv >"$TMP/amdlist.expected"
check_file "amdgpu: list" 0 "$TMP/amdlist.expected" env PROFGPU_SYSFS_ROOT="$AMD" "$P" -l
tsv >"$TMP/amd.expected" <<EOF
0|AMD Radeon RX 6800|5a3c1b2d4e6f7081|37|12|1610612736|17163091968|54|143.25|0|2105|1000|||
1|AMD GPU 0x744c||99||1000|||15.5|0|||||
EOF
run env PROFGPU_SYSFS_ROOT="$AMD" PROFGPU_TEST_VIRTUAL_TIME=1 "$P" -q -c 1
sed 1d "$TMP/stdout" | cut -f 2- >"$TMP/amd.rows"
if [ "$STATUS" = 0 ] && cmp -s "$TMP/amd.expected" "$TMP/amd.rows"; then
	pass "amdgpu: sysfs values"
else
	fail "amdgpu: sysfs values" "exit $STATUS: $(diff "$TMP/amd.expected" "$TMP/amd.rows" | tr '\n' '|')"
fi
validate_tsv "amdgpu timeline is valid" profgpu-timeline "$TMP/stdout"
# A card removed mid-run is lost; the other goes on.
run env PROFGPU_SYSFS_ROOT="$AMD" "$P" -q -i 20ms -- sh -c 'sleep 0.12; rm -rf "$0"; sleep 0.12' \
	"$AMD/class/drm/card2"
g0=$(awk -F '\t' '$2 == 0' "$TMP/stdout" | wc -l)
g1=$(awk -F '\t' '$2 == 1' "$TMP/stdout" | wc -l)
if [ "$STATUS" = 0 ] && [ "$g1" -ge 2 ] && [ "$g0" -gt "$((g1 + 2))" ] &&
	[ "$(grep -c 'gpu 1 (AMD GPU 0x744c): GPU is lost' "$TMP/stderr")" = 1 ] &&
	awk -F '\t' '$2 == 1 && $5 != 99 { exit 1 }' "$TMP/stdout"; then
	pass "amdgpu: removed card is lost, the other goes on"
else
	fail "amdgpu: removed card is lost, the other goes on" "exit $STATUS, $g0/$g1 rows: $(head -c 200 "$TMP/stderr")"
fi
make_amd "$AMD"
check_error "-b amdgpu skips NVML" 0 'no GPU found \(amdgpu: no amdgpu card' \
	env PROFGPU_NVML_LIB="$NEW" "$P" -b amdgpu -- true

# ---------------------------------------------------------------- tegrastats
tsv >"$TMP/orin.expected" <<EOF
$HEADER
0|0|NVIDIA Tegra||0|0|2343567360|32019316736|41.875|2.8|0|305|2133|||
1000000000|0|NVIDIA Tegra||45|10|3145728000|32019316736|43|6|4.4|1300|3199|||
2000000000|0|NVIDIA Tegra||99|35|4294967296|32019316736|47.5|9|11.9|1300|3199|||
3000000000|0|NVIDIA Tegra||99|40|4294967296|32019316736|49|9|20.9|1300|3199|||
4000000000|0|NVIDIA Tegra||10|5|3145728000|32019316736|45|3|26.9|611|2133|||
EOF
check_file "tegrastats: Orin lines with timestamps" 0 "$TMP/orin.expected" \
	"$P" -q --tegrastats "$DATA/tegrastats-orin.txt"
validate_tsv "tegrastats timeline is valid" profgpu-timeline "$TMP/stdout"
# (2.8+6)/2 + (6+9)/2 + 9 + (9+3)/2 = 26.9 J over 4 s
tsv >"$TMP/orinsum.expected" <<EOF
$SUMHEADER
0|NVIDIA Tegra|5|4|50.6|99|4294967296|5.96|9|26.9|power|49||
EOF
check_file "tegrastats: summary arithmetic" 0 "$TMP/orinsum.expected" \
	"$P" --summary --tegrastats "$DATA/tegrastats-orin.txt"
# Old boards: no timestamps (sample k at k * interval), POM_5V_GPU in mW.
tsv >"$TMP/nano.expected" <<EOF
$HEADER
0|0|NVIDIA Tegra||0|3|1851785216|4156555264|23.5|0|0|76|1600|||
200000000|0|NVIDIA Tegra||60|21|2097152000|4156555264|25|1.5|0.15|921|1600|||
400000000|0|NVIDIA Tegra||80|30|2202009600|4156555264|27|2.5|0.55|921|1600|||
600000000|0|NVIDIA Tegra||20|9|1992294400|4156555264|26|0.5|0.85|921|1600|||
EOF
check_file "tegrastats: Nano lines from stdin, -i" 0 "$TMP/nano.expected" \
	sh -c '"$0" -q -i 200ms --tegrastats - <"$1"' "$P" "$DATA/tegrastats-nano.txt"
# Orin Nano: lower-case sensors, a shared CPU/GPU rail; one bad line.
run "$P" -q --tegrastats "$DATA/tegrastats-orin-nano.txt"
if [ "$STATUS" = 1 ] && [ "$(wc -l <"$TMP/stdout")" = 4 ] &&
	grep -q "tegrastats-orin-nano.txt:3: not a tegrastats line" "$TMP/stderr" &&
	grep -q "tegrastats-orin-nano.txt: 1 malformed line skipped" "$TMP/stderr" &&
	[ "$(sed -n 4p "$TMP/stdout" | cut -f 1,5,9,10,11)" = "$(printf '3000000000\t0\t62\t0.798\t6.494')" ]; then
	pass "tegrastats: malformed line reported, the rest kept, exit 1"
else
	fail "tegrastats: malformed line reported, the rest kept, exit 1" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
check_error "tegrastats: missing file" 1 'profgpu: /nonexistent: No such file' \
	"$P" --tegrastats /nonexistent

# A Jetson: the device tree says so, and tegrastats is a child.
JET=$TMP/jetson-sys
mkdir -p "$JET/firmware/devicetree/base" "$TMP/tbin"
printf 'nvidia,p3737-0000+p3701-0000\0nvidia,tegra234\0' >"$JET/firmware/devicetree/base/compatible"
printf 'NVIDIA Jetson AGX Orin Developer Kit\0' >"$JET/firmware/devicetree/base/model"
cat >"$TMP/tbin/tegrastats" <<EOF
#!/bin/sh
echo "\$*" >"$TMP/tegrastats.args"
while IFS= read -r line; do printf '%s\n' "\$line"; sleep 0.03; done <"$DATA/tegrastats-orin.txt"
exec sleep 29.$$
EOF
chmod +x "$TMP/tbin/tegrastats"
run env PATH="$TMP/tbin:$PATH" PROFGPU_SYSFS_ROOT="$JET" "$P" -q -i 250ms -- sleep 0.6
cut -f 2- "$TMP/orin.expected" | sed 's/NVIDIA Tegra/NVIDIA Jetson AGX Orin Developer Kit/' |
	cut -f 1-9,11- >"$TMP/jet.expected"
cut -f 2- "$TMP/stdout" | cut -f 1-9,11- >"$TMP/jet.rows"
if [ "$STATUS" = 0 ] && cmp -s "$TMP/jet.expected" "$TMP/jet.rows" &&
	[ "$(cat "$TMP/tegrastats.args")" = "--interval 250" ]; then
	pass "tegrastats child on a Jetson"
else
	fail "tegrastats child on a Jetson" "exit $STATUS: $(diff "$TMP/jet.expected" "$TMP/jet.rows" | head -n 6 | tr '\n' '|') $(head -c 200 "$TMP/stderr")"
fi
sleep 0.1
# (the sleep's length names this run: other runs of the suite may be going)
same "tegrastats child is stopped" "" "$(pgrep -f "sleep 29[.]$$\$" || true)"
check "Jetson listed" 0 "$(printf '0\ttegrastats\tNVIDIA Jetson AGX Orin Developer Kit\t')" \
	env PATH="$TMP/tbin:$PATH" PROFGPU_SYSFS_ROOT="$JET" "$P" -l

# The command's signal state is its own, not profgpu's (which blocks
# signals for its signalfd).
check_sigstate "command starts with the dispositions and mask profgpu started with" \
	"$P" -q -o "$TMP/sig.tsv" --

# ---- the host monitor (--host, --host-output) ----
cat >"$TMP/hog.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
/* N threads spin for S seconds with M MiB touched, then sleep 0.6 s. */
static double secs;
static void *spin(void *a)
{
	volatile unsigned long x = 0;
	struct timespec t0, t;

	(void)a;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return NULL;
}
int main(int argc, char **argv)
{
	size_t mb = (size_t)atoi(argv[1]);
	int n = atoi(argv[2]);
	pthread_t th[16];
	char *p = malloc(mb << 20);

	(void)argc;
	secs = atof(argv[3]);
	memset(p, 1, mb << 20);
	for (int i = 1; i < n; i++)
		pthread_create(&th[i], NULL, spin, NULL);
	spin(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(th[i], NULL);
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "hog_cpu_ms %ld\n", ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000 +
			ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000);
	}
	usleep(600000);
	return p[mb] == 1 ? 0 : 1;
}
EOF
if ! cc -O1 -pthread -o "$TMP/hog" "$TMP/hog.c" 2>"$TMP/cc.err"; then
	fail "host: build the test program" "$(head -c 200 "$TMP/cc.err")"
else
	run "$P" --host -i 50ms -o "$TMP/host.tsv" --alert 'rss>100M' -- "$TMP/hog" 200 4 0.6
	validate_tsv "--host: valid profgpu-host TSV" profgpu-host "$TMP/host.tsv"
	peak=$(awk -F'\t' 'NR > 1 && $6 != "" && $6 > m { m = $6 } END { printf "%d", m / 1048576 }' "$TMP/host.tsv")
	threads=$(awk -F'\t' 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' "$TMP/host.tsv")
	# busy: the highest row (it spins 0.6 s); idle: the last 4 rows of the
	# tree, inside its final 0.6 s sleep (not clock windows: a loaded
	# machine shifts them). Busy at least 20%, not 50: a clean-clone check
	# beside other work (load 16 on 2 cores) read 45% for 4 threads that
	# got 354 ms in 0.6 s; that the rows add up to the hog's own CPU time
	# is the exact check
	busy=$(awk -F'\t' 'NR > 1 && $4 != "" && $4 > m { m = $4 } END { printf "%d", m }' "$TMP/host.tsv")
	idle=$(awk -F'\t' 'NR > 1 && $2 != "" && $4 != "" { v[++n] = $4 } END { for (i = n - 3; i <= n; i++) s += v[i]; printf "%d", (n >= 4 ? s / 4 : 999) }' "$TMP/host.tsv")
	# the tree's CPU over the run, from the rows (rate x interval), beside
	# what the hog's four threads ran by its own rusage: on a loaded host
	# they may not reach more than a core at once, but the sum must agree
	hog_ms=$(sed -n 's/^hog_cpu_ms //p' "$TMP/stderr")
	rows_ms=$(awk -F'\t' 'NR > 1 && $4 != "" && t != "" { s += $4 / 100 * ($1 - t) / 1e6 } NR > 1 { t = $1 } END { printf "%d", s }' "$TMP/host.tsv")
	agree=$(awk -v a="${rows_ms:-0}" -v b="${hog_ms:-0}" 'BEGIN { print (b > 0 && a > 0.8 * b && a < 1.25 * b) ? 1 : 0 }')
	if [ "$STATUS" = 0 ] && [ "$peak" -ge 190 ] && [ "$threads" = 4 ] && [ "$agree" = 1 ] && [ "$busy" -ge 20 ] && [ "$idle" -le 20 ]; then
		pass "--host: RSS peak $peak MiB, 4 threads, CPU ${rows_ms} ms by the rows against ${hog_ms} ms by the hog's rusage, ${idle}% asleep"
	else
		fail "--host: tree figures" "exit $STATUS, peak $peak MiB, $threads threads, CPU ${rows_ms} ms by the rows against ${hog_ms:-?} ms by rusage (0.8x-1.25x), busy $busy%, idle $idle%"
	fi
	if grep -Eq '^profgpu: alert: host: rss>100M: [0-9.]+ MiB at ' "$TMP/stderr" &&
		[ "$(grep -c 'alert: host' "$TMP/stderr")" = 1 ] &&
		grep -q 'peak RSS 2[0-9][0-9] MiB' "$TMP/stderr" && ! grep -q 'no GPU found' "$TMP/stderr"; then
		pass "--host: the rss alert fires once, the summary names the peak, no GPU warning"
	else
		fail "--host: alert and summary" "$(head -c 400 "$TMP/stderr" | tr '\n' '|')"
	fi
	check_status "--host: --fail-on-alert exits 1 when rss>100M fired" 1 \
		"$P" --host -q -o "$TMP/host3.tsv" --alert 'rss>100M' --fail-on-alert -- "$TMP/hog" 150 1 0.1
	run "$P" -q -o "$TMP/gpu2.tsv" --host-output "$TMP/host2.tsv" -- "$TMP/hog" 50 1 0.1
	if [ "$STATUS" = 0 ] && head -n 1 "$TMP/gpu2.tsv" | grep -q '^time_ns	gpu	' &&
		head -n 1 "$TMP/host2.tsv" | grep -q '^time_ns	procs	threads	cpu_pct' &&
		[ "$(grep -vc '^time_ns' "$TMP/host2.tsv")" -ge 5 ]; then
		pass "--host-output: the host timeline beside the GPU one"
	else
		fail "--host-output" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi
# Peaks between samples, every thread's switches, one thread at most 100 %.
cat >"$TMP/hostprog.c" <<'CEOF'
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static void *switcher(void *a)
{
	(void)a;
	for (int i = 0; i < 400; i++)
		usleep(1000);
	return NULL;
}
int main(int argc, char **argv)
{
	(void)argc;
	if (strcmp(argv[1], "burst") == 0) {
		/* 64 MiB for a few ms, far less than an interval */
		volatile char *p = malloc(64 << 20);
		for (int i = 0; i < (64 << 20); i += 4096)
			p[i] = 1;
		free((void *)p);
		usleep(300000);
	} else if (strcmp(argv[1], "switches") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, switcher, NULL);
		pthread_join(t, NULL);
	} else {
		struct timespec t0, t;
		volatile unsigned long x = 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 100000; i++)
				x++;
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < 1.0);
	}
	return 0;
}
CEOF
if ! cc -O1 -pthread -o "$TMP/hostprog" "$TMP/hostprog.c" 2>"$TMP/cc.err"; then
	fail "host: build hostprog" "$(head -c 200 "$TMP/cc.err")"
else
	run "$P" --host -i 200ms -o "$TMP/hb.tsv" -- "$TMP/hostprog" burst
	peak=$(sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p' "$TMP/stderr")
	if [ "$STATUS" = 0 ] && [ "${peak%.*}" -ge 64 ] 2>/dev/null; then
		pass "--host: a peak between two samples is the summary's peak RSS ($peak MiB)"
	else
		fail "--host: peak RSS between samples" "exit $STATUS, peak '$peak' MiB (want >= 64): $(head -c 300 "$TMP/stderr")"
	fi
	run "$P" --host -q -i 100ms -o "$TMP/hs.tsv" -- "$TMP/hostprog" switches
	sw=$(awk -F'\t' 'NR > 1 && $9 != "" && $9 > m { m = $9 } END { printf "%d", m }' "$TMP/hs.tsv")
	if [ "$STATUS" = 0 ] && [ "$sw" -ge 200 ]; then
		pass "--host: context switches of every thread ($sw/s at most)"
	else
		fail "--host: context switches of a worker thread" "exit $STATUS, at most $sw/s (want >= 200)"
	fi
	run "$P" --host -q -i 100ms -o "$TMP/hc.tsv" -- "$TMP/hostprog" spin
	max=$(awk -F'\t' 'NR > 1 && $4 != "" && $4 > m { m = $4 } END { print m + 0 }' "$TMP/hc.tsv")
	# 105, not 100.5: the clock read and its time stamp are two calls,
	# and a delayed sampler (100.6% in a sanitizer pass, 101.8% by hand)
	# stretches one interval's share by a percent or two; the
	# 10 ms ticks this replaced gave 110% at 100 ms intervals
	if [ "$STATUS" = 0 ] && awk -v m="$max" 'BEGIN { exit !(m > 5 && m <= 105) }'; then
		pass "--host: one spinning thread about 100%, not 110% as 10 ms ticks read it ($max%)"
	else
		fail "--host: one thread's CPU" "exit $STATUS, at most $max% (want 5 to 105)"
	fi
fi
check_error "--host with --summary is a usage error" 2 'not with --summary' "$P" --host --summary -- true
check_error "a host alert with a bad size" 2 "bad size 'lots'" "$P" --host --alert 'rss>lots' -- true
