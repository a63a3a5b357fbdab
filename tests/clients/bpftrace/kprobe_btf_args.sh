#!/bin/bash
# kprobe arguments typed through the kernel's BTF: param_attr_store()'s
# second argument cast to struct module_kobject, followed to the module's
# name, and its third, the text written; kretprobe's return value with
# the function's BTF type.  4 writes of the test module's parameter.
. ../lib.sh
need bpftrace
[ -f /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF (make clients builds it with FLAVOR=debuginfo)"
load_kernel_target
out=$(bpftrace -e 'kprobe:param_attr_store /pid == cpid/ {
		$mk = (struct module_kobject *)arg1;
		@mod[$mk->mod->name] = count();
		@text[str(arg2, 2)] = count();
	}
	kretprobe:param_attr_store /pid == cpid/ { @ret = sum((int64)retval); }' \
	-c "/bin/bash $CLIENTS/kcall 2 3 3 5" 2>&1)
echo "$out"
# bpftrace 0.17 (Debian 12) copies the 2 bytes whole, the written newline
# included, where 0.23 keeps room for the terminating NUL: a key "3\n"
# prints over two lines.  Join them, so both read as the text 3.
out=$(echo "$out" | sed -z 's/\n\]/]/g')
[ "$(value '@mod[kprobes_target]' "$out")" = 4 ] || fail "expected 4 stores into kprobes_target"
[ "$(value '@text[3]' "$out")" = 2 ] || fail "expected the text 3 twice"
[ "$(value '@text[2]' "$out")" = 1 ] || fail "expected the text 2 once"
[ "$(value @ret "$out")" = 8 ] || fail "expected return values summing to 8"
pass "BTF-typed arguments: 4 stores into kprobes_target, texts and return values as written"
