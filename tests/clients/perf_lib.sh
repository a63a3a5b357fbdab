#!/bin/bash
# perf helpers: every case starts and ends with no perf probes defined.
need perf
perf_clean() {
	perf probe -q -d 'probe:*' 2>/dev/null
	perf probe -q -d 'probe_*:*' 2>/dev/null
	perf probe -q -d 'sdt_*:*' 2>/dev/null
	true
}
perf_clean
trap perf_clean EXIT
# stat_count EVENT OUTPUT: the count perf stat printed for EVENT.
stat_count() {
	echo "$2" | awk -v ev="$1" '$2 == ev { gsub(",", "", $1); print $1 }' | head -n 1
}
