#!/bin/bash
# The Debian root of the client guest for $ARCH: the packages listed in
# tests/clients/packages.$DEBIAN and their dependencies, unpacked from Debian's
# archive with mmdebstrap (no maintainer scripts run, so the same works for
# a foreign architecture without binfmt), then packed into a read-only
# ext4 image.  Kept in out/rootfs/ under a name that hashes the package
# list and this script, so it is rebuilt only when one of them changes.
# The guest mounts it under an overlay and adds per-kernel files (modules,
# test programs) from its initramfs.
# DEBIAN names the release: trixie (Debian 13, the default) or bookworm
# (Debian 12, the tools of 2023, kept so they stay checked on demand).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=$debian_suite
. "$top/scripts/apt-mirror.sh"
mirror=$(debian_mirror) || die "no Debian mirror in this machine's apt configuration (set DEBIAN_MIRROR)"
case "$ARCH" in
x86_64) debarch=amd64 ;;
arm64) debarch=arm64 ;;
esac

list=$top/tests/clients/packages.$suite
[ -f "$list" ] || die "no package list for Debian $suite ($list)"
pkgs=$(grep -v '^#' "$list" | xargs | tr ' ' ,)
key=$( (echo "$suite $mirror $debarch $pkgs"; cat "$0") | sha256sum | cut -c1-16)
dir=$out/rootfs
image=$dir/$ARCH-$suite-$key.ext4
link=$dir/$ARCH-$suite.ext4
if [ -f "$image" ]; then
	ln -sfn "${image##*/}" "$link"
	exit 0
fi

mkdir -p "$dir"
tree=$dir/$ARCH-$key.tree
rm -rf "$tree" "$image.new"
log "rootfs: unpacking $suite/$debarch: $pkgs"
start=$(date +%s)
mode=root
[ "$(id -u)" -eq 0 ] || mode=unshare
mmdebstrap --quiet --mode=$mode --variant=extract --architectures=$debarch \
	--include="$pkgs" "$suite" "$tree" "deb $mirror $suite main"

# What the maintainer scripts would have done, as far as the guest needs it.
cp "$tree/usr/share/base-passwd/passwd.master" "$tree/etc/passwd"
cp "$tree/usr/share/base-passwd/group.master" "$tree/etc/group"
ln -sfn bash "$tree/bin/sh"
# Alternatives update-alternatives would have made.
[ -e "$tree/usr/bin/awk" ] || ln -s gawk "$tree/usr/bin/awk"
echo "client" > "$tree/etc/hostname"
# Mount points the overlay root needs.
mkdir -p "$tree"/{proc,sys,dev,tmp,run,harness} "$tree/lib/modules"
chmod 1777 "$tree/tmp"
# apt's caches are of no use in the guest.
rm -rf "$tree"/var/cache/apt/* "$tree"/var/lib/apt/lists/*

size=$(( $(du -sm "$tree" | cut -f1) * 5 / 4 + 64 ))
mke2fs -q -t ext4 -L debian -d "$tree" "$image.new" "${size}M"
mv "$image.new" "$image"
rm -rf "$tree"
# Older images of this arch and release go; the link names the current one.
find "$dir" -maxdepth 1 -name "$ARCH-$suite-*.ext4" ! -name "${image##*/}" -delete
ln -sfn "${image##*/}" "$link"
log "rootfs: $(du -h "$image" | cut -f1) image in $(($(date +%s) - start)) s"
