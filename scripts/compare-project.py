#!/usr/bin/env python3
"""Compare argusd's per-function states with `argus project`'s verdicts on the same file.

Usage: scripts/compare-project.py DAEMON.jsonl PROJECT.json
  DAEMON.jsonl: the table tests/e2e/bench/sqlite.mjs writes with SQLITE_TABLE=FILE
  PROJECT.json: `argus project ... --format json` on the same file and flags
Prints, for the functions both have decided, the classification of each side, the
agreement, and every function classified differently with both sides' reasons.
"""
import json
import sys
from collections import Counter

# argusd state -> argus project verdict
DAEMON_TO_PROJECT = {
    "verified": "verified",
    "violated": "counterexample",
    "conditional": "conditional",
    "error": "error",
}


def daemonClass(d):
    """argusd shows every unknown as `conditional` (with the reason in its diagnostic);
    argus project splits them: a latent finding, a condition (a bound, excluded parts),
    or unknown."""
    c = DAEMON_TO_PROJECT[d["state"]]
    if c != "conditional":
        return c
    m = d.get("message", "")
    if "latent finding" in m:
        return "latent"
    if "verified for loops unrolled" in m or "verified except" in m:
        return "conditional"
    return "unknown"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    daemon = {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                daemon[r["name"]] = r
    with open(sys.argv[2]) as f:
        project = json.load(f)
    rows = project["functions"] if isinstance(project, dict) else project
    pairs = []
    for p in rows:
        name = p.get("name") or p.get("function")
        d = daemon.get(name)
        if not d or not p.get("verdict") or d["state"] not in DAEMON_TO_PROJECT:
            continue
        pairs.append((name, daemonClass(d), p["verdict"], d.get("message", ""), p.get("reason", "") or p.get("detail", "")))
    same = sum(1 for _, a, b, _, _ in pairs if a == b)
    print(f"functions decided by both: {len(pairs)}; same classification: {same}")
    print("argusd:        ", dict(Counter(a for _, a, _, _, _ in pairs)))
    print("argus project: ", dict(Counter(b for _, _, b, _, _ in pairs)))
    for name, a, b, ma, mb in pairs:
        if a != b:
            print(f"  {name}: argusd {a} ({ma[:100]}) / project {b} ({mb[:100]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
