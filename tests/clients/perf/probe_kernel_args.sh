#!/bin/bash
# perf probe on a kernel function with its argument fetched from the
# register the calling convention puts it in (no debuginfo), recorded and
# read back: one sample per call, each with its argument.
. ../lib.sh
. ../perf_lib.sh
load_kernel_target
case "$(uname -m)" in
x86_64) reg=%di ;;
aarch64) reg=%x0 ;;
*) fail "no register name for $(uname -m)" ;;
esac
perf probe -m "$KMOD" -a "$KFUNC n=$reg:s32" || fail "perf probe -a '$KFUNC n=$reg:s32' failed"
cd /tmp && rm -f perf.data
perf record -q -e "probe:$KFUNC" -a -o /tmp/perf.data -- "$CLIENTS/kcall" 3 -4 11 2>&1
out=$(perf script -i /tmp/perf.data 2>&1)
echo "$out"
[ "$(echo "$out" | grep -c "probe:$KFUNC")" = 3 ] || fail "expected 3 samples"
for n in 3 -4 11; do
	echo "$out" | grep -q "n=$n\$" || fail "no sample with the argument $n"
done
pass "3 samples of probe:$KFUNC with the arguments 3, -4 and 11"
