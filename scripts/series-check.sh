#!/bin/bash
# `make series-check`: prove that every prefix of the patch series builds.
#
# Takes the mails `make series` wrote to out/series/, applies them one by
# one with `git am` to a full git copy of the pinned base
# (out/series-check/<arch>/ours/linux, checked out from
# out/series-check/base, so the shared base tree is never written), and after each one configures
# the project config afresh (allnoconfig + the fragments mkconfig.sh uses
# for VARIANT=ours) and builds the kernel image and the modules
# incrementally in a persistent objtree,
# out/series-check/<arch>/build/ours-<arch>.
# The base itself is built first, as prefix 0.
#
# One line per patch and arch: number, subject, arch, OK/FAILED, seconds,
# and the options of the fragments Kconfig does not know yet at that
# prefix (an option a later patch adds).  At the last patch every option
# must be there.  First, scripts/get_maintainer.pl --no-git is run on every
# patch against the series' MAINTAINERS and what it names is summarised.
#
# SERIES_BOOT=all (or a list of prefix numbers, "5 9 12") also boots each
# such prefix that built: its KUnit suites, built in and as modules, run
# in the harness's guest (a small initramfs of the prefix's own modules,
# no kselftests) and scripts/verdict.py --any-skip judges the console:
# every case that ran passed, no kernel report, the guest finished.
#
# Environment: ARCHES (default "x86_64 arm64"), FROM=<n> (apply patches
# before n without building them: for re-checking the tail of a series),
# GET_MAINTAINER=0 (skip the summary), SERIES_BOOT, JOBS.  Logs:
# out/series-check/<arch>/logs/<nn>.log (build), <tag>-prefix-<nn>.log
# (console).
# Exit status 1 when any prefix fails to build or to boot clean, or the
# last one lacks an option of the fragments.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/out}
sc=$out/series-check
series=$out/series
ARCHES=${ARCHES:-x86_64 arm64}
FROM=${FROM:-0}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$top")}

mails=()
for m in "$series"/[0-9][0-9][0-9][0-9]-*.patch; do
	case "${m##*/}" in 0000-*) continue ;; esac
	mails+=("$m")
done
[ "${#mails[@]}" -gt 0 ] || { echo "series-check: no patches in $series (run make series)" >&2; exit 1; }

# The base as a git repository, made once from out/base/linux (the
# Debian tree's .gitignore ignores everything, hence -f).
stamp=$(sha1sum "$top/base/base.conf" | cut -c1-12)
if [ ! -f "$sc/base/.git/series-check-base" ] ||
	[ "$(cat "$sc/base/.git/series-check-base")" != "$stamp" ]; then
	echo "series-check: making the base repository from out/base/linux"
	rm -rf "$sc/base"
	mkdir -p "$sc/base"
	git -C "$sc/base" init -q -b base
	git -C "$sc/base" config gc.auto 0
	cp -a "$out/base/linux/." "$sc/base/"
	git -C "$sc/base" add -A -f
	git -C "$sc/base" -c user.name=base -c user.email=base@localhost \
		commit -q -m "Linux 6.12 (base/base.conf)"
	echo "$stamp" > "$sc/base/.git/series-check-base"
fi

subject() {
	sed -n '/^Subject: /{s/^Subject: \[PATCH[^]]*\] //;p;q}' "$1"
}

# Bring <src> to the base commit, as a real copy (git checkout writes new
# files with fresh mtimes, so the objtree sees exactly what changed).
reset_src() {
	local src=$1
	if [ ! -d "$src/.git" ]; then
		rm -rf "$src"
		git clone -q --no-checkout "$sc/base" "$src"
		git -C "$src" config gc.auto 0
		git -C "$src" checkout -q -f -B check origin/base
	fi
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" fetch -q origin
	git -C "$src" checkout -q -f -B check origin/base
	git -C "$src" clean -q -fdx
}

am() {
	git -C "$1" -c user.name=check -c user.email=check@localhost am -q --keep-cr "$2"
}

# What get_maintainer.pl makes of each patch, read against the MAINTAINERS
# of the series' last tree (out/series-work, which `make series` leaves:
# the base files the series touches, as its last patch leaves them), so
# a patch is judged by the entries the series adds.
if [ "${GET_MAINTAINER:-1}" != 0 ] && [ -f "$out/series-work/MAINTAINERS" ]; then
	echo "get_maintainer.pl --no-git per patch (MAINTAINERS entries; lists; people):"
	for m in "${mails[@]}"; do
		res=$(cd "$out/series-work" && perl "$out/base/linux/scripts/get_maintainer.pl" \
			--no-git --no-git-fallback --no-rolestats --subsystem --no-tree "$m" 2>&1 || true)
		printf '  %s %s\n' "$(basename "$m" | cut -c1-4)" \
			"$(python3 "$top/scripts/series-maintainers.py" <<< "$res")"
	done
fi

# Is prefix $1 one SERIES_BOOT asks to boot?
boot_wanted() {
	case " ${SERIES_BOOT:-} " in
	"  ") return 1 ;;
	" all ") return 0 ;;
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# A guest's initramfs for prefix builds: busybox, our init and the
# prefix's modules; the check job then loads the KUnit modules it finds
# and, with no kselftests in it, finishes.
prefix_initramfs() {
	local root=$sc/$ARCH/initramfs/root m
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,etc/harness,proc,sys,dev,tmp,lib}
	cp "$top_busybox" "$root/bin/busybox"
	ln "$root/bin/busybox" "$root/bin/sh"
	cp "$top/scripts/guest/init" "$root/init"
	cp -a "$obj/modroot/lib/modules" "$root/lib/"
	: > "$root/etc/harness/kunit-modules"
	for m in $(grep -v '^#' "$top/tests/kunit-modules" | xargs); do
		if find "$root/lib/modules" -name "$m.ko*" | grep -q .; then
			echo "$m" >> "$root/etc/harness/kunit-modules"
		fi
	done
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 > "$sc/$ARCH/initramfs/$tag.cpio.gz"
}

# Boot prefix $1's build; print the verdict's summary, fail on a bad one.
boot_prefix() {
	local nn blog empty
	nn=$(printf %02d "$1")
	blog=$logs/$tag-prefix-$nn.log
	if ! { "${kmk[@]}" "${image_rel##*/}" &&
		rm -rf "$obj/modroot" &&
		"${kmk[@]}" INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 \
			modules_install; } >> "$logs/$nn.log" 2>&1; then
		echo "      boot: FAILED (image or modules_install, see logs/$nn.log)"
		return 1
	fi
	mkdir -p "$sc/$ARCH/initramfs"
	prefix_initramfs
	VARIANT=$VARIANT LOG_SUFFIX=-prefix-$nn "$top/scripts/boot.sh" check \
		> /dev/null 2>&1
	mkdir -p "$sc/expect-none/expect"
	empty=$sc/expect-none/expect/none
	: > "$empty"
	if python3 "$top/scripts/verdict.py" --any-skip "prefix:$blog:$empty" \
		> "$blog.verdict"; then
		echo "      boot: PASS, $(tail -n1 "$blog.verdict") (${blog#$top/})"
		return 0
	fi
	echo "      boot: FAILED (${blog#$top/})"
	grep -E 'FAIL|not ok' "$blog.verdict" | head -8 | sed 's/^/        /'
	return 1
}

rc=0
for arch in $ARCHES; do
	(
		set -euo pipefail
		# lib.sh's layouts under out/series-check/<arch>/, so the compiler
		# sees the relative paths of the harness's other builds and
		# ccache serves every file a prefix compiles as they did: up to
		# the first patch that changes <linux/uprobes.h> (which
		# <linux/mm_types.h> includes, so from there on almost every
		# object differs from the base's) the tree is base/linux with
		# the objtree build/upstream-<arch>, like VARIANT=upstream; from
		# that patch on the same git tree is moved to ours/linux and
		# builds in build/ours-<arch>, like VARIANT=ours.
		# The harness's busybox, before lib.sh points $out elsewhere.
		top_busybox=/bin/busybox
		[ "$arch" = arm64 ] && top_busybox=$out/sysroot/arm64/bin/busybox
		export ARCH=$arch FLAVOR=default OUT=$sc/$arch
		layout() {
			VARIANT=$1
			. "$top/scripts/lib.sh"
			src=$srctree
			obj=$objtree
			kmk=(nice -n 10 "${kmake[@]}")
			mkdir -p "$obj"
			cat "${frags[@]}" > "$obj/series-check.fragment"
		}
		frags=("$top/configs/common.config" "$top/configs/$arch.config")
		case $arch in arm64) tc=${TOOLCHAIN:-llvm} ;; *) tc=${TOOLCHAIN:-gcc} ;; esac
		[ -f "$top/configs/$arch-$tc.config" ] && frags+=("$top/configs/$arch-$tc.config")
		frags+=("$top/configs/ours.config")
		wanted=$(cat "${frags[@]}" | grep -E '^CONFIG_[A-Za-z0-9_]+=' || true)
		n=${#mails[@]}
		switch=$((n + 1))
		for i in $(seq 1 "$n"); do
			if grep -q '^diff --git a/include/linux/uprobes.h ' "${mails[$((i - 1))]}"; then
				switch=$i
				break
			fi
		done
		early=$sc/$arch/base/linux
		late=$sc/$arch/ours/linux
		if [ -d "$late/.git" ] && [ ! -e "$early" ]; then
			mkdir -p "${early%/*}"
			mv "$late" "$early"
		fi
		layout upstream
		logs=$sc/$arch/logs
		mkdir -p "$logs"
		reset_src "$src"

		image=vmlinux
		[ "$arch" = arm64 ] && image=Image
		arc=0
		prev_missing=
		for i in $(seq 0 "$n"); do
			if [ "$i" -eq "$switch" ]; then
				mkdir -p "${late%/*}"
				rm -rf "$late"
				mv "$early" "$late"
				layout ours
			fi
			if [ "$i" -gt 0 ]; then
				m=${mails[$((i - 1))]}
				sub=$(subject "$m")
				if ! am "$src" "$m" > "$logs/am-$i.log" 2>&1; then
					printf '%02d/%02d %-60.60s %-7s FAILED (git am)\n' "$i" "$n" "$sub" "$arch"
					cat "$logs/am-$i.log"
					exit 1
				fi
			else
				sub="(the 6.12 base)"
			fi
			[ "$i" -lt "$FROM" ] && continue
			# A patch that only touches files no kernel build reads
			# (documents, selftests, MAINTAINERS, checkpatch) leaves the
			# previous prefix's build as it was: say so, build nothing.
			if [ "$i" -gt "$FROM" ] && [ "$i" -gt 0 ] && [ "$arc" -eq 0 ] &&
				! grep '^diff --git a/' "$m" | sed 's|^diff --git a/\([^ ]*\) .*|\1|' |
				grep -qvE '^(Documentation/.*\.rst|tools/testing/selftests/.*|MAINTAINERS|scripts/checkpatch\.pl)$'; then
				printf '%02d/%02d %-60.60s %-7s %-6s %4s   (no file a build reads)\n' \
					"$i" "$n" "$sub" "$arch" OK -
				continue
			fi
			log=$logs/$(printf %02d "$i").log
			start=$(date +%s)
			ok=OK
			if ! { "${kmk[@]}" KCONFIG_ALLCONFIG="$obj/series-check.fragment" allnoconfig &&
				"${kmk[@]}" "$image" modules; } > "$log" 2>&1; then
				ok=FAILED
				arc=1
			fi
			secs=$(($(date +%s) - start))
			# Options of the fragments this prefix does not know (yet).
			missing=()
			while IFS= read -r line; do
				[ -n "$line" ] || continue
				grep -qx -- "$line" "$obj/.config" || missing+=("${line%%=*}")
			done <<< "$wanted"
			note=
			# Options the previous prefix had and this one lacks: what a
			# stage turns off until a later patch (shown, not failed).
			lost=()
			for o in "${missing[@]}"; do
				case " $prev_missing " in *" $o "*) ;; *) lost+=("${o#CONFIG_}") ;; esac
			done
			[ "$i" -gt "$FROM" ] && [ "${#lost[@]}" -gt 0 ] && note=" (off from here: ${lost[*]})"
			prev_missing=" ${missing[*]} "
			if [ "${#missing[@]}" -gt 0 ]; then
				note="$note (not in this Kconfig/arch: ${missing[*]#CONFIG_})"
				if [ "$i" -eq "$n" ]; then
					ok="FAILED config"
					arc=1
				fi
			fi
			printf '%02d/%02d %-60.60s %-7s %-6s %4d s%s\n' "$i" "$n" "$sub" "$arch" "$ok" "$secs" "$note"
			if [ "$ok" = FAILED ]; then
				grep -E 'error|Error|undefined' "$log" | head -8 | sed 's/^/      /'
			elif boot_wanted "$i"; then
				boot_prefix "$i" || arc=1
			fi
		done
		exit $arc
	) || rc=1
done

exit $rc
