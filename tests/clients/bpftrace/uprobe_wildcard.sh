#!/bin/bash
# uprobe: and uretprobe: wildcards on a library and a program through one
# uprobe per function (--no-feature uprobe_multi, see single()): exact
# counts and return values.
. ../lib.sh
. ./wildcard_lib.sh
need bpftrace
single uprobe_multi
uprobe_wildcards $single
pass "single uprobes: every function counted exactly, values as returned"
