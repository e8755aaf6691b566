import sys, time, zlib
def leaf_a(data):
    for _ in range(3):
        zlib.compress(data, 6)
def leaf_b(data):
    zlib.compress(data, 6)
def split(seconds):
    data = bytes((i * 7919) % 251 for i in range(1 << 16)) * 2
    end = time.process_time() + seconds
    while time.process_time() < end:
        leaf_a(data)
        leaf_b(data)
split(float(sys.argv[1]))

# (this comment last: the tests name the functions by their first lines,
# leaf_a 2, leaf_b 5, split 7)
# split-zlib.py SECONDS: leaf_a and leaf_b compress the same 128 KiB with
# zlib, 3 times and once: a 75/25 split of CPU time spent in zlib's C
# code (deflate, in libz), under Python functions called from split,
# called from module level, for profrec --python --native
# (tests/profrec-runtimes.sh). SECONDS of CPU, as for split.py.
