#!/bin/bash
# `make docs`: build Documentation/trace of the assembled tree with the
# kernel's own htmldocs target and fail on any Sphinx warning about the
# documents we own.  Other trace documents' warnings (labels outside
# SPHINXDIRS=trace) are shown, not counted.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
src=$out/ours/linux
obj=$out/build/docs
log=$out/logs/docs.log

assemble_ours >/dev/null
mkdir -p "$obj" "$(dirname "$log")"
# The distribution's Sphinx, whatever python3 is first in PATH.
if ! PATH=/usr/bin:$PATH make -C "$src" O="$obj" SPHINXDIRS=trace htmldocs \
	>"$log" 2>&1; then
	tail -n 30 "$log"
	die "htmldocs failed (full log: $log)"
fi
ours=$(cd "$top/linux" && find Documentation -name '*.rst' | sed 's/[.]/[.]/g' | paste -sd'|')
bad=$(grep -E "(WARNING|ERROR)" "$log" | grep -E "/($ours|Documentation/trace/index[.]rst):" || true)
others=$(grep -cE "(WARNING|ERROR)" "$log" || true)
if [ -n "$bad" ]; then
	echo "$bad"
	die "Sphinx warnings in our documents (full log: $log)"
fi
echo "docs: Documentation/trace built in $obj/Documentation/output/trace," \
	"no warning in ours ($others elsewhere, see $log)"
