#!/usr/bin/python3
"""How far "random search over the space" is from uniform rows on a table.

The search-quality target T is the expected best final metric of 64 rows
drawn uniformly without replacement. A simulated random searcher over a
search space instead draws a point uniformly in the space and replays a row
near it. This estimates, by Monte Carlo, the expected best of 64 and the
chance of reaching T for three ways of choosing rows:

  uniform          rows uniformly without replacement (T's own process)
  nearest          the row nearest to a uniform point, with replacement
                   (the engine's RowPicker with a space today)
  nearest_unused   the unused row nearest to a uniform point

A point is drawn as the engine's random searcher draws it (schedulers/
sampling.cc: randint uniform over the integers, lograndint floor(exp(U(log
low, log(high + 1))))); "nearest" is the squared distance in the space's unit
cube, log where the space is log (the engine's RowPicker and the Optuna
peer's); ties uniformly. A row's chance under "nearest" is the chance of its
Voronoi cell, not 1/N.

Usage: bench/row_choice_bias.py [--table PATH] [--summary PATH]
         [--space FILE] [--metric NAME] [--mode min|max] [--reps 1000]
Prints one JSON line; the table options and defaults are
search_quality_optuna.py's.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import search_quality_optuna as peer  # noqa: E402  (its loaders)


def finals(rows, maximise):
    """Each row's final value, signed so that larger is better; -inf if the
    row never reached max_t."""
    max_t = max(r["times"][-1] for r in rows)
    out = []
    for r in rows:
        v = r["values"][-1]
        ok = r["times"][-1] == max_t and v is not None
        out.append((v if maximise else -v) if ok else -np.inf)
    return np.array(out)


def nearest(coords, point, used, rng):
    """The index of the row nearest to point among those not used."""
    d = ((coords - point) ** 2).sum(1)
    d[used] = np.inf
    ties = np.flatnonzero(d <= d.min())
    return ties[rng.integers(len(ties))]


def random_point(space, rng):
    """A point drawn as the engine's random searcher draws it, in the unit
    cube of the space."""
    values = []
    for _, low, high, log, is_int in space:
        u = rng.random()
        if is_int and log:
            x = np.exp(np.log(low) + u * (np.log(high + 1) - np.log(low)))
            values.append(min(max(np.floor(x), low), high))
        elif is_int:
            values.append(min(low + np.floor(u * (high - low + 1)), high))
        elif log:
            values.append(np.exp(np.log(low) + u * (np.log(high) - np.log(low))))
        else:
            values.append(low + u * (high - low))
    return np.array(peer.unit(space, values))


def best_of_64(values, coords, space, way, rng):
    """The best of 64 rows chosen one way."""
    n = len(values)
    if way == "uniform":
        return values[rng.choice(n, 64, replace=False)].max()
    used = np.zeros(n, dtype=bool)
    best = -np.inf
    for _ in range(64):
        i = nearest(coords, random_point(space, rng), used, rng)
        used[i] = way == "nearest_unused"
        best = max(best, values[i])
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--table", default=os.path.join(
        peer.DATA, "nasbench-nlp-wt2.jsonl"))
    for key in ("--summary", "--space", "--metric"):
        p.add_argument(key)
    p.add_argument("--mode", choices=("min", "max"))
    p.add_argument("--time-attr", default="epoch")
    p.add_argument("--reps", type=int, default=1000)
    a = p.parse_args()
    peer.apply_defaults(a)
    rows = peer.load_table(a.table, a.metric, a.time_attr)
    space = peer.load_space(a.space, rows)
    target, _ = peer.load_target(a.summary, a.metric)
    maximise = a.mode == "max"
    values = finals(rows, maximise)
    coords = peer.RowPool(rows, space, 0).coords
    rng = np.random.default_rng(0)
    sign = 1 if maximise else -1
    out = {"table": a.table, "target": target, "reps": a.reps}
    for way in ("uniform", "nearest", "nearest_unused"):
        best = np.array([best_of_64(values, coords, space, way, rng)
                         for _ in range(a.reps)])
        out[way] = {"expected_best_of_64": sign * best.mean(),
                    "p_reach_target": float((best >= sign * target).mean())}
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
