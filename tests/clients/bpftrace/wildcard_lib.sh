#!/bin/bash
# Wildcard attachments, once through bpftrace's multi links (one
# kprobe_multi or uprobe_multi link for every function a pattern
# matches) and once through one kprobe or uprobe per function
# (--no-feature), with the same exact counts.  Sourced after ../lib.sh.

# feature NAME: "yes" when bpftrace found the kernel able to do NAME
# (--info prints the features two to a line: "kprobe_multi: yes  ...").
feature() {
	bpftrace --info 2>&1 | grep -o "\b$1: [a-z]*" | head -n 1 | cut -d' ' -f2
}

# single NAME: set $single to the options that make bpftrace attach one
# probe per function instead of NAME's multi link ("--no-feature NAME",
# bpftrace 0.19 and later).  An older bpftrace uses the link whenever it
# finds the kernel able to: then the case cannot be made and skips; where
# the kernel cannot, one probe per function is what it does anyway.
single() {
	single=
	# Not in --help: asked by trying it.
	if bpftrace --no-feature "$1" -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
		single="--no-feature $1"
	elif [ "$(feature "$1")" = yes ]; then
		skip "$(bpftrace --version) has no --no-feature to leave $1 out"
	fi
}

# kprobe_wildcards [BPFTRACE OPTIONS]: entry and return probes on
# kprobes_target_* while the module's function is called with 2, 4 and
# 6; prints what the kprobes list held meanwhile ("listed N").  The
# counts: 3 calls of each function, returns summing to 59 (n * n + 1)
# and 56 (n * n).
kprobe_wildcards() {
	local job=/tmp/kprobe_wildcards.sh
	cat > "$job" <<-EOS
		$CLIENTS/kcall 2 4 6
		echo "listed \$(grep -c 'kprobes_target_' /sys/kernel/debug/kprobes/list)"
	EOS
	load_kernel_target
	out=$(bpftrace "$@" -e 'kprobe:kprobes_target_* { @e[func] = count(); }
		kretprobe:kprobes_target_* { @r[func] = count(); @v[func] = sum(retval); }' \
		-c "/bin/bash $job" 2>&1)
	echo "$out"
	local f
	for f in kprobes_target_work kprobes_target_square; do
		[ "$(value "@e[$f]" "$out")" = 3 ] || fail "$f: expected 3 entries"
		[ "$(value "@r[$f]" "$out")" = 3 ] || fail "$f: expected 3 returns"
	done
	[ "$(value '@v[kprobes_target_work]' "$out")" = 59 ] ||
		fail "kprobes_target_work: expected returns summing to 59"
	[ "$(value '@v[kprobes_target_square]' "$out")" = 56 ] ||
		fail "kprobes_target_square: expected returns summing to 56"
}

# uprobe_wildcards [BPFTRACE OPTIONS]: entry and return probes on the
# library's lib_* and entry probes on the program's target_* around
# `target work 10`.  bpftrace 0.23 attaches a -c command's uprobes to
# that process alone, so the command is the program itself; maps are
# keyed by probe name (func of a process that has exited prints as an
# address).  The counts: lib_work and lib_twice 10 calls each,
# returning 175 and 110 in all; target_work 10 calls; target_tick,
# matched but not called, none.
uprobe_wildcards() {
	local l=uprobe:$LIBTARGET r=uretprobe:$LIBTARGET p=uprobe:$TARGET
	out=$(bpftrace "$@" -e "uprobe:$LIBTARGET:lib_* { @l[probe] = count(); }
		uretprobe:$LIBTARGET:lib_* { @v[probe] = sum(retval); }
		uprobe:$TARGET:target_* { @p[probe] = count(); }" -c "$TARGET work 10" 2>&1)
	echo "$out"
	[ "$(value "@l[$l:lib_work]" "$out")" = 10 ] || fail "lib_work: expected 10 calls"
	[ "$(value "@l[$l:lib_twice]" "$out")" = 10 ] || fail "lib_twice: expected 10 calls"
	[ "$(value "@v[$r:lib_work]" "$out")" = 175 ] || fail "lib_work: expected returns summing to 175"
	[ "$(value "@v[$r:lib_twice]" "$out")" = 110 ] || fail "lib_twice: expected returns summing to 110"
	[ "$(value "@p[$p:target_work]" "$out")" = 10 ] || fail "target_work: expected 10 calls"
	[ -z "$(value "@p[$p:target_tick]" "$out")" ] || fail "target_tick was never called"
}
