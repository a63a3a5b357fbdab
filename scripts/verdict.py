#!/usr/bin/env python3
"""Read guest console logs, pull out the KTAP results (KUnit suites printed
by the kernel, kselftest suites printed by our init), check them against the
expected suites, and print one verdict.

usage: verdict.py [--extra-failed N] LABEL:LOG:EXPECT [LABEL:LOG:EXPECT ...]

Next to EXPECT, files named like it under ../xfail/ and ../skip/
(tests/xfail/<arch>, tests/skip/<arch>) list the cases allowed to fail
(XFAIL) and to skip, as "suite: case" lines, each with its reason in a
comment.  Any other skip fails the run; so does a listed xfail that passes
(XPASS: the list is out of date), and an entry without a reason.

--extra-failed adds failures found before the boots (build, clean-room).
--any-skip lets any case skip (counted, not failed): for boots of a
series prefix (scripts/series-check.sh), whose config has no skip list.

EXPECT lists one suite per line: "name [min_cases] [variant...]"; a suite
restricted to variants is only expected when LABEL names one of them.
Besides failed cases, a run fails on a missing or short suite (skips do
not count toward the minimum), a suite whose results do not match its plan
or that never reported a result of its own, a guest that never reported
completion (hang, timeout), or a kernel crash signature on the console.  The last line is "N passed, N failed"; the exit status is 1
when anything failed.

KCSAN reports are kernel reports like any other, unless LOG.kcsan exists
(scripts/kcsan_reports.py, FLAVOR=kcsan): then each report it sorted into
the probing subsystem's files ("ours") fails the run, and the others are
listed without failing it.
"""
import os
import re
import sys

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
RESULT = re.compile(r"^( *)(ok|not ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$")
CRASH = re.compile(
    r"Kernel panic|Oops[: ]|BUG: |WARNING: |general protection fault|"
    r"Unable to handle kernel|Internal error: |soft lockup|hard LOCKUP|"
    r"rcu: INFO: .* detected stalls|self-detected stall|stack-protector|KASAN: |"
    r"possible recursive locking|inconsistent lock state|"
    r"sleeping function called from invalid context")


class Suite:
    def __init__(self, name):
        self.name = name
        self.passed = self.failed = self.skipped = self.xfailed = 0
        self.failures = []
        self.ok = True

    def ran(self):
        """Cases that ran: what a suite's minimum counts."""
        return self.passed + self.failed + self.xfailed


KCSAN = re.compile(r"BUG: KCSAN: ")
SUBTEST = re.compile(r"^    # Subtest: (\S+)")
PLAN = re.compile(r"^    1\.\.(\d+)\s*$")


def judge(s, status, directive, cases, plan, xfail, skips):
    """Fill suite s from its case results and its own result line."""
    for ok, sk, cname, why, context in cases:
        if sk and (s.name, cname) in skips:
            s.skipped += 1
        elif sk:
            s.failed += 1
            s.failures.append(f"{cname} # {why} (not in tests/skip/: an unexpected skip)")
            s.failures += [f"  {c}" for c in context]
        elif ok and (s.name, cname) in xfail:
            s.failed += 1
            s.failures.append(f"{cname} # XPASS: listed in tests/xfail/ but passed; "
                              "update the list")
        elif ok:
            s.passed += 1
        elif (s.name, cname) in xfail:
            s.xfailed += 1
        else:
            s.failed += 1
            s.failures.append(f"{cname}{' # ' + why if why else ''}")
            # What the case printed last says why (CI keeps no log).
            s.failures += [f"  {c}" for c in context]
    if directive and directive.upper().startswith("SKIP") and not cases:
        # A whole suite skipped: allowed only as "suite: *".
        if (s.name, "*") in skips:
            s.skipped += 1
        else:
            s.failed += 1
            s.failures.append(f"* # the whole suite skipped ({directive}), "
                              "not in tests/skip/")
    planned_ok = plan is None or plan == len(cases)
    if not planned_ok:
        s.failures.append(f"plan said {plan} cases, {len(cases)} reported")
    # A suite that is "not ok" only because of its xfail cases passes;
    # with any other failure, or a plan it did not keep, it fails.
    s.ok = (s.failed == 0 and planned_ok and
            (status == "ok" or (s.xfailed > 0 and plan is not None)))
    if not s.ok and not s.failures:
        s.failures.append("suite reported not ok")


def orphans(name, cases):
    """Case results that no suite result closed (the suite died)."""
    s = Suite(name or "(unnamed suite)")
    s.ok = False
    s.failures.append(f"{len(cases)} case results and no result for the suite "
                      "(it died or its output was cut)")
    return s


def parse(path, xfail=frozenset(), skips=frozenset(), kcsan_sorted=False):
    """Return (suites, crash lines, finished, timed out) for one console log."""
    suites, crashes, finished, timed_out = [], [], False, False
    pending = []           # case results since the last top-level result
    said = []              # the "# ..." lines since the last result
    header, plan = None, None
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return suites, ["no console log at " + path], False, False
    for raw in text.splitlines():
        line = TIMESTAMP.sub("", raw.rstrip("\r"))
        if line.startswith("HARNESS-DONE"):
            finished = True
            continue
        if "] TIMEOUT: guest still running" in line:
            timed_out = True
        if kcsan_sorted and KCSAN.search(line):
            pass
        elif CRASH.search(line) and not line.lstrip().startswith("#"):
            crashes.append(line.strip())
        m = SUBTEST.match(line)
        if m:
            # A new suite starts: results still open belong to no suite.
            if pending:
                suites.append(orphans(header, pending))
            header, plan, pending = m.group(1), None, []
            continue
        m = PLAN.match(line)
        if m:
            plan = int(m.group(1))
            continue
        m = RESULT.match(line)
        if not m:
            if line.lstrip().startswith("#"):
                said = (said + [line.strip()])[-3:]
            continue
        indent, status, _num, name, directive = m.groups()
        depth = len(indent.expandtabs()) // 4
        skip = bool(directive) and directive.upper().startswith("SKIP")
        context, said = said, []
        if depth == 1:
            pending.append((status == "ok", skip, name, directive, context))
        elif depth == 0:
            s = Suite(name)
            judge(s, status, directive, pending, plan, xfail, skips)
            header, plan, pending = None, None, []
            suites.append(s)
    if pending:
        suites.append(orphans(header, pending))
    return suites, crashes, finished, timed_out


# The words an xfail or skip entry may be limited to (see case_list()).
LABEL_WORDS = ("ours", "upstream", "lean", "default", "debug", "preempt",
               "kcsan", "debuginfo", "defconfig")


def case_list(expect_path, kind, label, errors):
    """The cases listed in tests/<kind>/<arch> next to EXPECT (kind: xfail
    or skip): "suite: case", optionally prefixed by the label words the
    entry is for, comma-separated: a variant ("ours"/"upstream"), "lean"
    (a client boot on a kernel without DWARF and BTF,
    scripts/clients-lib.sh) or a flavor ("defconfig"...), each of which may
    be negated with "!".  The entry applies when the boot's label has one
    of its plain words (if it names any) and none of its negated ones.
    Each entry needs a reason: a comment on its line or in the comment
    block right above it."""
    path = os.path.join(os.path.dirname(os.path.dirname(expect_path)), kind,
                        os.path.basename(expect_path))
    found = set()
    if not os.path.exists(path):
        return frozenset(found)
    reason = False
    for n, raw in enumerate(open(path), 1):
        text, hash_, comment = raw.partition("#")
        line = text.strip()
        if not line:
            # A comment line gives the entries below it their reason; a
            # blank line ends that.
            reason = bool(hash_ and comment.strip())
            continue
        if ":" not in line:
            errors.append(f"{path}:{n}: not a 'suite: case' line")
            continue
        if not (reason or comment.strip()):
            errors.append(f"{path}:{n}: '{line}' has no reason")
        words, _, rest = line.partition(" ")
        terms = words.split(",")
        if all(t.lstrip("!") in LABEL_WORDS for t in terms):
            have = set(label.split())
            plain = [t for t in terms if not t.startswith("!")]
            if plain and not have.intersection(plain):
                continue
            if any(t[1:] in have for t in terms if t.startswith("!")):
                continue
            line = rest
        suite, case = line.split(":", 1)
        found.add((suite.strip(), case.strip()))
    return frozenset(found)


def expectations(path, label):
    want = []
    for line in open(path):
        f = line.split("#", 1)[0].split()
        if not f:
            continue
        name, rest = f[0], f[1:]
        minimum = int(rest[0]) if rest and rest[0].isdigit() else 0
        variants = [v for v in rest if not v.isdigit()]
        if variants and not any(v in label.split() for v in variants):
            continue
        want.append((name, minimum))
    return want


class Anything(frozenset):
    """A skip list that holds every case."""

    def __contains__(self, item):
        return True


def main(args):
    failed = 0
    any_skip = False
    while args[:1] in (["--extra-failed"], ["--any-skip"]):
        if args[0] == "--any-skip":
            any_skip, args = True, args[1:]
        else:
            failed, args = int(args[1]), args[2:]
    if not args and not failed:
        print(__doc__, file=sys.stderr)
        return 2
    passed = 0
    for spec in args:
        label, log, expect = spec.split(":", 2)
        sorted_path = log + ".kcsan"
        kcsan = None
        if os.path.exists(sorted_path):
            kcsan = [l.rstrip("\n") for l in open(sorted_path) if l.strip()]
        errors = []
        xfail = case_list(expect, "xfail", label, errors)
        skips = Anything() if any_skip else case_list(expect, "skip", label, errors)
        suites, crashes, finished, timed_out = parse(log, xfail, skips,
                                                     kcsan is not None)
        print(f"== {label} ({log})")
        for e in sorted(set(errors)):
            print(f"   FAIL {e}")
        failed += len(set(errors))
        if kcsan is not None:
            ours = [l for l in kcsan if not l.startswith("other ")]
            print(f"   {'FAIL' if ours else 'PASS'} kcsan: {len(ours)} reports in the "
                  f"probing subsystem's files, {len(kcsan) - len(ours)} elsewhere")
            for l in ours:
                print(f"        ours: {l.partition(' ')[2]}")
            for l in kcsan:
                if l.startswith("other "):
                    print(f"        elsewhere: {l.partition(' ')[2]}")
            failed += len(ours)
        for s in suites:
            verdict = "PASS" if s.ok else "FAIL"
            skip = f", {s.skipped} skipped (see tests/skip/)" if s.skipped else ""
            skip += f", {s.xfailed} xfail (see tests/xfail/)" if s.xfailed else ""
            print(f"   {verdict} {s.name}: {s.passed} passed, {s.failed} failed{skip}")
            for f in s.failures:
                print(f"        not ok: {f}")
            passed += s.passed
            failed += s.failed + (1 if not s.ok and not s.failed else 0)
        seen = {s.name: s for s in suites}
        for name, minimum in expectations(expect, label):
            s = seen.get(name)
            if s is None:
                print(f"   FAIL {name}: expected suite did not report")
                failed += 1
            elif s.ran() < minimum:
                print(f"   FAIL {name}: {s.ran()} cases ran ({s.skipped} more skipped), "
                      f"expected at least {minimum}")
                failed += 1
        if crashes:
            print(f"   FAIL kernel reported a problem ({len(crashes)} lines), first:")
            for c in crashes[:5]:
                print(f"        {c}")
            failed += 1
        if not finished:
            why = "timed out: a hang" if timed_out else "hang, timeout or crash"
            print(f"   FAIL guest did not finish ({why})")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
