#!/bin/bash
# Idempotent host setup: install whatever the harness needs from Debian's
# archive and unpack the pinned base kernel once.  Safe to run before every
# target; when everything is in place it only does a few dpkg queries.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/base/base.conf"
. "$top/scripts/apt-mirror.sh"
out=${OUT:-$top/out}
export DEBIAN_FRONTEND=noninteractive

# The last line is for the client guest (make clients, make check): its
# root image, the USDT header for its programs, stap, which compiles the
# SystemTap cases against the kernel under test, and pahole, which makes
# the BTF of `make clients`' kernel (configs/debuginfo.config).
host_packages="build-essential flex bison bc libelf-dev libssl-dev cpio rsync patch
	kmod ccache gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	busybox-static python3 xz-utils gzip git perl clang lld llvm
	mmdebstrap e2fsprogs systemtap-sdt-dev systemtap dwarves"
# `make bench` also draws its chart, and scripts/profile.sh builds a QEMU
# plugin (QEMU's plugin header includes glib's).
[ "${1:-}" = --bench ] && host_packages="$host_packages gnuplot-nox libglib2.0-dev pkg-config"
# `make docs` builds Documentation/trace with Sphinx.
[ "${1:-}" = --docs ] && host_packages="$host_packages python3-sphinx python3-yaml"

sudo_if_needed() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# QEMU comes from the release's backports suite: 7.2's multi-threaded TCG
# can keep running a translation of text another vCPU has just patched,
# so race tests there only ran with the vCPUs taking turns.  The suite is
# added with the mirror the machine already uses for its own release
# (read from its apt configuration, never written into the tree).
qemu_min=10
qemu_packages="qemu-system-x86 qemu-system-arm"

# Major version of an installed package, or 0.
pkg_major() {
	local v
	v=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null |
		sed -n 's/^install ok installed \([0-9]*:\)\?\([0-9]*\)\..*/\2/p')
	echo "${v:-0}"
}

qemu_major() {
	local p m low=999
	for p in $qemu_packages; do
		m=$(pkg_major "$p")
		[ "$m" -lt "$low" ] && low=$m
	done
	echo "$low"
}

if [ "$(qemu_major)" -lt "$qemu_min" ]; then
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	bpo_list=/etc/apt/sources.list.d/probes-harness-backports.sources
	if [ -n "$codename" ] && [ ! -f "$bpo_list" ]; then
		mirror=$(release_mirror "$codename" || true)
		if [ -z "$mirror" ]; then
			echo "setup: no apt source for $codename to take a backports mirror from" >&2
			exit 1
		fi
		printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\n%s\n' \
			"$mirror" "$codename" \
			"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
			sudo_if_needed tee "$bpo_list" >/dev/null
	fi
	echo "setup: installing QEMU $qemu_min from $codename-backports"
	sudo_if_needed apt-get update -q </dev/null
	sudo_if_needed apt-get install -y -q --no-install-recommends \
		-t "$codename-backports" $qemu_packages </dev/null
	if [ "$(qemu_major)" -lt "$qemu_min" ]; then
		echo "setup: QEMU is $(qemu_major), the harness needs $qemu_min or later" >&2
		exit 1
	fi
fi

missing=""
for p in $host_packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
have_base=$(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
if [ "$have_base" != "$BASE_DEB_VERSION" ]; then
	missing="$missing $BASE_PACKAGE=$BASE_DEB_VERSION"
fi
if [ -n "$missing" ]; then
	echo "setup: installing:$missing"
	sudo_if_needed apt-get update -q </dev/null
	sudo_if_needed apt-get install -y -q --no-install-recommends \
		--allow-downgrades $missing </dev/null
fi

# arm64 userspace for the arm64 guest: Debian's static busybox, unpacked
# (installing it would clash with the amd64 busybox-static).
arm64_root="$out/sysroot/arm64"
if [ ! -x "$arm64_root/bin/busybox" ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		sudo_if_needed dpkg --add-architecture arm64
	fi
	dl="$out/dl"
	mkdir -p "$dl" "$arm64_root"
	deb=$(ls "$dl"/busybox-static_*_arm64.deb 2>/dev/null | head -n1 || true)
	if [ -z "$deb" ]; then
		sudo_if_needed apt-get update -q </dev/null
		(cd "$dl" && apt-get download -q busybox-static:arm64 </dev/null)
		deb=$(ls "$dl"/busybox-static_*_arm64.deb | head -n1)
	fi
	dpkg -x "$deb" "$arm64_root"
fi

# The pristine base tree.  A stamp records which package version it came
# from, so a re-pin unpacks afresh.
stamp="$out/base/.unpacked-$BASE_DEB_VERSION"
if [ ! -f "$stamp" ] || [ ! -f "$out/base/linux/Makefile" ]; then
	echo "setup: unpacking $BASE_TARBALL"
	rm -rf "$out/base"
	mkdir -p "$out/base"
	tar -C "$out/base" -xf "$BASE_TARBALL"
	mv "$out/base/$BASE_TOPDIR" "$out/base/linux"
	kv=$(make -s -C "$out/base/linux" kernelversion)
	if [ "$kv" != "$BASE_KERNELVERSION" ]; then
		echo "setup: base is $kv, expected $BASE_KERNELVERSION" >&2
		exit 1
	fi
	touch "$stamp"
fi

ccache -M 8G >/dev/null 2>&1 || true
