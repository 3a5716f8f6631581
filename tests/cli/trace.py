#!/usr/bin/env python3
"""trace.py - which command-line tests need which runs, from what they reach.

The trace build (make TRACE=1, tests/cli/trace.c) records every function
each process of a test entered; run.sh with TL_TRACE_DIR=DIR puts them in
DIR/GROUP%NAME.sh.PID.  From those records this script writes two lists of
test names (GROUP/NAME.sh, one a line):

  OUT/kernel-tests    the tests whose data passes through a copy kernel
                      (a function of src/copy/kern_*.c, kern_drivers.h or
                      dequant*.c): the ones each SIMD ceiling reruns
  OUT/valgrind-tests  the tests valgrind runs: those that run the tool as
                      another user or in a namespace (their text says
                      'nobody' or 'unshare'), then, chosen greedily, the
                      fewest (cheapest, by TIMES when given) that together
                      reach every function the whole suite reaches, of
                      those that run under valgrind (a test that skips
                      there says so on a line naming TL_EXEC_PREFIX)

A test with no record, or a process that could not be traced (a file-size
limit), counts as reaching every kernel and joins both lists.

Usage: trace.py TESTDIR TRACEDIR OUT [TIMES]
       trace.py --kernels TRACEDIR [LIST]   the kernels reached (by LIST's
                                            tests only, when given), a line each
"""
import collections
import os
import re
import subprocess
import sys

KERNEL_FILE = re.compile(r"/src/copy/(kern_[a-z0-9]+\.[ch]|kern_drivers\.h|dequant[a-z0-9_]*\.c)$")
symbols_of = {}


def symbols(exe):
    """address -> (function, source file) of an executable, from nm -l"""
    if exe not in symbols_of:
        table = {}
        out = subprocess.run(["nm", "-l", "--defined-only", exe], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            m = re.match(r"([0-9a-f]+) [tTwW] ([^\t]+)(?:\t(.*):\d+)?$", line)
            if m:
                table[int(m.group(1), 16)] = (m.group(2), m.group(3) or "")
        symbols_of[exe] = table
    return symbols_of[exe]


def read(tracedir):
    """test name -> set of (function, file), or None when untraced"""
    reached = collections.defaultdict(set)
    for entry in sorted(os.listdir(tracedir)):
        test = entry.rsplit(".", 1)[0].replace("%", "/")
        with open(os.path.join(tracedir, entry)) as f:
            lines = f.read().split()
        if (not lines or "untraced" in lines or not lines[0].startswith("@")
                or not os.path.isfile(lines[0][1:])):
            reached[test] = None
            continue
        if reached[test] is None:
            continue
        table = symbols(lines[0][1:])
        for a in lines[1:]:
            fn = table.get(int(a, 16))
            if fn:
                reached[test].add(fn)
    return reached


def kernels(fns):
    return {f for f in fns if KERNEL_FILE.search(f[1])}


def main(argv):
    if len(argv) >= 3 and argv[1] == "--kernels":
        reached = read(argv[2])
        only = None
        if len(argv) > 3:
            with open(argv[3]) as f:
                only = set(f.read().split())
        seen = set()
        for test, fns in reached.items():
            if fns is not None and (only is None or test in only):
                seen |= kernels(fns)
        for name, where in sorted(seen):
            print(f"{os.path.basename(where)} {name}")
        return 0
    testdir, tracedir, out = argv[1], argv[2], argv[3]
    times = {}
    if len(argv) > 4 and os.path.exists(argv[4]):
        with open(argv[4]) as f:
            for line in f:
                start, end, _, name = line.split()
                times[name] = times.get(name, 0) + float(end) - float(start)
    tests = sorted(os.path.join(g, n) for g in os.listdir(testdir)
                   if os.path.isdir(os.path.join(testdir, g))
                   for n in os.listdir(os.path.join(testdir, g)) if n.endswith(".sh"))
    reached = read(tracedir)
    untraced = [t for t in tests if reached.get(t) is None]
    kernel_tests = [t for t in tests if t in untraced or kernels(reached[t])]
    always = set(untraced)
    skips = set()           # the tests that say skip under valgrind
    for t in tests:
        with open(os.path.join(testdir, t)) as f:
            text = f.read()
        if re.search(r"\b(nobody|unshare)\b", text):
            always.add(t)
        if re.search(r"TL_EXEC_PREFIX.*skip", text):
            skips.add(t)
    everything, runnable = set(), set()
    for t in tests:
        everything |= reached.get(t) or set()
        if t not in skips:
            runnable |= reached.get(t) or set()
    chosen, covered = set(always), set()
    for t in always:
        covered |= reached.get(t) or set()
    while runnable - covered:
        best = max((t for t in tests if t not in chosen and t not in skips and reached.get(t)),
                   key=lambda t: (len((reached[t] - covered) & runnable) / max(times.get(t, 1.0), 0.05), t))
        chosen.add(best)
        covered |= reached[best]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kernel-tests"), "w") as f:
        f.write("".join(t + "\n" for t in kernel_tests))
    with open(os.path.join(out, "valgrind-tests"), "w") as f:
        f.write("".join(t + "\n" for t in sorted(chosen)))
    print(f"trace: {len(tests)} tests, {len(untraced)} untraced; {len(kernel_tests)} reach a "
          f"kernel ({len(kernels(everything))} kernels in all); valgrind runs {len(chosen)}, "
          f"reaching all {len(runnable)} functions that the tests it can run reach "
          f"({len(everything - runnable)} more only by tests that skip under valgrind)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
