#!/bin/bash
# Host side of the SystemTap cases: compile each script here for the
# kernel being tested (stap -r against its build tree), as a SystemTap
# user does for another machine; the guest only runs the result.
#
# SystemTap 4.8 (Debian 12) has two runtimes.  Its kernel-module runtime
# predates the kernel interfaces it builds on as 6.5 to 6.12 changed them
# (get_user_pages_remote, task_work, relay buffers, kallsyms walks, the
# *_noprof allocators, strlcpy) and fails to compile against 6.12, ours or
# upstream's alike.  Its BPF runtime (stapbpf) does not compile against the
# kernel at all and reaches the same kprobes and uprobes through perf
# events, so the cases use it.
#
# usage: build.sh OBJTREE ARCH PROGRAMS MODULES OUTDIR
# PROGRAMS and MODULES: the client programs and the kselftests' test
# modules, which the guest has at /harness/programs and /harness/modules.
# A script that does not compile leaves OUTDIR/<script>.log behind and no
# program; its case in the guest prints that log and fails.
set -uo pipefail
objtree=$1 arch=$2 progs=$3 mods=$4 outdir=$5
here=$(cd "$(dirname "$0")" && pwd)
command -v stap >/dev/null || { echo "systemtap: stap is not installed on the host"; exit 1; }

rm -rf "$outdir"
mkdir -p "$outdir"
# The scripts name the program and the module by their paths in the
# guest, so stap reads them through a sysroot laid out so (copies: stap
# resolves symbolic links, and one leading out is refused).
sysroot=$outdir/sysroot
mkdir -p "$sysroot/harness"
cp -a "$progs" "$sysroot/harness/programs"
cp -a "$mods" "$sysroot/harness/modules"

opts=(--runtime=bpf -r "$objtree" -p4 --sysroot="$sysroot")
[ "$arch" = arm64 ] && opts+=(-a arm64)
export SYSTEMTAP_DIR=$outdir/.systemtap

status=0
for stp in "$here"/*.stp; do
	name=$(basename "$stp" .stp)
	case "$name" in
	process_*) args=(/harness/programs/target) ;;
	*) args=(/harness/modules/kprobes_target.ko) ;;
	esac
	if (cd "$outdir" && stap "${opts[@]}" -m "$name" "$stp" "${args[@]}") \
		>"$outdir/$name.log" 2>&1; then
		rm -f "$outdir/$name.log"
		echo "systemtap: $name compiled"
	else
		echo "systemtap: $name does not compile for this kernel (see $outdir/$name.log)"
		status=1
	fi
done
rm -rf "$sysroot" "$SYSTEMTAP_DIR"
exit $status
