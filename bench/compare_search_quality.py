#!/usr/bin/python3
"""Runs bench/search_quality and its Optuna peer on several tables.

For every table of --tables (default: the NAS-Bench-NLP table and the six
LCBench tables beside the repository; an absent one is skipped with a line on
stderr) and every worker count W of --workers, it runs ours
(build/bench/search_quality) and bench/search_quality_optuna.py with the same
seeds and horizon factor, each table with its default summary, space, metric
and mode (chosen by its file name). The runs are split into jobs (ours: one
per table and W; the peer: one per table, W and method) run --jobs at a time,
the slowest first.

Prints one JSON object:
  {"seeds", "horizon_factor", "workers", "wall_s",
   "tables": {NAME: {"path", "by_workers": {W: {
       "tuner": ours' output, "optuna": the peer's (methods merged),
       "same_setup": whether both computed the same target, E64 and horizon,
       "time_over_e64": {side: {method: median time to target / E64}},
       "optuna_best": the Optuna method with the least median device seconds
                      to target (null counting as +inf),
       "device_vs_optuna_best": {side: {method: its median device seconds /
                                        the optuna_best's}}}}}}}
A null on either side of a ratio gives null; a failed job is
{"error": its last stderr line} in place of its output.

With --markdown FILE it also writes two tables, rows = method, columns =
table x W: the median time to target over E64 with the seeds that reached it
(`0.18 (19/20)`, `∞ (7/20)` when the median is unreached) with a last row,
the floor (the fastest row that reaches the target, over E64), and the median
device seconds to target over the best Optuna method's.

Usage: bench/compare_search_quality.py [--tables PATH ...] [--workers 1,8]
         [--seeds 20] [--jobs 2] [--horizon-factor 1.5] [--build build]
         [--methods a,b] [--peer-methods a,b] [--markdown FILE]
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCHMARKS = os.path.join(ROOT, "..", "shared", "benchmarks")
DEFAULT_TABLES = [os.path.join(BENCHMARKS, "nasbench-nlp-wt2",
                               "nasbench-nlp-wt2.jsonl")] + [
    os.path.join(BENCHMARKS, "yahpo-lcbench", f"lcbench-{task}.jsonl.xz")
    for task in (3945, 7593, 34539, 126025, 168908, 189909)]
PEER = os.path.join(HERE, "search_quality_optuna.py")
PEER_METHODS = ("optuna_random_sha", "optuna_tpe_sha", "optuna_tpe_hyperband")
# Rough cost of a job, to start the slowest first (Optuna's TPE is slowest).
COST = {"optuna_tpe_sha": 3, "optuna_tpe_hyperband": 2, "tuner": 1}
SETUP_KEYS = ("target", "e64_s", "horizon_s")


def fail(msg):
    """Prints a one-line error and exits with status 2."""
    print("compare_search_quality: " + msg, file=sys.stderr)
    sys.exit(2)


def table_name(path):
    """lcbench-3945.jsonl.xz -> lcbench-3945."""
    name = os.path.basename(path)
    for suffix in (".xz", ".jsonl"):
        name = name[:-len(suffix)] if name.endswith(suffix) else name
    return name


def run_json(cmd):
    """Runs cmd; its last stdout line as JSON, or {"error": ...}."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or [""])[-1]
        return {"error": f"exited {out.returncode}: {last}"}
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "no JSON on stdout"}


def make_jobs(a, tables):
    """[(cost, table, W, side, cmd)] for every run, the slowest first."""
    common = ["--seeds", str(a.seeds), "--horizon-factor", str(a.horizon_factor)]
    jobs = []
    for path in tables:
        for w in a.workers:
            args = ["--table", path, "--workers", str(w)] + common
            ours = [a.ours] + args
            if a.methods:
                ours += ["--methods", a.methods]
            jobs.append((COST["tuner"], path, w, "tuner", ours))
            for m in a.peer_methods:
                cmd = ["/usr/bin/python3", PEER] + args + ["--methods", m]
                jobs.append((COST.get(m, 1), path, w, "optuna", cmd))
    return sorted(jobs, key=lambda j: -j[0])


def merge(doc, part):
    """Adds a peer run's methods to the merged peer output `doc`."""
    if "error" in part:
        doc.setdefault("errors", []).append(part["error"])
        return doc
    methods = doc.get("methods", {})
    wall = doc.get("wall_s", 0)
    doc.update(part)
    doc["methods"] = dict(methods, **part["methods"])
    doc["wall_s"] = wall + part["wall_s"]
    return doc


def run_all(a, tables):
    """{path: {W: {"tuner": doc, "optuna": doc}}} from the jobs."""
    results = {p: {w: {"tuner": None, "optuna": {}} for w in a.workers}
               for p in tables}
    jobs = make_jobs(a, tables)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {}
        for job in jobs:
            futures[pool.submit(timed_run, job[4])] = job
        for future in concurrent.futures.as_completed(futures):
            _, path, w, side, cmd = futures[future]
            doc, seconds = future.result()
            what = side if side == "tuner" else cmd[-1]
            note = f": {doc['error']}" if "error" in doc else ""
            print(f"{table_name(path)} W={w} {what}: {seconds:.0f} s{note}",
                  file=sys.stderr)
            entry = results[path][w]
            if side == "tuner":
                entry["tuner"] = doc
            else:
                merge(entry["optuna"], doc)
    for entry in (e for by_w in results.values() for e in by_w.values()):
        methods = entry["optuna"].get("methods", {})
        order = [m for m in a.peer_methods if m in methods]
        entry["optuna"]["methods"] = {m: methods[m] for m in order}
    return results


def timed_run(cmd):
    t0 = time.monotonic()
    return run_json(cmd), time.monotonic() - t0


def ratio(num, den):
    """num / den, or None when either is None or den is 0."""
    if num is None or den is None or den == 0:
        return None
    return num / den


def figures(entry):
    """Adds same_setup, time_over_e64, optuna_best and device ratios."""
    sides = {s: entry[s] for s in ("tuner", "optuna")
             if entry.get(s) and entry[s].get("methods")}
    if len(sides) == 2:
        entry["same_setup"] = all(
            math.isclose(sides["tuner"][k], sides["optuna"][k], rel_tol=1e-9)
            for k in SETUP_KEYS)
    entry["time_over_e64"] = {
        s: {m: ratio(f.get("median_time_to_target_s"), doc["e64_s"])
            for m, f in doc["methods"].items()} for s, doc in sides.items()}
    best, best_dev = None, None
    for m, f in sides.get("optuna", {}).get("methods", {}).items():
        dev = f.get("median_device_s_to_target")
        if best is None or (dev is not None and
                            (best_dev is None or dev < best_dev)):
            best, best_dev = m, dev
    entry["optuna_best"] = best
    entry["device_vs_optuna_best"] = {
        s: {m: ratio(f.get("median_device_s_to_target"), best_dev)
            for m, f in doc["methods"].items()} for s, doc in sides.items()}
    return entry


def method_rows(result):
    """Every method seen, ours first, in order of appearance."""
    rows = {"tuner": [], "optuna": []}
    for table in result["tables"].values():
        for entry in table["by_workers"].values():
            for side in rows:
                for m in (entry.get(side) or {}).get("methods", {}):
                    if m not in rows[side]:
                        rows[side].append(m)
    return [("tuner", m) for m in rows["tuner"]] + \
        [("optuna", m) for m in rows["optuna"]]


def time_cell(doc, method, seeds):
    """`0.18 (19/20)`, `∞ (7/20)`, `error` or empty."""
    f = (doc or {}).get("methods", {}).get(method)
    if f is None:
        return ""
    if "error" in f:
        return "error"
    t = f["median_time_to_target_s"]
    value = "∞" if t is None else f"{t / doc['e64_s']:.2f}"
    return f"{value} ({f['reached']}/{seeds})"


def floor_cell(doc):
    """The fastest target-reaching row's run time / E64: no method beats
    it, even one that launches that row first."""
    if not doc or doc.get("fastest_target_s") is None:
        return ""
    return f"{doc['fastest_target_s'] / doc['e64_s']:.2f}"


def device_cell(entry, side, method):
    """The device ratio to the best Optuna method: `0.42`, `∞` or `–`."""
    f = (entry.get(side) or {}).get("methods", {}).get(method)
    if f is None:
        return ""
    if "error" in f:
        return "error"
    if f["median_device_s_to_target"] is None:
        return "∞"
    r = entry["device_vs_optuna_best"].get(side, {}).get(method)
    return "–" if r is None else f"{r:.2f}"


def markdown(result):
    """The two tables as Markdown text."""
    columns = [(name, w) for name, t in result["tables"].items()
               for w in t["by_workers"]]
    head = "| method | " + " | ".join(f"{n} W={w}" for n, w in columns) + " |"
    rule = "| --- |" + " ---: |" * len(columns)
    seeds = result["seeds"]
    lines = [f"Median time to target / E64 (seeds reaching the target of "
             f"{seeds}); horizon {result['horizon_factor']} × E64, ∞: the "
             "median seed did not reach it.", "", head, rule]
    for side, m in method_rows(result):
        cells = [time_cell(result["tables"][n]["by_workers"][w].get(side), m,
                           seeds) for n, w in columns]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    floors = [floor_cell(result["tables"][n]["by_workers"][w].get("tuner"))
              for n, w in columns]
    lines.append("| *floor: the fastest row reaching the target* | " +
                 " | ".join(floors) + " |")
    lines += ["", "Median device seconds to target / the best Optuna "
              "method's on the same table and W (–: no Optuna method's "
              "median reached it).", "", head, rule]
    for side, m in method_rows(result):
        cells = [device_cell(result["tables"][n]["by_workers"][w], side, m)
                 for n, w in columns]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", nargs="+", default=DEFAULT_TABLES)
    p.add_argument("--workers", default="1,8")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--horizon-factor", type=float, default=1.5)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--methods", default="",
                   help="our methods (default: all of search_quality's)")
    p.add_argument("--peer-methods", default=",".join(PEER_METHODS))
    p.add_argument("--markdown")
    a = p.parse_args()
    try:
        a.workers = [int(x) for x in a.workers.split(",") if x.strip()]
    except ValueError:
        fail("--workers: expected integers separated by commas")
    a.peer_methods = [m for m in a.peer_methods.split(",") if m]
    if a.seeds < 1 or a.jobs < 1 or not a.workers or min(a.workers) < 1:
        fail("--seeds, --jobs and every --workers must be >= 1")
    a.ours = os.path.join(a.build, "bench", "search_quality")
    if not os.access(a.ours, os.X_OK):
        fail("not built: " + a.ours + " (cmake --build build --target "
             "search_quality)")
    return a


def main():
    a = parse_args()
    tables = []
    for path in a.tables:
        if os.path.isfile(path):
            tables.append(path)
        else:
            print("compare_search_quality: skipping absent table "
                  + os.path.normpath(path), file=sys.stderr)
    if not tables:
        fail("none of the tables is present")
    t0 = time.monotonic()
    runs = run_all(a, tables)
    result = {"seeds": a.seeds, "horizon_factor": a.horizon_factor,
              "workers": a.workers, "tables": {}}
    for path in tables:
        by_workers = {str(w): figures(runs[path][w]) for w in a.workers}
        result["tables"][table_name(path)] = {"path": path,
                                              "by_workers": by_workers}
    result["wall_s"] = time.monotonic() - t0
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(result))
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
