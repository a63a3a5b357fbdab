#!/bin/bash
# Build the kernel and modules for $VARIANT/$ARCH/$FLAVOR into out/build/<tag>
# and install the modules into out/build/<tag>/modroot for the initramfs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$VARIANT" = ours ] && assemble_ours
"$top/scripts/mkconfig.sh"

image_target=${image_rel##*/}
log "building $image_target and modules"
start=$(date +%s)
"${kmake[@]}" "$image_target" modules
rm -rf "$objtree/modroot"
"${kmake[@]}" INSTALL_MOD_PATH="$objtree/modroot" INSTALL_MOD_STRIP=1 \
	modules_install >/dev/null
log "built in $(($(date +%s) - start)) s"

# The benchmark module (bench/), built here so it cannot rot; out of tree,
# from a copy, so no build products land in the source directory.
if grep -q '^CONFIG_KPROBES=y' "$objtree/.config"; then
	rsync -a --delete --exclude='*.o' --exclude='*.ko' "$top/bench/" "$objtree/bench/"
	"${kmake[@]}" M="$objtree/bench" modules
else
	rm -rf "$objtree/bench"
fi
