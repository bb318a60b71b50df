#!/usr/bin/python3
"""Runs bench/search_quality and its Optuna peer and prints both with ratios.

For each --workers value W it runs ours (build/bench/search_quality) and, for
W in --peer-workers, bench/search_quality_optuna.py, on the same table,
summary, seeds and horizon factor. Prints one JSON object: per W, both
outputs unchanged ("tuner", "optuna"; the peer absent where it was not run)
and "ratios":

  time_ratio_vs_random        per method, ours and the peer's: its
                              median_time_to_target_s / our random's (same W).
  device_ratio_vs_optuna_best our best method's median_device_s_to_target /
                              the best Optuna method's (same W; best = the
                              lowest, null counting as +inf).

A null on either side gives null (so does a W the peer did not run).

Usage: bench/compare_search_quality.py [--workers 1,8] [--peer-workers 8]
         [--seeds 20] [--horizon-factor 1.5] [--build build]
         [--table PATH] [--summary PATH] [--peer bench/search_quality_optuna.py]
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "benchmarks", "nasbench-nlp-wt2")
SETUP_KEYS = ("target", "e64_s", "horizon_s")


def fail(msg):
    """Prints a one-line error and exits with status 2."""
    print("compare_search_quality: " + msg, file=sys.stderr)
    sys.exit(2)


def run_json(name, cmd):
    """Runs cmd and parses the last line of its stdout as JSON."""
    print("running: " + " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or [""])[-1]
        fail(f"{name} exited {out.returncode}: {last}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def int_list(text):
    """"1,8" -> [1, 8]."""
    return [int(x) for x in text.split(",") if x.strip()]


def ratio(num, den):
    """num / den, or None when either is None or den is 0."""
    if num is None or den is None or den == 0:
        return None
    return num / den


def best_device(methods):
    """(name, median_device_s_to_target) of the lowest; null as +inf."""
    def key(item):
        v = item[1]["median_device_s_to_target"]
        return math.inf if v is None else v
    if not methods:
        return None, None
    name, fig = min(methods.items(), key=key)
    return name, fig["median_device_s_to_target"]


def ratios(ours, peer):
    """The ratios for one worker count; peer may be None."""
    random_time = ours["methods"]["random"]["median_time_to_target_s"]
    out = {"time_ratio_vs_random": {}}
    for side, doc in (("tuner", ours), ("optuna", peer)):
        if doc is None:
            continue
        out["time_ratio_vs_random"][side] = {
            name: ratio(fig["median_time_to_target_s"], random_time)
            for name, fig in doc["methods"].items()}
    our_best, our_dev = best_device(ours["methods"])
    peer_best, peer_dev = best_device(peer["methods"] if peer else {})
    out["tuner_best"] = our_best
    out["optuna_best"] = peer_best
    out["device_ratio_vs_optuna_best"] = ratio(our_dev, peer_dev)
    return out


def same_setup(ours, peer):
    """Whether both sides computed the same target, E64 and horizon."""
    return all(math.isclose(ours[k], peer[k], rel_tol=1e-9) for k in SETUP_KEYS)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", default="1,8")
    p.add_argument("--peer-workers", default="8")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--horizon-factor", type=float, default=1.5)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--table", default=os.path.join(DATA, "nasbench-nlp-wt2.jsonl"))
    p.add_argument("--summary", default=os.path.join(
        DATA, "nasbench-nlp-wt2.summary.json"))
    p.add_argument("--peer", default=os.path.join(HERE, "search_quality_optuna.py"))
    a = p.parse_args()
    for path in (a.table, a.summary):
        if not os.path.isfile(path):
            fail("benchmark data not found: " + os.path.normpath(path))
    ours_bin = os.path.join(a.build, "bench", "search_quality")
    if not os.access(ours_bin, os.X_OK):
        fail("not built: " + ours_bin + " (run scripts/build.sh)")
    common = ["--table", a.table, "--summary", a.summary, "--seeds",
              str(a.seeds), "--horizon-factor", str(a.horizon_factor)]
    peer_workers = set(int_list(a.peer_workers))
    result = {"seeds": a.seeds, "horizon_factor": a.horizon_factor,
              "by_workers": {}}
    for w in int_list(a.workers):
        ours = run_json("search_quality", [ours_bin] + common + ["--workers", str(w)])
        peer = None
        if w in peer_workers:
            peer = run_json("the Optuna peer", ["/usr/bin/python3", a.peer]
                            + common + ["--workers", str(w)])
        entry = {"tuner": ours}
        if peer is not None:
            entry["optuna"] = peer
            entry["same_setup"] = same_setup(ours, peer)
            if not entry["same_setup"]:
                print(f"warning: W={w}: target/e64_s/horizon_s differ between "
                      "ours and the peer", file=sys.stderr)
        entry["ratios"] = ratios(ours, peer)
        result["by_workers"][str(w)] = entry
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
