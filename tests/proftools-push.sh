#!/bin/sh
# proftools-push: requests checked by a stub Pyroscope server on loopback
# (python3 http.server) against the ingest API as Pyroscope documents it
# (POST /ingest; name, from, until, format, sampleRate, spyName, units,
# aggregationType as query parameters; folded stacks as a text/plain body,
# pprof as the multipart form field "profile"), and its failures: a 500
# then success, a permanent 400, a refused connection.
. "$(dirname "$0")/lib.sh"

PUSH=$BIN/proftools-push
if ! need "stub Pyroscope server" python3 python3 || ! need "stub Pyroscope server" curl curl; then
	exit 0
fi

# The stub: serves until killed; port in $TMP/port. Answers each request
# with the next code of $TMP/codes (one per line; 200 when none is left),
# or 400 when the request is not what Pyroscope documents. Logs one line
# per request to $TMP/log: "OK name=... from=... ..." with the query
# parameters sorted, or "BAD why"; the body to $TMP/body.N (N: the line).
cat >"$TMP/stub.py" <<'EOF'
import http.server, re, sys, urllib.parse
tmp = sys.argv[1]
count = [0]

def check(h):
    u = urllib.parse.urlsplit(h.path)
    if h.command != "POST":
        return "method " + h.command, None
    if u.path != "/ingest":
        return "path " + u.path, None
    q = urllib.parse.parse_qs(u.query, keep_blank_values=True, strict_parsing=True)
    if any(len(v) != 1 for v in q.values()):
        return "a repeated parameter", None
    q = {k: v[0] for k, v in q.items()}
    known = {"name", "from", "until", "format", "sampleRate", "spyName", "units", "aggregationType"}
    if set(q) - known:
        return "unknown parameters " + ",".join(sorted(set(q) - known)), None
    for k in ("name", "from", "until"):
        if k not in q:
            return "no " + k, None
    if not re.fullmatch(r"[A-Za-z0-9._-]+\{([A-Za-z_][A-Za-z0-9_.]*=[^,{}=]+(,[A-Za-z_][A-Za-z0-9_.]*=[^,{}=]+)*)?\}", q["name"]):
        return "name " + q["name"], None
    if not (q["from"].isdigit() and q["until"].isdigit() and int(q["from"]) < int(q["until"])):
        return "from/until " + q["from"] + " " + q["until"], None
    n = int(h.headers.get("Content-Length", "0"))
    body = h.rfile.read(n)
    ctype = h.headers.get("Content-Type", "")
    fmt = q.get("format", "folded")
    if fmt == "folded":
        if ctype != "text/plain":
            return "folded with Content-Type " + ctype, body
        for line in body.decode().splitlines():
            if not re.fullmatch(r"[^ ].* [0-9]+", line):
                return "folded line " + repr(line), body
        if q.get("units", "samples") not in ("samples", "objects", "bytes") or \
           q.get("aggregationType", "sum") not in ("sum", "average") or \
           not q.get("sampleRate", "100").isdigit():
            return "units/aggregationType/sampleRate", body
    elif fmt == "pprof":
        if not ctype.startswith("multipart/form-data; boundary="):
            return "pprof with Content-Type " + ctype, body
        # RFC 7578: parts between "--BOUNDARY" lines, headers, a blank line, the bytes
        boundary = ctype.split("boundary=", 1)[1].strip('"').encode()
        parts = {}
        for chunk in (b"\r\n" + body).split(b"\r\n--" + boundary)[1:]:
            if chunk.startswith(b"--"):
                break
            head, _, data = chunk.partition(b"\r\n\r\n")
            m = re.search(rb'Content-Disposition: form-data; name="([^"]*)"', head)
            parts[m.group(1).decode() if m else "?"] = data
        if list(parts) != ["profile"] or parts["profile"][:2] != b"\x1f\x8b":
            return "pprof form fields " + ",".join(parts), body
        body = parts["profile"]
    else:
        return "format " + fmt, body
    return "OK " + " ".join(k + "=" + q[k] for k in sorted(q)), body

class H(http.server.BaseHTTPRequestHandler):
    def do_any(self):
        try:    # bodies numbered from 1 since the log was last removed
            with open(tmp + "/log") as f:
                count[0] = len(f.readlines()) + 1
        except OSError:
            count[0] = 1
        why, body = check(self)
        with open(tmp + "/log", "a") as f:
            f.write(("" if why.startswith("OK ") else "BAD ") + why + "\n")
        if body is not None:
            with open("%s/body.%d" % (tmp, count[0]), "wb") as f:
                f.write(body)
        code = 400
        if why.startswith("OK "):
            try:
                with open(tmp + "/codes") as f:
                    codes = f.read().split()
            except OSError:
                codes = []
            code = int(codes[0]) if codes else 200
            with open(tmp + "/codes", "w") as f:
                f.write("\n".join(codes[1:]))
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok" if code < 300 else b"no")
    do_POST = do_GET = do_PUT = do_any
    def log_message(self, *a):
        pass

s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(tmp + "/port.tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os
os.rename(tmp + "/port.tmp", tmp + "/port")
s.serve_forever()
EOF
python3 "$TMP/stub.py" "$TMP" 2>"$TMP/stub.err" &
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

reset_stub() { rm -f "$TMP/log" "$TMP"/body.*; printf '%s\n' "$@" >"$TMP/codes"; }
log() { cat "$TMP/log" 2>/dev/null; }
Q1='OK aggregationType=sum format=folded from=1795642200 name=myapp{env=ci,host=h1} sampleRate=999 spyName=profrec units=samples until=1795642260'
Q2='OK aggregationType=sum format=folded from=1795642260 name=myapp{env=ci,host=h1} sampleRate=999 spyName=profrec units=samples until=1795642273'

reset_stub
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 "$F1" "$F2" "$FE" "$FF"
if [ "$STATUS" = 0 ] && [ "$(log)" = "$(printf '%s\n%s\n%s' "$Q1" "$Q2" \
	'OK aggregationType=sum format=folded from=1795642380 name=myapp{env=ci,host=h1} sampleRate=99 spyName=profrec units=samples until=1795642440')" ]; then
	pass "POST /ingest: name with labels, from/until, format, sampleRate, spyName, units, aggregationType; the empty interval skipped"
else
	fail "POST /ingest as Pyroscope documents it" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi
assert "folded body: sample counts of the interval" \
	sh -c "printf 'app;main;idle 1\napp;main;work 2\n' | cmp -s - '$TMP/body.1' && printf 'app;main;work 1\n' | cmp -s - '$TMP/body.2' && printf 'app;main;work 40\n' | cmp -s - '$TMP/body.3'"
assert "files are kept without --delete-after-push" test -f "$F1" -a -f "$F2" -a -f "$FF"

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

# Connection refused: a port nobody listens on.
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$TMP/closed"
run "$PUSH" --server "http://127.0.0.1:$(cat "$TMP/closed")" --app myapp --tries 2 --retry-delay 0.05 --delete-after-push "$F1"
if [ "$STATUS" = 1 ] && [ -f "$F1" ] && grep -q 'not accepted after 2 tries: .*(curl exit 7)' "$TMP/stderr"; then
	pass "connection refused: retried, exit 1, kept"
else
	fail "connection refused: retried, exit 1, kept" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi

# --state: what was accepted is not sent again.
reset_stub
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --state "$TMP/state" "$F1"
run "$PUSH" --server "$URL" --app myapp --label env=ci --label host=h1 --state "$TMP/state" "$F1"
if [ "$STATUS" = 0 ] && [ "$(log)" = "$Q1" ] && [ "$(cat "$TMP/state")" = "$F1" ]; then
	pass "--state: an accepted file is sent once"
else
	fail "--state: an accepted file is sent once" "exit $STATUS, log: $(log | tr '\n' '|'), state: $(cat "$TMP/state" 2>&1)"
fi

# pprof: the file as the form field "profile" (the stub checks the gzip
# magic; proffold's pprof writer is tested in proffold.sh).
printf 'not really a profile\n' | gzip >"$TMP/d/cpu.pb.gz"
touch -d @1795642500 "$TMP/d/cpu.pb.gz"
reset_stub
run "$PUSH" --server "$URL" --app myapp "$TMP/d/cpu.pb.gz"
if [ "$STATUS" = 0 ] && [ "$(log)" = 'OK format=pprof from=1795642500 name=myapp{} until=1795642501' ] &&
	cmp -s "$TMP/d/cpu.pb.gz" "$TMP/body.1"; then
	pass "pprof: multipart form field profile, format=pprof, the file's bytes"
else
	fail "pprof: multipart form field profile" "exit $STATUS, log: $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
fi

check_error "no --server" 2 'server is required' "$PUSH" --app a "$F1"
check_error "bad label" 2 "invalid value 'a,b'" "$PUSH" --server "$URL" --app a --label k=a,b "$F1"
check_error "bad app name" 2 "invalid name 'a b'" "$PUSH" --server "$URL" --app 'a b' "$F1"
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
	n=$(ls "$TMP/live" | wc -l)
	reset_stub
	run "$PUSH" --server "$URL" --app live "$TMP/live"/profrec-*.tsv
	sum=$(cat "$TMP"/body.* 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
	if [ "$STATUS" = 0 ] && [ "$(grep -c '^OK .*format=folded.*name=live{}.*sampleRate=999' "$TMP/log")" -ge 2 ] &&
		! grep -q '^BAD' "$TMP/log" && [ "$sum" = "$rows" ] && [ "$rows" -ge 500 ]; then
		pass "profrec --rotate, then every interval pushed: $(wc -l <"$TMP/log") requests for $n files, $sum samples = the files' rows"
	else
		fail "profrec --rotate, then every interval pushed" "exit $STATUS, $n files, $rows rows, $sum in bodies; $(log | tr '\n' '|') $(head -c 300 "$TMP/stderr")"
	fi
else
	skip "profrec --rotate, then every interval pushed" "profrec cannot record here"
fi
