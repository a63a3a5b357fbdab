#!/bin/bash
# `make matrix [ARCH=...] [ENTRIES="a b"] [CONFIG_ONLY=1]`: build our tree with each
# configs/matrix/<entry>.config on top of the project config, so that an
# option combination nobody boots still compiles and links.  Not part of
# `make check`: it only builds.  Each entry first proves that Kconfig gave
# the options it is about the values it asks for; an entry Linux 6.12
# cannot produce on an arch says so ("# unproducible <arch>: why") and is
# reported as such instead of building something else.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ARCHES=${ARCHES:-x86_64 arm64}
ENTRIES=${ENTRIES:-$(cd "$top/configs/matrix" && ls *.config | sed 's/\.config$//' | xargs)}
# CONFIG_ONLY=1: configure and check each entry, build nothing (seconds).
CONFIG_ONLY=${CONFIG_ONLY:-0}
export VARIANT=ours FLAVOR=default

# One entry on one arch, in a subshell of its own: lib.sh's settings are
# per arch, and OBJTREE keeps the build out of out/build.
build_entry() (
	export ARCH=$1 OBJTREE=${OUT:-$top/out}/matrix/$1-$2
	. "$top/scripts/lib.sh"
	tag=matrix-$ARCH-$2
	entry=$top/configs/matrix/$2.config
	mkdir -p "$objtree"
	mapfile -t frags < <(config_fragments)
	# The entry comes last and wins; only its own lines are checked: the
	# project options it takes away with it (kprobe events without
	# kprobes...) go by design.
	cat "${frags[@]}" "$entry" > "$objtree/harness.allconfig"
	"${kmake[@]}" KCONFIG_ALLCONFIG="$objtree/harness.allconfig" allnoconfig ||
		return 1
	check_config "$entry" "$objtree/.config" || return 1
	[ "$CONFIG_ONLY" = 1 ] && return 0
	targets=(${image_rel##*/})
	grep -q '^CONFIG_MODULES=y' "$objtree/.config" && targets+=(modules)
	"${kmake[@]}" "${targets[@]}"
)

(. "$top/scripts/lib.sh" && assemble_ours) >/dev/null || exit 1
mkdir -p "${OUT:-$top/out}/matrix"
results=()
failed=0
for a in $ARCHES; do
	for e in $ENTRIES; do
		f=$top/configs/matrix/$e.config
		[ -f "$f" ] || { echo "matrix: no entry $e (configs/matrix/)" >&2; exit 2; }
		why=$(sed -n "s/^# unproducible $a: //p" "$f")
		if [ -n "$why" ]; then
			line=$(printf '%-22s %-7s NOT PRODUCIBLE on Linux 6.12: %s' "$e" "$a" "$why")
			echo "$line"
			results+=("$line")
			continue
		fi
		echo "== matrix $e $a"
		logf=${OUT:-$top/out}/matrix/$a-$e.log
		start=$(date +%s)
		if build_entry "$a" "$e" > "$logf" 2>&1; then
			verdict=OK
			[ "$CONFIG_ONLY" = 1 ] && verdict=CONFIGURED
		else
			verdict=FAILED
			failed=$((failed + 1))
			tail -n 20 "$logf"
		fi
		line=$(printf '%-22s %-7s %-10s %5d s' "$e" "$a" "$verdict" $(($(date +%s) - start)))
		echo "$line"
		results+=("$line")
	done
done
echo "== matrix results (logs in out/matrix/<arch>-<entry>.log)"
printf '%s\n' "${results[@]}"
[ "$failed" -eq 0 ]
