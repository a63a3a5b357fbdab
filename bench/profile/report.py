#!/usr/bin/env python3
"""Per-function instruction counts from insnprof profiles.

  report.py VMLINUX BASE PROF N [MIN]
      per function, (PROF - BASE) / N, where N is the number of probed
      calls PROF made more than BASE: instructions per hit, by function
  report.py --annotate VMLINUX PROF N FUNCTION
      FUNCTION's disassembly, each instruction with its count / N
User-space addresses are summed as "[user]"; arm64 mapping symbols ($x,
$d) are not functions and are skipped.
"""
import bisect
import collections
import subprocess
import sys


def symbols(vmlinux):
    out = subprocess.run(["nm", "-n", vmlinux], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] in "tTwW" and not f[2].startswith("$"):
            syms.append((int(f[0], 16), f[2]))
    return syms


def counts(path):
    with open(path) as f:
        for line in f:
            pc, n = line.split()
            yield int(pc, 16), int(n)


def by_function(path, syms):
    addrs = [a for a, _ in syms]
    tot = collections.Counter()
    for pc, n in counts(path):
        if pc < 0xffff000000000000:
            tot["[user]"] += n
            continue
        i = bisect.bisect_right(addrs, pc) - 1
        tot[syms[i][1] if i >= 0 else "[?]"] += n
    return tot


def annotate(vmlinux, prof, n, fn):
    cnt = dict(counts(prof))
    # llvm-objdump reads either arch's vmlinux; the host's objdump only x86.
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn",
                          "--disassemble-symbols=" + fn, vmlinux],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        head = line.strip().split(":", 1)[0]
        try:
            pc = int(head, 16)
        except ValueError:
            continue
        print(f"{cnt.get(pc, 0) / n:8.2f} {line.strip()[:110]}")


def main(args):
    if args[:1] == ["--annotate"]:
        annotate(args[1], args[2], float(args[3]), args[4])
        return 0
    vmlinux, base, prof, n = args[0], args[1], args[2], float(args[3])
    least = float(args[4]) if len(args) > 4 else 1.0
    syms = symbols(vmlinux)
    a, b = by_function(base, syms), by_function(prof, syms)
    diff = {k: (b[k] - a[k]) / n for k in set(a) | set(b)}
    for k, v in sorted(diff.items(), key=lambda x: -abs(x[1])):
        if abs(v) >= least:
            print(f"{v:9.1f} {k}")
    print(f"{sum(diff.values()):9.1f} in all (boot noise included)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
