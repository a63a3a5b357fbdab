#!/bin/bash
# perf probe -x on libc's malloc with its size argument, filtered to the
# size only the program's 40 allocations use.
. ../lib.sh
. ../perf_lib.sh
libc=$(ldd "$TARGET" | awk '/libc\.so/ { print $3 }')
[ -n "$libc" ] || fail "cannot find the program's libc"
case "$(uname -m)" in
x86_64) reg=%di ;;
aarch64) reg=%x0 ;;
*) skip "no register name for $(uname -m)" ;;
esac
perf probe -x "$libc" -a "malloc size=$reg:u64" || fail "perf probe -x $libc malloc failed"
out=$(perf stat -x ' ' -e probe_libc:malloc --filter 'size == 12345' -- "$TARGET" alloc 40 2>&1)
echo "$out"
[ "$(stat_count probe_libc:malloc "$out")" = 40 ] || fail "expected 40 mallocs of 12345 bytes"
pass "perf stat counted the 40 mallocs of 12345 bytes"
