#!/usr/bin/env python3
# A stand-in for Grafana Pyroscope's POST /ingest on loopback, for
# tests/proftools-push.sh. It follows the handler's code, not its
# documentation (github.com/grafana/pyroscope: pkg/ingester/pyroscope/
# ingest_handler.go and ingest_adapter.go, api/model/labelset, the
# og/convert parsers, og/util/attime), step for step:
#  - the query as Go's url.ParseQuery reads it (pairs holding ';' or a
#    bad %-escape dropped, '+' a space, q.Get: the first value);
#  - name: labelset.Parse (APP{key=value,...}: the app's and the keys'
#    characters checked, values trimmed), else 400;
#  - from, until: attime.Parse (all digits: Unix seconds, or ms, us, ns
#    by length; anything else: now); sampleRate: strconv.Atoi, an invalid
#    or negative one silently replaced by 100, as is a missing one;
#  - the body's format from format=, then the Content-Type: "pprof" is
#    the body itself as a profile (a multipart form's envelope included),
#    a multipart form without format= is the form's "profile" file, the
#    default is folded stacks ("groups": the count after the last space,
#    strconv.Atoi, one bad count fails the request with 422);
#  - folded: the profile type is what follows the app name's last "."
#    (convertMetadata: none is "cpu", an unknown one is refused); for
#    cpu and wall, every count is multiplied by 1e9 / sampleRate (Go's
#    integer division) and stored as nanoseconds;
#  - pprof: gunzipped when gzip'd, decoded as profile.proto (a wire error
#    is 422), the metric named from its sample types (metricName), its
#    time_nanos kept unless zero or in 1970 (fixTime: then from); no
#    profile bytes at all is accepted and stores nothing.
# Logs one line per request to DIR/log: "OK key=value ..." (what would be
# stored) or "BAD code why"; the body to DIR/body.N (N counts log lines)
# and the request's headers to DIR/headers.N. Answers with the next code
# of DIR/codes (one per line; then 200) when the request is good, else
# with the handler's code; DIR/errbody, when present, is the body of
# every answer that is not 2xx. With DIR/auth ("user:password") every
# request must carry that HTTP basic authentication (else 401).
import base64, datetime, gzip, http.server, os, re, sys, zlib

DIR = sys.argv[1]


def go_unescape(s):
    """net/url.QueryUnescape: '+' is a space, '%' needs two hex digits."""
    out, i = bytearray(), 0
    b = s.encode("latin-1", "strict") if all(ord(c) < 256 for c in s) else s.encode()
    while i < len(b):
        c = b[i]
        if c == 0x25:
            h = b[i + 1:i + 3]
            if len(h) != 2 or not re.fullmatch(rb"[0-9A-Fa-f]{2}", h):
                raise ValueError("bad escape")
            out.append(int(h, 16))
            i += 3
            continue
        out.append(0x20 if c == 0x2B else c)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def go_parse_query(raw):
    q = {}
    for kv in raw.split("&"):
        if kv == "" or ";" in kv:
            continue
        k, _, v = kv.partition("=")
        try:
            k, v = go_unescape(k), go_unescape(v)
        except ValueError:
            continue
        q.setdefault(k, []).append(v)
    return q


class Refused(Exception):
    def __init__(self, code, why):
        Exception.__init__(self, why)
        self.code = code


def label_rune(r):
    return r.isascii() and (r.isalnum() or r in "_.")


def labelset_parse(name):
    """api/model/labelset Parse: the state machine over name + "{"."""
    labels, state, key, value = {}, "name", "", ""
    for r in name + "{":
        if state == "name":
            if r == "{":
                state = "set"
                app = value.strip()
                if app == "":
                    raise Refused(400, "name: service name is required")
                bad = [c for c in app if not (label_rune(c) or c in "-/")]
                if bad:
                    raise Refused(400, "name: invalid service name: %s: character is not allowed: %r" % (app, bad[0]))
                labels["__name__"] = app
            else:
                value += r
        elif state == "set":
            if r == "}":
                state = "done"
            elif r == "=":
                state, value = "value", ""
            else:
                key += r
        elif state == "value":
            if r in ",}":
                state = "set"
                k = key.strip()
                if k != "__name__":
                    if k == "" or not all(label_rune(c) for c in k):
                        raise Refused(400, "name: invalid label name %r" % k)
                labels[k] = value.strip()
                key = ""
            else:
                value += r
    return labels


def attime(s):
    s = s.strip().replace("_", "").replace(",", "").replace(" ", "")
    if re.fullmatch(r"\d+", s):
        if len(s) == 8:
            try:
                return int(datetime.datetime.strptime(s, "%Y%m%d").replace(tzinfo=datetime.timezone.utc).timestamp())
            except ValueError:
                pass
        v = int(s)
        return {13: v // 1000, 16: v // 10**6, 19: v // 10**9}.get(len(s), v)
    return "now"


def go_atoi(s):
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(s)
    v = int(s)
    if not -2**63 <= v < 2**63:
        raise ValueError(s)
    return v


# ingest_adapter.go convertMetadata: the profile type after the last ".".
TYPES = {
    "cpu": "process_cpu", "wall": "wall", "itimer": "process_cpu",
    "inuse_objects": "memory", "inuse_space": "memory", "alloc_objects": "memory",
    "alloc_space": "memory", "goroutines": "goroutine", "mutex_count": "mutex",
    "mutex_duration": "mutex", "block_count": "block", "block_duration": "block",
    "lock_count": "block", "lock_duration": "block", "live": "memory",
    "exceptions": "exceptions", "seconds": "wall", "nanoseconds": "wall",
    "microseconds": "wall", "milliseconds": "wall", "bytes": "memory",
    "alloc_in_new_tlab_objects": "memory", "alloc_in_new_tlab_bytes": "memory",
    "alloc_outside_tlab_objects": "memory", "alloc_outside_tlab_bytes": "memory",
}


def ingest_groups(q, labels, body, md):
    stacks, total = 0, 0
    for line in body.split(b"\n"):     # bufio.Scanner: lines, "\r" dropped
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > 65536:
            raise Refused(422, "bufio.Scanner: token too long")
        i = line.rfind(b" ")
        if i < 0:
            continue
        try:
            v = go_atoi(line[i + 1:].decode("latin-1"))
        except ValueError:
            raise Refused(422, 'strconv.Atoi: parsing %r: invalid syntax' % line[i + 1:].decode("latin-1"))
        stacks += 1
        total += v
    app = labels["__name__"]
    parts = app.split(".")
    st = "cpu" if len(parts) <= 1 else parts[-1]
    if len(parts) > 1:
        app = ".".join(parts[:-1])
    if st not in TYPES:
        raise Refused(400, "pyroscopeIngesterAdapter failed to convert metadata: unknown profile type: " + st)
    metric, period, unit = TYPES[st], 0, "-"
    if md["sampleRate"] != 0 and metric in ("wall", "process_cpu"):
        period = 10**9 // md["sampleRate"]
        total *= period
        unit = "nanoseconds"
    return "OK folded app=%s type=%s metric=%s period=%d unit=%s stacks=%d total=%d" % (
        app, st, metric, period, unit, stacks, total), None


def varint(b, i):
    v, s = 0, 0
    while True:
        if i >= len(b) or s > 63:
            raise Refused(422, "proto: truncated varint")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(number, wire type, value) of a message; bytes for wire type 2."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise Refused(422, "proto: illegal field number 0")
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise Refused(422, "proto: wire type %d" % wt)
        if i > len(b):
            raise Refused(422, "proto: unexpected EOF")
        yield num, wt, v


def signed(v):
    return v - 2**64 if v >= 2**63 else v


def ingest_pprof(q, labels, data, md):
    if not data:
        return "OK pprof empty: nothing stored", None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise Refused(422, "gzip: %s" % e)
    strings, types, totals, time_ns = [], [], None, 0
    samples = []
    for num, wt, v in fields(data):
        if num == 1 and wt == 2:
            t = {n: x for n, w, x in fields(v) if w == 0}
            types.append((t.get(1, 0), t.get(2, 0)))
        elif num == 2 and wt == 2:
            vals = []
            for n, w, x in fields(v):
                if n == 2 and w == 2:
                    j = 0
                    while j < len(x):
                        y, j = varint(x, j)
                        vals.append(signed(y))
                elif n == 2 and w == 0:
                    vals.append(signed(x))
            samples.append(vals)
        elif num == 6 and wt == 2:
            strings.append(bytes(v))
        elif num == 9 and wt == 0:
            time_ns = signed(v)
    if not strings or strings[0] != b"":
        raise Refused(422, "string_table[0] is not empty")
    try:
        names = [(strings[a].decode("utf-8", "replace"), strings[b].decode("utf-8", "replace")) for a, b in types]
    except IndexError:
        raise Refused(422, "sample type out of the string table")
    totals = [0] * len(names)
    for vals in samples:
        for k in range(min(len(vals), len(totals))):
            totals[k] += vals[k]
    # pprof.RawProfile.metricName with the default sample type mapping
    metric = ""
    if any(t == "wall" for t, _ in names):
        metric = "wall"
    else:
        for t, _ in names:
            st = {"samples": "cpu", "goroutine": "goroutines", "contentions": "mutex_count",
                  "delay": "mutex_duration"}.get(t, t)
            metric = st
            if "cpu" in st:
                metric = "process_cpu"
                break
            if "alloc_" in st or "inuse_" in st or st in ("space", "objects"):
                metric = "memory"
                break
            if "mutex_" in st:
                metric = "mutex"
                break
            if "block_" in st:
                metric = "block"
                break
            if "goroutines" in st:
                metric = "goroutines"
                break
    when = time_ns // 10**9
    if time_ns == 0 or datetime.datetime.fromtimestamp(when, datetime.timezone.utc).year == 1970:
        when = md["from"]
    return "OK pprof app=%s metric=%s time=%s types=%s totals=%s" % (
        labels["__name__"], metric, when,
        ",".join("%s/%s" % n for n in names), ",".join(str(t) for t in totals)), None


def multipart_profile(ctype, body):
    m = re.search(r'boundary="?([^";]+)"?', ctype)
    if not m:
        raise Refused(422, "malformed multipart content type header")
    boundary = m.group(1).encode()
    profile = None
    for chunk in (b"\r\n" + body).split(b"\r\n--" + boundary)[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, data = chunk.partition(b"\r\n\r\n")
        n = re.search(rb'name="([^"]*)"', head)
        if n and n.group(1) == b"prev_profile" and data:
            raise Refused(422, "unsupported client version")
        if n and n.group(1) == b"profile" and b"filename=" in head and profile is None:
            profile = data
    return profile or b""


def handle(h):
    u = h.path.split("?", 1)
    path, raw = u[0], (u[1] if len(u) > 1 else "")
    n = int(h.headers.get("Content-Length", "0"))
    body = h.rfile.read(n)
    if h.command != "POST" or path != "/ingest":
        raise Refused(404, "404 page not found: %s %s" % (h.command, path))
    auth = os.path.join(DIR, "auth")
    if os.path.exists(auth):
        with open(auth) as f:
            want = "Basic " + base64.b64encode(f.read().strip().encode()).decode()
        if h.headers.get("Authorization", "") != want:
            raise Refused(401, "unauthorized: %s" % h.headers.get("Authorization", "none"))
    qs = go_parse_query(raw)
    get = lambda k: qs.get(k, [""])[0]
    labels = labelset_parse(get("name"))
    md = {"from": attime(get("from")) if get("from") else "now",
          "until": attime(get("until")) if get("until") else "now"}
    try:
        sr = go_atoi(get("sampleRate"))
        md["sampleRate"] = sr if sr >= 0 else 100
    except ValueError:
        md["sampleRate"] = 100
    fmt, ctype = get("format"), h.headers.get("Content-Type", "")
    if fmt in ("trie", "tree", "lines", "jfr", "speedscope") or ctype in ("binary/octet-stream+trie", "binary/octet-stream+tree"):
        raise Refused(422, "format %s: not modelled by this stub" % fmt)
    if fmt == "pprof":
        why, _ = ingest_pprof(qs, labels, body, md)
    elif "multipart/form-data" in ctype:
        why, _ = ingest_pprof(qs, labels, multipart_profile(ctype, body), md)
    else:
        why, _ = ingest_groups(qs, labels, body, md)
    extra = sorted("%s=%s" % (k, v) for k, v in labels.items() if k != "__name__")
    why += " labels=%s from=%s until=%s sampleRate=%d spyName=%s units=%s tenant=%s" % (
        ",".join(extra), md["from"], md["until"], md["sampleRate"],
        get("spyName") or "unknown", get("units") or "samples",
        h.headers.get("X-Scope-OrgID", "-"))
    known = {"name", "from", "until", "format", "sampleRate", "spyName", "units", "aggregationType"}
    others = sorted(k for k in qs if k not in known)
    if others:    # the handler ignores them; a proxy in front may not
        why += " other=" + ",".join("%s=%s" % (k, qs[k][0]) for k in others)
    return why, body


class H(http.server.BaseHTTPRequestHandler):
    def do_any(self):
        try:
            with open(DIR + "/log") as f:
                count = len(f.readlines()) + 1
        except OSError:
            count = 1
        body = None
        try:
            why, body = handle(self)
            code = 200
        except Refused as e:
            why, code = "BAD %d %s" % (e.code, e), e.code
        with open(DIR + "/log", "a") as f:
            f.write(why + "\n")
        with open("%s/headers.%d" % (DIR, count), "w") as f:
            f.write(str(self.headers))
        if body is not None:
            with open("%s/body.%d" % (DIR, count), "wb") as f:
                f.write(body)
        if code == 200:
            try:
                with open(DIR + "/codes") as f:
                    codes = f.read().split()
            except OSError:
                codes = []
            code = int(codes[0]) if codes else 200
            with open(DIR + "/codes", "w") as f:
                f.write("\n".join(codes[1:]))
        answer = b""
        if code >= 300:
            try:
                with open(DIR + "/errbody", "rb") as f:
                    answer = f.read()
            except OSError:
                answer = ('{"code":"invalid_argument","message":"%s"}\n' % why).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
    do_POST = do_GET = do_PUT = do_any

    def log_message(self, *a):
        pass


s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(DIR + "/port.tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(DIR + "/port.tmp", DIR + "/port")
s.serve_forever()
