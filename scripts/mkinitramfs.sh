#!/bin/bash
# Pack the guest's initramfs for $VARIANT/$ARCH/$FLAVOR: busybox, our init,
# the modules of the build (samples, test modules) and the kselftests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$objtree/modroot" ] || die "no modules installed; run the build first"
[ -x "$busybox" ] || die "no busybox at $busybox; run scripts/setup.sh"

# The kselftests are ours, so they come from the assembled tree whichever
# kernel they will run on.
testsrc=$out/ours/linux
assemble_ours >/dev/null
targets=$(grep -v '^#' "$top/tests/kselftests" | xargs)
ksft=$objtree/kselftest
rm -rf "$ksft"
# Test modules are built inside that (shared) source tree, and kbuild does
# not notice when only the kernel they are built against changed (another
# flavor with the same compiler flags): start them afresh then.
stamp=$testsrc/tools/testing/selftests/.harness-kdir
if [ "$(cat "$stamp" 2>/dev/null)" != "$objtree" ]; then
	find "$testsrc/tools/testing/selftests" -path '*/test_modules/*' \
		\( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name modules.order -o -name Module.symvers \) \
		-delete
	echo "$objtree" > "$stamp"
fi
if [ -n "$targets" ]; then
	# The test modules must be built by the kernel's own compiler.
	# FORCE_TARGETS: a test that fails to build fails the build, rather
	# than going missing and being reported as a skip in the guest.
	llvm=()
	[ "$TOOLCHAIN" = llvm ] && llvm=(LLVM=1)
	make -s -C "$testsrc/tools/testing/selftests" ARCH="$karch" \
		CROSS_COMPILE="$cross" "${llvm[@]}" O="$objtree/kselftest-build" \
		KDIR="$objtree" FORCE_TARGETS=1 \
		TARGETS="$targets" INSTALL_PATH="$ksft" install >/dev/null
fi

# The SystemTap client cases, compiled against this kernel and the test
# module just built, when the client programs are there (make clients,
# make check); a script that fails to compile fails its case.
if [ -d "$objtree/clients-programs" ]; then
	"$top/tests/clients/systemtap/build.sh" "$objtree" "$ARCH" \
		"$objtree/clients-programs" "$ksft/kprobes/test_modules" \
		"$objtree/clients-systemtap" || true
fi

root=$out/initramfs/$tag
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc/harness,proc,sys,dev,tmp,lib,tests}
cp "$busybox" "$root/bin/busybox"
# A hard link, not a symlink: /proc/<pid>/maps then names the shell
# /bin/sh, which ftracetest's uprobe test looks for to probe it.
ln "$root/bin/busybox" "$root/bin/sh"
cp "$top/scripts/guest/init" "$root/init"
cp "$top/scripts/guest/run.sh" "$root/etc/harness/run.sh"
cp "$top/scripts/guest/bench.sh" "$root/etc/harness/bench.sh"
cp "$top/scripts/guest/torture.sh" "$root/etc/harness/torture.sh"
cp "$top/scripts/guest/clients-boot.sh" "$root/etc/harness/clients-boot.sh"
# The client cases (make clients), with their programs and compiled
# SystemTap scripts when built.
mkdir -p "$root/clients"
cp -a "$top/tests/clients/." "$root/clients/"
rm -rf "$root/clients/programs"
[ -d "$objtree/clients-programs" ] && cp -a "$objtree/clients-programs" "$root/clients/programs"
rm -rf "$root/clients/systemtap-programs" "$root/clients/systemtap-modules"
[ -d "$objtree/clients-systemtap/bpf" ] &&
	cp -a "$objtree/clients-systemtap/bpf" "$root/clients/systemtap-programs"
[ -d "$objtree/clients-systemtap/module" ] &&
	cp -a "$objtree/clients-systemtap/module" "$root/clients/systemtap-modules"
# Debian 12's SystemTap has no module runtime that builds against 6.12
# (tests/clients/systemtap/build.sh): its guest runs the BPF suite only.
[ "$DEBIAN" = bookworm ] && rm -rf "$root/clients/systemtap-module"
if [ -f "$objtree/bench/kprobes_bench.ko" ]; then
	mkdir -p "$root/bench"
	cp "$objtree/bench/kprobes_bench.ko" "$root/bench/"
	[ -f "$objtree/bench/upid_bench.ko" ] && cp "$objtree/bench/upid_bench.ko" "$root/bench/"
	# The uprobe benchmark's program (static: the guest has no libc).
	${cross}gcc -static -pthread -O2 -Wall -o "$root/bench/ubench" "$top/bench/ubench.c" ||
		exit 1
fi
grep -v '^#' "$top/tests/kselftest-ktap" > "$root/etc/harness/kselftest-ktap" || true
cp -a "$objtree/modroot/lib/modules" "$root/lib/"
[ -d "$ksft" ] && cp -a "$ksft" "$root/tests/kselftest"

# KUnit suites built as modules: load the ones this build has.
: > "$root/etc/harness/kunit-modules"
for m in $(grep -v '^#' "$top/tests/kunit-modules" | xargs); do
	if find "$root/lib/modules" -name "$m.ko*" | grep -q .; then
		echo "$m" >> "$root/etc/harness/kunit-modules"
	fi
done

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$out/initramfs/$tag.cpio.gz"
log "initramfs: $(du -h "$out/initramfs/$tag.cpio.gz" | cut -f1)"
