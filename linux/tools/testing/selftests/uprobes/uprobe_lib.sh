#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the uprobes selftests.  A test sources this file, calls
# need_uprobes, defines its probes on uprobe_victim with add_probe, and
# exits through ksft_pass, ksft_fail or ksft_skip; whatever it defined or
# started is removed on the way out.
#
# Pacing a program: start_paced NAME CMD... runs CMD in the background
# with its stdin and descriptor 3 on two FIFOs; the program reads a line
# from stdin when it must wait for the test (send NAME) and writes a
# line to descriptor 3 when it has something to say (reply NAME).
# finish NAME closes its stdin and waits for it; its exit status is then
# in $STATUS and its output in $TMPD/NAME.out.

TRACE_DIR=/sys/kernel/tracing
UEVENTS=$TRACE_DIR/uprobe_events
UPROFILE=$TRACE_DIR/uprobe_profile
# Our events: the group, and a prefix for the names, since uprobe_profile
# shows names without their group.
GROUP=ksft_uv
PFX=ksftuv_
HERE=$(cd "$(dirname "$0")" && pwd)
VICTIM=$HERE/uprobe_victim
TMPD=/tmp/ksft_uv.$$
BG_PIDS=

# The register holding a function's first argument, for fetchargs.
# shellcheck disable=SC2034
case $(uname -m) in
x86_64) ARG1=%di ;;
aarch64) ARG1=%x0 ;;
*) ARG1='' ;;
esac

ksft_pass() { echo "ok: $*"; exit 0; }
ksft_fail() { echo "FAIL: $*"; exit 1; }
ksft_skip() { echo "SKIP: $*"; exit 4; }

remove_events() {
	[ -f "$UEVENTS" ] || return 0
	[ -d "$TRACE_DIR/events/$GROUP" ] &&
		echo 0 > "$TRACE_DIR/events/$GROUP/enable"
	sed -n "s/^[pr]:$GROUP\/\([a-z0-9_]*\) .*/-:$GROUP\/\1/p" "$UEVENTS" |
		while read -r del; do
			echo "$del" >> "$UEVENTS"
		done
}

cleanup() {
	for p in $BG_PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	remove_events
	rm -rf "$TMPD"
}

need_uprobes() {
	[ "$(id -u)" -eq 0 ] || ksft_skip "must run as root"
	[ -f "$UEVENTS" ] || mount -t tracefs none "$TRACE_DIR" 2>/dev/null
	[ -f "$UEVENTS" ] || ksft_skip "no uprobe_events (CONFIG_UPROBE_EVENTS, tracefs)"
	[ -x "$VICTIM" ] || ksft_skip "no $VICTIM"
	trap cleanup EXIT
	remove_events
	mkdir -p "$TMPD" || ksft_fail "cannot create $TMPD"
	"$VICTIM" points > "$TMPD/points" || ksft_fail "uprobe_victim points failed"
	echo 1 > "$TRACE_DIR/tracing_on"
	echo > "$TRACE_DIR/trace"
}

# off POINT: the file offset of a probe point of uprobe_victim.
off() {
	o=$(awk -v p="$1" '$1 == p { print $2 }' "$TMPD/points")
	[ -n "$o" ] || ksft_fail "uprobe_victim has no point $1"
	echo "$o"
}

# add_probe p|r NAME POINT [FETCHARGS...]: define a uprobe event, disabled;
# POINT is a name from "uprobe_victim points" or an offset spec (0x...).
add_probe() {
	kind=$1 name=$2 point=$3
	shift 3
	case $point in
	0x*) o=$point ;;
	*) o=$(off "$point") || ksft_fail "uprobe_victim has no point $point" ;;
	esac
	echo "$kind:$GROUP/$PFX$name $VICTIM:$o $*" >> "$UEVENTS" ||
		ksft_fail "cannot define $kind:$name at $point ($o)"
}

del_probe() {
	echo "-:$GROUP/$PFX$1" >> "$UEVENTS" || ksft_fail "cannot delete $1"
}

# ev_on NAME... / ev_off NAME...: enable or disable events.
ev_on() {
	for e in "$@"; do
		echo 1 > "$TRACE_DIR/events/$GROUP/$PFX$e/enable" ||
			ksft_fail "cannot enable $e"
	done
}

ev_off() {
	for e in "$@"; do
		echo 0 > "$TRACE_DIR/events/$GROUP/$PFX$e/enable" ||
			ksft_fail "cannot disable $e"
	done
}

# hits NAME: the event's count in uprobe_profile (for a return probe that
# counts the entries of the function).
hits() {
	awk -v e="$PFX$1" '$2 == e { print $3 }' "$UPROFILE"
}

# expect_hits NAME N: fail unless the event counted exactly N hits.
expect_hits() {
	h=$(hits "$1")
	[ "$h" = "$2" ] || ksft_fail "$1 counted ${h:-nothing} hits, expected $2"
}

trace_clear() { echo > "$TRACE_DIR/trace"; }

# trace_lines NAME: how many records of the event the trace buffer holds.
trace_lines() {
	grep -c " $PFX$1: " "$TRACE_DIR/trace"
}

# trace_field NAME FIELD: the values of FIELD in the event's records.
trace_field() {
	sed -n "s/.* $PFX$1: .* $2=\([^ ]*\).*/\1/p" "$TRACE_DIR/trace"
}

# expect_lines NAME N: fail unless the trace holds exactly N records of NAME.
expect_lines() {
	n=$(trace_lines "$1")
	[ "$n" = "$2" ] || ksft_fail "$1 left $n records in the trace, expected $2"
}

# run_victim ARGS...: run uprobe_victim to completion; its output in $OUT,
# its exit status in $STATUS.
run_victim() {
	OUT=$("$VICTIM" "$@" 2>&1)
	STATUS=$?
	[ $STATUS -eq 4 ] && ksft_skip "$OUT"
}

# expect_ok WHAT: fail unless the last victim exited with status 0.
expect_ok() {
	[ "$STATUS" -eq 0 ] ||
		ksft_fail "$1 exited with status $STATUS:" "$(echo "$OUT" | tr '\n' ' ')"
}

# Paced programs; each gets two descriptors of this shell, picked by the
# caller as "W R" (for instance 5 6, then 7 8 for a second one).
# start_paced NAME W R CMD...
start_paced() {
	name=$1
	eval "w_$name=$2 r_$name=$3"
	shift 3
	mkfifo "$TMPD/$name.in" "$TMPD/$name.ans" || ksft_fail "mkfifo"
	# Without the descriptors of other paced programs, which must see
	# their stdin close when this shell closes it.
	(exec 5>&- 6<&- 7>&- 8<&- 9<&-; exec "$@") < "$TMPD/$name.in" \
		3> "$TMPD/$name.ans" > "$TMPD/$name.out" 2>&1 &
	eval "pid_$name=$!"
	BG_PIDS="$BG_PIDS $!"
	# The program opens its stdin first, then descriptor 3.
	eval "exec $(fd w "$name")> \"\$TMPD/\$name.in\""
	eval "exec $(fd r "$name")< \"\$TMPD/\$name.ans\""
}

# fd w|r NAME: the descriptor this shell writes to or reads from NAME by.
fd() {
	eval "echo \$$1_$2"
}

# reply NAME: the next line the program wrote on its descriptor 3.
reply() {
	line=
	eval "read -r line <&$(fd r "$1")"
	echo "$line"
}

# send NAME: let the program go on (one line on its stdin).
send() {
	eval "echo go >&$(fd w "$1")"
}

# ask NAME: send, then the program's answer.
ask() {
	send "$1"
	reply "$1"
}

# finish NAME: close the program's stdin, wait for it; $STATUS, $OUT.
finish() {
	eval "exec $(fd w "$1")>&-"
	eval "wait \$pid_$1"
	STATUS=$?
	eval "exec $(fd r "$1")<&-"
	OUT=$(cat "$TMPD/$1.out")
}

# expect_reply NAME WANT: fail unless the program's next line is WANT.
expect_reply() {
	got=$(reply "$1")
	[ "$got" = "$2" ] || ksft_fail "$1 said '$got', expected '$2'" \
		"($(tr '\n' ' ' < "$TMPD/$1.out"))"
}
