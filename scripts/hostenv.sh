#!/bin/bash
# A Debian 13 (trixie) environment on the host, for the tools whose
# Debian 12 versions cannot work against 6.12: SystemTap 5.1 compiles
# its kernel modules here, with the compilers it hands to kbuild.
#
#   hostenv.sh            make it (once; cached by package list and script)
#   hostenv.sh run CMD..  run CMD inside it, the tree and out/ at their
#                         own paths, in a private mount namespace
#
# It is installed from the archive of this machine's apt configuration
# with mmdebstrap, maintainer scripts and all (it is the host's own
# architecture), under out/hostenv/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=trixie
# SystemTap and what its module builds call: gcc-12 is the compiler the
# x86_64 kernel was built with (kbuild wants the same major version for
# a module), clang/lld for the arm64 kernel, built with LLVM=1, and
# binutils for arm64 objects; libelf and libssl for the kernel tree's
# host programs (modpost, objtool) built on the host.
pkgs=systemtap,make,gcc-12,gcc,libc6-dev,clang,lld,llvm,binutils-aarch64-linux-gnu,libelf1t64,libssl3t64,kmod
. "$top/scripts/apt-mirror.sh"
mirror=$(debian_mirror) || die "no Debian mirror in this machine's apt configuration (set DEBIAN_MIRROR)"
# Bump when make_env changes what it makes.
version=2
key=$(echo "$version $suite $mirror $pkgs" | sha256sum | cut -c1-16)
env_dir=$out/hostenv/$suite-$key

make_env() {
	[ -x "$env_dir/usr/bin/stap" ] && return 0
	rm -rf "$env_dir.new"
	log "hostenv: installing $suite: $pkgs"
	local start
	start=$(date +%s)
	mmdebstrap --quiet --mode=root --variant=apt --include="$pkgs" \
		"$suite" "$env_dir.new" "deb $mirror $suite main" >&2
	rm -rf "$env_dir.new"/var/cache/apt/archives/*.deb
	# The arm64 kernel was configured for the host's clang 14, which needs
	# a flag to zero-initialise stack variables that clang 16 and later
	# refuse (they do it without): modules built here with clang 19 go
	# through this wrapper, which drops it.
	cat > "$env_dir.new/usr/local/bin/kernel-clang" <<-'EOS'
		#!/bin/sh
		for a; do
			shift
			[ "$a" = -enable-trivial-auto-var-init-zero-knowing-it-will-be-removed-from-clang ] ||
				set -- "$@" "$a"
		done
		exec clang "$@"
	EOS
	chmod 755 "$env_dir.new/usr/local/bin/kernel-clang"
	mv "$env_dir.new" "$env_dir"
	# Older environments go.
	find "$out/hostenv" -mindepth 1 -maxdepth 1 -name "$suite-*" ! -name "${env_dir##*/}" \
		-exec rm -rf {} +
	log "hostenv: $(du -sh "$env_dir" | cut -f1) in $(($(date +%s) - start)) s"
}

[ "$(id -u)" -eq 0 ] || die "the host environment needs root (chroot)"
# One maker at a time (make check prepares both arches at once).
mkdir -p "$out/hostenv"
exec 9>"$out/hostenv/.lock"
flock 9
make_env
exec 9>&-
[ "${1:-}" = run ] || exit 0
shift
# The tree (and out/, wherever it is) at their own paths, so that what
# the host built (the kernel's objtree, its absolute paths) reads the same.
# out/'s entries may be links to another checkout's (a worktree sharing
# the unpacked sources): their targets are mounted at their own paths too.
export HOSTENV=$env_dir
LINKS=$(find "$out" -mindepth 1 -maxdepth 1 -type l ! -name hostenv -exec readlink -f {} \;)
export LINKS
exec unshare --mount --propagation private bash -c '
	set -e
	env=$HOSTENV
	for d in /proc /sys /dev "$0" "$1" $LINKS; do
		[ -d "$d" ] || continue
		mkdir -p "$env$d"
		mount --rbind "$d" "$env$d"
	done
	shift
	exec chroot "$env" /usr/bin/env -i -C "$PWD" PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin HOME=/root \
		LANG=C.UTF-8 ${SYSTEMTAP_DIR:+SYSTEMTAP_DIR=$SYSTEMTAP_DIR} "$@"
' "$top" "$(cd "$out" && pwd)" "$@"
