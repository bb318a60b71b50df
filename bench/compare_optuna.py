#!/usr/bin/python3
"""Runs bench/bookkeeping and the Optuna peer on the same workload in one run.

Workload: ../shared/peers/optuna_overhead.py (N trials, R reports, lr
log-uniform, the same curve, minimise, ASHA grace 1 rf 3). For each storage
(memory, SQLite file) it runs --repeat rounds: the peer once a round in
memory (once in all for SQLite, ~30 s a run), then ours (three times a round
in memory), and prints one JSON object with both medians and their ratio.

Every run is pinned to one CPU (--cpu).

Usage: bench/compare_optuna.py [--trials 1000] [--reports 27]
         [--build build] [--peer ../shared/peers/optuna_overhead.py]
         [--commit-every 1000] [--cpu N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trials", type=int, default=1000)
    p.add_argument("--reports", type=int, default=27)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--commit-every", type=int, default=1000,
                   help="ours: trials per transaction (1: a commit before "
                        "each launch and each stop)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--peer", default=os.path.join(
        ROOT, "..", "shared", "peers", "optuna_overhead.py"))
    p.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)),
                   help="the one CPU every run is pinned to (default: the "
                        "last this process may use)")
    a = p.parse_args()
    # One CPU for all runs, peer and ours: a virtual machine's CPUs can
    # differ in speed by half (a host's neighbours), and a run that lands on
    # the slow one would compare unlike with unlike.
    os.sched_setaffinity(0, {a.cpu})
    ours_bin = os.path.join(a.build, "bench", "bookkeeping")
    tmp = tempfile.mkdtemp(prefix="tuner-bench-")
    result = {"trials": a.trials, "reports": a.reports,
              "commit_every": a.commit_every, "cpu": a.cpu}
    # Memory first: the file runs leave the kernel writing their pages back.
    for storage in ("memory", "sqlite"):
        peer_arg = ("sqlite:///" + os.path.join(tmp, "optuna.db")
                    if storage == "sqlite" else "memory")
        ours_arg = os.path.join(tmp, "tuner.db") if storage == "sqlite" else "memory"
        # The SQLite peer takes ~30 s a run: once. The in-memory one is fast:
        # as many runs as rounds, each followed by ours, so that a slow spell
        # of a shared machine slows both rather than one. Ours in memory
        # takes a twentieth of the peer's time: three runs a round, so that
        # its median covers as much of the machine's time.
        peer_cmd = ["/usr/bin/python3", a.peer, str(a.trials), str(a.reports),
                    peer_arg]
        ours_cmd = [ours_bin, "--trials", str(a.trials), "--reports",
                    str(a.reports), "--storage", ours_arg, "--commit-every",
                    str(a.commit_every)]
        peer_runs, ours = [], []
        for i in range(a.repeat):
            if storage == "memory" or i == 0:
                peer_runs.append(run_json(peer_cmd))
            for _ in range(3 if storage == "memory" else 1):
                ours.append(run_json(ours_cmd))
        peer = dict(peer_runs[0])
        peer["reports_per_s"] = statistics.median(
            r["reports_per_s"] for r in peer_runs)
        ours_rate = statistics.median(r["reports_per_s"] for r in ours)
        result[storage] = {
            "peer": peer["peer"],
            "peer_reports_per_s_median": peer["reports_per_s"],
            "peer_reports_per_s_all": [r["reports_per_s"]
                                       for r in peer_runs],
            "peer_best": peer["best"],
            "ours_reports_per_s_median": ours_rate,
            "ours_reports_per_s_all": [r["reports_per_s"] for r in ours],
            "ours_best": ours[0]["best"],
            "ratio": round(ours_rate / peer["reports_per_s"], 1),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
