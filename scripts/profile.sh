#!/bin/bash
# `scripts/profile.sh KIND...`: where a probe hit spends its instructions,
# and its atomic read-modify-writes, by kernel function, for $VARIANT/$ARCH.  Boots the bench job twice under
# a QEMU TCG plugin that counts every guest instruction (bench/profile/):
# 100000 calls under the probe KIND and the same calls unprobed (one
# unprobed boot for all the uprobe kinds, one for the kprobe kinds), and
# prints the difference per call.  Uprobe kinds: entry, ret, entry+ret,
# step, pid (a process probe), or arm for the 100-process arming.  Kprobe kinds, from
# bench/kprobes_bench.c: kprobe:entry, kprobe:kretprobe, kprobe:body,
# kprobe:body_off (optimization off), kprobe:body_post, kprobe:two,
# kprobe:eight, kprobe:ret.  The plugin needs QEMU's qemu-plugin.h, which
# Debian ships only in the qemu source package: QEMU_PLUGIN_H names a
# copy, or it is fetched once into out/profile/ from the mirror apt uses.
#
# x86_64 counts another way.  The plugin's inline counters (QEMU
# scoreboards) corrupt an x86 guest under QEMU 10.0 with one host thread
# for the vCPUs: QEMU then folds the vCPU index into a TCG constant and
# multiplies that constant in place by the scoreboard's element size
# (gen_plugin_u64_ptr(), accel/tcg/plugin-gen.c), so on vCPU 1 the rest
# of a translation block sees the constant 1 as 0x80000.  The guest's
# `cld` stores it as EFLAGS.DF, the next `rep movsq` strides 4 MiB, and
# sync_regs() oopses on an unmapped cpu_entry_area page at the first
# entry from user space (with or without PTI, whatever -cpu model).  On
# x86_64 the plugin therefore runs with mode=cb: a plain per-instruction
# callback, which leaves the guest's code alone (about 30 s a boot
# rather than 10).  The x86 guests also run under -icount shift=0,
# sleep=off, so the boot's timing loops (TSC and delay calibration) run
# the same in both boots rather than per the plugin's slowdown, and the
# report is told where kprobes_bench.ko sat (bench/profile/report.py
# --module), so its functions are named; the optprobe detours, ftrace
# trampolines and kprobe slots show as "[outside vmlinux @PAGE]".
# arm64 keeps the inline counters and plain TCG timing.
set -euo pipefail
# One host thread for all vCPUs (which -icount needs).
export TCG_THREAD=single
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: scripts/profile.sh KIND... (entry|ret|entry+ret|step|pid|arm|kprobe:KIND)"
"$top/scripts/setup.sh" --bench
prof=$out/profile
mkdir -p "$prof"
qver=$(dpkg-query -W -f='${Version}' qemu-system-x86)
hdr=${QEMU_PLUGIN_H:-$prof/qemu-${qver#*:}/qemu-plugin.h}
if [ ! -f "$hdr" ]; then
	# The header of the QEMU that runs the guests (from backports, see
	# scripts/setup.sh): a plugin built against another one is refused.
	. "$top/scripts/apt-mirror.sh"
	log "fetching qemu-plugin.h from Debian's qemu $qver source package"
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	mirror=$(debian_mirror) || die "no Debian mirror in this machine's apt configuration"
	src=$prof/qemu-src
	rm -rf "$src"
	mkdir -p "$src/lists/partial"
	printf 'deb-src %s %s main\ndeb-src %s %s-backports main\n' \
		"$mirror" "$codename" "$mirror" "$codename" > "$src/sources.list"
	apt=(apt-get -qq -o "Dir::Etc::SourceList=$src/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$src/lists")
	"${apt[@]}" update
	# Only the upstream tarball is needed; a mirror may lack the backport's
	# Debian part.
	(cd "$src" && "${apt[@]}" source --download-only "qemu=$qver") || true
	ls "$src"/qemu_*.orig.tar.* >/dev/null 2>&1 ||
		die "could not fetch the qemu $qver source tarball"
	tar -xf "$src"/qemu_*.orig.tar.* -C "$src" --wildcards '*/include/qemu/qemu-plugin.h'
	mkdir -p "$(dirname "$hdr")"
	cp "$src"/qemu-*/include/qemu/qemu-plugin.h "$hdr"
	rm -rf "$src"
fi
gcc -O2 -Wall -shared -fPIC -I"$(dirname "$hdr")" $(pkg-config --cflags glib-2.0) -o "$prof/insnprof.so" \
	"$top/bench/profile/insnprof.c"

"$top/scripts/build.sh"
"$top/scripts/mkinitramfs.sh"
plugin_args=
timing=
report_args=()
if [ "$ARCH" = x86_64 ]; then
	plugin_args=,mode=cb
	timing="-icount shift=0,sleep=off"
	ko=$objtree/bench/kprobes_bench.ko
	[ -f "$ko" ] && report_args=(--module "$ko")
fi
# The plugin slows the guest down several times over on the wall clock:
# the hard-lockup watchdog would take an idle vCPU for a stuck one.
profile_boot() { # JOB KIND
	local f=$prof/$tag-$1-$2.txt
	QEMU_EXTRA="$timing -plugin $prof/insnprof.so,out=$f$plugin_args" \
		LOG_SUFFIX=-profile BOOT_TIMEOUT=1800 "$top/scripts/boot.sh" bench \
		tsc=reliable clocksource=tsc kunit.enable=0 nmi_watchdog=0 \
		bench_only=$1:"$2" ||
		die "the profiled guest did not finish (out/logs/$tag-profile.log)"
	grep -a 'BENCH-ERROR\|BENCH-INFO prof' "$out/logs/$tag-profile.log" | tr -d '\r' || true
}
# One unprobed boot per job (uprofile, kprofile) serves all its kinds.
based=
for k in "$@"; do
	job=uprofile kind=$k
	case "$k" in
	kprobe:*) job=kprofile kind=${k#kprobe:} ;;
	# The process probe: a target of its own, and its own baseline.
	pid) job=pprofile ;;
	esac
	case " $based " in *" $job "*) ;; *)
		profile_boot $job none
		based="$based $job"
		;;
	esac
	profile_boot $job "$kind"
	# PROFILE_SUMMARY=DIR: also a machine-readable summary per kind
	# (scripts/bench.sh reads them).
	sum=()
	[ -n "${PROFILE_SUMMARY:-}" ] &&
		mkdir -p "$PROFILE_SUMMARY" &&
		sum=(--summary "$PROFILE_SUMMARY/$job-$kind.txt")
	echo "== $k"
	python3 "$top/bench/profile/report.py" "${report_args[@]}" "${sum[@]}" \
		"$objtree/vmlinux" "$prof/$tag-$job-none.txt" \
		"$prof/$tag-$job-$kind.txt" 100000 "${PROFILE_MIN:-3}"
	echo "(per-instruction view: bench/profile/report.py --annotate" \
		"$objtree/vmlinux $prof/$tag-$job-$kind.txt 100000 FUNCTION)"
done
