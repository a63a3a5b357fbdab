#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# torture.sh with the pairing of pre_handler and post_handler runs judged
# too.  Known to fail on x86_64 (tests/xfail/x86_64): a hit on a site can
# run a new probe's pre_handler and then skip the post phase, when it
# takes the jump-optimized detour or the boosted copy in the moment
# before the site's post_handler is set, or after it is cleared.
KPROBETORTURE_CHECK_POST=1 exec "$(dirname "$0")/torture.sh"
