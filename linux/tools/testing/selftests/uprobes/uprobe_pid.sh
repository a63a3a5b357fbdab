#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Process probes (register_pid_uprobe() and friends) through the
# uprobes_pid_test module on a running uprobe_pid_target: handlers run
# in registration order, the return probe sees every return value, new
# threads share the probes, a forked child and another process running
# the same file are not probed (the latter keeps the file's page), a
# registration from a handler completes later (-EINPROGRESS, then the
# callback), a breakpoint that is not ours is refused (-EEXIST), and
# after the process execs its probes are gone and unregistering them
# does nothing.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel
serve_pid_target uprobes_pid_test
# work(i) = 3i + 1 summed over i < n
sum() { echo $(($1 * (3 * $1 - 1) / 2)); }

read -r WORK DEAD <&4 || fail "no addresses from $PROG"
echo $TPID > $PARAMS/pid
echo $((WORK)) > $PARAMS/work
echo $((DEAD)) > $PARAMS/dead
echo arm > $PARAMS/cmd
expect arm_result 0 "registration"

ask call 3
[ "$REPLY" = "$(sum 3)" ] || fail "results changed under the probes: $REPLY"
expect hits_a 3 "3 calls"
expect hits_c 3 "3 calls"
expect seq abcabcabc "handlers in registration order"
expect returns 3 "return probe"
expect ret_sum "$(sum 3)" "return values"
ask anon
[ "$REPLY" -gt 0 ] || fail "the probed text is not a private copy ($REPLY kB)"

# Another process running the same file: not probed, not even copied.
set -- $("$PROG" call 5)
[ "$1" = "$(sum 5)" ] || fail "the other process computed $1"
[ "$2" = 0 ] || fail "the other process's text has $2 kB of private copies"
expect hits_a 3 "another process ran the file"

ask threads 4 5
[ "$REPLY" = $((4 * $(sum 5))) ] || fail "threads computed $REPLY"
expect hits_b 23 "4 new threads x 5 calls"
expect returns 23 "4 new threads x 5 returns"

ask fork 6
[ "$REPLY" = 0 ] || fail "the forked child ended with status $REPLY"
expect hits_a 23 "a forked child is not probed"

echo nest > $PARAMS/cmd
ask call 2
expect nest_result -115 "register from a handler: -EINPROGRESS"
expect nest_callback 0 "registration_callback result"
expect hits_d 1 "the nested probe sees the second call only"

ask poke
echo dead > $PARAMS/cmd
expect dead_result -17 "a breakpoint not ours: -EEXIST"

ask exec 4
[ "$REPLY" = "$(sum 4) 0" ] || fail "after exec: $REPLY"
expect hits_a 25 "the exec'ed image is not probed"
echo disarm > $PARAMS/cmd || fail "unregistering after exec"
expect hits_a 25 "after disarm"
finish
ksft_pass "order, returns, threads, fork, other process, nesting, foreign breakpoint, exec"
