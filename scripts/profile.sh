#!/bin/bash
# `scripts/profile.sh KIND`: where a uprobe hit spends its instructions,
# by kernel function, for $VARIANT/$ARCH.  Boots the bench job twice under
# a QEMU TCG plugin that counts every guest instruction (bench/profile/):
# 100000 calls under the probe KIND (entry, ret, entry+ret, step, or arm
# for the 100-process arming) and the same calls unprobed, and prints the
# difference per call.  The plugin needs QEMU's qemu-plugin.h, which
# Debian ships only in the qemu source package: QEMU_PLUGIN_H names a
# copy, or it is fetched from Debian's archive once into out/profile/.
set -euo pipefail
# Guest time counts instructions (-icount), one host thread for all vCPUs.
export TCG_THREAD=single
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: scripts/profile.sh entry|ret|entry+ret|step|arm}
prof=$out/profile
mkdir -p "$prof"
hdr=${QEMU_PLUGIN_H:-$prof/qemu/qemu-plugin.h}
if [ ! -f "$hdr" ]; then
	log "fetching qemu-plugin.h from Debian's qemu source package"
	src=$prof/qemu-src
	rm -rf "$src"
	mkdir -p "$src/lists/partial"
	echo "deb-src http://deb.debian.org/debian bookworm main" > "$src/sources.list"
	apt=(apt-get -qq -o "Dir::Etc::SourceList=$src/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$src/lists")
	"${apt[@]}" update
	(cd "$src" && "${apt[@]}" source --download-only qemu)
	tar -xf "$src"/qemu_*.orig.tar.* -C "$src" --wildcards '*/include/qemu/qemu-plugin.h'
	mkdir -p "$(dirname "$hdr")"
	cp "$src"/qemu-*/include/qemu/qemu-plugin.h "$hdr"
	rm -rf "$src"
fi
gcc -O2 -Wall -shared -fPIC -I"$(dirname "$hdr")" -o "$prof/insnprof.so" \
	"$top/bench/profile/insnprof.c"

"$top/scripts/build.sh"
"$top/scripts/mkinitramfs.sh"
for k in none "$kind"; do
	QEMU_EXTRA="-plugin $prof/insnprof.so,out=$prof/$tag-$k.txt" \
		LOG_SUFFIX=-profile BOOT_TIMEOUT=1800 "$top/scripts/boot.sh" bench \
		tsc=reliable clocksource=tsc kunit.enable=0 bench_only=uprofile:"$k" ||
		die "the profiled guest did not finish (out/logs/$tag-profile.log)"
done
python3 "$top/bench/profile/report.py" "$objtree/vmlinux" "$prof/$tag-none.txt" \
	"$prof/$tag-$kind.txt" 100000 "${PROFILE_MIN:-3}"
echo "(per-instruction view: bench/profile/report.py --annotate" \
	"$objtree/vmlinux $prof/$tag-$kind.txt 100000 FUNCTION)"
