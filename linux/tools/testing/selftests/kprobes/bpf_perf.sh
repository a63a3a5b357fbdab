#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf and BPF on kprobes (see bpf_kprobe.c), on a function of the test
# module that nothing else calls.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
MOD=kprobes_target
KO="$(dirname "$0")/test_modules/$MOD.ko"
PROG="$(dirname "$0")/bpf_kprobe"

[ -x "$PROG" ] || ksft_skip "$PROG was not built"
[ -f "$KO" ] || ksft_skip "$KO was not built"
rmmod $MOD 2>/dev/null
insmod "$KO" || ksft_fail "cannot load $KO"
"$PROG"
ret=$?
rmmod $MOD || ksft_fail "cannot unload $MOD"
exit $ret
