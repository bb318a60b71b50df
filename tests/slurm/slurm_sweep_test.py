#!/usr/bin/env python3
"""Sweeps on a real (local) Slurm: scripts/local-slurm.sh, two nodes of eight
fake Gaudi cards each (docs/slurm.md). Run by ctest with SLURM_CONF set.

  slurm_sweep_test.py TUNER TOY_TRAINER CASE     (CASE: sweep | resume | scancel)

sweep:   16 trials, each a job step seen in `squeue --steps`; each step ran on
         the node and cards its lease names (the trial writes what Slurm and
         the shim gave it); leases never overlap on a node; the same trial rows
         as the same sweep run locally; the allocation is released.
resume:  SIGKILL the tuner while steps run, `tuner resume`: the running steps
         are adopted (same step, one attempt each), nothing is lost.
scancel: `scancel JOB.STEP` of one trial's step is recorded as cancelled.
nodefail: a node set down mid-sweep: its trials run again on the other.
allocend: `scancel JOB` mid-sweep: trials pending, `tuner resume` finishes.
allocendhard: the same with trials that outlast SIGTERM (no status left).
booking: Ctrl-C while booking cancels it; an orphaned booking is taken over.
Exits 77 (skipped) only with TUNER_NO_SLURM=1; without SLURM_CONF it fails.
"""
import json, os, signal, sqlite3, subprocess, sys, tempfile, time

TUNER, TOY, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
DEADLINE = 150  # seconds for a whole case, far above its normal 10-20 s


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def slurm(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60)


def steps():
    """{step name: (job.step, node)} of every job step running now."""
    out = slurm("squeue", "--steps", "--noheader", "--format=%i|%N|%j").stdout
    listed = {}
    for line in out.splitlines():
        parts = line.strip().split("|", 2)
        if len(parts) == 3 and parts[2].startswith("tuner-") and \
                parts[2] != "tuner-devices":
            listed[parts[2]] = (parts[0], parts[1])
    return listed


def config(workdir, trials, sleep_ms, epochs, scheduler="fifo", per_trial=1,
           prelude="", stop_grace="5s"):
    # The trial writes where it runs: Slurm's node name and the cards the
    # shim set, then trains (after `prelude`, shell text).
    text = f"""
name: slurm-test
command: ["sh", "-c", "{prelude}echo \\"$SLURMD_NODENAME $HABANA_VISIBLE_MODULES\\" > {{trial_dir}}/where && exec {TOY} --lr {{lr}} --epochs {epochs} --sleep-ms {sleep_ms}"]
metric: score
mode: max
time_attr: epoch
search_space:
  lr: {{type: loguniform, low: 1.0e-4, high: 1.0}}
searcher: {{type: random, seed: 7}}
num_trials: {trials}
scheduler: {{type: {scheduler}}}
devices: {{kind: habana, per_trial: {per_trial}}}
trial: {{timeout: 2m, stop_grace: {stop_grace}}}
cluster: {{kind: slurm, nodes: 2, poll: 200ms}}
"""
    path = os.path.join(workdir, "sweep.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def start(args, workdir):
    log = open(os.path.join(workdir, "tuner.log"), "ab")
    return subprocess.Popen([TUNER] + args, cwd=workdir, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def watch(proc, seen, until=None):
    """Polls squeue until the tuner exits (or `until()` holds)."""
    end = time.time() + DEADLINE
    while proc.poll() is None and time.time() < end:
        seen.update(steps())
        if until and until():
            return
        time.sleep(0.1)
    if proc.poll() is None:
        proc.kill()
        fail("the tuner did not finish in %d s" % DEADLINE)


def db(workdir):
    return sqlite3.connect(os.path.join(workdir, "tuner.db"))


def step_name(status_path):
    h = 14695981039346656037
    for b in status_path.encode():
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "tuner-%016x" % h


def trial_rows(conn):
    """Each trial's params, outcome and every report: what a sweep stores."""
    rows = conn.execute(
        "SELECT t.id, t.trial_index, t.status, t.attempts, t.exit_code, "
        "t.reason, t.last_time, t.last_value, t.best_value FROM trials t "
        "ORDER BY t.id").fetchall()
    out = []
    for row in rows:
        params = conn.execute("SELECT name, kind, value FROM params WHERE "
                              "trial_id = ? ORDER BY position", (row[0],)).fetchall()
        reports = conn.execute("SELECT seq, time, value, metrics FROM reports "
                               "WHERE trial_id = ? ORDER BY seq", (row[0],)).fetchall()
        out.append((row, params, reports))
    return out


def check_disjoint(conn):
    leases = conn.execute(
        "SELECT node, devices, acquired_at, COALESCE(released_at, 1e300) "
        "FROM leases").fetchall()
    for i, a in enumerate(leases):
        if a[0] not in ("n1", "n2"):
            fail("lease on node %r" % (a[0],))
        for b in leases[i + 1:]:
            overlap = a[2] < b[3] and b[2] < a[3]
            if overlap and a[0] == b[0] and set(a[1].split(",")) & set(b[1].split(",")):
                fail("leases %r and %r share a card at once" % (a, b))
    return leases


def check_where(conn, workdir):
    """Each trial ran on its lease's node with its lease's cards."""
    root = os.path.join(workdir, "tuner.db.trials", "slurm-test")
    for trial, node, devices in conn.execute(
            "SELECT trial_id, node, devices FROM leases"):
        with open(os.path.join(root, str(trial), "where")) as f:
            where = f.read().split()
        if where[0] != node:
            fail("trial %d ran on %s, its lease names %s" % (trial, where[0], node))
        want = devices  # a Gaudi device's id is its module id
        if where[1] != want:
            fail("trial %d saw modules %s, its lease gives %s" % (trial, where[1], want))


def case_sweep():
    workdir = tempfile.mkdtemp(prefix="slurm-sweep-")
    path = config(workdir, trials=16, sleep_ms=300, epochs=4)
    proc = start(["run", path, "--db", "tuner.db", "-q"], workdir)
    seen = {}
    watch(proc, seen)
    if proc.returncode != 0:
        fail("tuner run exited %d: %s" % (proc.returncode, open(os.path.join(workdir, "tuner.log")).read()[-2000:]))
    conn = db(workdir)
    job = conn.execute("SELECT cluster_job, cluster_booked FROM experiments").fetchone()
    if not job[0] or job[1] != 1:
        fail("no booked allocation stored: %r" % (job,))
    leases = check_disjoint(conn)
    check_where(conn, workdir)
    root = os.path.join(workdir, "tuner.db.trials", "slurm-test")
    names = {step_name(os.path.join(root, str(t), "status.attempt-%d.json" % a))
             for t, a in conn.execute("SELECT trial_id, attempt FROM leases")}
    missing = names - set(seen)
    if len(leases) < 16 or missing:
        fail("%d leases; steps never seen in squeue: %d of %d" % (len(leases), len(missing), len(names)))
    if any(j.split(".")[0] != job[0] for j, _ in seen.values()):
        fail("a step outside allocation %s: %r" % (job[0], seen))
    if slurm("squeue", "--jobs=" + job[0], "--noheader").stdout.strip():
        fail("allocation %s still there after the sweep" % job[0])
    # The same sweep on this machine: the same trial rows.
    local = tempfile.mkdtemp(prefix="local-sweep-")
    lpath = config(local, trials=16, sleep_ms=300, epochs=4)
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(__file__)) + "/../fakes/bin:" + os.environ["PATH"],
               FAKE_MACHINE="dl1", SLURMD_NODENAME="local")
    done = subprocess.run([TUNER, "run", lpath, "--db", "tuner.db", "-q", "--set", "cluster.kind=local"],
                          cwd=local, env=env, capture_output=True, text=True, timeout=DEADLINE)
    if done.returncode != 0:
        fail("local run: " + done.stderr[-2000:])
    a, b = trial_rows(conn), trial_rows(db(local))
    if a != b:
        fail("Slurm and local rows differ:\n%r\n%r" % (a, b))
    print("sweep: %d trials, %d steps seen, nodes %s" % (len(a), len(seen),
          sorted({n for _, n in seen.values()})))


def case_resume():
    workdir = tempfile.mkdtemp(prefix="slurm-resume-")
    path = config(workdir, trials=6, sleep_ms=700, epochs=6)
    proc = start(["run", path, "--db", "tuner.db", "-q"], workdir)
    seen = {}
    watch(proc, seen, until=lambda: len(steps()) >= 4)
    before = steps()
    if len(before) < 4:
        fail("fewer than 4 steps ever ran at once: %r" % before)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)
    alive = steps()
    if not set(before) & set(alive):
        fail("no step survived the tuner's SIGKILL: %r -> %r" % (before, alive))
    resumed = start(["resume", "slurm-test", "--db", "tuner.db"], workdir)
    watch(resumed, seen)
    if resumed.returncode != 0:
        fail("resume exited %d: %s" % (resumed.returncode, open(os.path.join(workdir, "tuner.log")).read()[-2000:]))
    conn = db(workdir)
    statuses = dict(conn.execute("SELECT status, COUNT(*) FROM trials GROUP BY status").fetchall())
    if statuses.get("completed") != 6:
        fail("after resume: %r" % statuses)
    log = open(os.path.join(workdir, "tuner.log")).read()
    adopted = log.count(": adopted (")
    still = {name: ids for name, ids in seen.items() if name in alive}
    if any(still[name] != alive[name] for name in still):
        fail("a step was replaced: %r -> %r" % (alive, still))
    attempts = conn.execute("SELECT MAX(attempts) FROM trials").fetchone()[0]
    if adopted < 1 or attempts != 1:
        fail("adopted %d, most attempts of a trial %d (restarted?)" % (adopted, attempts))
    reports = conn.execute("SELECT trial_id, COUNT(*), COUNT(DISTINCT seq) FROM reports GROUP BY trial_id").fetchall()
    if any(n != 6 or d != 6 for _, n, d in reports) or len(reports) != 6:
        fail("reports lost or doubled: %r" % reports)
    check_disjoint(conn)
    job = conn.execute("SELECT cluster_job FROM experiments").fetchone()[0]
    if slurm("squeue", "--jobs=" + job, "--noheader").stdout.strip():
        fail("allocation %s still there after the sweep" % job)
    print("resume: %d steps adopted of %d running at the kill" % (adopted, len(alive)))


def case_scancel():
    workdir = tempfile.mkdtemp(prefix="slurm-scancel-")
    path = config(workdir, trials=2, sleep_ms=800, epochs=6)
    proc = start(["run", path, "--db", "tuner.db", "-q"], workdir)
    seen = {}
    watch(proc, seen, until=lambda: len(steps()) >= 1)
    victim = next(iter(steps().values()))[0]
    slurm("scancel", victim)
    watch(proc, seen)
    conn = db(workdir)
    rows = conn.execute("SELECT status, reason FROM trials ORDER BY id").fetchall()
    cancelled = [r for r in rows if r[0] == "failed" and "cancelled" in r[1]]
    if len(cancelled) != 1:
        fail("scancel of %s not recorded as cancelled: %r" % (victim, rows))
    print("scancel: %s recorded as %r" % (victim, cancelled[0][1]))


def case_nodefail():
    workdir = tempfile.mkdtemp(prefix="slurm-nodefail-")
    # Two groups of 4 cards a node: trials 3 and 4 start on n2; once it is
    # down they wait for a group of n1.
    path = config(workdir, trials=4, sleep_ms=800, epochs=6, per_trial=4)
    proc = start(["run", path, "--db", "tuner.db"], workdir)
    seen = {}
    watch(proc, seen, until=lambda: any(n == "n2" for _, n in steps().values()))
    try:
        slurm("scontrol", "update", "nodename=n2", "state=down", "reason=tuner-test")
        watch(proc, seen)
    finally:
        slurm("scontrol", "update", "nodename=n2", "state=resume")
    if proc.returncode != 0:
        fail("tuner run exited %d" % proc.returncode)
    conn = db(workdir)
    rows = conn.execute("SELECT id, status, attempts FROM trials").fetchall()
    if any(status != "completed" for _, status, _ in rows):
        fail("a trial did not complete after its node failed: %r" % rows)
    moved = conn.execute(
        "SELECT a.trial_id FROM leases a JOIN leases b ON a.trial_id = b.trial_id "
        "AND a.attempt < b.attempt WHERE a.node = 'n2' AND b.node = 'n1'").fetchall()
    if not moved:
        fail("no trial moved from n2 to n1: %r" % conn.execute("SELECT trial_id, attempt, node FROM leases").fetchall())
    failures = conn.execute("SELECT MAX(failures) FROM trials").fetchone()[0]
    if failures:
        fail("a node failure was counted as the trial's failure")
    print("nodefail: trials %s moved from n2 to n1" % sorted({m[0] for m in moved}))


def case_allocend(hard=False):
    """The allocation ends under the sweep (`scancel JOB`, as a time limit):
    its trials go back to pending, the run fails saying so, and `tuner
    resume` books a new allocation and finishes them. `hard`: the trials
    ignore SIGTERM and outlast Slurm's KillWait, so their shims die by
    SIGKILL without a status, as steps cut hard."""
    workdir = tempfile.mkdtemp(prefix="slurm-allocend-")
    if hard:
        path = config(workdir, trials=4, sleep_ms=800, epochs=12,
                      prelude="trap '' TERM; ", stop_grace="2m")
    else:
        path = config(workdir, trials=4, sleep_ms=800, epochs=6)
    proc = start(["run", path, "--db", "tuner.db", "-q"], workdir)
    seen = {}
    watch(proc, seen, until=lambda: len(steps()) >= 4)
    job = next(iter(steps().values()))[0].split(".")[0]
    slurm("scancel", job)
    watch(proc, seen)
    if proc.returncode != 1:
        fail("tuner run exited %d after its allocation ended" % proc.returncode)
    conn = db(workdir)
    rows = conn.execute("SELECT status, reason FROM trials").fetchall()
    if any(r != ("pending", "interrupted") for r in rows):
        fail("trials cut by the allocation's end: %r" % rows)
    resumed = start(["resume", "slurm-test", "--db", "tuner.db", "-q"], workdir)
    watch(resumed, seen)
    rows = conn.execute("SELECT status, failures FROM trials").fetchall()
    again = conn.execute("SELECT cluster_job FROM experiments").fetchone()[0]
    if resumed.returncode != 0 or any(r != ("completed", 0) for r in rows) or again == job:
        fail("resume after the allocation's end: rc %d, %r, job %s -> %s" % (resumed.returncode, rows, job, again))
    if slurm("squeue", "--noheader", "--jobs=" + again).stdout.strip():
        fail("allocation %s still there" % again)
    print("allocend: 4 trials interrupted with allocation %s, finished in %s" % (job, again))


def case_booking():
    """Ctrl-C while Slurm has not granted the nodes cancels the booking; a
    tuner SIGKILLed after booking leaves a job that the next run takes over
    (it holds the experiment's lock, so the job is an orphan)."""
    workdir = tempfile.mkdtemp(prefix="slurm-booking-")
    path = config(workdir, trials=2, sleep_ms=100, epochs=2)
    proc = start(["run", path, "--db", "tuner.db", "--set", "cluster.nodes=5"], workdir)
    log = os.path.join(workdir, "tuner.log")
    end = time.time() + 30
    while "waiting for Slurm to grant" not in open(log).read() and time.time() < end:
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    queued = slurm("squeue", "--noheader").stdout.strip()
    if proc.returncode != 130 or queued:
        fail("Ctrl-C while booking: rc %d, left in the queue: %r" % (proc.returncode, queued))
    proc = start(["run", path, "--db", "tuner.db", "-q"], workdir)
    end = time.time() + 30
    while not slurm("squeue", "--noheader", "--states=RUNNING").stdout.strip() and time.time() < end:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    orphan = slurm("squeue", "--noheader", "--format=%i").stdout.split()
    proc = start(["run", path, "--db", "tuner.db", "-q"], workdir)
    watch(proc, {})
    job = db(workdir).execute("SELECT cluster_job FROM experiments").fetchone()
    left = slurm("squeue", "--noheader").stdout.strip()
    if proc.returncode != 0 or left or (orphan and job[0] != orphan[0]):
        fail("after a SIGKILL while booking: rc %d, orphan %r, used %r, left %r" % (proc.returncode, orphan, job, left))
    print("booking: Ctrl-C left nothing queued; orphan %r taken over" % orphan)


if not os.environ.get("SLURM_CONF"):
    if os.environ.get("TUNER_NO_SLURM") == "1":
        sys.exit(77)
    fail("SLURM_CONF is not set: start the local Slurm (scripts/local-slurm.sh "
         "start) or set TUNER_NO_SLURM=1 to skip the Slurm tests")
{"sweep": case_sweep, "resume": case_resume, "scancel": case_scancel,
 "nodefail": case_nodefail, "allocend": case_allocend,
 "allocendhard": lambda: case_allocend(hard=True),
 "booking": case_booking}[CASE]()
