#!/usr/bin/env python3
"""`make series`: turn the overlay into a git format-patch series against the
pinned base, grouped as series/manifest says, check that `git am` applies it
to the base, and run checkpatch.pl --strict on every patch.

The work repository holds only the base files the series touches: that is
all `git format-patch` and `git am` look at, and it keeps the job fast.
Output: out/series/*.patch and a summary on stdout; exit status 1 when the
series does not apply or checkpatch reports an error, warning or check.
SERIES_CHECKPATCH=0 leaves checkpatch out (for quick reworks of the
manifest; `make series` always runs it).
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
                       "stage": head.get("stage", []),
                       "unstage": head.get("unstage", []),
                       "body": body})
    return blocks


STAGES = os.path.join(TOP, "series", "stages")


def read_stages(blocks):
    """The stages the blocks name: {name: {path: ("content", file) or
    ("diff", file)}}.  A file under series/stages/<name>/ is the content its
    path has in the patch that names the stage; a file ending in .diff is a
    patch applied to the natural content of the paths it touches."""
    stages, errors = {}, []
    used = set()
    for b in blocks:
        for st in b["stage"]:
            root = os.path.join(STAGES, st)
            if st in used:
                errors.append(f"stage {st} is named by more than one block")
            used.add(st)
            if not os.path.isdir(root):
                errors.append(f"stage {st} of block '{b['subject']}' has no "
                              f"directory series/stages/{st}/")
                continue
            paths = {}
            for dirpath, _d, names in os.walk(root):
                for n in sorted(names):
                    full = os.path.join(dirpath, n)
                    rel = os.path.relpath(full, root)
                    if n.endswith(".diff"):
                        for t in assemble.patch_targets(full):
                            paths[t] = ("diff", full)
                    else:
                        paths[rel] = ("content", full)
            stages[st] = paths
    if os.path.isdir(STAGES):
        for st in sorted(os.listdir(STAGES)):
            if st not in used:
                errors.append(f"series/stages/{st}/ is named by no block")
    return stages, errors


def place(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    shutil.copymode(src, dst)


def sync(natural, work, path):
    """Give @path in @work its content in @natural (or remove it)."""
    src, dst = os.path.join(natural, path), os.path.join(work, path)
    if os.path.exists(src):
        place(src, dst)
    elif os.path.exists(dst):
        os.remove(dst)
        d = os.path.dirname(dst)
        while d != work and not os.listdir(d):
            os.rmdir(d)
            d = os.path.dirname(d)


def apply_stage_diff(diff, natural, work):
    """Apply a stage's .diff to the natural content of its paths, into work."""
    with tempfile.TemporaryDirectory(prefix="series-stage-") as tmp:
        targets = assemble.patch_targets(diff)
        for t in targets:
            if os.path.exists(os.path.join(natural, t)):
                place(os.path.join(natural, t), os.path.join(tmp, t))
        r = subprocess.run(["git", "apply", diff], cwd=tmp,
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"series: {os.path.relpath(diff, TOP)} does not apply:\n"
                     f"{r.stderr}")
        for t in targets:
            sync(tmp, work, t)


def maintainers_entries(text):
    """[(section name, [F: patterns], [X: patterns])] of a MAINTAINERS."""
    entries, cur = [], None
    for ln in text.splitlines():
        m = re.match(r"^([A-Z]):\s*(.*)$", ln)
        if m and cur is not None:
            if m.group(1) in "FX":
                cur[1 if m.group(1) == "F" else 2].append(m.group(2).strip())
        elif ln.strip() and not m:
            cur = (ln.strip(), [], [])
            entries.append(cur)
        elif not ln.strip():
            cur = cur if cur and not cur[1] and not cur[2] else None
    return entries


def pattern_matches(pat, path):
    """get_maintainer.pl's F:/X: matching: a prefix match of the pattern
    (* and ? as wildcards) at the same directory depth, or anywhere below
    a pattern that ends in a slash."""
    rx = re.escape(pat).replace(r"\*", "[^/]*").replace(r"\?", ".")
    if not re.match(rx, path):
        return False
    return pat.endswith("/") or path.count("/") == pat.count("/")


def covering(entries, path):
    return [name for name, fs, xs in entries if name != "THE REST"
            and any(pattern_matches(f, path) for f in fs)
            and not any(pattern_matches(x, path) for x in xs)]


def new_files(mail):
    added, cur = [], None
    for ln in open(mail, errors="replace"):
        if ln.startswith("diff --git "):
            cur = ln.split(" b/", 1)[1].strip()
        elif ln.startswith("new file mode") and cur:
            added.append(cur)
    return added


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
    stages, errors = read_stages(blocks)
    if errors:
        sys.exit("series: " + "\n        ".join(errors))
    touched = set(overlay) | removed_paths
    for p in patches:
        touched |= set(assemble.patch_targets(os.path.join(PATCHES, p)))
    for st in stages.values():
        touched |= set(st)

    outdir = os.path.join(OUT, "series")
    work = os.path.join(OUT, "series-work")
    # The natural tree: base, removals, overlay and base patches as the
    # blocks bring them, without stages.  The work repository holds what
    # each patch commits: the natural tree with the stages in force.
    natural = os.path.join(OUT, "series-natural")
    shutil.rmtree(outdir, ignore_errors=True)
    for d in (work, natural):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for t in sorted(touched):
            src = os.path.join(BASE, t)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(d, t)), exist_ok=True)
                shutil.copy2(src, os.path.join(d, t))
    name, email = identity()
    ident = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
             "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    git(work, "init", "-q", "-b", "base")
    git(work, "add", "-A")
    git(work, "commit", "-q", "--allow-empty", "-m", "base: Linux 6.12 files the series touches",
        env=ident)

    made = 0
    staged = {}     # path -> name of the stage whose version is in force
    for i, b in enumerate(blocks):
        mine = lambda kind, items: [x for x in items if owner.get((kind, x)) == i]
        changed = set()
        for entry in mine("removal", removed_entries):
            full = os.path.join(natural, entry)
            changed |= {p for p in removed_paths
                        if p == entry or p.startswith(entry.rstrip("/") + "/")}
            if os.path.isdir(full):
                shutil.rmtree(full)
            elif os.path.exists(full):
                os.remove(full)
        for f in mine("file", overlay):
            place(os.path.join(OVERLAY, f), os.path.join(natural, f))
            changed.add(f)
        for p in mine("patch", patches):
            patch = os.path.join(PATCHES, p)
            r = subprocess.run(["git", "apply", patch], cwd=natural,
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"series: {p} does not apply in block "
                         f"'{b['subject']}':\n{r.stderr}")
            changed |= set(assemble.patch_targets(patch))
        # A stage ends where the path changes in the natural tree or the
        # block says Unstage; then the natural content is what it commits.
        for path in b["unstage"]:
            if path not in staged:
                sys.exit(f"series: block '{b['subject']}' unstages {path}, "
                         "which no stage holds")
        for path in sorted(changed | set(b["unstage"]) | set(staged)):
            if path in changed or path in b["unstage"]:
                staged.pop(path, None)
            if path not in staged:
                sync(natural, work, path)
        for st in b["stage"]:
            for path, how in stages[st].items():
                if how[0] == "content":
                    place(how[1], os.path.join(work, path))
                staged[path] = st
            for diff in sorted({how[1] for how in stages[st].values()
                                if how[0] == "diff"}):
                apply_stage_diff(diff, natural, work)
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
    if staged:
        sys.exit("series: stages still in force after the last patch (no later "
                 "block carries the final version or unstages them): " +
                 ", ".join(f"{p} ({s})" for p, s in sorted(staged.items())))
    # With every stage ended, the series' result is the natural tree.
    diff = subprocess.run(["diff", "-r", "-q", "-x", ".git", natural, work],
                          capture_output=True, text=True)
    if diff.returncode:
        sys.exit("series: the series' last tree is not the overlay's:\n" + diff.stdout)
    # And that is the tree `make check` tests: the base patches applied in
    # name order, as scripts/assemble.py does, give the same files.
    with tempfile.TemporaryDirectory(prefix="series-assembled-") as scratch:
        want = assemble.desired_state(BASE, OVERLAY, REMOVED, PATCHES, scratch)
        differ = [p for p, src in sorted(want.items())
                  if (os.path.exists(os.path.join(natural, p)) if src is None
                      else not assemble.same(src, os.path.join(natural, p)))]
    if differ:
        sys.exit("series: the series' last tree differs from the assembled "
                 "tree (base patches in name order) in: " + ", ".join(differ))
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
    # The series teaches checkpatch about its own annotations: run the
    # series' own scripts/checkpatch.pl (from the work repository) at the
    # top of the base tree, which it takes for the kernel tree.
    tree = BASE
    ownck = os.path.join(work, "scripts", "checkpatch.pl")
    ckdir = tempfile.mkdtemp(prefix="series-checkpatch-")
    checkpatch = os.path.join(ckdir, "checkpatch.pl")
    shutil.copy2(ownck if os.path.exists(ownck)
                 else os.path.join(BASE, "scripts", "checkpatch.pl"), checkpatch)
    if os.environ.get("SERIES_CHECKPATCH") == "0":
        print("   checkpatch: skipped (SERIES_CHECKPATCH=0)")
        mails = []
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
        # "added, moved or deleted file(s), does MAINTAINERS need
        # updating?" asks a question; the MAINTAINERS of the tree this
        # patch leaves answers it when an entry already covers every file
        # the patch adds.
        answered = ""
        fpc = [ln for ln in found if "FILE_PATH_CHANGES" in ln
               or "does MAINTAINERS need updating" in ln]
        if fpc:
            k = mails.index(m)
            rev = f"HEAD~{len(mails) - 1 - k}"
            entries = maintainers_entries(git(work, "show", f"{rev}:MAINTAINERS").stdout)
            added = new_files(m)
            cover = {f: covering(entries, f) for f in added}
            if all(cover.values()):
                found = [ln for ln in found if ln not in fpc]
                w -= len(fpc)
                names = sorted({n for v in cover.values() for n in v})
                answered = (f" (its {len(added)} new files are under "
                            f"MAINTAINERS: {', '.join(names)})")
        status = "clean" if e + w + c == 0 else f"{e} errors, {w} warnings, {c} checks"
        print(f"   checkpatch {os.path.basename(m)}: {status}{answered}")
        for ln in found:
            print(f"      {ln}")
        bad += e + w + c
    shutil.rmtree(ckdir, ignore_errors=True)
    return 0 if applies and same and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
