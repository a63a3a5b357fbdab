#!/usr/bin/env python3
"""Summarise what scripts/get_maintainer.pl (--no-git --no-rolestats
--subsystem) printed for one patch, read on stdin: the MAINTAINERS entries
it names (THE REST left out), the mailing lists and the number of people."""
import re
import sys

people, lists, subsystems = [], [], []
for ln in sys.stdin.read().splitlines():
    ln = ln.strip()
    if not ln or ln.startswith("Bad divisor"):
        continue
    if "<" in ln and "@" in ln:
        if not ln.startswith('"GitAuthor'):
            people.append(ln)
    elif re.fullmatch(r"\S+@\S+", ln):
        lists.append(ln)
    elif ln != "THE REST":
        subsystems.append(ln)
print(f"entries: {', '.join(subsystems) or '(none)'}; "
      f"lists: {', '.join(lists) or '(none)'}; {len(people)} people")
