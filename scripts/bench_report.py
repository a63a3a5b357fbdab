#!/usr/bin/env python3
"""Turn the benchmark's raw lines into the table, the CSV and the chart.

Raw lines (from scripts/bench.sh):
    <variant> <arch> <mode> <metric> <value> <unit>
    <variant> <arch> <mode> kernel <version>
    <variant> <arch> <mode> mech <metric> <how the probe was reached>
The atomics mode's rows count atomic read-modify-writes per hit, and
their "mech" is the list of functions they are in (name=count;...).
Writes <out>/results.csv (this run), appends to <out>/history.csv, writes
<out>/table.md and, when gnuplot is there, <out>/ratios.png; prints the
table.  The ratio is ours/upstream: below 1 we are cheaper or faster.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

# Display order; metrics not listed here follow in the order first seen.
ORDER = [
    "baseline_call", "kprobe_entry", "kprobe_body", "kprobe_body_opt_off",
    "kprobe_body_post_handler", "kprobe_post_handler_at_push",
    "kprobe_body_at_stp", "kprobe_body_at_add_sp", "kprobe_body_at_mov", "kretprobe", "kprobe_plus_kretprobe",
    "kprobes_2_at_one_address", "kprobes_8_at_one_address", "kprobe_at_return",
    "kprobe_body_two_cpus",
    "uprobe_unprobed_call", "uprobe_unprobed_step_call", "uprobe_entry", "uretprobe",
    "uprobe_plus_uretprobe", "uprobe_out_of_line", "uprobe_on_nop5",
    "uprobe_on_nop5_trap", "uprobe_process_probe",
    "uprobe_entry_1_thread", "uprobe_entry_2_threads",
    "uprobe_out_of_line_1_thread", "uprobe_out_of_line_2_threads",
    "uprobe_arm_in_100_processes", "uprobe_disarm_in_100_processes",
    "uprobe_scoped_other_process",
]

# Baselines: what a call costs with no probe.  Charted as nothing.
BASELINES = {"baseline_call", "uprobe_unprobed_call", "uprobe_unprobed_step_call"}

# Rows that mean nothing under -icount, whose single host thread runs the
# vCPUs one after the other: two CPUs hitting one probe at once.
NOT_UNDER_ICOUNT = {"kprobe_body_two_cpus",
                    "uprobe_entry_1_thread", "uprobe_entry_2_threads",
                    "uprobe_out_of_line_1_thread", "uprobe_out_of_line_2_threads"}


def load(raw):
    rows, kernels, notes, mechs = [], {}, [], {}
    with open(raw) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[3] == "mech":
                mechs[(parts[0], parts[1], parts[2], parts[4])] = parts[5]
            elif len(parts) >= 5 and parts[3] == "kernel":
                kernels[(parts[0], parts[1], parts[2])] = parts[4]
            elif len(parts) >= 5 and parts[3] == "note":
                notes.append(" ".join(parts[:3]) + ": " + " ".join(parts[4:]))
            elif len(parts) == 6:
                variant, arch, mode, metric, value, unit = parts
                try:
                    rows.append((variant, arch, mode, metric, float(value), unit))
                except ValueError:
                    print(f"bench: ignoring malformed line: {line.strip()}",
                          file=sys.stderr)
    return rows, kernels, notes, mechs


def sort_key(metric, seen):
    if metric in ORDER:
        return (0, ORDER.index(metric), "")
    return (1, seen.index(metric), metric)


def build_table(rows):
    """{(arch, mode): {metric: {variant: (value, unit)}}}, metric order."""
    table, seen = {}, []
    for variant, arch, mode, metric, value, unit in rows:
        table.setdefault((arch, mode), {}).setdefault(metric, {})[variant] = (value, unit)
        if metric not in seen:
            seen.append(metric)
    order = sorted(seen, key=lambda m: sort_key(m, seen))
    return table, order


def fmt(v):
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


def mechanism(mechs, arch, mode, metric):
    """"upstream / ours" ways the row's probe was reached, or "-"."""
    up = mechs.get(("upstream", arch, mode, metric))
    us = mechs.get(("ours", arch, mode, metric))
    if up is None and us is None:
        return "-"
    if mode == "atomics":
        # Function lists: "name=count;..." from scripts/bench.sh.
        up, us = (x.replace(";", ", ") if x else x for x in (up, us))
    if up == us:
        return up
    return f"{up or '?'} / {us or '?'}"


TITLES = {"icount": " (guest ns = instructions)", "wall": " (wall clock)",
          "atomics": " (atomic read-modify-writes per hit, by the profiler)"}


def render(table, order, mechs):
    out = []
    for (arch, mode) in sorted(table):
        metrics = table[(arch, mode)]
        out.append(f"### {arch}, {mode}" + TITLES.get(mode, ""))
        out.append("")
        what = "where (upstream / ours)" if mode == "atomics" else "mechanism (upstream / ours)"
        out.append(f"| metric | {what} | unit | upstream | ours | ours/upstream |")
        out.append("|---|---|---|---:|---:|---:|")
        for m in order:
            if m not in metrics:
                continue
            if mode == "icount" and m in NOT_UNDER_ICOUNT:
                continue
            by = metrics[m]
            unit = next(iter(by.values()))[1]
            up = by.get("upstream", (None,))[0]
            us = by.get("ours", (None,))[0]
            ratio = f"{us / up:.2f}" if up and us is not None else "-"
            out.append(f"| {m} | {mechanism(mechs, arch, mode, m)} | {unit} | "
                       f"{fmt(up) if up is not None else '-'} | "
                       f"{fmt(us) if us is not None else '-'} | {ratio} |")
        out.append("")
    return "\n".join(out)


def chart(table, order, path):
    if not shutil.which("gnuplot"):
        print("bench: no gnuplot, no chart (make bench installs it)", file=sys.stderr)
        return
    # Counts of atomics are not costs: a path of ours with none has no ratio.
    series = sorted(k for k in table if k[1] != "atomics")
    if not series:
        return
    data = path + ".dat"
    names = [m for m in order if m not in BASELINES]
    with open(data, "w") as f:
        f.write("metric " + " ".join(f"{a}-{m}" for a, m in series) + "\n")
        for m in names:
            vals = []
            for key in series:
                by = table[key].get(m, {}) if not (key[1] == "icount" and
                                                   m in NOT_UNDER_ICOUNT) else {}
                up = by.get("upstream", (None,))[0]
                us = by.get("ours", (None,))[0]
                # A log scale has no 0: a path of ours that costs nothing
                # (a process probe in another process) has no bar.
                vals.append(f"{us / up:.4f}" if up and us else "NaN")
            f.write(m + " " + " ".join(vals) + "\n")
    height = max(400, 40 * len(names) + 150)
    plot = ", ".join(
        f"'{data}' using {i + 2}:xtic(1) title columnheader({i + 2})"
        for i in range(len(series)))
    script = f"""
set terminal png size 1100,{height} noenhanced
set output '{path}'
set title 'ours / upstream 6.12, log scale (below 1: ours is cheaper)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -40 font ',9'
set logscale y
set yrange [0.002:100]
set ytics ('0.01' 0.01, '0.1' 0.1, '0.5' 0.5, '1' 1, '2' 2, '10' 10, '100' 100)
set grid ytics
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb 'red'
plot {plot}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=False)
    os.unlink(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    rows, kernels, notes, mechs = load(args.raw)
    if not rows:
        print("bench: no results (see the bench logs in out/logs/)")
        return 1
    header = ["date", "arch", "mode", "variant", "kernel", "metric", "value", "unit"]
    recs = [[args.date, a, mo, v, kernels.get((v, a, mo), "?"), m, f"{val:g}", u]
            for v, a, mo, m, val, u in rows]
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(recs)
    hist = os.path.join(args.out, "history.csv")
    new = not os.path.exists(hist)
    with open(hist, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(header)
        w.writerows(recs)

    table, order = build_table(rows)
    text = render(table, order, mechs)
    if notes:
        text += "\nNot reported (the benchmark refuses figures whose probes did not fire):\n\n"
        text += "\n".join(f"- {n}" for n in notes) + "\n"
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    chart(table, order, os.path.join(args.out, "ratios.png"))
    print(f"bench: {args.out}/results.csv, table.md, ratios.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
