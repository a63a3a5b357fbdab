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
