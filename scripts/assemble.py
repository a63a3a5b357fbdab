#!/usr/bin/env python3
"""Assemble the VARIANT=ours kernel tree: the pristine base, minus the files
listed in base/removed-files, plus every file under linux/, plus the patches
in base/patches/ (applied in name order).

The destination is a full copy of the base made once.  After that only the
paths the overlay manages (now or at the previous run) are rewritten, and
only when their content changes, so an edit to one overlay file gives one
file a new mtime and the kernel build stays incremental.  Paths the overlay
stopped managing are restored from the base.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

STATE = ".harness-overlay.json"


def read_list(path):
    items = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                items.append(line)
    return items


def expand_removed(base, entries):
    paths = set()
    for e in entries:
        full = os.path.join(base, e)
        if e.endswith("/"):
            if not os.path.isdir(full):
                sys.exit(f"assemble: removed directory {e} is not in the base")
            for root, _d, files in os.walk(full):
                for n in files:
                    paths.add(os.path.relpath(os.path.join(root, n), base))
        else:
            if not os.path.isfile(full):
                sys.exit(f"assemble: removed file {e} is not in the base")
            paths.add(e)
    return paths


def overlay_files(overlay):
    found = {}
    for root, _d, files in os.walk(overlay):
        for n in files:
            full = os.path.join(root, n)
            found[os.path.relpath(full, overlay)] = full
    return found


def patch_targets(patch):
    targets = []
    with open(patch, errors="replace") as f:
        for line in f:
            if line.startswith("+++ "):
                p = line[4:].split("\t")[0].strip()
                if p != "/dev/null":
                    targets.append(p.split("/", 1)[1])
    return targets


def apply_patches(base, patches, scratch):
    """Apply the patches to copies of the files they touch; return
    {path: patched file} for every path the patches create or change."""
    touched = set()
    for p in patches:
        for t in patch_targets(p):
            if t not in touched:
                touched.add(t)
                src = os.path.join(base, t)
                if os.path.exists(src):
                    dst = os.path.join(scratch, t)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy2(src, dst)
        r = subprocess.run(["patch", "-p1", "-s", "-N", "--no-backup-if-mismatch",
                            "-d", scratch, "-i", os.path.abspath(p)],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"assemble: {p} does not apply:\n{r.stdout}{r.stderr}")
    return {t: os.path.join(scratch, t) for t in touched
            if os.path.exists(os.path.join(scratch, t))}


def same(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read() and \
                (os.stat(a).st_mode & 0o111) == (os.stat(b).st_mode & 0o111)
    except FileNotFoundError:
        return False


def place(src, dst):
    """Write src over dst atomically, with a fresh mtime."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    tmp = dst + ".harness-tmp"
    shutil.copyfile(src, tmp)
    os.chmod(tmp, 0o755 if os.stat(src).st_mode & 0o111 else 0o644)
    os.replace(tmp, dst)


def desired_state(base, overlay, removed_list, patch_dir, scratch):
    """Map each managed path to the file that should stand there, or None
    when it must be absent."""
    want = {p: None for p in expand_removed(base, read_list(removed_list))}
    patches = sorted(os.path.join(patch_dir, n) for n in os.listdir(patch_dir)
                     if n.endswith(".patch")) if os.path.isdir(patch_dir) else []
    for path, src in apply_patches(base, patches, scratch).items():
        want[path] = src
    for path, src in overlay_files(overlay).items():
        if path in want and want[path] is not None:
            sys.exit(f"assemble: {path} is both patched and in the overlay")
        want[path] = src
    return want


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", required=True)
    ap.add_argument("--overlay", required=True)
    ap.add_argument("--removed", required=True)
    ap.add_argument("--patches", required=True)
    ap.add_argument("--dest", required=True)
    a = ap.parse_args()

    state_file = os.path.join(a.dest, STATE)
    if not os.path.exists(state_file):
        print(f"assemble: copying the base into {a.dest}")
        if os.path.exists(a.dest):
            shutil.rmtree(a.dest)
        os.makedirs(os.path.dirname(os.path.abspath(a.dest)), exist_ok=True)
        subprocess.run(["cp", "-a", a.base, a.dest], check=True)
        before = []
    else:
        with open(state_file) as f:
            before = json.load(f)

    with tempfile.TemporaryDirectory(prefix="assemble-") as scratch:
        want = desired_state(a.base, a.overlay, a.removed, a.patches, scratch)
        changed = 0
        for path in sorted(set(before) | set(want)):
            dst = os.path.join(a.dest, path)
            src = want.get(path, os.path.join(a.base, path)) if path in want \
                else os.path.join(a.base, path)
            if src is None or not os.path.exists(src):
                if os.path.lexists(dst):
                    os.unlink(dst)
                    changed += 1
            elif not same(src, dst):
                place(src, dst)
                changed += 1
    with open(state_file + ".tmp", "w") as f:
        json.dump(sorted(want), f, indent=0)
    os.replace(state_file + ".tmp", state_file)
    print(f"assemble: {len(want)} managed paths, {changed} updated")


if __name__ == "__main__":
    main()
