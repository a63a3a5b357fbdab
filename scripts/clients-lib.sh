# The client guest's steps, shared by clients.sh (`make clients`) and
# check.sh (`make check` runs the client cases after each arch's tests).
# Sourced after lib.sh; every function takes the arch and runs the
# per-arch scripts with ARCH set, as check.sh does.

# clients_tag ARCH: the build tag of $VARIANT/$FLAVOR on ARCH.
clients_tag() {
	ARCH=$1 bash -c ". '$top/scripts/lib.sh' && echo \$tag"
}

# clients_prepare ARCH: with ARCH's kernel built, the Debian root, the
# programs the cases probe (built for the guest's libc: Debian's, the
# release of the host and its cross toolchain).  The initramfs is made
# afterwards: it carries them, and compiles the SystemTap scripts once
# the test module they probe is built.
clients_prepare() {
	local a=$1 cc progs
	progs=$out/build/$(clients_tag "$a")/clients-programs
	ARCH=$a "$top/scripts/mkrootfs.sh" || { echo "   FAIL Debian root of $a"; return 1; }
	cc=gcc
	[ "$a" = arm64 ] && cc=aarch64-linux-gnu-gcc
	# sys/sdt.h is arch-independent, but Debian installs it under the
	# host's multiarch directory only: give the cross compiler a copy.
	mkdir -p "$progs/include/sys"
	cp /usr/include/*-linux-gnu/sys/sdt.h /usr/include/*-linux-gnu/sys/sdt-config.h \
		"$progs/include/sys/"
	make -s -C "$top/tests/clients/programs" CC="$cc" O="$progs" \
		EXTRA_CFLAGS="-I$progs/include" ||
		{ echo "   FAIL client programs for $a"; return 1; }
}

# The client boot of a release other than the default (Debian 13) has
# its own log (-clients-bookworm) and expectations (tests/clients/expect/
# bookworm-ARCH, with xfail/ and skip/ files of the same name).
clients_release=
[ "$DEBIAN" = trixie ] || clients_release=$DEBIAN

# clients_spec ARCH: the verdict spec of ARCH's client boot.  A kernel
# without BTF (every flavor but debuginfo's) is "lean" in the label: the
# skip lists' "lean" entries, the cases that need the kernel's DWARF or
# BTF, apply to it alone.
clients_spec() {
	local n=$1 tag log lean=
	[ -n "$clients_release" ] && n=$clients_release-$1
	tag=$(clients_tag "$1")
	log=$out/logs/$tag-clients${clients_release:+-$clients_release}.log
	grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$out/build/$tag/.config" 2>/dev/null || lean=" lean"
	echo "$VARIANT $n clients$lean:$log:$top/tests/clients/expect/$n"
}

# clients_run ARCH: boot ARCH's kernel on the Debian root and run the
# cases; the verdict reads the console log (clients_spec).  The built-in
# KUnit suites stay off: `make check` runs them in its own boot.  Under
# the debug flavor's checks a tool's start-up alone (BCC compiling its
# program) can take minutes: each case gets four times the usual bound.
clients_run() {
	local slow=
	[ "${FLAVOR:-default}" = debug ] && slow=harness.case_timeout=1200
	ARCH=$1 LOG_SUFFIX=-clients${clients_release:+-$clients_release} BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200} \
		"$top/scripts/boot.sh" clients kunit.enable=0 $slow >&2 || true
}

# clients_boot ARCH: clients_run, then print the spec.
clients_boot() {
	clients_run "$1"
	clients_spec "$1"
}
