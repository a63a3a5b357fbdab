#!/bin/bash
# `make clients`: boot $VARIANT's kernel on the Debian root for each arch in
# ARCHES and run the client cases (tests/clients/: bpftrace, perf,
# trace-cmd, ...), then one verdict over all of it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# prepare ARCH: kernel, Debian root, the programs the cases probe (for
# the guest's libc: Debian's, the release of the host and its cross
# toolchain) and the initramfs.
prepare() {
	local a=$1 t cc progs
	t=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
	ARCH=$a "$top/scripts/build.sh" || { echo "   FAIL build of $VARIANT $a"; return 1; }
	ARCH=$a "$top/scripts/mkrootfs.sh" || { echo "   FAIL Debian root of $a"; return 1; }
	cc=gcc
	[ "$a" = arm64 ] && cc=aarch64-linux-gnu-gcc
	progs=$out/build/$t/clients-programs
	# sys/sdt.h is arch-independent, but Debian installs it under the
	# host's multiarch directory only: give the cross compiler a copy.
	mkdir -p "$progs/include/sys"
	cp /usr/include/*-linux-gnu/sys/sdt.h /usr/include/*-linux-gnu/sys/sdt-config.h \
		"$progs/include/sys/"
	make -s -C "$top/tests/clients/programs" CC="$cc" O="$progs" \
		EXTRA_CFLAGS="-I$progs/include" ||
		{ echo "   FAIL client programs for $a"; return 1; }
	ARCH=$a "$top/scripts/mkinitramfs.sh" ||
		{ echo "   FAIL initramfs of $VARIANT $a"; return 1; }
}

# `make debian-shell`: the same guest, interactive.
if [ "${1:-}" = shell ]; then
	prepare "$ARCH" || exit 1
	exec "$top/scripts/boot.sh" debian
fi

ARCHES=${ARCHES:-x86_64 arm64}
extra=0
t0=$(date +%s)
specs=()
for a in $ARCHES; do
	echo "== clients: $VARIANT $a"
	t=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
	if ! prepare "$a"; then
		extra=$((extra + 1))
		continue
	fi
	ARCH=$a LOG_SUFFIX=-clients BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200} \
		"$top/scripts/boot.sh" clients || true
	specs+=("$VARIANT $a clients:$out/logs/$t-clients.log:$top/tests/clients/expect/$a")
done

echo "== client results ($(($(date +%s) - t0)) s)"
python3 "$top/scripts/verdict.py" --extra-failed "$extra" "${specs[@]}"
