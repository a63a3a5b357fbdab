#!/bin/bash
# Generate the kernel .config for $ARCH/$FLAVOR from the fragments in
# configs/ on top of allnoconfig (FLAVOR=defconfig: on top of the arch's
# defconfig), and fail if Kconfig dropped any option a fragment asks for.
# Both variants get the same fragments.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapfile -t frags < <(config_fragments)
mkdir -p "$objtree"
merged=$objtree/harness.fragment
cat "${frags[@]}" > "$merged.new"
# FLAVOR=defconfig starts from what the arch's maintainers ship (drivers,
# modules, their choice of preemption and debug info) rather than from
# nothing: the fragments only add what the tests need.  Merged the way
# `make defconfig` reads its file, with the fragments after it winning.
base=allnoconfig
defconfig=
if [ "$FLAVOR" = defconfig ]; then
	case "$ARCH" in
	x86_64) defconfig=$srctree/arch/x86/configs/x86_64_defconfig ;;
	arm64) defconfig=$srctree/arch/arm64/configs/defconfig ;;
	esac
	base=alldefconfig
	echo "# base: ${defconfig#$srctree/}" >> "$merged.new"
fi

# Regenerate only when the fragments changed: rewriting .config is cheap,
# but skipping it keeps `make` from re-checking every option.
if [ -f "$objtree/.config" ] && cmp -s "$merged.new" "$merged"; then
	rm -f "$merged.new"
	exit 0
fi
mv "$merged.new" "$merged"
log "configuring from ${defconfig:+${defconfig##*/} + }${frags[*]##*/}"
if [ -n "$defconfig" ]; then
	# The defconfig loses the options the fragments set, or Kconfig warns
	# about each one named twice.  Only the fragments are checked below:
	# a defconfig may name options its arch no longer has.
	sed -nE 's/^(# )?(CONFIG_[A-Za-z0-9_]+)[= ].*/\2/p' "$merged" > "$objtree/harness.opts"
	{ grep -vwF -f "$objtree/harness.opts" "$defconfig" || true; cat "$merged"; } \
		> "$objtree/harness.allconfig"
	"${kmake[@]}" KCONFIG_ALLCONFIG="$objtree/harness.allconfig" $base
else
	"${kmake[@]}" KCONFIG_ALLCONFIG="$merged" $base
fi

waived=$(sed -n 's/^# waive //p' "$merged" | xargs)
[ -n "$waived" ] && log "NOTE: transition config: off on purpose: $waived"
if ! check_config "$merged" "$objtree/.config"; then
	rm -f "$merged"    # force a fresh attempt next time
	die "Kconfig did not keep the options above"
fi
