#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lkdtm's crash points are kprobes: arm the interrupt-handling one with the
# harmless REPORT_STACK action, make interrupts happen (console output),
# and check that the action ran, that the probe is listed while armed and
# that unloading lkdtm removes it.  Interrupts come from console output
# and, where there is one, from reading a hardware RNG.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
POINT=/sys/kernel/debug/provoke-crash/INT_HW_IRQ_EN
FUNC=handle_irq_event

ko=$(find /lib/modules -name 'lkdtm.ko*' 2>/dev/null | head -n 1)
[ -n "$ko" ] || ksft_skip "lkdtm is not built (CONFIG_LKDTM=m)"
rmmod lkdtm 2>/dev/null
insmod "$ko" || ksft_fail "cannot load $ko"
[ -e $POINT ] || { rmmod lkdtm; ksft_skip "lkdtm has no INT_HW_IRQ_EN crash point"; }

mark="ksft-lkdtm-$$"
echo "$mark" > /dev/kmsg
echo REPORT_STACK > $POINT || { rmmod lkdtm; ksft_fail "lkdtm could not arm its kprobe"; }
# At +0x0, or after a landing pad (arm64 BTI).
list_line $FUNC | grep -q . ||
	{ rmmod lkdtm; ksft_fail "$FUNC is not in the kprobes list"; }

# The action runs on every 10th hit.
seen=
for _ in $(seq 1 100); do
	echo "lkdtm: waiting for interrupts" > /dev/console
	[ -c /dev/hwrng ] && dd if=/dev/hwrng of=/dev/null bs=16 count=4 2>/dev/null
	if dmesg | sed -n "/$mark/,\$p" | grep -q "Stack offset:"; then
		seen=1
		break
	fi
done
rmmod lkdtm || ksft_fail "cannot unload lkdtm"
list_line $FUNC | grep -q . &&
	ksft_fail "$FUNC is still probed after lkdtm was unloaded"
# A machine with neither an interrupting console (arm64's pl011 drains
# its FIFO without one) nor an RNG tests only the registration and
# removal above.
if ! dmesg | sed -n "/$mark/,\$p" | grep -q "Crash point INT_HW_IRQ_EN"; then
	[ "$(uname -m)" = x86_64 ] || [ -c /dev/hwrng ] &&
		ksft_fail "no interrupt reached $FUNC"
	ksft_skip "armed and removed, but no interrupt reached $FUNC here"
fi
[ -n "$seen" ] ||
	ksft_fail "REPORT_STACK never ran: $(dmesg | sed -n "/$mark/,\$p" | tail -n 5)"
ksft_pass "lkdtm crash point fired through a kprobe and went away with the module"
