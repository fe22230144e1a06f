#!/usr/bin/env python3
# Times shell commands against the first one on a noisy machine: N rounds,
# each running every command once in a shuffled order (two warm-up runs of
# each first), so that what the machine does from outside falls on all of
# them alike. Prints each command's median wall time, its median CPU (the
# process and its children, as getrusage counts reaped ones) and its ratio
# to the first's median. Run it in the repository the commands read.
# Usage: scripts/bench-pair.py N 'BASELINE' 'COMMAND' ...
#   e.g. scripts/bench-pair.py 40 'exec git log -p HEAD~500..HEAD -- CLAUDE.md' \
#          'exec git-scribe check --since HEAD~500'
# A command written 'PREPARE ;; COMMAND' runs PREPARE, untimed, before
# each run of COMMAND (hyperfine's --prepare), e.g. a change to commit.
import random, resource, statistics, subprocess, sys, time

n, cmds = int(sys.argv[1]), sys.argv[2:]
wall = {c: [] for c in cmds}
cpu = {c: [] for c in cmds}


def run(c):
    prepare, sep, c = c.rpartition(" ;; ")
    if sep:
        subprocess.run(prepare, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    w = (time.perf_counter() - t) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return w, (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000


for c in cmds:
    run(c)
    run(c)
for _ in range(n):
    order = cmds[:]
    random.shuffle(order)
    for c in order:
        w, u = run(c)
        wall[c].append(w)
        cpu[c].append(u)
base = statistics.median(wall[cmds[0]])
print(f"load {open('/proc/loadavg').read().split()[0]}, {n} rounds")
for c in cmds:
    m = statistics.median(wall[c])
    print(f"{m:7.1f} ms  cpu {statistics.median(cpu[c]):6.1f}  {m / base:5.2f}x  {c}")
