# Front door of the harness; README.md explains the targets.
#
#   make check [ARCH=x86_64|arm64] [VARIANT=ours|upstream] [FLAVOR=debug|preempt|kcsan|defconfig]
#       FLAVOR=defconfig: the arch's defconfig with the project fragments on top
#   make run | make shell [ARCH=...] [VARIANT=...]
#   make bench [ARCH=...]   probe costs, ours against upstream (README)
#   make torture [DURATION=600] [ARCH=...]   kprobetorture and the fault and
#       input sweeps in FLAVOR=debug (README)
#   make clients [ARCH=...] [VARIANT=...] [DEBIAN=bookworm]   bpftrace, perf...
#       on a Debian guest, kernel with DWARF and BTF (FLAVOR=debuginfo)
#   make debian-shell [ARCH=...]   a shell in that guest
#   make docs   Documentation/trace through Sphinx, no warning in ours
#   make matrix [ARCH=...] [ENTRIES="kprobes-off ..."]   build ours with each
#       configs/matrix/ entry (KPROBES=n, MODULES=n, PREEMPT_RT...); not in check
#   make series   the patch series in out/series/, git am + checkpatch --strict
#   make series-check [ARCH=...] [SERIES_BOOT=all]   build (and boot) every
#       prefix of the series (slow: not in check), get_maintainer.pl (README)
#   make build | make setup | make clean

VARIANT ?= ours
FLAVOR ?= default
DURATION ?= 600
# Empty ARCH means every arch for check/build (x86_64 alone for the KCSAN
# flavor), x86_64 for run/shell.
ARCHES := $(if $(ARCH),$(ARCH),$(if $(filter kcsan,$(FLAVOR)),x86_64,x86_64 arm64))
ONE_ARCH := $(if $(ARCH),$(ARCH),x86_64)
S := scripts
ENV = VARIANT=$(VARIANT) FLAVOR=$(FLAVOR)
CLIENTS_FLAVOR = $(if $(filter command line environment,$(origin FLAVOR)),$(FLAVOR),debuginfo)

.PHONY: help setup build check check-all clients debian-shell bench torture matrix run shell series series-check docs clean distclean

help:
	@sed -n '3,18p' Makefile | sed 's/^# \{0,1\}//'

setup:
	@$(S)/setup.sh

build: setup
	@set -e; for a in $(ARCHES); do $(ENV) ARCH=$$a $(S)/build.sh; done

check: setup
	@$(ENV) ARCHES="$(ARCHES)" $(S)/check.sh

check-all: setup
	@rc=0; for v in ours upstream; do \
		VARIANT=$$v FLAVOR=$(FLAVOR) ARCHES="$(ARCHES)" $(S)/check.sh || rc=1; \
	done; exit $$rc

# The client boot of `make clients` and `make debian-shell` has the
# kernel's DWARF and BTF (FLAVOR=debuginfo) unless a flavor is asked for.
clients: setup
	@VARIANT=$(VARIANT) FLAVOR=$(CLIENTS_FLAVOR) ARCHES="$(ARCHES)" $(S)/clients.sh

debian-shell: setup
	@VARIANT=$(VARIANT) FLAVOR=$(CLIENTS_FLAVOR) ARCH=$(ONE_ARCH) $(S)/clients.sh shell

torture: setup
	@VARIANT=$(VARIANT) $(if $(filter default,$(FLAVOR)),,FLAVOR=$(FLAVOR)) \
		ARCHES="$(ARCHES)" DURATION=$(DURATION) $(S)/torture.sh

# Builds only; ARCH defaults to both arches, ENTRIES to every entry.
matrix: setup
	@ARCHES="$(ARCHES)" $(S)/matrix.sh

bench:
	@$(S)/setup.sh --bench
	@ARCHES="$(if $(ARCH),$(ARCH),x86_64)" $(S)/bench.sh

run shell: setup
	@$(ENV) ARCH=$(ONE_ARCH) $(S)/build.sh
	@$(ENV) ARCH=$(ONE_ARCH) $(S)/mkinitramfs.sh
	@$(ENV) ARCH=$(ONE_ARCH) $(S)/boot.sh $@

series: setup
	@python3 $(S)/series.py

# Every prefix of the series, built on each arch (both unless ARCH is
# given) in persistent trees under out/series-check/; see the script.
series-check: series
	@ARCHES="$(ARCHES)" $(S)/series-check.sh

docs:
	@$(S)/setup.sh --docs
	@$(S)/docs.sh

clean:
	rm -rf out/build out/initramfs out/logs out/ours out/series out/series-work out/series-natural out/series-check out/bench out/matrix

distclean:
	rm -rf out
