#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A short kprobetorture run (CONFIG_KPROBES_TORTURE_TEST): probes on a
# few functions come and go, one by one and in batches, are disabled and
# enabled, and the global knobs flip, while threads on every CPU call the
# functions, and a module of probed functions (kprobetorture_mod) is loaded
# and unloaded.  The module's verdict line says whether any hit was lost or
# invented, any handler ran after unregistration, or any call returned a
# wrong value.  On arm64 it also probes literal loads (simulated) and the
# functions a hit calls.  KPROBETORTURE_DURATION sets the seconds (default
# 20); KPROBETORTURE_CHECK_POST=1 also fails on a pre_handler run that was not
# followed by its post_handler run (torture_post.sh).
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
D=${KPROBETORTURE_DURATION:-20}
CHECK_POST=${KPROBETORTURE_CHECK_POST:-0}
[ -n "$(find /lib/modules/"$(uname -r)" -name 'kprobetorture.ko*' 2>/dev/null)" ] ||
	ksft_skip "no kprobetorture module in this kernel"
rmmod kprobetorture 2>/dev/null
seen=$(dmesg | grep -c 'kprobetorture: verdict')
modprobe kprobetorture duration="$D" check_post="$CHECK_POST" ||
	ksft_fail "cannot load kprobetorture"
# The companion module of probed functions comes and goes meanwhile.
loads=0
churn_module() {
	while [ ! -e /tmp/kpt_stop ]; do
		# An rmmod refused while a registration held the module
		# leaves it in: the next modprobe then loads nothing.
		[ -d /sys/module/kprobetorture_mod ] ||
			{ modprobe kprobetorture_mod && loads=$((loads + 1)); }
		usleep $((200000 + RANDOM % 800000)) 2>/dev/null || sleep 1
		rmmod kprobetorture_mod 2>/dev/null
		usleep $((RANDOM % 300000)) 2>/dev/null || sleep 1
	done
	echo "$loads" > /tmp/kpt_loads
}
rm -f /tmp/kpt_stop /tmp/kpt_loads
[ -n "$(find /lib/modules/"$(uname -r)" -name 'kprobetorture_mod.ko*' 2>/dev/null)" ] ||
	ksft_fail "kprobetorture is here but its companion module is not"
churn_module &
churn_pid=$!
waited=0
while [ "$(dmesg | grep -c 'kprobetorture: verdict')" = "$seen" ]; do
	[ $waited -lt $((D + 60)) ] || {
		touch /tmp/kpt_stop
		wait "$churn_pid"
		rmmod kprobetorture_mod 2>/dev/null
		rmmod kprobetorture
		ksft_fail "no verdict after $waited s"
	}
	sleep 1
	waited=$((waited + 1))
done
touch /tmp/kpt_stop
wait "$churn_pid"
rmmod kprobetorture_mod 2>/dev/null
loads=$(cat /tmp/kpt_loads 2>/dev/null)
echo "# companion module loaded ${loads:-0} times"
rmmod kprobetorture || ksft_fail "cannot unload kprobetorture"
stats=$(dmesg | grep 'kprobetorture: calls' | tail -n 1 | sed 's/.*kprobetorture: //')
verdict=$(dmesg | grep 'kprobetorture: verdict' | tail -n 1 | sed 's/.*kprobetorture: //')
echo "# $stats"
# arm64: probes on what the hit path calls, each refused or harmless.
dmesg | grep 'kprobetorture: hit-path probes' | tail -n 1 |
	sed 's/.*kprobetorture: /# /'
case "$verdict" in
"verdict PASS"*) ;;
*)
	dmesg | grep 'kprobetorture: ' | tail -n 5 | sed 's/^/# /'
	ksft_fail "$verdict"
	;;
esac
# A run that never called, registered, batched or saw the module come
# and go passes without having tested anything.
for what in calls registrations batches module-loads; do
	n=$(echo " $stats" | sed -n "s/.* $what \([0-9]*\).*/\1/p")
	[ "${n:-0}" -gt 0 ] || ksft_fail "no $what in the run: $stats"
done
[ "${loads:-0}" -gt 0 ] || ksft_fail "the companion module was never loaded"
ksft_pass "$D s: $verdict"
