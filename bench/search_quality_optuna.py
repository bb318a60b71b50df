#!/usr/bin/python3
"""Optuna peer of build/bench/search_quality: search quality on real curves.

Replays a curve table (by default NAS-Bench-NLP WikiText-2,
../shared/benchmarks/nasbench-nlp-wt2; also the LCBench tables of
../shared/benchmarks/yahpo-lcbench, .jsonl or .jsonl.xz) in simulated time on
W workers through Optuna's ask/tell, with the same table, summary, search
space (--space, a YAML `search_space:` mapping in the engine's syntax:
uniform, loguniform, randint, lograndint), metric and mode options and the
same defaults by the table's file name as ours. max_t is the table's last
time_attr value; every trial replays a row not yet run (no row twice):

  optuna_random_sha     RandomSampler(seed) + SuccessiveHalvingPruner: the
                        row is drawn uniformly among those not yet run
                        (suggest_int("row_draw", 0, unused - 1)).
  optuna_tpe_sha        TPESampler(seed) + SuccessiveHalvingPruner: TPE
                        suggests every parameter of the space (suggest_float
                        or suggest_int, log=True where the space is log);
                        the trial replays the row not yet run nearest to the
                        suggestion (squared distance in the space's unit cube,
                        log where log; ties uniformly, random.Random(seed)).
  optuna_tpe_hyperband  the same with HyperbandPruner(min_resource 1,
                        max_resource max_t, reduction_factor 3).

SuccessiveHalvingPruner(min_resource 1, reduction_factor 3,
min_early_stopping_rate 0); the study's direction is the --mode.

What TPE is told: the parameters of the row the trial actually ran, not its
suggestion (the suggestion is overwritten in the trial's storage before any
report). That is the fairest: the model learns from the points that were
evaluated, as a user tuning over a fixed pool would tell it; a suggestion
far from any unused row would otherwise be credited with another row's
curve. (Our engine's tpe learns from the params it stores for a trial; with
a table, see docs/simulation.md for which those are.)

Simulation: at t=0 every worker asks a trial. A trial's report at step i is
at start + the row's seconds of steps 1..i. Events run in time order (ties:
the earlier-started trial, then the earlier-asked one). At each report:
trial.report(value, time_attr value), should_prune(); pruned -> tell(PRUNED).
A null value -> tell(FAIL) (the run died of NaN); after the last step
tell(the last value), or FAIL for a row that stops short of max_t. A worker
freed by an event asks a new trial at once (before the next event), while
fewer than --trials were asked, a row is unused and t < H. The run ends at
the horizon H = horizon_factor * E64, E64 = 64 * M / W (M: mean whole-run
seconds from the summary; events at t <= H count), or when nothing runs and
nothing more may be asked.

Per seed: best_so_far(t) = the best final value (min or max by --mode) of
trials that reported max_t at or before t; time to the target T (the
summary's expected best final metric of random search with k = 64 whole
trainings) = the first t where best_so_far reaches T (<= T for min, >= T for
max), if t <= H; device seconds to it (busy worker-seconds, a trial busy from
its start to its last event); best_so_far at 0.25, 0.5 and 1.0 x E64. Per
method, medians over seeds (statistics.median; unreached/None counts as +inf,
an infinite median prints null) and `reached`, the seeds that reached T.
Prints one JSON line on stdout; progress on stderr; a bad input is one line
on stderr and exit status 2.

Usage: bench/search_quality_optuna.py [--table PATH] [--summary PATH]
         [--space FILE] [--metric NAME] [--mode min|max] [--time-attr epoch]
         [--seeds 20] [--workers 8] [--trials ROWS] [--horizon-factor 1.5]
         [--methods optuna_random_sha,optuna_tpe_sha,optuna_tpe_hyperband]
"""
import argparse
import bisect
import heapq
import json
import lzma
import math
import os
import random
import statistics
import sys
import time

import numpy as np
import optuna
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "benchmarks", "nasbench-nlp-wt2")
BUDGETS = (0.25, 0.5, 1.0)
METHODS = ("optuna_random_sha", "optuna_tpe_sha", "optuna_tpe_hyperband")
# Defaults by the table's file name: (part of the name, space, metric, mode).
PROFILES = (("nasbench-nlp", "nasbench-nlp.yaml", "val_loss", "min"),
            ("lcbench", "lcbench.yaml", "val_accuracy", "max"))
PARAM_TYPES = {"uniform": (False, False), "loguniform": (True, False),
               "randint": (False, True), "lograndint": (True, True)}


def fail(msg):
    """Prints a one-line error and exits with status 2."""
    print("search_quality_optuna: " + msg, file=sys.stderr)
    sys.exit(2)


def apply_defaults(a):
    """Fills --space, --metric, --mode and --summary from the table's name."""
    if not os.path.isfile(a.table):
        fail("benchmark table not found: " + os.path.normpath(a.table))
    name = os.path.basename(a.table)
    for part, space, metric, mode in PROFILES:
        if part in name:
            a.space = a.space or os.path.join(HERE, "spaces", space)
            a.metric = a.metric or metric
            a.mode = a.mode or mode
    if not a.summary:
        stem = a.table[:-3] if a.table.endswith(".xz") else a.table
        stem = stem[:-6] if stem.endswith(".jsonl") else stem
        a.summary = stem + ".summary.json"
    for key in ("space", "metric", "mode"):
        if not getattr(a, key):
            fail(f"{name}: no default --{key} for this table; give one")


def open_table(path):
    """The table as text, decompressing a .xz."""
    return lzma.open(path, "rt") if path.endswith(".xz") else open(path)


def parse_row(r, metric, time_attr):
    """A row as a dict: config, times, ends (cumulative seconds), values."""
    times, ends, values, total = [], [], [], 0.0
    for c in r["curve"]:
        total += c["seconds"]
        t = c[time_attr]
        if t != int(t):
            raise ValueError(f"{time_attr} {t} is not an integer step")
        times.append(int(t))
        ends.append(total)
        values.append(c.get(metric))
    return {"config": r["config"], "times": times, "ends": ends,
            "values": values}


def load_table(path, metric, time_attr):
    """The table's rows (see parse_row); fails on a malformed line."""
    rows, n = [], 0
    try:
        with open_table(path) as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    rows.append(parse_row(json.loads(line), metric, time_attr))
    except (OSError, EOFError, lzma.LZMAError) as e:
        fail(f"{path}: {e}")
    except (ValueError, KeyError, TypeError) as e:
        fail(f"{path}:{n}: {e!r}")
    if not rows:
        fail(path + ": no rows")
    if not any(v is not None for r in rows for v in r["values"]):
        fail(f"{path}: no step has the metric '{metric}'")
    return rows


def load_target(path, metric):
    """(TARGET, M): the k=64 expected best final metric, mean run seconds.

    The expected random search is the summary's top-level list (LCBench) or
    that of random_search's pool "all" (NAS-Bench-NLP); M is the mean of
    seconds_per_config_total[_...].
    """
    key = "expected_best_final_" + metric
    try:
        with open(path) as f:
            s = json.load(f)
        if "expected_random_search" in s:
            entries = s["expected_random_search"]
        else:
            pool = next(p for p in s["random_search"] if p["pool"] == "all")
            entries = pool["expected_random_search"]
        k64 = next(e for e in entries if e["k"] == 64)
        mean = next(v["mean"] for k, v in s.items()
                    if k.startswith("seconds_per_config_total"))
        return float(k64[key]), float(mean)
    except OSError as e:
        fail(f"cannot read summary {path}: {e.strerror}")
    except (ValueError, KeyError, TypeError, StopIteration) as e:
        fail(f"{path}: no k = 64 {key} or mean run seconds ({e!r})")


def load_space(path, rows):
    """[(name, low, high, log, is_int)] of the space file; fails on others."""
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        fail(f"{path}: {e}".replace("\n", " "))
    if not isinstance(doc, dict) or list(doc) != ["search_space"] or \
            not isinstance(doc["search_space"], dict):
        fail(path + ": expected one key, search_space, holding a mapping")
    space = []
    for name, spec in doc["search_space"].items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind not in PARAM_TYPES:
            fail(f"{path}: search_space.{name}: type {kind!r} is not one of "
                 + ", ".join(PARAM_TYPES))
        log, is_int = PARAM_TYPES[kind]
        low, high = spec.get("low"), spec.get("high")
        if not all(isinstance(x, (int, float)) for x in (low, high)) or \
                not low < high or (log and low <= 0):
            fail(f"{path}: search_space.{name}: needs low < high"
                 + (", low > 0" if log else ""))
        if not all(isinstance(r["config"].get(name), (int, float))
                   for r in rows):
            fail(f"{path}: search_space.{name}: not a number in every row")
        space.append((name, low, high, log, is_int))
    if not space:
        fail(path + ": an empty search_space (the peer needs parameters)")
    return space


def unit(space, values):
    """Coordinates in the space's unit cube (log where log), per parameter."""
    out = []
    for (name, low, high, log, _), v in zip(space, values):
        if log:
            out.append((math.log(v) - math.log(low))
                       / (math.log(high) - math.log(low)))
        else:
            out.append((v - low) / (high - low))
    return out


class RowPool:
    """The rows not yet run, and the choice of one for a trial."""

    def __init__(self, rows, space, seed):
        self.space = space
        self.unused = list(range(len(rows)))
        self.used = np.zeros(len(rows), dtype=bool)
        self.rng = random.Random(seed)
        self.configs = [r["config"] for r in rows]
        self.coords = np.array([unit(space, [r["config"][p[0]] for p in space])
                                for r in rows])

    def take(self, i):
        """Marks row i used and returns it."""
        self.used[i] = True
        j = self.unused.index(i)
        self.unused[j] = self.unused[-1]
        self.unused.pop()
        return i

    def draw(self, trial):
        """A row uniformly among the unused, drawn by the trial's sampler."""
        return self.take(
            self.unused[trial.suggest_int("row_draw", 0, len(self.unused) - 1)])

    def nearest(self, trial):
        """The unused row nearest to the sampler's suggestion; the trial's
        params are then set to that row's config (what TPE learns from)."""
        values = []
        for name, low, high, log, is_int in self.space:
            suggest = trial.suggest_int if is_int else trial.suggest_float
            values.append(suggest(name, low, high, log=log))
        d = ((self.coords - np.array(unit(self.space, values))) ** 2).sum(1)
        d[self.used] = np.inf
        best = d.min()
        ties = np.flatnonzero(d <= best + 1e-12 * max(1.0, best))
        i = self.take(int(ties[self.rng.randrange(len(ties))]))
        frozen = trial.storage.get_trial(trial._trial_id)
        for name, *_ in self.space:
            dist = frozen.distributions[name]
            value = self.configs[i][name]
            trial.storage.set_trial_param(
                trial._trial_id, name, dist.to_internal_repr(value), dist)
        return i


def make_study(method, seed, max_t, mode):
    """The study (sampler and pruner) of a method."""
    if method == "optuna_random_sha":
        sampler = optuna.samplers.RandomSampler(seed=seed)
    else:
        sampler = optuna.samplers.TPESampler(seed=seed)
    if method == "optuna_tpe_hyperband":
        pruner = optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=max_t, reduction_factor=3)
    else:
        pruner = optuna.pruners.SuccessiveHalvingPruner(
            min_resource=1, reduction_factor=3, min_early_stopping_rate=0)
    direction = "maximize" if mode == "max" else "minimize"
    # HyperbandPruner puts a trial in a bracket by a hash of the study's
    # name and the trial's number: a fixed name keeps a seed reproducible.
    return optuna.create_study(study_name=f"{method}-{seed}",
                               direction=direction, sampler=sampler,
                               pruner=pruner)


def on_report(study, trial, row, i, max_t):
    """Handles the row's step i; returns (final value or None, done)."""
    value, step = row["values"][i], row["times"][i]
    if value is None or math.isnan(value):
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        return None, True
    trial.report(value, step=step)
    final = value if step == max_t else None
    if trial.should_prune():
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    elif i + 1 < len(row["values"]):
        return final, False
    elif step == max_t:
        study.tell(trial, value)
    else:
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
    return final, True


def simulate(method, seed, rows, space, a, max_t, horizon):
    """Runs one study in simulated time; returns its trials' records.

    Each record: start, end (time of its last event, None if still running at
    the horizon), final (the value at max_t or None).
    """
    study = make_study(method, seed, max_t, a.mode)
    pool = RowPool(rows, space, seed)
    pick = pool.draw if method == "optuna_random_sha" else pool.nearest
    max_trials = min(a.trials, len(rows))
    records, running, events = [], {}, []

    def start(t):
        trial = study.ask()
        row = rows[pick(trial)]
        k = len(records)
        records.append({"start": t, "end": None, "final": None})
        running[k] = (trial, row)
        heapq.heappush(events, (t + row["ends"][0], t, k, 0))

    for _ in range(min(a.workers, max_trials)):
        start(0.0)
    while events:
        t, _, k, i = heapq.heappop(events)
        if t > horizon:
            break
        trial, row = running[k]
        final, done = on_report(study, trial, row, i, max_t)
        if final is not None:
            records[k]["final"] = final
        if not done:
            heapq.heappush(events, (row["ends"][i + 1] + records[k]["start"],
                                    records[k]["start"], k, i + 1))
            continue
        records[k]["end"] = t
        del running[k]
        if len(records) < max_trials and t < horizon:
            start(t)
    return records


def best_at(finals, t, better):
    """best_so_far(t) from (time, value) sorted by time, or None."""
    idx = bisect.bisect_right([ft for ft, _ in finals], t)
    values = [v for _, v in finals[:idx]]
    return better(values) if values else None


def score(records, target, e64, horizon, maximise):
    """One seed's time and device seconds to target, and budget bests."""
    finals = sorted((r["end"], r["final"]) for r in records
                    if r["final"] is not None)
    better = max if maximise else min
    tt, best = None, None
    for ft, v in finals:
        best = v if best is None else better(best, v)
        if (best >= target if maximise else best <= target) and ft <= horizon:
            tt = ft
            break
    dev = None
    if tt is not None:
        dev = sum(min(r["end"] if r["end"] is not None else math.inf, tt)
                  - r["start"] for r in records if r["start"] <= tt)
    return {"time": tt, "device": dev, "trials": len(records),
            "budgets": {str(b): best_at(finals, b * e64, better)
                        for b in BUDGETS}}


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
        "mean_wall_s_per_simulation": statistics.mean(
            s["wall_s"] for s in per_seed),
    }


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--table", default=os.path.join(DATA, "nasbench-nlp-wt2.jsonl"))
    p.add_argument("--summary")
    p.add_argument("--space")
    p.add_argument("--metric")
    p.add_argument("--mode", choices=("min", "max"))
    p.add_argument("--time-attr", default="epoch")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--trials", type=int, default=None,
                   help="at most this many trials (default: the rows)")
    p.add_argument("--horizon-factor", type=float, default=1.5)
    p.add_argument("--methods", default=",".join(METHODS))
    a = p.parse_args()
    a.methods = [m for m in a.methods.split(",") if m]
    for m in a.methods:
        if m not in METHODS:
            fail(f"no method {m} (one of {', '.join(METHODS)})")
    if a.seeds < 1 or a.workers < 1 or not a.horizon_factor > 0:
        fail("--seeds and --workers must be >= 1, --horizon-factor > 0")
    apply_defaults(a)
    return a


def run_method(method, a, rows, space, setup):
    """All seeds of one method: its summary."""
    target, e64, horizon, max_t = setup
    per_seed = []
    for seed in range(a.seeds):
        t0 = time.monotonic()
        records = simulate(method, seed, rows, space, a, max_t, horizon)
        per_seed.append(score(records, target, e64, horizon, a.mode == "max"))
        per_seed[-1]["wall_s"] = time.monotonic() - t0
        print(f"{method} seed {seed}: {per_seed[-1]['time']} s to target, "
              f"{len(records)} trials, {per_seed[-1]['wall_s']:.1f} s wall",
              file=sys.stderr)
    out = summarise(per_seed)
    print(f"{method}: reached the target in {out['reached']} of {a.seeds} "
          "seeds", file=sys.stderr)
    return out


def main():
    a = parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rows = load_table(a.table, a.metric, a.time_attr)
    space = load_space(a.space, rows)
    target, mean_s = load_target(a.summary, a.metric)
    max_t = max(r["times"][-1] for r in rows)
    a.trials = len(rows) if a.trials is None else a.trials
    e64 = 64 * mean_s / a.workers
    horizon = a.horizon_factor * e64
    t0 = time.monotonic()
    methods = {m: run_method(m, a, rows, space, (target, e64, horizon, max_t))
               for m in a.methods}
    print(json.dumps({
        "peer": "optuna", "optuna_version": optuna.__version__,
        "table": a.table, "space": a.space, "metric": a.metric,
        "mode": a.mode, "time_attr": a.time_attr, "max_t": max_t,
        "rows": len(rows), "workers": a.workers, "seeds": a.seeds,
        "target": target, "e64_s": e64, "horizon_s": horizon,
        "wall_s": time.monotonic() - t0, "methods": methods}))


if __name__ == "__main__":
    sys.exit(main())
