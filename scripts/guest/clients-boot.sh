#!/bin/sh
# `make clients`, in the busybox initramfs: mount the Debian root (a
# read-only ext4 image on the first virtio disk) under a tmpfs overlay,
# bring in this kernel's modules, the kselftest modules and the client
# cases, and run the cases there.  PID 1 stays the initramfs init, which
# ends the run when this returns.
root=/newroot
mkdir -p /debian /rw $root
if ! mount -o ro,noload -t ext4 /dev/vda /debian; then
	echo "harness: no Debian root on /dev/vda"
	exit 1
fi
mount -t tmpfs tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/debian,upperdir=/rw/upper,workdir=/rw/work $root
cp -a /lib/modules/. $root/lib/modules/
mkdir -p $root/harness
cp -a /clients/. $root/harness/
[ -d /tests/kselftest/kprobes/test_modules ] &&
	cp -a /tests/kselftest/kprobes/test_modules $root/harness/modules
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
for fs in proc sys dev tmp; do
	mount --rbind /$fs $root/$fs
done
env="PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LD_LIBRARY_PATH=/harness/programs"
if [ "$1" = shell ]; then
	echo "Debian guest: bpftrace, perf, trace-cmd, stapbpf/staprun and BCC's"
	echo "*-bpfcc tools (modprobe kheaders first); test programs in"
	echo "/harness/programs.  'exit' leaves QEMU."
	setsid cttyhack chroot $root /usr/bin/env -i $env TERM=linux /bin/bash -l
	exit 0
fi
chroot $root /usr/bin/env -i $env TERM=dumb /bin/bash /harness/run.sh
