#!/bin/bash
# Helpers for the SystemTap module-runtime cases.  ../systemtap/build.sh
# compiled each script into $STAPMOD/<script>.ko on the host, or left
# <script>.log saying why not.
STAPMOD=$CLIENTS/systemtap-modules

# stapmod_run NAME CMD...: load NAME's module with staprun around CMD (the
# script's target()); its output in $out, shown.  A script that did not
# compile fails the case with the host compiler's last lines; one the
# host did not try (NAME.skip: the kernel lacks what it reads) skips it.
stapmod_run() {
	local name=$1 ko=$STAPMOD/$1.ko
	shift
	[ -f "$STAPMOD/$name.skip" ] && skip "$(cat "$STAPMOD/$name.skip")"
	if [ ! -f "$ko" ]; then
		[ -f "$STAPMOD/$name.log" ] && tail -n 20 "$STAPMOD/$name.log"
		fail "$name.stp did not compile on the host for this kernel"
	fi
	out=$(staprun ${1:+-c "$*"} "$ko" 2>&1)
	local rc=$?
	echo "$out"
	[ $rc -eq 0 ] || fail "staprun exited $rc"
	# The session's module is gone once staprun is.
	! grep -q "^$name " /proc/modules || fail "$name is still loaded after staprun"
}

# stapmod_kcalls NAME: stapmod_run around 4 calls of the test module's
# function, with 2, 3, 5 and 7 (returning 5, 10, 26 and 50).
stapmod_kcalls() {
	load_kernel_target
	stapmod_run "$1" "$CLIENTS/kcall 2 3 5 7"
}
