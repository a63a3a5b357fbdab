#!/bin/bash
# Helpers for the SystemTap cases.  build.sh compiled each script into
# $STAP/<script>.bo on the host, or left <script>.log saying why not.
STAP=$CLIENTS/systemtap-programs

# stap_program NAME: the compiled script's path; fails the case, showing
# the host's compiler output, when there is none.
stap_program() {
	if [ ! -f "$STAP/$1.bo" ]; then
		[ -f "$STAP/$1.log" ] && tail -n 20 "$STAP/$1.log"
		fail "$1.stp did not compile on the host for this kernel"
	fi
	echo "$STAP/$1.bo"
}

# stap_kcalls NAME: run NAME's program with stapbpf while the test
# module's function is called with 2, 3, 5 and 7 (returning 5, 10, 26 and
# 50); its output in $out, shown.
stap_kcalls() {
	local bo
	bo=$(stap_program "$1") || { echo "$bo"; exit 1; }
	load_kernel_target
	out=$(stapbpf -c "$CLIENTS/kcall 2 3 5 7" "$bo" 2>&1)
	echo "$out"
}

# stap_target NAME: run NAME's program with stapbpf around `target work
# 10`, 10 calls of target_work(i) returning i * i + 7; its output in $out,
# shown.
stap_target() {
	local bo
	bo=$(stap_program "$1") || { echo "$bo"; exit 1; }
	out=$(stapbpf -c "$TARGET work 10" "$bo" 2>&1)
	echo "$out"
}
