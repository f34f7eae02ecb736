#!/usr/bin/env python3
"""Quantile and scatter plots of `argus bench` result files (issue 24 item 4).

usage: scripts/bench-plot.py RUN.json [RUN2.json ...] --out DIR [--labels a,b,...]

Reads result files as `argus bench --out` writes them (or as scripts/bench-compact.py
shrinks them: both have "timeout_s" and per task "task", "result", "cpu_time_s",
"reason") and writes into DIR, each as PNG and SVG:

  quantile.png/.svg   for each run, the CPU times of its correctly solved tasks sorted
                      ascending: x = n-th fastest solved task, y = CPU seconds (log),
                      one line per run (the quantile plots of the papers)
  scatter.png/.svg    (two or more runs) run 1 (x) against run 2 (y), CPU seconds per
                      task, log-log, with the diagonal; a task a run did not solve
                      (unknown, timeout, wrong) sits on that run's border line beyond
                      the timeout; colour = the worse outcome of the two runs.
                      With more runs also scatter-3 ... for run 1 against run 3 ...

Labels default to the file names without .json. Needs python3-matplotlib (Debian);
draws with the Agg backend, no display needed. Exit code 0 on success, 3 if
matplotlib is missing, 2 on bad arguments or unreadable input.
"""
import json
import os
import sys

CORRECT = ("correct_true", "correct_false")
MIN_CPU = 0.01  # log axes: a task that took no measurable CPU is drawn at 10 ms

# outcome kind of one task in one run, worst last
KINDS = ("solved", "unknown", "timeout", "wrong")
KIND_STYLE = {
    "solved": ("#1f77b4", "o", "solved by both"),
    "unknown": ("#7f7f7f", "s", "unknown in a run"),
    "timeout": ("#ff7f0e", "^", "timeout in a run"),
    "wrong": ("#d62728", "X", "wrong verdict in a run"),
}


def load_run(path):
    with open(path) as f:
        d = json.load(f)
    if not isinstance(d, dict) or not isinstance(d.get("tasks"), list):
        raise ValueError(f"{path}: not an argus bench result file (no \"tasks\" list)")
    timeout = float(d.get("timeout_s") or 0) or None
    tasks = {}
    for t in d["tasks"]:
        if not isinstance(t, dict) or "task" not in t:
            raise ValueError(f"{path}: a task entry without \"task\"")
        tasks[t["task"]] = t
    return {"path": path, "timeout": timeout, "tasks": tasks, "order": [t["task"] for t in d["tasks"]]}


def kind(t):
    if t is None:
        return "unknown"
    r = t.get("result") or "unknown"
    if r in CORRECT:
        return "solved"
    if r.startswith("wrong"):
        return "wrong"
    if (t.get("reason") or "").startswith("timeout"):
        return "timeout"
    return "unknown"


def cpu(t):
    return max(float(t.get("cpu_time_s") or 0.0), MIN_CPU)


def save(fig, out_dir, name):
    paths = []
    for ext in ("png", "svg"):
        p = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(p, dpi=100 if ext == "png" else None, bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None)
        paths.append(p)
    return paths


def quantile_plot(plt, runs, labels, out_dir):
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    most = 1
    for run, label in zip(runs, labels):
        times = sorted(cpu(t) for t in run["tasks"].values() if kind(t) == "solved")
        most = max(most, len(times))
        xs = list(range(1, len(times) + 1))
        ax.plot(xs, times, marker="o", markersize=2.5, linewidth=1.3, label=f"{label} ({len(times)} solved)")
    timeouts = {r["timeout"] for r in runs if r["timeout"]}
    for to in sorted(timeouts):
        ax.axhline(to, color="#999999", linestyle=":", linewidth=1)
        ax.annotate(f"timeout {to:g} s", (most + 1, to), textcoords="offset points", xytext=(-3, 3), fontsize=8,
                    color="#666666", ha="right")
    ax.set_yscale("log")
    if timeouts:
        ax.set_ylim(top=max(timeouts) * 2)
    ax.set_xlim(0, most + 1)
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set_xlabel("n-th fastest correctly solved task")
    ax.set_ylabel("CPU time (s)")
    ax.set_title("Quantile plot: CPU time of correctly solved tasks")
    ax.grid(True, which="major", linestyle="-", linewidth=0.4, alpha=0.5)
    ax.legend(loc="upper left", fontsize=9)
    paths = save(fig, out_dir, "quantile")
    plt.close(fig)
    return paths


def scatter_plot(plt, a, b, la, lb, out_dir, name):
    timeout = max([r["timeout"] for r in (a, b) if r["timeout"]] or [0.0])
    names = list(a["order"]) + [n for n in b["order"] if n not in a["tasks"]]
    solved_max = max([cpu(r["tasks"][n]) for r in (a, b) for n in r["tasks"] if kind(r["tasks"][n]) == "solved"] or [1.0])
    # the border lines: beyond the timeout (and beyond every solved task's CPU time)
    border = max(timeout, solved_max) * 1.6
    solved_min = min([cpu(r["tasks"][n]) for r in (a, b) for n in r["tasks"] if kind(r["tasks"][n]) == "solved"] or [1.0])
    lo = solved_min * 0.5
    groups = {k: ([], []) for k in KINDS}
    counts = {k: 0 for k in KINDS}
    for n in names:
        ta, tb = a["tasks"].get(n), b["tasks"].get(n)
        ka, kb = kind(ta), kind(tb)
        x = cpu(ta) if ka == "solved" else border
        y = cpu(tb) if kb == "solved" else border
        k = max(ka, kb, key=KINDS.index)
        groups[k][0].append(x)
        groups[k][1].append(y)
        counts[k] += 1
    fig, ax = plt.subplots(figsize=(5.6, 5.4))
    ax.plot([lo, border], [lo, border], color="#444444", linewidth=0.8, label="_diagonal")
    for f in (10.0, 0.1):  # factor-10 guides
        ax.plot([lo, border], [lo * f, border * f], color="#bbbbbb", linewidth=0.6, linestyle="--")
    ax.axvline(border, color="#999999", linewidth=0.8)
    ax.axhline(border, color="#999999", linewidth=0.8)
    if timeout:
        ax.axvline(timeout, color="#999999", linewidth=0.8, linestyle=":")
        ax.axhline(timeout, color="#999999", linewidth=0.8, linestyle=":")
    for k in KINDS:
        xs, ys = groups[k]
        if not xs:
            continue
        color, marker, text = KIND_STYLE[k]
        ax.scatter(xs, ys, s=18, c=color, marker=marker, alpha=0.75, linewidths=0, label=f"{text} ({counts[k]})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, border * 1.3)
    ax.set_ylim(lo, border * 1.3)
    ax.set_aspect("equal")
    ax.set_xlabel(f"CPU time (s), {la}")
    ax.set_ylabel(f"CPU time (s), {lb}")
    ax.text(border, lo * 1.15, " not solved", rotation=90, fontsize=8, color="#666666", ha="right", va="bottom")
    ax.text(lo * 1.15, border, "not solved", fontsize=8, color="#666666", ha="left", va="bottom")
    ax.set_title(f"{lb} vs. {la}: CPU time per task")
    ax.grid(True, which="major", linestyle="-", linewidth=0.4, alpha=0.5)
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9, bbox_to_anchor=(0.0, 0.93))
    paths = save(fig, out_dir, name)
    plt.close(fig)
    return paths


def parse_args(argv):
    files, out, labels = [], None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if a in ("--out", "--labels"):
            if i + 1 >= len(argv):
                raise ValueError(f"{a} needs a value")
            if a == "--out":
                out = argv[i + 1]
            else:
                labels = [s.strip() for s in argv[i + 1].split(",")]
            i += 2
            continue
        if a.startswith("--out="):
            out = a[len("--out="):]
        elif a.startswith("--labels="):
            labels = [s.strip() for s in a[len("--labels="):].split(",")]
        elif a.startswith("-"):
            raise ValueError(f"unknown option {a}")
        else:
            files.append(a)
        i += 1
    if not files:
        raise ValueError("no result file given")
    if not out:
        raise ValueError("--out DIR is required")
    if labels is None:
        labels = [os.path.splitext(os.path.basename(f))[0] for f in files]
    if len(labels) != len(files):
        raise ValueError(f"{len(labels)} labels for {len(files)} result files")
    return files, out, labels


def main(argv):
    try:
        files, out, labels = parse_args(argv[1:])
    except ValueError as e:
        print(f"bench-plot: {e}\n\n{__doc__.strip()}", file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # Debian's python3-matplotlib is installed for /usr/bin/python3; another python3
        # first on PATH (pyenv, a venv) does not see it: run again with Debian's.
        debian = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(debian) and os.access(debian, os.X_OK) \
                and not os.environ.get("ARGUS_BENCH_PLOT_REEXEC"):
            os.environ["ARGUS_BENCH_PLOT_REEXEC"] = "1"
            os.execv(debian, [debian, os.path.abspath(__file__)] + argv[1:])
        print("bench-plot: python3-matplotlib is not installed (Debian: apt-get install python3-matplotlib); no plots drawn",
              file=sys.stderr)
        return 3
    try:
        runs = [load_run(f) for f in files]
    except (OSError, ValueError) as e:
        print(f"bench-plot: {e}", file=sys.stderr)
        return 2
    # deterministic SVG output (no date, fixed ids)
    matplotlib.rcParams["svg.hashsalt"] = "argus"
    matplotlib.rcParams["svg.fonttype"] = "none"
    os.makedirs(out, exist_ok=True)
    written = quantile_plot(plt, runs, labels, out)
    for k in range(1, len(runs)):
        name = "scatter" if k == 1 else f"scatter-{k + 1}"
        written += scatter_plot(plt, runs[0], runs[k], labels[0], labels[k], out, name)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
