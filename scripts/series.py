#!/usr/bin/env python3
"""`make series`: turn the overlay into a git format-patch series against the
pinned base, grouped as series/manifest says, check that `git am` applies it
to the base, and run checkpatch.pl --strict on every patch.

The work repository holds only the base files the series touches: that is
all `git format-patch` and `git am` look at, and it keeps the job fast.
Output: out/series/*.patch and a summary on stdout; exit status 1 when the
series does not apply or checkpatch reports an error or warning.
"""
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assemble  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.environ.get("OUT", os.path.join(TOP, "out"))
BASE = os.path.join(OUT, "base", "linux")
OVERLAY = os.path.join(TOP, "linux")
PATCHES = os.path.join(TOP, "base", "patches")
REMOVED = os.path.join(TOP, "base", "removed-files")
DATE = "Mon, 1 Jan 2024 00:00:00 +0000"   # stable output across runs


def git(repo, *args, env=None, check=True):
    e = dict(os.environ, GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE)
    e.update(env or {})
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True,
                       text=True, env=e)
    if check and r.returncode:
        sys.exit(f"series: git {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    return r


def parse_manifest(path):
    blocks = []
    for chunk in re.split(r"^---$", open(path).read(), flags=re.M):
        lines = [ln for ln in chunk.splitlines() if not ln.startswith("#")]
        while lines and not lines[0].strip():
            lines.pop(0)
        if not lines:
            continue
        head = {}
        it = iter(lines)
        for ln in it:
            if not ln.strip():
                break
            key, _, val = ln.partition(":")
            key = key.strip().lower()
            head[key] = val.strip() if key == "subject" else val.split()
        body = "\n".join(it).strip()
        blocks.append({"subject": head.get("subject", ""),
                       "files": head.get("files", []),
                       "removes": head.get("removes", []),
                       "patches": head.get("patches", []),
                       "body": body})
    return blocks


def identity():
    def cfg(key, default):
        r = subprocess.run(["git", "-C", TOP, "config", key],
                           capture_output=True, text=True)
        return r.stdout.strip() or default
    return cfg("user.name", "Kprobes Developers"), \
        cfg("user.email", "kprobes@localhost")


def main():
    blocks = parse_manifest(os.path.join(TOP, "series", "manifest"))
    cover = blocks.pop(0) if blocks and blocks[0]["subject"] == "Cover" else None
    overlay = sorted(assemble.overlay_files(OVERLAY))
    removed_entries = assemble.read_list(REMOVED)
    patches = sorted(n for n in os.listdir(PATCHES) if n.endswith(".patch")) \
        if os.path.isdir(PATCHES) else []

    # Assign every item to the first block that claims it.
    owner, errors = {}, []
    for kind, items, key in (("file", overlay, "files"),
                             ("removal", removed_entries, "removes"),
                             ("patch", patches, "patches")):
        for item in items:
            for i, b in enumerate(blocks):
                if any(fnmatch.fnmatch(item, g) for g in b[key]):
                    owner[(kind, item)] = i
                    break
            else:
                errors.append(f"{kind} {item} is in no block of series/manifest")
    if errors:
        sys.exit("series: " + "\n        ".join(errors))

    removed_paths = assemble.expand_removed(BASE, removed_entries)
    touched = set(overlay) | removed_paths
    for p in patches:
        touched |= set(assemble.patch_targets(os.path.join(PATCHES, p)))

    outdir = os.path.join(OUT, "series")
    work = os.path.join(OUT, "series-work")
    shutil.rmtree(outdir, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for t in sorted(touched):
        src = os.path.join(BASE, t)
        if os.path.exists(src):
            os.makedirs(os.path.dirname(os.path.join(work, t)), exist_ok=True)
            shutil.copy2(src, os.path.join(work, t))
    name, email = identity()
    ident = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
             "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    git(work, "init", "-q", "-b", "base")
    git(work, "add", "-A")
    git(work, "commit", "-q", "--allow-empty", "-m", "base: Linux 6.12 files the series touches",
        env=ident)

    made = 0
    for i, b in enumerate(blocks):
        mine = lambda kind, items: [x for x in items if owner.get((kind, x)) == i]
        for entry in mine("removal", removed_entries):
            git(work, "rm", "-r", "-q", entry.rstrip("/"))
        for f in mine("file", overlay):
            dst = os.path.join(work, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(OVERLAY, f), dst)
        for p in mine("patch", patches):
            git(work, "apply", os.path.join(PATCHES, p))
        git(work, "add", "-A")
        if not git(work, "status", "--porcelain").stdout.strip():
            print(f"series: block '{b['subject']}' changes nothing; skipped")
            continue
        msg = f"{b['subject']}\n\n{b['body']}\n\nSigned-off-by: {name} <{email}>\n"
        subprocess.run(["git", "-C", work, "commit", "-q", "-F", "-"],
                       input=msg, text=True, check=True,
                       env=dict(os.environ, GIT_AUTHOR_DATE=DATE,
                                GIT_COMMITTER_DATE=DATE, **ident))
        made += 1
    if not made:
        sys.exit("series: nothing to send: the overlay is empty")

    args = ["format-patch", "-q", "-o", outdir, "HEAD~%d" % made]
    if cover:
        args.insert(1, "--cover-letter")
    git(work, *args, env=ident)
    files = sorted(os.listdir(outdir))
    if cover:
        cl = os.path.join(outdir, files[0])
        title, _, blurb = cover["body"].partition("\n")
        text = open(cl).read()
        text = text.replace("*** SUBJECT HERE ***", title.strip())
        text = text.replace("*** BLURB HERE ***", blurb.strip())
        open(cl, "w").write(text)

    # Does it apply to the base?  Replay it with git am on a fresh copy.
    with tempfile.TemporaryDirectory(prefix="series-am-") as am:
        git(am, "clone", "-q", "-b", "base", work, am + "/r")
        r = am + "/r"
        git(r, "reset", "-q", "--hard", "HEAD~%d" % made)
        mails = [os.path.join(outdir, f) for f in files if not f.startswith("0000-")]
        res = git(r, "am", "-q", *mails, env=ident, check=False)
        applies = res.returncode == 0
        same = applies and not git(r, "diff", "--stat", "HEAD", "base").stdout.strip()
    print(f"series: {len(mails)} patches in {os.path.relpath(outdir, TOP)}/, "
          f"git am on the 6.12 base: {'applies' if applies else 'FAILS'}"
          f"{'' if not applies or same else ' but differs from the overlay'}")
    if not applies:
        print(res.stdout + res.stderr)

    bad = 0
    # The series may teach checkpatch about its own annotations, so use the
    # assembled tree's copy.
    tree = os.path.join(OUT, "ours", "linux")
    if not os.path.exists(os.path.join(tree, "scripts", "checkpatch.pl")):
        tree = BASE
    checkpatch = os.path.join(tree, "scripts", "checkpatch.pl")
    for m in mails:
        r = subprocess.run([checkpatch, "--strict", "--no-color", "--terse", "--showfile", m],
                           capture_output=True, text=True, cwd=tree)
        found = [ln for ln in r.stdout.splitlines()
                 if re.search(r": (ERROR|WARNING|CHECK):", ln)]
        e, w, c = (sum(f": {k}:" in ln for ln in found)
                   for k in ("ERROR", "WARNING", "CHECK"))
        if r.returncode and not found:
            e = 1
            found = r.stdout.splitlines()[-3:] + r.stderr.splitlines()[-3:]
        status = "clean" if e + w + c == 0 else f"{e} errors, {w} warnings, {c} checks"
        print(f"   checkpatch {os.path.basename(m)}: {status}")
        for ln in found:
            print(f"      {ln}")
        bad += e + w
    return 0 if applies and same and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
