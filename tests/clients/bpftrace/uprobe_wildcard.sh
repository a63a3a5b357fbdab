#!/bin/bash
# uprobe: and uretprobe: wildcards on a library and a program through one
# uprobe per function (--no-feature uprobe_multi): exact counts and
# return values.
. ../lib.sh
. ./wildcard_lib.sh
need bpftrace
uprobe_wildcards --no-feature uprobe_multi
pass "single uprobes: every function counted exactly, values as returned"
