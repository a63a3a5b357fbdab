#!/usr/bin/env python3
"""Read guest console logs, pull out the KTAP results (KUnit suites printed
by the kernel, kselftest suites printed by our init), check them against the
expected suites, and print one verdict.

usage: verdict.py [--extra-failed N] LABEL:LOG:EXPECT [LABEL:LOG:EXPECT ...]

--extra-failed adds failures found before the boots (build, clean-room).

EXPECT lists one suite per line: "name [min_cases] [variant...]"; a suite
restricted to variants is only expected when LABEL names one of them.
Besides failed cases, a run fails on a missing or short suite, a guest that
never reported completion (hang, timeout), or a kernel crash signature on
the console.  The last line is "N passed, N failed"; the exit status is 1
when anything failed.
"""
import re
import sys

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
RESULT = re.compile(r"^( *)(ok|not ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$")
CRASH = re.compile(
    r"Kernel panic|Oops[: ]|BUG: |WARNING: |general protection fault|"
    r"Unable to handle kernel|Internal error: |soft lockup|hard LOCKUP|"
    r"rcu: INFO: .* detected stalls|stack-protector|KASAN: |"
    r"possible recursive locking|inconsistent lock state|"
    r"sleeping function called from invalid context")


class Suite:
    def __init__(self, name):
        self.name = name
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.ok = True


def parse(path):
    """Return (suites, crash lines, finished, timed out) for one console log."""
    suites, crashes, finished, timed_out = [], [], False, False
    pending = []           # case results since the last top-level result
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
        if CRASH.search(line) and not line.lstrip().startswith("#"):
            crashes.append(line.strip())
        m = RESULT.match(line)
        if not m:
            continue
        indent, status, _num, name, directive = m.groups()
        depth = len(indent.expandtabs()) // 4
        skip = bool(directive) and directive.upper().startswith("SKIP")
        if depth == 1:
            pending.append((status == "ok", skip, name, directive))
        elif depth == 0:
            s = Suite(name)
            for ok, sk, cname, why in pending:
                if sk:
                    s.skipped += 1
                elif ok:
                    s.passed += 1
                else:
                    s.failed += 1
                    s.failures.append(f"{cname}{' # ' + why if why else ''}")
            s.ok = status == "ok" and s.failed == 0
            if not s.ok and not s.failures:
                s.failures.append("suite reported not ok")
            pending = []
            suites.append(s)
    return suites, crashes, finished, timed_out


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


def main(args):
    failed = 0
    if args[:1] == ["--extra-failed"]:
        failed, args = int(args[1]), args[2:]
    if not args and not failed:
        print(__doc__, file=sys.stderr)
        return 2
    passed = 0
    for spec in args:
        label, log, expect = spec.split(":", 2)
        suites, crashes, finished, timed_out = parse(log)
        print(f"== {label} ({log})")
        for s in suites:
            verdict = "PASS" if s.ok else "FAIL"
            skip = f", {s.skipped} skipped" if s.skipped else ""
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
            elif s.passed + s.failed + s.skipped < minimum:
                print(f"   FAIL {name}: {s.passed + s.failed + s.skipped} cases, "
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
