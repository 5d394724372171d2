#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Markdown rows from one hyperfine JSON export: median and p10-p90 wall
time, user+sys CPU (the command and its children) and both as a ratio of
the last command, the peer, measured in the same run.

usage: hyperfine_rows.py EXPORT.json LABEL... (one label per command, the
peer's last)
"""
import json
import statistics
import sys


def pct(sorted_times, p):
    return sorted_times[min(len(sorted_times) - 1, int(round(p * (len(sorted_times) - 1))))]


def main():
    export, labels = sys.argv[1], sys.argv[2:]
    results = json.load(open(export))["results"]
    if len(results) != len(labels):
        sys.exit("hyperfine_rows.py: %d commands but %d labels" % (len(results), len(labels)))
    peer = results[-1]
    peer_med = statistics.median(peer["times"])
    peer_cpu = peer["user"] + peer["system"]
    for label, r in zip(labels, results):
        t = sorted(r["times"])
        med = statistics.median(t)
        cpu = r["user"] + r["system"]
        print("| %s | %.2f ms (p10-p90 %.2f-%.2f) | %.2f ms | %.2fx | %.2fx | %d |" % (
            label, med * 1e3, pct(t, 0.1) * 1e3, pct(t, 0.9) * 1e3, cpu * 1e3, med / peer_med,
            cpu / peer_cpu if peer_cpu > 0 else float("nan"), len(t)))


if __name__ == "__main__":
    main()
