#!/bin/bash
# Host side of the SystemTap cases: compile each script here for the
# kernel being tested (stap -r against its build tree), as a SystemTap
# user does for another machine; the guest only runs the result.
#
# Two runtimes, two suites:
#  - this directory's scripts use the BPF runtime (stapbpf in the guest),
#    which reaches kprobes and uprobes through perf events;
#  - ../systemtap-module's use the kernel-module runtime (staprun in the
#    guest): generated C that calls register_kprobe(), register_kretprobe()
#    and the uprobe API itself, the oldest in-kernel user of both.
# The stap that compiles them is the guest release's own, so that what it
# writes is what the guest's stapbpf and staprun read: Debian 13's 5.1
# from scripts/hostenv.sh, or, for DEBIAN=bookworm, the host's 4.8, whose
# module runtime predates the interfaces 6.5 to 6.12 changed and does not
# build against 6.12 (ours or upstream's): that release gets the BPF
# suite only.
#
# usage: build.sh OBJTREE ARCH PROGRAMS MODULES OUTDIR
# PROGRAMS and MODULES: the client programs and the kselftests' test
# modules, which the guest has at /harness/programs and /harness/modules.
# Writes OUTDIR/bpf/<script>.bo and OUTDIR/module/<script>.ko; a script
# that does not compile leaves <script>.log there instead, and its case
# in the guest prints that log and fails.  Scripts named kernel_* read
# vmlinux's DWARF: for a kernel built without it they leave <script>.skip
# saying so, and their case skips (a "lean" entry in tests/clients/skip/).
set -uo pipefail
objtree=$1 arch=$2 progs=$3 mods=$4 outdir=$5
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

if [ "${DEBIAN:-trixie}" = bookworm ]; then
	command -v stap >/dev/null || { echo "systemtap: stap is not installed on the host"; exit 1; }
	stap=(stap)
	runtimes=(bpf)
else
	"$top/scripts/hostenv.sh" || { echo "systemtap: no Debian 13 environment for stap"; exit 1; }
	stap=("$top/scripts/hostenv.sh" run stap)
	runtimes=(bpf module)
fi

rm -rf "$outdir"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
# The scripts name the program and the module by their paths in the
# guest, so stap reads them through a sysroot laid out so (copies: stap
# resolves symbolic links, and one leading out is refused).
sysroot=$outdir/sysroot
mkdir -p "$sysroot/harness"
cp -a "$progs" "$sysroot/harness/programs"
cp -a "$mods" "$sysroot/harness/modules"
# stap reads the kernel's symbols from the sysroot's /boot (kprobe.function
# by name, and whether the kernel has uretprobes, are decided from them).
mkdir -p "$sysroot/boot"
cp "$objtree/System.map" "$sysroot/boot/System.map-$(cat "$objtree/include/config/kernel.release")"
export SYSTEMTAP_DIR=$outdir/.systemtap

common=(-r "$objtree" -p4 --sysroot="$sysroot")
# clang's arm64 location lists for a function's arguments start after its
# landing pad and patchable-entry nops, but stap puts a function probe at
# the function's first address, where no argument has a location: it
# must look past the prologue instead.
[ "$arch" = arm64 ] && common+=(-a arm64 --prologue-searching=always)
# What kbuild needs to build a module for this kernel in Debian 13's
# environment: the kernel's own compiler, Debian 12's gcc 12 for x86_64;
# for arm64 (LLVM=1, scripts/lib.sh) Debian 13's clang 19 through
# scripts/hostenv.sh's wrapper.  stap hides the compiler's name from
# kbuild (CC_VERSION_TEXT=foo), which then forgets clang's --target: the
# kernel's own text goes back.  clang 19 also warns about flags clang 14
# took, and, unlike gcc, does not take the runtime's comments for
# fall-through annotations; stap makes warnings errors.
if [ "${stap[0]}" != stap ]; then
	if grep -q '^CONFIG_CC_IS_CLANG=y' "$objtree/.config"; then
		cc_text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$objtree/.config")
		common+=(-B LLVM=1 -B CC=kernel-clang -B "CC_VERSION_TEXT=$cc_text"
			-B "KCFLAGS=-Wno-ignored-optimization-argument -Wno-implicit-fallthrough")
	else
		common+=(-B CC=gcc-12)
	fi
	[ "$arch" = arm64 ] && common+=(-B CROSS_COMPILE=aarch64-linux-gnu-)
fi

status=0
for runtime in "${runtimes[@]}"; do
	case $runtime in
	bpf) src=$here opts=(--runtime=bpf) ;;
	# SystemTap 5.1's module runtime looks up 6.11's uprobe_unregister()
	# by name when a module starts, whatever the script probes; 6.12
	# split it into uprobe_unregister_nosync() and _sync(), so every
	# module would refuse to start on either kernel.  Telling it the
	# function is exported skips the lookup; a script with process()
	# probes still does not build (their API changed too).
	module) src=$here/../systemtap-module opts=(-DSTAPCONF_UPROBE_UNREGISTER_EXPORTED) ;;
	esac
	mkdir -p "$outdir/$runtime"
	for stp in "$src"/*.stp; do
		name=$(basename "$stp" .stp)
		if [[ $name == kernel_* ]] &&
			! readelf -S "$objtree/vmlinux" | grep -q '\.debug_info'; then
			echo "vmlinux has no DWARF (make clients builds it with FLAVOR=debuginfo)" \
				>"$outdir/$runtime/$name.skip"
			echo "systemtap ($runtime): $name skipped: vmlinux has no DWARF"
			continue
		fi
		case "$name" in
		process_*) args=(/harness/programs/target) ;;
		*) args=(/harness/modules/kprobes_target.ko) ;;
		esac
		if (cd "$outdir/$runtime" &&
			"${stap[@]}" "${common[@]}" "${opts[@]}" -m "$name" "$stp" "${args[@]}") \
			>"$outdir/$runtime/$name.log" 2>&1; then
			rm -f "$outdir/$runtime/$name.log"
			echo "systemtap ($runtime): $name compiled"
		else
			echo "systemtap ($runtime): $name does not compile for this kernel (see $outdir/$runtime/$name.log)"
			status=1
		fi
	done
done
rm -rf "$sysroot" "$SYSTEMTAP_DIR"
exit $status
