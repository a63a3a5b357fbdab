#!/bin/bash
# uprobe: and uretprobe: wildcards on a library and a program through
# uprobe_multi links: exact counts and return values.
. ../lib.sh
. ./wildcard_lib.sh
need bpftrace
# An older bpftrace (0.17) does not know the link: it has no line for it.
case "$(feature uprobe_multi)" in
yes) ;;
"") skip "$(bpftrace --version) predates uprobe_multi" ;;
*) fail "bpftrace finds no uprobe_multi in this kernel" ;;
esac
uprobe_wildcards
pass "uprobe_multi: every function counted exactly, values as returned"
