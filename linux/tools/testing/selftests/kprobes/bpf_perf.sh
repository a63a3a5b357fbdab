#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf and BPF on kprobes (see bpf_kprobe.c), on a function of the test
# module that nothing else calls.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
PROG="$(dirname "$0")/bpf_kprobe"

[ -x "$PROG" ] || ksft_skip "$PROG was not built"
load_test_module kprobes_target
"$PROG"
ret=$?
rmmod $MOD || ksft_fail "cannot unload $MOD"
exit $ret
