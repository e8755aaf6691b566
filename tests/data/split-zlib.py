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
def rounds(units, limit):
    data = bytes((i * 7919) % 251 for i in range(1 << 16)) * 2
    for i in range(units):
        if i % 64 == 63 and time.process_time() > limit:
            break
        leaf_a(data)
        leaf_b(data)
if sys.argv[1] == "--units":
    rounds(int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else float("inf"))
    sys.stderr.write("target_cpu %.4f\n" % time.process_time())
else:
    split(float(sys.argv[1]))

# (this comment last: the tests name the functions by their first lines,
# leaf_a 2, leaf_b 5, split 7, rounds 13)
# split-zlib.py --units N [LIMIT]: leaf_a and leaf_b compress the same
# 128 KiB with zlib, 3 times and once, N times each from rounds, called
# from module level: a 75/25 split of CPU time spent in zlib's C code
# (deflate, in libz) for profrec --python --native
# (tests/profrec-runtimes.sh, tests/proftools-profile.sh); then the CPU
# it took on stderr. Fixed work, LIMIT, and why, as for split.py (the
# leaves' own system calls, brk from malloc, come with each compress
# alike: they do not move the shares).
# split-zlib.py SECONDS: the same leaves from split, until SECONDS of CPU,
# for a run of about a given length (-p targets); its loop's CPU-clock
# reads skew the shares under load (58-72% seen for leaf_a) and take up
# to half the time there, in split.
