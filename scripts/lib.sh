# Common settings for the harness scripts; sourced, not run.
# Inputs (environment): ARCH (x86_64|arm64), VARIANT (ours|upstream),
# FLAVOR (default|debug|preempt|kcsan|debuginfo|defconfig|bench), TOOLCHAIN (gcc|llvm; default per arch),
# DEBIAN (trixie|bookworm): the client guest's release.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$top/out}
ARCH=${ARCH:-x86_64}
VARIANT=${VARIANT:-ours}
FLAVOR=${FLAVOR:-default}
JOBS=${JOBS:-$(nproc)}
# The client guest's Debian release (scripts/mkrootfs.sh): Debian 13,
# whose tools are the ones people run against 6.12, or Debian 12's older
# set, still checked on demand (make clients DEBIAN=bookworm).
DEBIAN=${DEBIAN:-trixie}
case "$DEBIAN" in
trixie | bookworm) ;;
*)
	echo "harness: DEBIAN must be trixie or bookworm, not '$DEBIAN'" >&2
	exit 2
	;;
esac
debian_suite=$DEBIAN

# Each vCPU gets its own host thread (TCG_THREAD=multi), so the race tests
# and torture run on CPUs that really overlap.  QEMU 7.2 could keep running
# a translation of text another vCPU had just patched, which is why the
# harness wants QEMU 10 (scripts/setup.sh).  Measurements take turns on
# one thread (TCG_THREAD=single): -icount needs it, and a benchmark must not
# depend on how the host schedules two threads.
TCG_THREAD=${TCG_THREAD:-multi}
case "$TCG_THREAD" in
single | multi) ;;
*)
	echo "harness: TCG_THREAD must be single or multi, not '$TCG_THREAD'" >&2
	exit 2
	;;
esac

case "$ARCH" in
x86_64)
	karch=x86
	cross=
	image_rel=arch/x86/boot/bzImage
	qemu_cmd=(qemu-system-x86_64 -M pc -cpu max -accel tcg,thread=$TCG_THREAD)
	kernel_args=
	blk_device=virtio-blk-pci
	console=ttyS0
	busybox=/bin/busybox
	;;
arm64)
	karch=arm64
	cross=aarch64-linux-gnu-
	image_rel=arch/arm64/boot/Image
	# A virtio RNG: reading /dev/hwrng raises device interrupts, which
	# go through handle_irq_event() (lkdtm's kprobe crash point); the
	# pl011 drains its FIFO without one.  Its entropy thread stays off
	# (rng_core.default_quality=0) so it cannot disturb the benchmarks.
	qemu_cmd=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg,thread=$TCG_THREAD
		-device virtio-rng-device)
	kernel_args="rng_core.default_quality=0"
	blk_device=virtio-blk-device
	console=ttyAMA0
	busybox=$out/sysroot/arm64/bin/busybox
	;;
*)
	echo "harness: ARCH must be x86_64 or arm64, not '$ARCH'" >&2
	exit 2
	;;
esac

# arm64 builds with clang by default: the kernel's BTI (ARM64_BTI_KERNEL)
# needs it, and probes must cope with guarded text.  x86_64 builds with
# gcc, so both compilers see our code on every run.
case "$ARCH" in
arm64) TOOLCHAIN=${TOOLCHAIN:-llvm} ;;
*) TOOLCHAIN=${TOOLCHAIN:-gcc} ;;
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
debug | preempt | kcsan | debuginfo | defconfig) tag=$VARIANT-$ARCH-$FLAVOR ;;
bench)
	# One config for both variants (scripts/mkconfig.sh): upstream's
	# default build already is that config, ours is built without its
	# test suites.
	tag=$VARIANT-$ARCH
	[ "$VARIANT" = ours ] && tag=$tag-bench
	;;
*)
	echo "harness: FLAVOR must be default, debug, preempt, kcsan, debuginfo, defconfig or bench, not '$FLAVOR'" >&2
	exit 2
	;;
esac

case "$TOOLCHAIN" in
gcc | llvm) ;;
*)
	echo "harness: TOOLCHAIN must be gcc or llvm, not '$TOOLCHAIN'" >&2
	exit 2
	;;
esac
# The arch's usual toolchain keeps the plain tag; the other one is marked.
default_toolchain=gcc
[ "$ARCH" = arm64 ] && default_toolchain=llvm
[ "$TOOLCHAIN" = "$default_toolchain" ] || tag=$tag-$TOOLCHAIN

# OBJTREE: a build of its own outside out/build (scripts/matrix.sh).
objtree=${OBJTREE:-$out/build/$tag}
# ccache makes rebuilds take seconds, but on a miss it preprocesses each
# file a second time: CI starts with an empty cache and only pays that.
cc_cache="ccache "
[ "${CI:-}" = true ] && cc_cache=
if [ "$TOOLCHAIN" = llvm ]; then
	kmake=(make -s -C "$srctree" O="$objtree" ARCH="$karch" LLVM=1
		CC="${cc_cache}clang" HOSTCC="${cc_cache}clang" -j"$JOBS")
else
	kmake=(make -s -C "$srctree" O="$objtree" ARCH="$karch" CROSS_COMPILE="$cross"
		CC="${cc_cache}${cross}gcc" HOSTCC="${cc_cache}gcc" -j"$JOBS")
fi

# Bring out/ours/linux up to date with linux/, base/removed-files and
# base/patches/ (see scripts/assemble.py).
assemble_ours() {
	python3 "$top/scripts/assemble.py" --base "$out/base/linux" \
		--overlay "$top/linux" --removed "$top/base/removed-files" \
		--patches "$top/base/patches" --dest "$out/ours/linux"
}

log() { echo "[$tag] $*"; }
die() { echo "[$tag] error: $*" >&2; exit 1; }

# The Kconfig fragments of $ARCH/$VARIANT/$FLAVOR, one a line, in the order
# they apply (later lines win).
config_fragments() {
	local c=$top/configs
	echo "$c/common.config"
	echo "$c/$ARCH.config"
	case "$FLAVOR" in
	debug)
		echo "$c/debug.config"
		[ -f "$c/debug-$ARCH.config" ] && echo "$c/debug-$ARCH.config"
		;;
	preempt | kcsan | debuginfo | defconfig) echo "$c/$FLAVOR.config" ;;
	esac
	[ -f "$c/$ARCH-$TOOLCHAIN.config" ] && echo "$c/$ARCH-$TOOLCHAIN.config"
	# Our own test suites exist only in our tree; the benchmark builds
	# both variants from one config, so it leaves them out.
	[ "$VARIANT" = ours ] && [ "$FLAVOR" != bench ] && echo "$c/ours.config"
	# A transition fragment turns features off for one variant/arch while
	# a port is missing; the options it waives are reported, not failed.
	[ -f "$c/transition/$VARIANT-$ARCH.config" ] && echo "$c/transition/$VARIANT-$ARCH.config"
	return 0
}

# check_config FRAGMENT DOTCONFIG: every option FRAGMENT sets (but those
# it waives with "# waive CONFIG_X") must have that value in DOTCONFIG;
# names each one that does not and fails.
check_config() {
	local frag=$1 dotconfig=$2 bad=0 line opt got waived
	waived=" $(sed -n 's/^# waive //p' "$frag" | xargs) "
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			opt=${line%%=*}
			case "$waived" in *" $opt "*) continue ;; esac
			if ! grep -qx -- "$line" "$dotconfig"; then
				got=$(grep -E "^(# )?$opt[= ]" "$dotconfig" || echo "$opt absent")
				echo "[$tag] config: wanted $line, got: $got" >&2
				bad=1
			fi
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			if grep -q "^$opt=" "$dotconfig"; then
				echo "[$tag] config: wanted $opt off, but it is on" >&2
				bad=1
			fi
			;;
		esac
	done < "$frag"
	return $bad
}
