#!/bin/bash
# Generate the kernel .config for $ARCH/$FLAVOR from the fragments in
# configs/ on top of allnoconfig, and fail if Kconfig dropped any option a
# fragment asks for.  Both variants get the same fragments.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frags=("$top/configs/common.config" "$top/configs/$ARCH.config")
if [ "$FLAVOR" = debug ]; then
	frags+=("$top/configs/debug.config")
	[ -f "$top/configs/debug-$ARCH.config" ] && frags+=("$top/configs/debug-$ARCH.config")
fi
[ "$FLAVOR" = preempt ] && frags+=("$top/configs/preempt.config")
[ "$FLAVOR" = kcsan ] && frags+=("$top/configs/kcsan.config")
[ "$FLAVOR" = debuginfo ] && frags+=("$top/configs/debuginfo.config")
[ -f "$top/configs/$ARCH-$TOOLCHAIN.config" ] && frags+=("$top/configs/$ARCH-$TOOLCHAIN.config")
# Our own test suites exist only in our tree; the benchmark builds both
# variants from one config, so it leaves them out.
[ "$VARIANT" = ours ] && [ "$FLAVOR" != bench ] && frags+=("$top/configs/ours.config")
# A transition fragment turns features off for one variant/arch while a
# port is missing; the options it waives are reported, not failed.
transition=$top/configs/transition/$VARIANT-$ARCH.config
[ -f "$transition" ] && frags+=("$transition")
mkdir -p "$objtree"
merged=$objtree/harness.fragment
cat "${frags[@]}" > "$merged.new"

# Regenerate only when the fragments changed: rewriting .config is cheap,
# but skipping it keeps `make` from re-checking every option.
if [ -f "$objtree/.config" ] && cmp -s "$merged.new" "$merged"; then
	rm -f "$merged.new"
	exit 0
fi
mv "$merged.new" "$merged"
log "configuring from ${frags[*]##*/}"
"${kmake[@]}" KCONFIG_ALLCONFIG="$merged" allnoconfig

# Every option a fragment sets must have the value it asked for.
bad=0
waived=" $(sed -n 's/^# waive //p' "$merged" | xargs) "
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		opt=${line%%=*}
		case "$waived" in *" $opt "*) continue ;; esac
		if ! grep -qx -- "$line" "$objtree/.config"; then
			got=$(grep -E "^(# )?$opt[= ]" "$objtree/.config" || echo "$opt absent")
			echo "[$tag] config: wanted $line, got: $got" >&2
			bad=1
		fi
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$objtree/.config"; then
			echo "[$tag] config: wanted $opt off, but it is on" >&2
			bad=1
		fi
		;;
	esac
done < "$merged"
if [ "$waived" != "  " ]; then
	log "NOTE: transition config: off on purpose:$waived"
fi
if [ "$bad" -ne 0 ]; then
	rm -f "$merged"    # force a fresh attempt next time
	die "Kconfig did not keep the options above"
fi
