#!/usr/bin/env python3
"""Writes a C file of N one-line functions (int fK(int x) { return x + K; }, K = 0..N-1)
plus an empty main: a translation unit whose size, not its functions, is large. Used to
measure that verifying one function costs what the function costs (issue 28), by
scripts and by the daemon probe. Write the output under build/ (never committed).

usage: scripts/gen-many-functions.py [-n 6636] OUT.c
"""
import argparse


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=6636, help="number of one-line functions (default 6636)")
    ap.add_argument("out", help="output file, e.g. build/many-functions.c")
    a = ap.parse_args()
    with open(a.out, "w") as f:
        for k in range(a.n):
            f.write(f"int f{k}(int x) {{ return x + {k}; }}\n")
        f.write("int main(void) { return 0; }\n")


if __name__ == "__main__":
    main()
