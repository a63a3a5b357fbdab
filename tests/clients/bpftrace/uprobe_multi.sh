#!/bin/bash
# uprobe: and uretprobe: wildcards on a library and a program through
# uprobe_multi links: exact counts and return values.
. ../lib.sh
. ./wildcard_lib.sh
need bpftrace
[ "$(feature uprobe_multi)" = yes ] || fail "bpftrace finds no uprobe_multi in this kernel"
uprobe_wildcards
pass "uprobe_multi: every function counted exactly, values as returned"
