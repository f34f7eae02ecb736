#!/usr/bin/env python3
"""One self-contained HTML page of an `argus bench` run (issue 24 item 5).

usage: scripts/bench-html.py RUN.json --out FILE.html [--label NAME]

RUN.json is a result file of `argus bench` (`argus bench --html FILE` passes its
results with each `false` task's counterexample added). The page has no external
assets (CSS and JS inline, the quantile plot as inline SVG from scripts/bench-plot.py
when python3-matplotlib is there): the summary table, the plot, and one row per task
with verdict, expected verdict, result, CPU time and reason, its counterexample trace
or condition in a collapsible <details>, filterable by category and by result.
"""
import html
import importlib.util
import json
import os
import sys
import tempfile

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;font-size:.9em}
th{background:#f0f0f0}td.num{text-align:right}
tr.correct_true td.res,tr.correct_false td.res{color:#1a7f37}
tr.wrong_true td.res,tr.wrong_false td.res{color:#fff;background:#d62728;font-weight:bold}
tr.unknown td.res{color:#777}
.filters{margin:1em 0}.filters label{margin-right:1em}
details pre{max-height:30em;overflow:auto;background:#f7f7f7;padding:.5em;font-size:.85em}
#plot svg{max-width:640px;height:auto}
"""

JS = """
function applyFilter(){
  var c=document.getElementById('f-category').value, r=document.getElementById('f-result').value, n=0;
  document.querySelectorAll('#tasks tbody tr').forEach(function(tr){
    var show=(!c||tr.dataset.category===c)&&(!r||tr.dataset.result===r);
    tr.hidden=!show; if(show) n++;
  });
  document.getElementById('shown').textContent=n;
}
document.getElementById('f-category').addEventListener('change',applyFilter);
document.getElementById('f-result').addEventListener('change',applyFilter);
applyFilter();
"""

RESULTS = ("correct_true", "correct_false", "wrong_true", "wrong_false", "unknown")


def esc(x):
    return html.escape("" if x is None else str(x))


def quantile_svg(run_path, label):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("bench_plot", os.path.join(here, "bench-plot.py"))
    bp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bp)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    matplotlib.rcParams["svg.hashsalt"] = "argus"
    matplotlib.rcParams["svg.fonttype"] = "none"
    with tempfile.TemporaryDirectory() as d:
        bp.quantile_plot(plt, [bp.load_run(run_path)], [label], d)
        svg = open(os.path.join(d, "quantile.svg")).read()
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else None


def trace_text(t):
    """The counterexample's steps, one a line, or the condition (unknown/true)."""
    cex = t.get("counterexample")
    if isinstance(cex, dict) and cex.get("steps"):
        lines = []
        for s in cex["steps"]:
            vals = ", ".join(f"{k} = {v}" for k, v in (s.get("values") or {}).items())
            where = f"{os.path.basename(s.get('file') or '')}:{s.get('line', '')}"
            lines.append(f"{where:<24} {s.get('function', '')}: {s.get('statement', '')}" + (f"   [{vals}]" if vals else ""))
        return "counterexample", "\n".join(lines)
    cond = t.get("condition")
    if isinstance(cond, dict) and cond:
        return "condition", json.dumps(cond, indent=1)
    return None, ""


def page(d, label):
    tasks = d.get("tasks") or []
    s = d.get("summary") or {}
    head = [("algorithm", d.get("algorithm")), ("solver", d.get("solver")), ("timeout (s)", d.get("timeout_s")),
            ("jobs", d.get("jobs")), ("manifest", d.get("manifest"))]
    counts = {r: sum(1 for t in tasks if t.get("result") == r) for r in RESULTS}
    cpu = sum(float(t.get("cpu_time_s") or 0) for t in tasks)
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>argus bench: {esc(label)}</title><style>{CSS}</style></head><body>",
           f"<h1>argus bench: {esc(label)}</h1>", "<table id=\"run\">"]
    out += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in head]
    if d.get("in_progress"):
        out.append("<tr><th>state</th><td>in progress (partial results)</td></tr>")
    out.append("</table><h2>Summary</h2><table id=\"summary\"><tr><th>total</th>")
    out += [f"<th>{r.replace('_', ' ')}</th>" for r in RESULTS]
    out.append("<th>CPU time (s)</th><th>score</th></tr>")
    out.append(f"<tr><td class=\"num\">{len(tasks)}</td>" + "".join(f"<td class=\"num\">{counts[r]}</td>" for r in RESULTS)
               + f"<td class=\"num\">{cpu:.1f}</td><td class=\"num\">{esc(s.get('score', ''))}</td></tr></table>")
    svg = quantile_svg_cached.get("svg")
    out.append("<h2>Quantile plot</h2><div id=\"plot\">")
    out.append(svg if svg else "<p>(no plot: python3-matplotlib is not installed)</p>")
    out.append("</div><h2>Tasks</h2><div class=\"filters\">")
    cats = sorted({t.get("category") or "" for t in tasks} - {""})
    out.append("<label>category <select id=\"f-category\"><option value=\"\">all</option>"
               + "".join(f"<option>{esc(c)}</option>" for c in cats) + "</select></label>")
    out.append("<label>result <select id=\"f-result\"><option value=\"\">all</option>"
               + "".join(f"<option value=\"{r}\">{r.replace('_', ' ')}</option>" for r in RESULTS) + "</select></label>")
    out.append(f"<span><span id=\"shown\">{len(tasks)}</span> of {len(tasks)} tasks shown</span></div>")
    out.append("<table id=\"tasks\"><thead><tr><th>task</th><th>category</th><th>verdict</th><th>expected</th>"
               "<th>result</th><th>CPU (s)</th><th>reason</th><th>trace / condition</th></tr></thead><tbody>")
    for t in tasks:
        kind, text = trace_text(t)
        detail = f"<details><summary>{kind}</summary><pre>{esc(text)}</pre></details>" if kind else ""
        r = t.get("result") or "unknown"
        out.append(f"<tr class=\"{esc(r)}\" data-category=\"{esc(t.get('category') or '')}\" data-result=\"{esc(r)}\">"
                   f"<td>{esc(t.get('task'))}</td><td>{esc(t.get('category'))}</td><td>{esc(t.get('verdict'))}</td>"
                   f"<td>{esc(t.get('expected'))}</td><td class=\"res\">{esc(r.replace('_', ' '))}</td>"
                   f"<td class=\"num\">{float(t.get('cpu_time_s') or 0):.2f}</td><td>{esc(t.get('reason'))}</td>"
                   f"<td>{detail}</td></tr>")
    out.append(f"</tbody></table><script>{JS}</script></body></html>")
    return "\n".join(out) + "\n"


quantile_svg_cached = {}


def main(argv):
    args = argv[1:]
    out, label, files = None, None, []
    i = 0
    while i < len(args):
        if args[i] in ("--out", "--label") and i + 1 < len(args):
            if args[i] == "--out":
                out = args[i + 1]
            else:
                label = args[i + 1]
            i += 2
        elif args[i] in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif args[i].startswith("-"):
            print(f"bench-html: unknown option {args[i]}\n\n{__doc__.strip()}", file=sys.stderr)
            return 2
        else:
            files.append(args[i])
            i += 1
    if len(files) != 1 or not out:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(files[0]) as f:
            d = json.load(f)
        if not isinstance(d, dict) or not isinstance(d.get("tasks"), list):
            raise ValueError("not an argus bench result file")
    except (OSError, ValueError) as e:
        print(f"bench-html: {files[0]}: {e}", file=sys.stderr)
        return 2
    label = label or d.get("algorithm") or os.path.splitext(os.path.basename(files[0]))[0]
    quantile_svg_cached["svg"] = quantile_svg(files[0], label)
    if quantile_svg_cached["svg"] is None and os.path.exists("/usr/bin/python3") \
            and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
            and not os.environ.get("ARGUS_BENCH_PLOT_REEXEC"):
        # Debian's python3-matplotlib lives with /usr/bin/python3 (not pyenv's or a venv's)
        os.environ["ARGUS_BENCH_PLOT_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + argv[1:])
    with open(out + ".part", "w") as f:
        f.write(page(d, label))
    os.replace(out + ".part", out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
