#!/usr/bin/env python3
# pprof_dump.py FILE.pb.gz: decode a pprof profile with a decoder apart
# from proftools' (profile.proto by field number, as protoc --decode_raw
# would walk it) and print, one a line:
#   function ID NAME FILENAME START_LINE
#   location ID ADDRESS MAPPING FUNCTION_ID:LINE,... (leaf line first)
#   mapping ID START LIMIT FILENAME
# Strings are decoded as proto3 requires, strict UTF-8, as protoc and
# python-protobuf do: one invalid string is an error for the whole
# profile (exit 1, "string N: invalid UTF-8"), as it is for them.
import gzip, sys


def varint(b, i):
    v, s = 0, 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint at byte %d" % i)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
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
            raise ValueError("wire type %d at byte %d" % (wt, i))
        if i > len(b):
            raise ValueError("field past the end")
        yield num, wt, v


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, funcs, locs, maps = [], [], [], []
    for num, wt, v in fields(data):
        if num == 6:
            try:
                strings.append(bytes(v).decode("utf-8", "strict"))
            except UnicodeDecodeError:
                print("string %d: invalid UTF-8: %r" % (len(strings), bytes(v)), file=sys.stderr)
                return 1
        elif num == 5:
            funcs.append({n: x for n, w, x in fields(v) if w == 0})
        elif num == 3:
            maps.append({n: x for n, w, x in fields(v) if w == 0})
        elif num == 4:
            loc = {"lines": []}
            for n, w, x in fields(v):
                if n == 4 and w == 2:
                    loc["lines"].append({m: y for m, u, y in fields(x) if u == 0})
                elif w == 0:
                    loc[n] = x
            locs.append(loc)
    for m in maps:
        print("mapping %d %#x %#x %s" % (m.get(1, 0), m.get(2, 0), m.get(3, 0), strings[m.get(5, 0)]))
    for f in funcs:
        print("function %d %s %s %d" % (f.get(1, 0), strings[f.get(2, 0)], strings[f.get(4, 0)] or "-", f.get(5, 0)))
    for l in locs:
        print("location %d %#x %d %s" % (l.get(1, 0), l.get(3, 0), l.get(2, 0),
              ",".join("%d:%d" % (x.get(1, 0), x.get(2, 0)) for x in l["lines"]) or "-"))
    return 0


sys.exit(main())
