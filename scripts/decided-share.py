#!/usr/bin/env python3
"""Issue 29's figures from `argus project --format json` output.

usage: decided-share.py PROJECT.json [--list-latent N] [--list-manifest N] [--against OTHER.json]

Decided (the issue's definition): verified, a manifest counterexample, or a condition
covering every loop up to a bound >= 2 (no call-depth cut). A "complete" condition (no path
that avoids the excluded constructs goes beyond the bound) is counted apart, not as decided:
the excluded constructs may lie on every path. Latent findings are counted
apart, split by what the run verified of every other check after them.

--against OTHER.json: the functions whose kind of answer differs between OTHER.json (an
earlier run) and PROJECT.json, one line each ("name: before -> after"), and their count;
a function in only one of the runs is listed as "(absent)" on the other side.
"""
import json
import re
import sys


def category(f):
    """The kind of answer a function got, as the figures count it."""
    v = f["verdict"]
    if v == "conditional":
        b = f.get("bound", 0)
        detail = f.get("detail", "") or ""
        if f.get("complete"):
            # every path that avoids the excluded constructs, every loop fully unrolled; not
            # counted as decided: the constructs may lie on every path (SQLite's
            # robust_ftruncate: the call through osFtruncate is the loop's whole body)
            return "conditional complete, except constructs"
        return "conditional bound>=2" if b >= 2 and "calls nested" not in detail else "conditional bound<2 or depth cut"
    if v == "unknown":
        return "unknown: " + (f.get("reason") or "other")
    return v


def changes(before, after):
    """(name, before, after) for each function whose category differs, in name order."""
    a = {f["name"]: category(f) for f in before}
    b = {f["name"]: category(f) for f in after}
    out = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name, "(absent)"), b.get(name, "(absent)")
        if x != y:
            out.append((name, x, y))
    return out


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    path = args[0]
    n_latent = int(args[args.index("--list-latent") + 1]) if "--list-latent" in args else 0
    n_manifest = int(args[args.index("--list-manifest") + 1]) if "--list-manifest" in args else 0
    against = args[args.index("--against") + 1] if "--against" in args else None
    d = json.load(open(path))
    fs = d["functions"]
    cat = {}
    latent_rest = {"proved": 0, "bound>=2": 0, "complete except constructs": 0, "bound 1": 0, "nothing": 0}
    n_latent_findings = 0
    at_once = [f for f in fs if not f.get("worker") and not f.get("from_store") and f["verdict"] == "verified"]
    for f in fs:
        v = f["verdict"]
        cond = f.get("condition", "") or ""
        k = category(f)
        cat[k] = cat.get(k, 0) + 1
        if v == "latent":
            n_latent_findings += 1 + len(f.get("more_latent", []))
            if "every other check proved" in cond:
                latent_rest["proved"] += 1
            elif f.get("complete"):
                latent_rest["complete except constructs"] += 1
            elif f.get("bound", 0) >= 2 and "calls nested" not in cond:
                latent_rest["bound>=2"] += 1
            elif f.get("bound", 0) >= 1:
                latent_rest["bound 1"] += 1
            else:
                latent_rest["nothing"] += 1
    total = len(fs)
    decided = cat.get("verified", 0) + cat.get("counterexample", 0) + cat.get("conditional bound>=2", 0)
    print(f"{path}: {total} functions, wall {(d.get('time_s') or {}).get('total', 0) if isinstance(d.get('time_s'), dict) else d.get('time_s', 0):.0f} s")
    for k in sorted(cat):
        print(f"  {k:40s} {cat[k]:5d}  {100.0 * cat[k] / total:5.1f} %")
    print(f"  decided (verified + manifest false + bound>=2 on every loop): {decided} = {100.0 * decided / total:.1f} %")
    # verified for the inputs that meet the function's own contract (README "Contracts"),
    # which its callers' runs check; these functions, and any other one with an assumed contract
    assumed = [f for f in fs if f.get("assumed_precondition")]
    print(f"  verified assuming their own precondition: "
          f"{sum(1 for f in assumed if f['verdict'] == 'verified')} "
          f"(functions with an assumed precondition, any answer: {len(assumed)})")
    nl = cat.get("latent", 0)
    print(f"  latent functions {nl}, latent findings {n_latent_findings}; every other check after them: {latent_rest}")
    extra = latent_rest["proved"] + latent_rest["bound>=2"]
    print(f"  decided counting latent functions whose other checks are proved or bound>=2: "
          f"{decided + extra} = {100.0 * (decided + extra) / total:.1f} %")
    ao = d.get("answered_at_once", {})
    print(f"  answered at once (nothing to check): {ao}")
    if at_once:
        slow = max(at_once, key=lambda f: f.get("engine_time_s", f.get("time_s", 0)))
        print(f"  slowest at once: {slow['name']} {slow.get('time_s'):.4f} s wall")
    if n_manifest:
        print("manifest counterexamples:")
        for f in [f for f in fs if f["verdict"] == "counterexample"][:n_manifest]:
            print(f"  {f['name']} ({f['file']}:{f['line']}): {f.get('detail')}")
    if n_latent:
        print("latent findings:")
        for f in [f for f in fs if f["verdict"] == "latent"][:n_latent]:
            print(f"  {f['name']} ({f['file']}:{f['line']}): {f.get('detail')}"
                  + (f" [+{len(f['more_latent'])} more]" if f.get("more_latent") else ""))
    if against:
        diff = changes(json.load(open(against))["functions"], fs)
        print(f"changed against {against}: {len(diff)}")
        for name, x, y in diff:
            print(f"  {name}: {x} -> {y}")


if __name__ == "__main__":
    main()
