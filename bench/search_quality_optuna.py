#!/usr/bin/python3
"""Optuna peer of build/bench/search_quality: search quality on real curves.

Replays the NAS-Bench-NLP WikiText-2 learning curves
(../shared/benchmarks/nasbench-nlp-wt2) in simulated time on W workers, with
Optuna's SuccessiveHalvingPruner (min_resource 1, rf 3, min_early_stopping_rate
0, minimise) and two samplers:

  optuna_random_sha  RandomSampler(seed): suggest_int("row", 0, N-1), the row.
  optuna_tpe_sha     TPESampler(seed): suggest_float("num_params", lo, hi,
                     log=True), the row nearest in log space (ties: uniform,
                     random.Random(seed), one RNG per run).

Simulation: at t=0 every worker asks a trial. A trial's epoch e report is at
start + the row's seconds of epochs 1..e. Events run in time order (ties: the
earlier-started trial, then the earlier-asked one). At each report:
trial.report(val_loss, epoch), should_prune(); pruned -> tell(PRUNED). A null
val_loss -> tell(FAIL) (the run died of NaN); after the last epoch tell(the
last val_loss), or FAIL for a diverged row that stops short without a null.
A worker freed by an event asks a new trial at once (before the next event),
while fewer than --trials were asked and t < H. The run ends at the horizon
H = horizon_factor * E64, E64 = 64 * M / W (M: mean whole-run seconds; events
at t <= H count), or when nothing runs and nothing more may be asked.

Per seed: best_so_far(t) = min final val_loss of trials that reported epoch 50
at or before t; time to the target (the summary's expected best of random
search with k=64, pool "all"); device seconds to it (busy worker-seconds, a
trial busy from its start to its last event); best_so_far at 0.25, 0.5 and
1.0 x E64. Per method, medians over seeds (statistics.median, the mean of the
two middle values for an even count; unreached/None counts as +inf, an
infinite median prints null). Prints one JSON line on stdout; progress on
stderr.

Usage: bench/search_quality_optuna.py [--table PATH] [--summary PATH]
         [--seeds 20] [--workers 8] [--trials 345] [--horizon-factor 1.5]
"""
import argparse
import bisect
import heapq
import json
import math
import os
import random
import statistics
import sys
import time

import optuna

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "benchmarks", "nasbench-nlp-wt2")
MAX_T = 50
BUDGETS = (0.25, 0.5, 1.0)
METHODS = ("optuna_random_sha", "optuna_tpe_sha")


def fail(msg):
    """Prints a one-line error and exits with status 2."""
    print("search_quality_optuna: " + msg, file=sys.stderr)
    sys.exit(2)


def load_table(path):
    """Rows as dicts: num_params, ends (cumulative seconds), losses."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            ends, total = [], 0.0
            for c in r["curve"]:
                total += c["seconds"]
                ends.append(total)
            rows.append({"num_params": r["config"]["num_params"], "ends": ends,
                         "losses": [c["val_loss"] for c in r["curve"]]})
    return rows


def load_target(path):
    """(TARGET, M) from the summary: k=64 of pool "all", mean run seconds."""
    with open(path) as f:
        s = json.load(f)
    pool = next(p for p in s["random_search"] if p["pool"] == "all")
    k64 = next(e for e in pool["expected_random_search"] if e["k"] == 64)
    return (k64["expected_best_final_val_loss"],
            s["seconds_per_config_total"]["mean"])


def row_picker(method, seed, rows):
    """(sampler, pick(trial) -> row index) for a method and seed."""
    n = len(rows)
    if method == "optuna_random_sha":
        return (optuna.samplers.RandomSampler(seed=seed),
                lambda trial: trial.suggest_int("row", 0, n - 1))
    logs = [math.log(r["num_params"]) for r in rows]
    lo = min(r["num_params"] for r in rows)
    hi = max(r["num_params"] for r in rows)
    rng = random.Random(seed)

    def pick(trial):
        x = math.log(trial.suggest_float("num_params", lo, hi, log=True))
        dist = [abs(v - x) for v in logs]
        best = min(dist)
        return rng.choice([i for i, d in enumerate(dist) if d == best])

    return optuna.samplers.TPESampler(seed=seed), pick


def simulate(method, seed, rows, workers, max_trials, horizon):
    """Runs one study in simulated time; returns its trials' records.

    Each record: start, end (time of its last event, None if still running at
    the horizon), final (val_loss at epoch MAX_T or None).
    """
    sampler, pick = row_picker(method, seed, rows)
    study = optuna.create_study(
        direction="minimize", sampler=sampler,
        pruner=optuna.pruners.SuccessiveHalvingPruner(
            min_resource=1, reduction_factor=3, min_early_stopping_rate=0))
    records, running, events = [], {}, []

    def start(t):
        trial = study.ask()
        row = rows[pick(trial)]
        k = len(records)
        records.append({"start": t, "end": None, "final": None})
        running[k] = (trial, row)
        heapq.heappush(events, (t + row["ends"][0], t, k, 0))

    for _ in range(min(workers, max_trials)):
        start(0.0)
    while events:
        t, _, k, i = heapq.heappop(events)
        if t > horizon:
            break
        trial, row = running[k]
        loss, epoch = row["losses"][i], i + 1
        done = True
        if loss is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            trial.report(loss, step=epoch)
            if epoch == MAX_T:
                records[k]["final"] = loss
            if trial.should_prune():
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            elif i + 1 < len(row["losses"]):
                heapq.heappush(events, (row["ends"][i + 1] + records[k]["start"],
                                        records[k]["start"], k, i + 1))
                done = False
            elif epoch == MAX_T:
                study.tell(trial, loss)
            else:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
        if done:
            records[k]["end"] = t
            del running[k]
            if len(records) < max_trials and t < horizon:
                start(t)
    return records


def best_at(finals, t):
    """best_so_far(t) from (time, loss) sorted by time, or None."""
    idx = bisect.bisect_right([ft for ft, _ in finals], t)
    return min((v for _, v in finals[:idx]), default=None)


def score(records, target, e64, horizon):
    """One seed's time and device seconds to target, and budget bests."""
    finals = sorted((r["end"], r["final"]) for r in records
                    if r["final"] is not None)
    tt, best = None, math.inf
    for ft, v in finals:
        best = min(best, v)
        if best <= target and ft <= horizon:
            tt = ft
            break
    dev = None
    if tt is not None:
        dev = sum(min(r["end"] if r["end"] is not None else math.inf, tt)
                  - r["start"] for r in records if r["start"] <= tt)
    return {"time": tt, "device": dev, "trials": len(records),
            "budgets": {str(b): best_at(finals, b * e64) for b in BUDGETS}}


def median_inf(values):
    """Median with None as +inf; an infinite median is None."""
    m = statistics.median(math.inf if v is None else v for v in values)
    return None if math.isinf(m) else m


def summarise(per_seed):
    """Per-method figures over seeds."""
    return {
        "reached": sum(1 for s in per_seed if s["time"] is not None),
        "median_time_to_target_s": median_inf(s["time"] for s in per_seed),
        "median_device_s_to_target": median_inf(s["device"] for s in per_seed),
        "median_best_at_budget": {
            str(b): median_inf(s["budgets"][str(b)] for s in per_seed)
            for b in BUDGETS},
        "median_trials_started": statistics.median(
            s["trials"] for s in per_seed),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--table", default=os.path.join(DATA, "nasbench-nlp-wt2.jsonl"))
    p.add_argument("--summary", default=os.path.join(
        DATA, "nasbench-nlp-wt2.summary.json"))
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--trials", type=int, default=345)
    p.add_argument("--horizon-factor", type=float, default=1.5)
    a = p.parse_args()
    for path in (a.table, a.summary):
        if not os.path.isfile(path):
            fail("benchmark data not found: " + os.path.normpath(path))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rows = load_table(a.table)
    target, mean_s = load_target(a.summary)
    e64 = 64 * mean_s / a.workers
    horizon = a.horizon_factor * e64
    methods = {}
    for method in METHODS:
        per_seed = []
        for seed in range(a.seeds):
            t0 = time.monotonic()
            records = simulate(method, seed, rows, a.workers, a.trials, horizon)
            per_seed.append(score(records, target, e64, horizon))
            print(f"{method} seed {seed}: {per_seed[-1]['time']} s to target, "
                  f"{len(records)} trials, {time.monotonic() - t0:.1f} s wall",
                  file=sys.stderr)
        methods[method] = summarise(per_seed)
    print(json.dumps({"peer": "optuna", "optuna_version": optuna.__version__,
                      "workers": a.workers, "seeds": a.seeds, "target": target,
                      "e64_s": e64, "horizon_s": horizon, "methods": methods}))


if __name__ == "__main__":
    sys.exit(main())
