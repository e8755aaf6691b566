#!/bin/sh
# proftools-push: requests sent to a stand-in for Grafana Pyroscope's
# /ingest on loopback (tests/tools/pyroscope_ingest.py), which follows
# the handler's code: how it reads the query, the name's labels and
# profile type, the counts, the body's format, sampleRate; and what it
# would store (metric, type, total after the sample rate's scaling).
# Its failures: a 500 then success, a permanent 4xx, a refused connection.
. "$(dirname "$0")/lib.sh"

PUSH=$BIN/proftools-push
if ! need "stub Pyroscope server" python3 python3 || ! need "stub Pyroscope server" curl curl; then
	exit 0
fi

# The stub serves until killed; its port in $TMP/port, one line per
# request in $TMP/log, bodies in $TMP/body.N (its header says more).
python3 "$TESTS/tools/pyroscope_ingest.py" "$TMP" 2>"$TMP/stub.err" &
STUB=$!
trap 'kill $STUB 2>/dev/null; rm -rf "$TMP"' EXIT
_i=0
while [ ! -f "$TMP/port" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
[ -f "$TMP/port" ] || { fail "stub server" "did not start: $(cat "$TMP/stub.err")"; exit 0; }
URL=http://127.0.0.1:$(cat "$TMP/port")

# Two interval files as profrec --rotate writes them (hand-written: no
# perf_event needed), a folded one and one without samples.
mkdir "$TMP/d"
H='time_ns	pid	tid	comm	cpu	event	weight	stack_id	stack	ip	map_id	map'
{
	echo '# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp command=app start_time=2026-11-25T21:30:00Z from=1795642200.250 until=1795642260.000'
	echo "$H"
	printf '1000\t7\t7\tapp\t0\tcpu-clock\t1001001\t0\tmain;work\t\t\t\n'
	printf '2000\t7\t7\tapp\t0\tcpu-clock\t1001001\t0\t\t\t\t\n'
	printf '3000\t7\t7\tapp\t1\tcpu-clock\t1001001\t1\tmain;idle\t\t\t\n'
} >"$TMP/d/profrec-20261125T213000Z.tsv"
{
	echo '# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp command=app start_time=2026-11-25T21:31:00Z from=1795642260.000 until=1795642272.500'
	echo "$H"
	printf '5000\t7\t7\tapp\t0\tcpu-clock\t1001001\t0\tmain;work\t\t\t\n'
} >"$TMP/d/profrec-20261125T213100Z.tsv"
{
	echo '# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp command=app start_time=2026-11-25T21:32:00Z from=1795642320.000 until=1795642380.000'
	echo "$H"
} >"$TMP/d/profrec-20261125T213200Z.tsv"
{
	echo '# source=profrec event=cpu-clock unit=samples freq=99 start_time=2026-11-25T21:33:00Z from=1795642380.000 until=1795642440.000'
	echo 'app;main;work 40'
} >"$TMP/d/profrec-20261125T213300Z.folded"
F1=$TMP/d/profrec-20261125T213000Z.tsv
F2=$TMP/d/profrec-20261125T213100Z.tsv
FE=$TMP/d/profrec-20261125T213200Z.tsv
FF=$TMP/d/profrec-20261125T213300Z.folded

reset_stub() { rm -f "$TMP/log" "$TMP"/body.* "$TMP"/headers.* "$TMP/errbody" "$TMP/auth"; printf '%s\n' "$@" >"$TMP/codes"; }
log() { cat "$TMP/log" 2>/dev/null; }
# What the server stores: CPU time in nanoseconds (1e9 samples a second,
# each 1 ns: the recording's own weights, exactly).
TAIL=' spyName=profrec units=samples tenant=-'
Q1="OK folded app=myapp type=cpu metric=process_cpu period=1 unit=nanoseconds stacks=2 total=3003003 labels=env=ci,host=h1 from=1795642200 until=1795642260 sampleRate=1000000000$TAIL"
Q2="OK folded app=myapp type=cpu metric=process_cpu period=1 unit=nanoseconds stacks=1 total=1001001 labels=env=ci,host=h1 from=1795642260 until=1795642273 sampleRate=1000000000$TAIL"
Q3="OK folded app=myapp type=cpu metric=process_cpu period=10101010 unit=nanoseconds stacks=1 total=404040400 labels=env=ci,host=h1 from=1795642380 until=1795642440 sampleRate=99$TAIL"

reset_stub
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 "$F1" "$F2" "$FE" "$FF"
if [ "$STATUS" = 0 ] && [ "$(log)" = "$(printf '%s\n%s\n%s' "$Q1" "$Q2" "$Q3")" ]; then
	pass "POST /ingest: name.cpu with labels, from/until, CPU time in ns at sampleRate 1e9, samples at freq; the empty interval skipped"
else
	fail "POST /ingest as Pyroscope's handler reads it" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
assert "folded body: the interval's nanoseconds, its samples" \
	sh -c "printf 'app;main;idle 1001001\napp;main;work 2002002\n' | cmp -s - '$TMP/body.1' && printf 'app;main;work 1001001\n' | cmp -s - '$TMP/body.2' && printf 'app;main;work 40\n' | cmp -s - '$TMP/body.3'"
assert "files are kept without --delete-after-push" test -f "$F1" -a -f "$F2" -a -f "$FF"

# The profile type follows the app name's last "." (Pyroscope's
# convertMetadata): a "." in --app is part of the name, not a type.
reset_stub
run "$PUSH" --server "$URL" --app my.app "$F2"
check_log() {	# NAME STATUS PATTERN: the exit status, one request whose line matches
	if [ "$STATUS" = "$2" ] && [ "$(log | wc -l)" = 1 ] && log | grep -Eq -- "$3"; then pass "$1"
	else fail "$1" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"; fi
}
check_log "--app my.app: service my.app, type cpu" 0 '^OK folded app=my\.app type=cpu metric=process_cpu .*total=1001001 '

# A folded file in ns (proffold's output of a recording): its weights are
# time, not samples to be multiplied by the period.
printf '# source=profrec event=cpu-clock unit=ns freq=999 from=1795642200 until=1795642260\napp;main;work 1268000000\napp;main 1269268\n' >"$TMP/d/ns.folded"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/ns.folded"
check_log "folded in ns: stored as 1.269269268 s of CPU" 0 '^OK folded app=myapp type=cpu .*unit=nanoseconds stacks=2 total=1269269268 '

# profrec -c PERIOD: no freq; each sample is PERIOD ns of CPU time (the
# server would take 100 Hz: 10 ms a sample). 7.5 s is past 2^31 ns: an
# integer still (mawk wrote 7.5e+09, which the server's Atoi refuses).
printf '# source=profrec event=cpu-clock unit=samples period=250000 start_time=2026-11-25T21:30:00Z\napp;main;work 30000\napp;main 1\n' >"$TMP/d/period.folded"
printf '# source=profrec event=cpu-clock unit=ns period=250000 call_graph=fp command=app start_time=2026-11-25T21:30:00Z\n%s\n' "$H" >"$TMP/d/period.tsv"
printf '1000\t7\t7\tapp\t0\tcpu-clock\t250000\t0\tmain;work\t\t\t\n2500000000\t7\t7\tapp\t0\tcpu-clock\t250000\t0\t\t\t\t\n' >>"$TMP/d/period.tsv"
touch -d @1795000000 "$TMP/d/period.tsv" "$TMP/d/period.folded"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/period.folded"
check_log "profrec -c 250000 --folded: 30001 samples = 7.50025 s, in whole ns" 0 '^OK folded app=myapp type=cpu .*total=7500250000 .*from=1795642200 '
# The recording's own start_time and its last sample (2.5 s after it),
# not the file's modification time.
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/period.tsv"
check_log "profrec -c 250000 TSV: 2 samples = 0.5 ms, from its start_time until its last sample" 0 \
	'^OK folded app=myapp type=cpu .*stacks=1 total=500000 .*from=1795642200 until=1795642203 '

# profheap's reports: memory, not CPU.
printf '# tool=profheap report=leak unit=bytes pid=7\napp;main;leaky 4096\n' >"$TMP/d/leak.folded"
printf '# tool=profheap report=count unit=allocations pid=7\napp;main;leaky 12\n' >"$TMP/d/count.folded"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/leak.folded" "$TMP/d/count.folded"
if [ "$STATUS" = 0 ] && log | sed -n 1p | grep -q '^OK folded app=myapp type=inuse_space metric=memory period=0 unit=- stacks=1 total=4096 .*units=bytes' &&
	log | sed -n 2p | grep -q '^OK folded app=myapp type=alloc_objects metric=memory period=0 unit=- stacks=1 total=12 .*units=objects'; then
	pass "profheap reports: inuse_space in bytes, alloc_objects"
else
	fail "profheap reports: memory types" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

# Counts the server's strconv.Atoi refuses: refused here, nothing sent.
printf '# unit=samples freq=99\napp;main 12.5\napp;x 1\n' >"$TMP/d/pct.folded"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/pct.folded"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/log" ] && grep -q 'pct.folded: line 1: count "12.5" is not a whole number' "$TMP/stderr"; then
	pass "decimal counts: refused before sending, exit 1"
else
	fail "decimal counts: refused before sending" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

# Samples without a rate: refused unless --sample-rate says it; metadata
# values never reach the query string as they are.
printf '# unit=samples freq=99&spyName=evil\napp;main 2\n' >"$TMP/d/norate.folded"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/norate.folded"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/log" ] && grep -q 'norate.folded: the sampling rate is unknown' "$TMP/stderr"; then
	pass "samples at an unknown rate (freq=99&spyName=evil): refused, exit 1"
else
	fail "samples at an unknown rate: refused" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
reset_stub
run "$PUSH" --server "$URL" --app myapp --sample-rate 50 "$TMP/d/norate.folded"
check_log "--sample-rate 50: 2 samples = 40 ms, spyName profrec" 0 '^OK folded app=myapp type=cpu .*period=20000000 .*total=40000000 .*sampleRate=50 spyName=profrec '

# 500, then accepted: retried after the delay.
reset_stub 500
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --retry-delay 0.1 "$F1"
if [ "$STATUS" = 0 ] && [ "$(log)" = "$(printf '%s\n%s' "$Q1" "$Q1")" ] && grep -q 'HTTP 500.*retrying in 0.1 s (try 2 of 5)' "$TMP/stderr"; then
	pass "HTTP 500 then 200: retried, exit 0"
else
	fail "HTTP 500 then 200: retried" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

# 503 three times with --tries 3: given up, exit 1, the file kept.
reset_stub 503 503 503 200
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --tries 3 --retry-delay 0.05 --delete-after-push "$F1"
if [ "$STATUS" = 1 ] && [ "$(log | wc -l)" = 3 ] && [ -f "$F1" ] && grep -q 'not accepted after 3 tries: HTTP 503' "$TMP/stderr"; then
	pass "HTTP 503 every try: 3 tries, exit 1, not deleted"
else
	fail "HTTP 503 every try: 3 tries, exit 1, not deleted" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

# A permanent 4xx: not retried, not deleted; the other file still pushed.
reset_stub 422 200
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --retry-delay 0.05 --delete-after-push "$F1" "$F2"
if [ "$STATUS" = 1 ] && [ "$(log)" = "$(printf '%s\n%s' "$Q1" "$Q2")" ] && [ -f "$F1" ] && [ ! -f "$F2" ] &&
	grep -q 'profrec-20261125T213000Z.tsv: refused: HTTP 422' "$TMP/stderr"; then
	pass "HTTP 422: not retried, kept; the accepted file deleted (--delete-after-push), exit 1"
else
	fail "HTTP 422: not retried, kept" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

# The server's answer is shown with its control bytes escaped: no escape
# sequence reaches the terminal.
reset_stub 400
printf 'bad\033]0;owned\007\033[2J\n' >"$TMP/errbody"
run "$PUSH" --server "$URL" --app myapp "$F1"
if [ "$STATUS" = 1 ] && grep -qF 'refused: HTTP 400 bad\x1b]0;owned\x07\x1b[2J' "$TMP/stderr" && ! grep -q "$(printf '\033')" "$TMP/stderr"; then
	pass "an error body with escape sequences: shown escaped"
else
	fail "an error body with escape sequences: shown escaped" "exit $STATUS: $(od -c "$TMP/stderr" | head -n 5 | tr '\n' '|')"
fi

# Connection refused: a port nobody listens on.
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$TMP/closed"
run "$PUSH" --server "http://127.0.0.1:$(cat "$TMP/closed")" --app myapp --tries 2 --retry-delay 0.05 --delete-after-push "$F1"
if [ "$STATUS" = 1 ] && [ -f "$F1" ] && grep -q 'not accepted after 2 tries: .*(curl exit 7)' "$TMP/stderr"; then
	pass "connection refused: retried, exit 1, kept"
else
	fail "connection refused: retried, exit 1, kept" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# A URL curl refuses (port 99999: curl exit 3) is not transient: no retry.
run "$PUSH" --server "http://127.0.0.1:99999" --app myapp --tries 3 --retry-delay 5 "$F1"
if [ "$STATUS" = 1 ] && grep -q 'not sent: .*(curl exit 3)' "$TMP/stderr" && ! grep -q retrying "$TMP/stderr"; then
	pass "a URL curl refuses (exit 3): not retried, exit 1"
else
	fail "a URL curl refuses: not retried" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# A server URL with a path and a query string: /ingest after the path,
# its parameters kept beside ours.
reset_stub
run "$PUSH" --server "$URL/?token=abc" --app myapp "$F1"
check_log "--server URL/?token=abc: POST /ingest?token=abc&..." 0 '^OK folded app=myapp .* other=token=abc$'

# --state: what was accepted is not sent again.
reset_stub
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --state "$TMP/state" "$F1"
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --state "$TMP/state" "$F1"
if [ "$STATUS" = 0 ] && [ "$(log)" = "$Q1" ] && [ "$(cat "$TMP/state")" = "$F1" ]; then
	pass "--state: an accepted file is sent once"
else
	fail "--state: an accepted file is sent once" "exit $STATUS, log: $(log | tr '\n' '|'), state: $(cat "$TMP/state" 2>&1)"
fi
# A state file that cannot be written: nothing sent (it would be sent
# again by every later run), exit 1.
reset_stub
run "$PUSH" --server "$URL" --app myapp --state "$TMP/d" "$F1"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/log" ] && grep -q "$TMP/d: cannot be written" "$TMP/stderr"; then
	pass "--state not writable: exit 1, nothing sent"
else
	fail "--state not writable: exit 1, nothing sent" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

# Credentials: from the environment, to curl on its standard input; never
# on a command line (a curl in PATH records its arguments).
mkdir "$TMP/wrap"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s/curl.argv"\nexec "%s" "$@"\n' "$TMP" "$(command -v curl)" >"$TMP/wrap/curl"
chmod +x "$TMP/wrap/curl"
reset_stub
printf 'pusher:s3cr"et\\x\n' >"$TMP/auth"
run env PATH="$TMP/wrap:$PATH" PROFTOOLS_PUSH_USER=pusher 'PROFTOOLS_PUSH_PASSWORD=s3cr"et\x' "$PUSH" --server "$URL" --app myapp "$F1"
if [ "$STATUS" = 0 ] && log | grep -q '^OK folded' && [ -s "$TMP/curl.argv" ] && ! grep -q s3cr "$TMP/curl.argv"; then
	pass "PROFTOOLS_PUSH_USER/PASSWORD: basic authentication, not in curl's arguments"
else
	fail "PROFTOOLS_PUSH_USER/PASSWORD: basic authentication" "exit $STATUS, log: $(log | tr '\n' '|'), argv: $(cat "$TMP/curl.argv" 2>&1) $(head -c 300 "$TMP/stderr")"
fi
check_error "user:password in --server" 2 'credentials in the URL' "$PUSH" --server "http://u:pw@127.0.0.1:$(cat "$TMP/port")" --app a "$F1"

# pprof: sent as it is, format=pprof (a multipart form with format=pprof
# would be read as the profile); the server reads its time and types.
"$BIN/proffold" -q -o "$TMP/d/cpu.pb.gz" "$F1"
reset_stub
run "$PUSH" --server "$URL" --app my.app --label env=ci "$TMP/d/cpu.pb.gz"
check_log "pprof: the file as the body, format=pprof; stored as process_cpu at its own time" 0 \
	'^OK pprof app=my\.app metric=process_cpu time=1795642200 types=samples/count,cpu/nanoseconds totals=3,3003003 labels=env=ci from=1795642200 '
assert "pprof: the file's bytes" cmp -s "$TMP/d/cpu.pb.gz" "$TMP/body.1"
# A corrupt one (not a profile; a truncated one) is not sent.
printf 'not really a profile\n' | gzip >"$TMP/d/bad.pb.gz"
head -c 60 "$TMP/d/cpu.pb.gz" >"$TMP/d/cut.pb.gz"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/bad.pb.gz" "$TMP/d/cut.pb.gz"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/log" ] && grep -q 'bad.pb.gz: cannot be read' "$TMP/stderr" && grep -q 'cut.pb.gz: cannot be read' "$TMP/stderr"; then
	pass "corrupt and truncated .pb.gz: not sent, exit 1"
else
	fail "corrupt and truncated .pb.gz: not sent, exit 1" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

check_error "no --server" 2 'server is required' "$PUSH" --app a "$F1"
check_error "bad label" 2 "invalid value 'a,b'" "$PUSH" --server "$URL" --app a --label k=a,b "$F1"
check_error "bad app name" 2 "invalid name 'a b'" "$PUSH" --server "$URL" --app 'a b' "$F1"
# Values holding a newline: a line of them passing the check is not enough.
NL='
'
check_error "--tries with a newline" 2 'invalid count' "$PUSH" --server "$URL" --app a --tries "1${NL}x" "$F1"
check_error "--retry-delay with a newline" 2 'invalid seconds' "$PUSH" --server "$URL" --app a --retry-delay "1${NL}x" "$F1"
check_error "--app with a newline" 2 'invalid name' "$PUSH" --server "$URL" --app "a${NL}b" "$F1"
check_error "a label key with a newline" 2 'invalid key' "$PUSH" --server "$URL" --app a --label "k${NL}x=v" "$F1"
check_error "a label value with a newline" 2 'invalid value' "$PUSH" --server "$URL" --app a --label "k=v${NL}x" "$F1"
check_error "--tenant with a newline" 2 'control character' "$PUSH" --server "$URL" --app a --tenant "t${NL}X-Evil: 1" "$F1"
check_error "--server with a fragment" 2 'not an http' "$PUSH" --server "$URL/#x" --app a "$F1"
check_error "no file" 2 'no file to push' "$PUSH" --server "$URL" --app a
check_error "a missing file" 1 'nope.tsv: not a readable file' "$PUSH" --server "$URL" --app a "$TMP/nope.tsv"
check_status "--help" 0 "$PUSH" --help

# As tests/common.sh checks the C tools: every option of --list-options in
# the man page, in --help and offered by the bash completion.
run "$PUSH" --list-options
opts=$(sed 's/=.*//' "$TMP/stdout")
"$PUSH" --help >"$TMP/help" 2>&1
comps=$(bash -c '. "$1"; COMP_WORDS=("$2" --); COMP_CWORD=1; _proftools; printf "%s\n" "${COMPREPLY[@]}"' \
	sh "$TOP/completions/proftools.bash" "$PUSH" 2>/dev/null)
missing=
for o in $opts; do
	grep -Eq "Fl (\\\\-|-)${o#--}([^a-z0-9-]|\$)" "$TOP/man/proftools-push.1" || missing="$missing man:$o"
	grep -Eq -- "$o([^a-z0-9-]|\$)" "$TMP/help" || missing="$missing help:$o"
	printf '%s\n' "$comps" | sed 's/=$//' | grep -qx -- "$o" || missing="$missing completion:$o"
done
if [ -n "$opts" ] && [ -z "$missing" ]; then pass "every option in the man page, --help and the completion"
else fail "every option in the man page, --help and the completion" "missing:$missing"; fi
if need "mandoc -Tlint proftools-push.1" mandoc mandoc; then
	assert "mandoc -Tlint proftools-push.1" sh -c "! mandoc -Tlint -W warning '$TOP/man/proftools-push.1' 2>&1 | grep ."
fi

# End to end: a real profrec --rotate recording, every interval sent; the
# bodies' counts add up to the recording's samples.
CC=${CC:-cc}
if $CC -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/wl" "$TESTS/demo/workload.c" -ldl 2>/dev/null &&
	"$BIN/profrec" -q -o /dev/null -- true 2>/dev/null; then
	run "$BIN/profrec" -q --rotate 1s -o "$TMP/live" -- "$TMP/wl" -s 1.5 split
	rows=$(cat "$TMP/live"/profrec-*.tsv | awk -F'\t' '!/^#/ && $1 != "time_ns"' | wc -l)
	ns=$(cat "$TMP/live"/profrec-*.tsv | awk -F'\t' '!/^#/ && $1 != "time_ns" { s += $7 } END { print s + 0 }')
	n=$(ls "$TMP/live" | wc -l)
	reset_stub
	run "$PUSH" --server "$URL" --app live "$TMP/live"/profrec-*.tsv
	sum=$(cat "$TMP"/body.* 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
	stored=$(sed -n 's/.* total=\([0-9]*\) .*/\1/p' "$TMP/log" | awk '{ s += $1 } END { print s + 0 }')
	if [ "$STATUS" = 0 ] && [ "$(grep -c '^OK folded app=live type=cpu metric=process_cpu period=1 unit=nanoseconds .*sampleRate=1000000000' "$TMP/log")" -ge 2 ] &&
		! grep -q '^BAD' "$TMP/log" && [ "$sum" = "$ns" ] && [ "$stored" = "$ns" ] && [ "$rows" -ge 500 ]; then
		pass "profrec --rotate, then every interval pushed: $(wc -l <"$TMP/log") requests for $n files, $rows samples, $stored ns stored = the files' weights"
	else
		fail "profrec --rotate, then every interval pushed" "exit $STATUS, $n files, $rows rows, $ns ns, $sum in bodies, $stored stored; $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
	fi
else
	skip "profrec --rotate, then every interval pushed" "profrec cannot record here"
fi
