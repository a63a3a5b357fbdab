#!/bin/bash
# `scripts/profile.sh KIND`: where a probe hit spends its instructions,
# by kernel function, for $VARIANT/$ARCH.  Boots the bench job twice under
# a QEMU TCG plugin that counts every guest instruction (bench/profile/):
# 100000 calls under the probe KIND and the same calls unprobed, and
# prints the difference per call.  Uprobe kinds: entry, ret, entry+ret,
# step, or arm for the 100-process arming.  Kprobe kinds, from
# bench/kprobes_bench.c: kprobe:entry, kprobe:kretprobe, kprobe:body,
# kprobe:body_off (optimization off), kprobe:body_post, kprobe:two,
# kprobe:eight, kprobe:ret.  The plugin needs QEMU's qemu-plugin.h, which
# Debian ships only in the qemu source package: QEMU_PLUGIN_H names a
# copy, or it is fetched once into out/profile/ from the mirror apt uses.
set -euo pipefail
# Guest time counts instructions (-icount), one host thread for all vCPUs.
export TCG_THREAD=single
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: scripts/profile.sh entry|ret|entry+ret|step|arm|kprobe:KIND}
only=uprofile
case "$kind" in kprobe:*) only=kprofile kind=${kind#kprobe:} ;; esac
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
# The plugin slows the guest down several times over on the wall clock:
# the hard-lockup watchdog would take an idle vCPU for a stuck one.
for k in none "$kind"; do
	f=$prof/$tag-$only-$k.txt
	QEMU_EXTRA="-plugin $prof/insnprof.so,out=$f" \
		LOG_SUFFIX=-profile BOOT_TIMEOUT=1800 "$top/scripts/boot.sh" bench \
		tsc=reliable clocksource=tsc kunit.enable=0 nmi_watchdog=0 \
		bench_only=$only:"$k" ||
		die "the profiled guest did not finish (out/logs/$tag-profile.log)"
	grep -a 'BENCH-ERROR\|BENCH-INFO prof' "$out/logs/$tag-profile.log" | tr -d '\r' || true
done
python3 "$top/bench/profile/report.py" "$objtree/vmlinux" "$prof/$tag-$only-none.txt" \
	"$prof/$tag-$only-$kind.txt" 100000 "${PROFILE_MIN:-3}"
echo "(per-instruction view: bench/profile/report.py --annotate" \
	"$objtree/vmlinux $prof/$tag-$only-$kind.txt 100000 FUNCTION)"
