# Common settings for the harness scripts; sourced, not run.
# Inputs (environment): ARCH (x86_64|arm64), VARIANT (ours|upstream),
# FLAVOR (default|debug|preempt).

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$top/out}
ARCH=${ARCH:-x86_64}
VARIANT=${VARIANT:-ours}
FLAVOR=${FLAVOR:-default}
JOBS=${JOBS:-$(nproc)}

# One host thread runs both vCPUs (thread=single).  With a thread per vCPU,
# QEMU 7.2 can keep a translation of code that another vCPU rewrote while
# it was being translated, and then runs the old bytes forever: a CPU
# trapped again and again on a breakpoint already gone from memory, seen
# in kprobes_race under FLAVOR=preempt.  Real CPUs refetch after the
# serialising IPI that text patching sends; TCG does not.  The windows the
# race tests need are held open by spinning handlers, not by timing, so
# they hold just as well with the vCPUs taking turns.
case "$ARCH" in
x86_64)
	karch=x86
	cross=
	image_rel=arch/x86/boot/bzImage
	qemu_cmd=(qemu-system-x86_64 -M pc -cpu max -accel tcg,thread=single)
	console=ttyS0
	busybox=/bin/busybox
	;;
arm64)
	karch=arm64
	cross=aarch64-linux-gnu-
	image_rel=arch/arm64/boot/Image
	qemu_cmd=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg,thread=single)
	console=ttyAMA0
	busybox=$out/sysroot/arm64/bin/busybox
	;;
*)
	echo "harness: ARCH must be x86_64 or arm64, not '$ARCH'" >&2
	exit 2
	;;
esac

case "$VARIANT" in
ours) srctree=$out/ours/linux ;;
upstream) srctree=$out/base/linux ;;
*)
	echo "harness: VARIANT must be ours or upstream, not '$VARIANT'" >&2
	exit 2
	;;
esac

case "$FLAVOR" in
default) tag=$VARIANT-$ARCH ;;
debug | preempt) tag=$VARIANT-$ARCH-$FLAVOR ;;
*)
	echo "harness: FLAVOR must be default, debug or preempt, not '$FLAVOR'" >&2
	exit 2
	;;
esac

objtree=$out/build/$tag
kmake=(make -s -C "$srctree" O="$objtree" ARCH="$karch" CROSS_COMPILE="$cross"
	CC="ccache ${cross}gcc" HOSTCC="ccache gcc" -j"$JOBS")

# Bring out/ours/linux up to date with linux/, base/removed-files and
# base/patches/ (see scripts/assemble.py).
assemble_ours() {
	python3 "$top/scripts/assemble.py" --base "$out/base/linux" \
		--overlay "$top/linux" --removed "$top/base/removed-files" \
		--patches "$top/base/patches" --dest "$out/ours/linux"
}

log() { echo "[$tag] $*"; }
die() { echo "[$tag] error: $*" >&2; exit 1; }
