#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hostile arguments to the registration calls, made from inside the
# kernel: the kprobes_hostile module feeds register_kprobe(),
# register_kprobes(), register_kretprobe() and uprobe_register() missing,
# contradictory and out-of-range targets, flags and sizes, and prints one
# "<class> <case> -> <ok|ERRNO>" line per attempt.  The lines are shown as
# comments so that two kernels' runs can be diffed.  The test fails when
# the module reports a FAIL (a probe that took did not fire once, a batch
# that failed left a probe behind or firing, a probed function returned a
# wrong value), when the kernel logs a warning meanwhile, or when the
# debugfs list of probes is longer afterwards, and when the lines differ
# from every set committed for this kernel and arch: an answer that
# changes, even from one refusal to another, is a change to review, and
# then to commit.  hostile_args-<ours|upstream>-<uname -m>.txt holds the
# answers of the project config; a config whose code generation moves
# the instructions the byte sweeps meet (x86_64_defconfig's IBT landing
# pads and return thunks) or the layout of this test's module (arm64's
# defconfig: kph_add3+0x1000 falls past the module's text onto memory
# kallsyms names, -EINVAL, not onto none, -ENOENT) has its own,
# hostile_args-...-<uname -m>-<tag>.txt.
# HOSTILE_UPDATE=1 writes the first file instead of comparing,
# HOSTILE_UPDATE=<tag> the tagged one.
# HOSTILE_WAIT bounds the wait for the sweep, in seconds (default 100).
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
MOD=kprobes_hostile
KO="$(dirname "$0")/test_modules/$MOD.ko"
[ -f "$KO" ] || ksft_skip "$KO was not built"
# The uprobe cases probe the uprobes selftests' uprobe_target.
PROG=$(cd "$(dirname "$0")" && pwd)/../uprobes/uprobe_target
WAIT=${HOSTILE_WAIT:-100}
PATTERN='WARNING:|BUG:|Oops|KASAN|UBSAN|refcount_t|suspected memory leak'
PATTERN="$PATTERN|list_add corruption|list_del corruption|inconsistent lock state"

rmmod $MOD 2>/dev/null
# The module checks that what registers fires, which takes armed probes.
knob=$(cat "$KPROBES_DIR/enabled")
[ "$knob" = 1 ] || echo 1 > "$KPROBES_DIR/enabled"
restore() { [ "$knob" = 1 ] || echo "$knob" > "$KPROBES_DIR/enabled"; }
fail() { restore; ksft_fail "$*"; }

listed=$(wc -l < "$KPROBES_DIR/list")

# Everything the kernel logs from here on belongs to this run.
MARK="kselftest kprobes hostile_args: start $$"
if echo "$MARK" > /dev/kmsg 2>/dev/null; then
	since() { dmesg | awk -v m="$MARK" 'f { print } index($0, m) { f = 1 }'; }
else
	from=$(($(dmesg | wc -l) + 1))
	since() { dmesg | tail -n +"$from"; }
fi

# Our kernel refuses, quietly, what 6.12 answers with a WARN or by linking
# a probe twice: only there are those cases asked for (the symbol is one
# only our core has).
extra=
variant=upstream
if grep -q ' kprobe_site_pre_handlers$' /proc/kallsyms; then
	extra="warn_cases=1 unsafe_cases=1"
	variant=ours
fi
expected="$(dirname "$0")/hostile_args-$variant-$(uname -m).txt"
if [ -x "$PROG" ]; then
	insmod "$KO" uprobe_path="$PROG" $extra || fail "cannot load $KO (see dmesg)"
else
	echo "# no $PROG: the uprobe cases are skipped"
	insmod "$KO" $extra || fail "cannot load $KO (see dmesg)"
fi

waited=0
until since | grep -q "$MOD: done "; do
	# Unloading waits for the sweep, so a stuck one stays loaded.
	[ "$waited" -lt "$WAIT" ] ||
		fail "no done line from $MOD after ${WAIT}s (left loaded): $(since | tail -n 3)"
	sleep 1
	waited=$((waited + 1))
done
rmmod $MOD || fail "cannot unload $MOD"
restore

# The module loader's taint notice carries the module's name too, but
# only when this is the boot's first out-of-tree module: not an answer.
since | grep "$MOD: " | grep -v "$MOD: loading out-of-tree module" |
	sed "s/.*$MOD: //" > /tmp/hostile_args.txt
sed 's/^/# /' /tmp/hostile_args.txt

fails=$(since | grep -c "$MOD: FAIL")
[ "$fails" = 0 ] || ksft_fail "$fails failed checks (see the FAIL lines above)"
warned=$(since | grep -E "$PATTERN")
[ -z "$warned" ] ||
	ksft_fail "the kernel complained: $(echo "$warned" | head -n 3)"
now=$(wc -l < "$KPROBES_DIR/list")
[ "$now" -le "$listed" ] ||
	ksft_fail "$KPROBES_DIR/list grew from $listed to $now lines: $(cat "$KPROBES_DIR/list")"
case "${HOSTILE_UPDATE:-0}" in
0) ;;
1) cp /tmp/hostile_args.txt "$expected" ;;
*) cp /tmp/hostile_args.txt "${expected%.txt}-$HOSTILE_UPDATE.txt" ;;
esac
[ -f "$expected" ] || ksft_fail "no $expected to compare the answers with"
matched=
for set in "$expected" "${expected%.txt}"-*.txt; do
	[ -f "$set" ] || continue
	if cmp -s "$set" /tmp/hostile_args.txt; then
		matched=$set
		break
	fi
done
if [ -z "$matched" ]; then
	diff -u "$expected" /tmp/hostile_args.txt | sed 's/^/# /'
	ksft_fail "the answers differ from $(basename "$expected") (diff above)" \
		"and from every other set for this arch"
fi
echo "# the answers are $(basename "$matched")'s"
ksft_pass "$(since | grep "$MOD: done " | tail -n 1 | sed "s/.*$MOD: done //")"
