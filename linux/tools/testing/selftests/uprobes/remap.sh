#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One address, two files: the program maps the page of a function of its
# own file, calls it, maps the same page of a copy of itself (another
# inode) over it at the same address, calls it, and maps its own page back
# there.  A probe on each file at that function counts the calls made
# through its own file's mapping only: whatever the kernel remembers about
# a probed address must not outlive the mapping.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

COPY=$TMPD/uv_copy
cp "$VICTIM" "$COPY" || ksft_fail "cannot copy $VICTIM"
add_probe p leaf uv_leaf
echo "p:$GROUP/${PFX}leafcopy $COPY:$(off uv_leaf)" >> "$UEVENTS" ||
	ksft_fail "cannot define a probe on the copy"
ev_on leaf leafcopy
OUT=$(UV_COPY=$COPY "$VICTIM" remap $N 2>&1)
STATUS=$?
ev_off leaf leafcopy
expect_ok "uprobe_victim remap"
[ "$OUT" = "calls=$((3 * N))" ] || ksft_fail "the program reports: $OUT"
expect_hits leaf $((2 * N))
expect_hits leafcopy $N
ksft_pass "$((2 * N)) calls through the program's mappings, $N through the copy's"
