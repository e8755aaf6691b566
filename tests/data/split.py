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
def rounds(units, limit):
    for i in range(units):
        if i % 64 == 63 and time.process_time() > limit:
            break
        leaf_a(30000)
        leaf_b(10000)
if sys.argv[1] == "--units":
    rounds(int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else float("inf"))
    sys.stderr.write("target_cpu %.4f\n" % time.process_time())
else:
    split(float(sys.argv[1]))

# (this comment last: the tests name the functions by their first lines,
# leaf_a 2, leaf_b 7, split 12, rounds 17)
# split.py --units N [LIMIT]: leaf_a and leaf_b, the same loop run 30000
# and 10000 times, called N times each from rounds, called from module
# level: a 75/25 split of CPU time for profrec --python
# (tests/profrec-runtimes.sh) and tests/bench/python.sh; then the CPU it
# took on stderr. Fixed work with no system call among the leaves: on a
# CPU contended by other processes the thread is preempted at timer ticks,
# uniformly in its CPU time, and the shares stay 75/25 (profrec.1,
# --python). LIMIT, seconds of CPU, only bounds a far slower machine: it
# is read once every 64 rounds.
# split.py SECONDS: the same leaves from split, until SECONDS of CPU: a
# run of about a given length where the shares do not matter (a -p
# target, the wrapper's tests). Its loop reads the CPU clock (a system
# call) every round, between leaf_b and leaf_a: under load the thread is
# taken off there, and the shares drift (68% seen for leaf_a).
