#!/bin/bash
# Boot the $VARIANT/$ARCH/$FLAVOR kernel in QEMU (TCG) with its initramfs.
# usage: boot.sh check|bench|clients|run|shell|debian [extra kernel args...]
# check, bench: console to out/logs/<tag>.log, hard timeout BOOT_TIMEOUT seconds.
# run:   the same, echoed to the terminal.
# shell, debian: interactive (busybox, or the Debian root); Ctrl-A X leaves QEMU.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

job=${1:-check}
shift || true
kernel=$objtree/$image_rel
initrd=$out/initramfs/$tag.cpio.gz
[ -f "$kernel" ] || die "no kernel at $kernel"
[ -f "$initrd" ] || die "no initramfs at $initrd"

timeout_s=${BOOT_TIMEOUT:-600}
# The lockup detectors' threshold: 30 s (a soft lockup at 60 s) is far
# beyond what a busy TCG guest stalls by itself, and a real lockup still
# shows long before the boot's own timeout.
append="console=$console log_buf_len=8M panic=-1 oops=panic watchdog_thresh=30"
append="$append harness=$job $kernel_args $*"
# `make run` shows what the samples print, not the boot log.
[ "$job" = run ] && append="$append quiet"
qemu=("${qemu_cmd[@]}" -smp 2 -m 2G -no-reboot -kernel "$kernel"
	-initrd "$initrd" -append "$append" ${QEMU_EXTRA:-})
# The client guest's Debian root (scripts/mkrootfs.sh), read-only: the
# guest puts a tmpfs over it.
if [ "$job" = clients ] || [ "$job" = debian ]; then
	rootfs=$out/rootfs/$ARCH-$debian_suite.ext4
	[ -f "$rootfs" ] || die "no Debian root at $rootfs; run scripts/mkrootfs.sh"
	qemu+=(-drive "file=$rootfs,if=none,id=rootfs,format=raw,readonly=on"
		-device "$blk_device,drive=rootfs")
fi

mkdir -p "$out/logs"
logf=$out/logs/$tag${LOG_SUFFIX:-}.log
case "$job" in
shell | debian)
	exec "${qemu[@]}" -nographic
	;;
check | bench | clients)
	log "booting ($job), console log in ${logf#$top/}"
	timeout -k 10 "$timeout_s" "${qemu[@]}" -display none -monitor none \
		-serial stdio </dev/null >"$logf" 2>&1
	rc=$?
	;;
*)
	timeout -k 10 "$timeout_s" "${qemu[@]}" -display none -monitor none \
		-serial stdio </dev/null 2>&1 | tee "$logf"
	rc=${PIPESTATUS[0]}
	;;
esac
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "[$tag] TIMEOUT: guest still running after ${timeout_s}s" | tee -a "$logf"
	exit 1
fi
grep -q "^HARNESS-DONE" "$logf" || { log "guest did not finish (see $logf)"; exit 1; }
exit 0
