#!/usr/bin/env python3
"""Sort the KCSAN reports of a guest console log into the probing
subsystem's and everybody else's.

usage: kcsan_reports.py --log LOG --objtree DIR --files LIST [--out FILE]

LIST names the source files (paths in the kernel tree, one per line) that
count as the probing subsystem's: our overlay plus the upstream files it
replaces, so that both variants are judged by the same set.

For each report, the first frame of every access it shows (one, for a
race of unknown origin) is resolved with the kernel's scripts/faddr2line,
inlined callers included.  A report is "ours" when any of those source
lines is in one of the LIST files: a racy read inside one of our inline
helpers counts even when the function that inlined it is somebody else's.

A log without KCSAN's "enabled early" line gets a failing line too: a
detector that never switched on finds nothing.

Writes one line per distinct report to --out (default LOG.kcsan):
    ours|other <title> :: <access>; <access>
where each access is "file:line" of its innermost frame followed by the
callers it was inlined into.  verdict.py reads that file: "ours" lines
fail the run, "other" lines are listed.
"""
import argparse
import os
import re
import subprocess
import sys

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
TITLE = re.compile(r"BUG: KCSAN: (.*)$")
ACCESS = re.compile(r"^(?:race at unknown origin, with )?"
                    r"((?:read|write|read-write)\S* .* by (?:task \d+|interrupt)"
                    r".* on cpu \d+):$")
FRAME = re.compile(r"^\s*([\w.$]+\+0x[0-9a-f]+/0x[0-9a-f]+)(?:\s+\[(\w+)\])?")
WHERE = re.compile(r" at (\S+?):(\d+)")


def reports(path):
    """Yield (title, [(frame, module), ...]) for each report: the first
    frame of each access."""
    title, firsts, want_frame = None, [], False
    for raw in open(path, errors="replace"):
        line = TIMESTAMP.sub("", raw.rstrip("\r\n"))
        m = TITLE.search(line)
        if m:
            if title:
                yield title, firsts
            title, firsts, want_frame = m.group(1).strip(), [], False
            continue
        if title is None:
            continue
        if ACCESS.match(line.strip()):
            want_frame = True
            continue
        if want_frame:
            f = FRAME.match(line)
            if f:
                firsts.append((f.group(1), f.group(2)))
                want_frame = False
            continue
        if line.startswith("====="):
            yield title, firsts
            title = None
    if title:
        yield title, firsts


class Resolver:
    def __init__(self, objtree):
        self.objtree = objtree
        self.tool = os.path.join(objtree, "source", "scripts", "faddr2line")
        if not os.path.exists(self.tool):
            self.tool = None
        self.cache = {}
        self.modules = None

    def module_file(self, name):
        if self.modules is None:
            self.modules = {}
            roots = [self.objtree, os.path.realpath(os.path.join(self.objtree, "source"))]
            for root in roots:
                for d, _, files in os.walk(root):
                    for f in files:
                        if f.endswith(".ko"):
                            self.modules.setdefault(f[:-3].replace("-", "_"),
                                                    os.path.join(d, f))
        return self.modules.get(name.replace("-", "_"))

    def where(self, frame, module):
        """Source lines of FRAME, innermost first ([] when unknown)."""
        key = (frame, module)
        if key in self.cache:
            return self.cache[key]
        obj = self.module_file(module) if module else os.path.join(self.objtree, "vmlinux")
        lines = []
        if self.tool and obj and os.path.exists(obj):
            try:
                out = subprocess.run([self.tool, obj, frame], capture_output=True,
                                     text=True, timeout=120).stdout
            except subprocess.TimeoutExpired:
                out = ""
            for text in out.splitlines():
                m = WHERE.search(text)
                if m:
                    lines.append((tree_path(m.group(1)), int(m.group(2))))
        self.cache[key] = lines
        return lines


def tree_path(path):
    """A path as the kernel tree names it, whatever build directory
    the debug info recorded."""
    path = os.path.normpath(path)
    for marker in ("/linux/", "/source/"):
        if marker in path:
            path = path.rsplit(marker, 1)[1]
    return path.lstrip("./")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--objtree", required=True)
    ap.add_argument("--files", required=True)
    ap.add_argument("--out")
    a = ap.parse_args()
    ours_files = {l.strip() for l in open(a.files) if l.strip()}
    res = Resolver(a.objtree)
    seen = {}
    for title, firsts in reports(a.log):
        accesses, mine = [], False
        for frame, module in firsts:
            chain = res.where(frame, module)
            if not chain:
                accesses.append(f"{frame}{' [' + module + ']' if module else ''} (unresolved)")
                continue
            mine = mine or any(p in ours_files for p, _ in chain)
            accesses.append(" <- ".join(f"{p}:{n}" for p, n in chain))
        # A report no frame of which could be placed is not excused.
        if not firsts or all(a_.endswith("(unresolved)") for a_ in accesses):
            mine = True
        line = f"{'ours' if mine else 'other'} {title} :: {'; '.join(accesses)}"
        seen[line] = seen.get(line, 0) + 1
    # A kernel whose detector never switched on reports nothing: that
    # must not read as a clean run.
    if not any("kcsan: enabled early" in l for l in open(a.log, errors="replace")):
        seen["ours KCSAN was not on in this boot (no 'kcsan: enabled early' line)"] = 1
    out = a.out or a.log + ".kcsan"
    with open(out, "w") as f:
        for line, n in seen.items():
            f.write(f"{line} (x{n})\n" if n > 1 else line + "\n")
    ours = sum(1 for l in seen if l.startswith("ours "))
    print(f"kcsan: {len(seen)} distinct reports, {ours} in the probing subsystem's files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
