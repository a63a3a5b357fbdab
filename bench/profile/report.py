#!/usr/bin/env python3
"""Per-function instruction counts from insnprof profiles.

  report.py [--module KO]... [--summary OUT] VMLINUX BASE PROF N [MIN]
      per function, (PROF - BASE) / N, where N is the number of probed
      calls PROF made more than BASE: instructions per hit, by function;
      OUT gets "insns TOTAL", "atomics TOTAL" and one "atomic FUNCTION
      COUNT" line per function with at least 0.5 per hit
  report.py --annotate VMLINUX PROF N FUNCTION
      FUNCTION's disassembly, each instruction with its count / N
After the table, the atomic read-modify-writes of memory the plugin
marked (x86 lock prefix or xchg with memory, arm64 LSE atomics, CAS and
store-exclusives) per hit, by function, kernel and user alike.
User-space addresses are summed as "[user]"; arm64 mapping symbols ($x,
$d) are not functions and are skipped.  Kernel addresses outside the
image (_text to _end) are module text or kprobe slots (the out-of-line
copies, the optprobe detours): they would otherwise go to the image's
last function.  A --module's .text is placed at the one page-aligned
base where every address that ran in it is one of its instruction
starts (which tells bases apart only on x86's variable-length code: a
fixed-width module is never placed), and its functions show as
"name [module]"; the rest shows as "[outside vmlinux @PAGE]", summed
per 4 KiB page.
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


def image_bounds(vmlinux):
    """[_text, _end) of the kernel image, or everything when unknown."""
    out = subprocess.run(["nm", vmlinux], capture_output=True,
                         text=True, check=True).stdout
    marks = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] in ("_text", "_end"):
            marks[f[2]] = int(f[0], 16)
    return marks.get("_text", 0), marks.get("_end", 1 << 64)


def module_text(ko):
    """(size of .text, its instruction starts, its functions) of a .ko."""
    sec = subprocess.run(["readelf", "-SW", ko], capture_output=True,
                         text=True, check=True).stdout
    size = 0
    for line in sec.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 5 and f[1] == ".text":
            size = int(f[5], 16)
    dis = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn",
                          "--section=.text", ko],
                         capture_output=True, text=True, check=True).stdout
    starts = set()
    for line in dis.splitlines():
        head = line.strip().split(":", 1)[0]
        if line.startswith(" ") and head:
            try:
                starts.add(int(head, 16))
            except ValueError:
                pass
    out = subprocess.run(["nm", "-f", "sysv", "--defined-only", ko],
                         capture_output=True, text=True, check=True).stdout
    funcs = []
    for line in out.splitlines():
        f = [x.strip() for x in line.split("|")]
        if len(f) == 7 and f[6] == ".text" and f[3] == "FUNC":
            funcs.append((int(f[1], 16), f[0]))
    return size, starts, sorted(funcs)


def place_module(ko, pcs):
    """Where KO's .text was loaded: the one page-aligned base at which
    every address that ran inside it is an instruction start, or None."""
    size, starts, funcs = module_text(ko)
    # Fixed-width code (every start a multiple of 4) cannot tell bases
    # apart: the base that covers the most addresses need not be the one.
    if not size or not funcs or all(o % 4 == 0 for o in starts):
        return None
    fits = set()
    for p in {pc & ~0xfff for pc in pcs}:
        for k in range(0, size + 0x1000, 0x1000):
            fits.add(p - k)
    good = []
    for base in fits:
        inside = [pc - base for pc in pcs if base <= pc < base + size]
        if inside and all(o in starts for o in inside):
            good.append((len(inside), base))
    good.sort(reverse=True)
    if not good or (len(good) > 1 and good[1][0] == good[0][0]):
        return None
    return good[0][1], size, funcs


def counts(path, atomic_only=False):
    with open(path) as f:
        for line in f:
            f3 = line.split()
            if atomic_only and f3[2:] != ["a"]:
                continue
            yield int(f3[0], 16), int(f3[1])


def by_function(path, syms, bounds=(0, 1 << 64), modules=(),
                atomic_only=False):
    addrs = [a for a, _ in syms]
    tot = collections.Counter()
    for pc, n in counts(path, atomic_only):
        if pc < 0xffff000000000000:
            tot["[user]"] += n
            continue
        if not bounds[0] <= pc < bounds[1]:
            tot[outside(pc, modules)] += n
            continue
        i = bisect.bisect_right(addrs, pc) - 1
        tot[syms[i][1] if i >= 0 else "[?]"] += n
    return tot


def outside(pc, modules):
    for name, base, size, funcs in modules:
        if base <= pc < base + size:
            i = bisect.bisect_right([a for a, _ in funcs], pc - base) - 1
            return f"{funcs[i][1] if i >= 0 else '?'} [{name}]"
    return f"[outside vmlinux @{pc & ~0xfff:x}]"


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
    kos, summary = [], None
    while args[:1] in (["--module"], ["--summary"]):
        if args[0] == "--module":
            kos.append(args[1])
        else:
            summary = args[1]
        args = args[2:]
    vmlinux, base, prof, n = args[0], args[1], args[2], float(args[3])
    least = float(args[4]) if len(args) > 4 else 1.0
    syms = symbols(vmlinux)
    bounds = image_bounds(vmlinux)
    ran = [pc for path in (base, prof) for pc, _ in counts(path)
           if pc >= 0xffff000000000000 and not bounds[0] <= pc < bounds[1]]
    modules = []
    for ko in kos:
        where = place_module(ko, ran)
        name = ko.rsplit("/", 1)[-1].removesuffix(".ko")
        if where:
            modules.append((name,) + where)
    a = by_function(base, syms, bounds, modules)
    b = by_function(prof, syms, bounds, modules)
    diff = {k: (b[k] - a[k]) / n for k in set(a) | set(b)}
    for k, v in sorted(diff.items(), key=lambda x: -abs(x[1])):
        if abs(v) >= least:
            print(f"{v:9.1f} {k}")
    insns = sum(diff.values())
    print(f"{insns:9.1f} in all (boot noise included)")
    a = by_function(base, syms, bounds, modules, True)
    b = by_function(prof, syms, bounds, modules, True)
    diff = {k: (b[k] - a[k]) / n for k in set(a) | set(b)}
    print("atomic read-modify-writes per hit:")
    for k, v in sorted(diff.items(), key=lambda x: -abs(x[1])):
        if abs(v) >= 0.05:
            print(f"{v:9.2f} {k}")
    print(f"{sum(diff.values()):9.2f} in all (boot noise included)")
    if summary:
        with open(summary, "w") as f:
            f.write(f"insns {insns:.1f}\natomics {sum(diff.values()):.2f}\n")
            for k, v in sorted(diff.items(), key=lambda x: -x[1]):
                if v >= 0.5:
                    f.write(f"atomic {k.replace(' ', '_')} {v:.2f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
