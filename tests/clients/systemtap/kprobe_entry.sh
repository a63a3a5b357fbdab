#!/bin/bash
# An entry probe on the test module's function, run by stapbpf: 4 calls
# made, 4 counted.  SystemTap 4.8's BPF backend names the probe point by
# the function's offset in the module's text, not by module and symbol,
# which no kernel can place: listed in ../xfail/ as failing on upstream's
# kernel too.
. ../lib.sh
. ./stap_lib.sh
need stapbpf
stap_kcalls kprobe_entry
[ "$(value calls "$out")" = 4 ] || fail "expected 4 calls"
pass "stapbpf saw 4 calls"
