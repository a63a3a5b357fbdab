#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf's uprobe PMU and BPF programs (on it and through uprobe_multi
# links) counting exact hits; see bpf_uprobe.c.
PROG="$(dirname "$0")/bpf_uprobe"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: must run as root"; exit 4; }
[ -x "$PROG" ] || { echo "SKIP: $PROG was not built"; exit 4; }
exec "$PROG"
