#!/bin/bash
# perf probe from debuginfo (the test module and the program are built
# with -g; the kernel's own debuginfo is not needed for them): a line in
# the module function's body with the variable in scope there, and the
# program's function with its argument by name; recorded, read back.
. ../lib.sh
. ../perf_lib.sh
load_kernel_target
# kprobes_target_work(n) starts at its line 0; line 2 is its return.
perf probe -m "$KMOD" -a "body=$KFUNC:2 n" ||
	fail "perf probe on line 2 of $KFUNC with \$n failed"
perf probe -x "$TARGET" -a "target_work n" || fail "perf probe -x $TARGET 'target_work n' failed"
cd /tmp && rm -f perf.data
perf record -q -e probe:body -e probe_target:target_work -a -o /tmp/perf.data -- \
	/bin/bash -c "$CLIENTS/kcall 6 9; $TARGET work 3" 2>&1
out=$(perf script -i /tmp/perf.data 2>&1)
echo "$out"
[ "$(echo "$out" | grep -c 'probe:body')" = 2 ] || fail "expected 2 samples at the line"
[ "$(echo "$out" | grep -c 'probe_target:target_work')" = 3 ] ||
	fail "expected 3 samples of target_work"
for n in 6 9; do
	echo "$out" | grep 'probe:body' | grep -q "n=$n\$" || fail "no line sample with n=$n"
done
for n in 1 2 3; do
	echo "$out" | grep 'probe_target:target_work' | grep -q "n=$n\$" ||
		fail "no target_work sample with n=$n"
done
pass "a line probe with \$n and a program probe with its argument by name, values as called"
