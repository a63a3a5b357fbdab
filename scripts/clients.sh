#!/bin/bash
# `make clients`: boot $VARIANT's kernel on the Debian root for each arch in
# ARCHES and run the client cases (tests/clients/: bpftrace, perf,
# trace-cmd, SystemTap), then one verdict over all of it.  `make check`
# runs the same steps (scripts/clients-lib.sh) after each arch's tests.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/clients-lib.sh"

# kernel, Debian root, programs, SystemTap scripts, initramfs.
prepare() {
	ARCH=$1 "$top/scripts/build.sh" || { echo "   FAIL build of $VARIANT $1"; return 1; }
	clients_prepare "$1" || return 1
	ARCH=$1 "$top/scripts/mkinitramfs.sh" ||
		{ echo "   FAIL initramfs of $VARIANT $1"; return 1; }
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
	if ! prepare "$a"; then
		extra=$((extra + 1))
		continue
	fi
	specs+=("$(clients_boot "$a")")
done

echo "== client results ($(($(date +%s) - t0)) s)"
python3 "$top/scripts/verdict.py" --extra-failed "$extra" "${specs[@]}"
