#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# torture.sh with the pairing of pre_handler and post_handler runs judged
# too: every hit that ran a probe's pre_handler runs its post_handler,
# also when the probe joins or leaves a site (jump-optimized or boosted on
# x86_64) between the hit's two phases.
KPROBETORTURE_CHECK_POST=1 exec "$(dirname "$0")/torture.sh"
