import sys, time
def leaf_a(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def leaf_b(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def split(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        leaf_a(30000)
        leaf_b(10000)
def rounds(units):
    for _ in range(units):
        leaf_a(30000)
        leaf_b(10000)
if sys.argv[1] == "--units":
    rounds(int(sys.argv[2]))
    sys.stderr.write("target_cpu %.4f\n" % time.process_time())
else:
    split(float(sys.argv[1]))

# (this comment last: the tests name the functions by their first lines,
# leaf_a 2, leaf_b 7, split 12)
# split.py SECONDS: leaf_a and leaf_b, the same loop run 30000 and 10000
# times, called from split, called from module level: a 75/25 split of
# CPU time for profrec --python (tests/profrec-runtimes.sh, the wrapper's
# tests) and tests/bench/python.sh. SECONDS of CPU, not wall: a loaded
# machine stretches the run, not the profile. With --units N, N rounds
# (fixed work, for the benchmark) and the CPU it took on stderr.
