#!/usr/bin/env bash
# A real, local Slurm (Debian 12's slurm-wlm 22.05) for the tests and CI:
#
#   eval "$(scripts/local-slurm.sh start [--machines n1=dl1,n2=trn1-32xl])"
#   scripts/local-slurm.sh status
#   scripts/local-slurm.sh stop
#
# `start` writes slurm.conf (and cgroup.conf) into the state dir
# ${TUNER_SLURM_DIR:-/tmp/tuner-local-slurm}, starts slurmctld and one slurmd
# per node on this host (ports ${TUNER_SLURM_PORT:-17817} and up), waits until
# sinfo shows every node idle and prints `export SLURM_CONF=...` on stdout.
# Idempotent: a running cluster is left as it is. `stop` cancels every job,
# kills the daemons (and any slurmstepd they left) and removes the state dir.
#
# The cluster: AuthType=auth/none and CredType=cred/none (no munge), no
# accounting (no slurmdbd: `sacct` answers "Slurm accounting storage is
# disabled"), one partition `main` without a time limit, nodes n1..nN
# (default 2) of 8 CPUs each whatever the hardware (config_overrides), no GRES.
# Each node presents a recorded machine of tests/fakes/machines (default dl1):
# its TaskProlog puts tests/fakes/bin first on PATH and sets FAKE_MACHINE, so
# `srun -w n1 hl-smi ...` prints n1's cards whatever the caller's environment,
# and sets TUNER_FAKE_STATE to the node's own folder ($dir/fake-state/<node>)
# unless the step already has one (the caller's then passes through).
#
# What this Slurm does (measured on this host with the commands shown; J is a
# job, S a step):
# - Several slurmd on one host work: Debian's build has multiple-slurmd, so
#   `NodeName=n1 NodeHostname=<host> NodeAddr=127.0.0.1 Port=P+1` and
#   `slurmd -f slurm.conf -N n1` (one per node) give two real nodes.
# - proctrack/cgroup works with cgroup v1 (a freezer hierarchy) but only with
#   a cgroup.conf: without one slurmstepd looks for "(null)/freezer" and every
#   step fails "Plugin initialization failed". Without a v1 freezer (cgroup v2
#   hosts: 22.05's cgroup/v2 wants systemd) proctrack/linuxproc is used;
#   TUNER_SLURM_PROCTRACK=cgroup|linuxproc|pgid overrides.
# - (a) `salloc --no-shell --nodes 2 --exclusive --no-kill --job-name X`
#   returns at once with rc 0, prints nothing on stdout and
#   "salloc: Granted job allocation 7" on stderr (read the id there, or with
#   `squeue -h -n X -o %i`). `sbatch --parsable --wrap 'sleep infinity' ...`
#   prints the bare id on stdout instead, but queues (PD) if nodes are busy.
# - (b) Steps on one node inside an --exclusive job: without --overlap or
#   --exact the first step takes every CPU of the job on that node and the
#   others wait ("step creation temporarily disabled ... Requested nodes are
#   busy"). `--exact` (1 CPU each): 8 run at once per node, the 9th waits.
#   `--overlap`: all run at once (10 seen). Memory does not block
#   (CR_Core: memory is not a consumable).
# - (c) `squeue --steps --jobs J --noheader -O 'StepId:|,Nodes:|,StepState:|,StepName:|'`
#   prints `7.32|n1|RUNNING|/tmp/some dir/x y|`; `-o '%i|%N|%j'` works too but
#   `%T` is not valid for steps (prints a literal %T), nor -O NodeList/State
#   ("Invalid job step format specification"). Names with spaces, `|`, tabs
#   and UTF-8 come back intact (a `|` in a name is not escaped: split on the
#   first three). The limit is 1024 bytes: a longer --job-name fails srun with
#   "Pathname of a file, directory or other parameter too long".
# - (d) `scancel --signal=TERM J.S` signals only the task's first process (a
#   trapping bash child in the same process group got nothing), and stepd
#   writes "*** STEP J.S ON n1 CANCELLED ***" to srun's stderr though the step
#   runs on. When the job has nodes where the step does not run, scancel
#   ALSO exits 225 with "Kill job error on job step id J: Invalid job id
#   specified" although the signal was delivered (rc 0 on a one-node job).
#   (--full changes neither; a python child trapping TERM got nothing too:
#   a step's program that has children must pass the signal on itself.)
#   Plain `scancel J.S` kills every process of the step at once (SIGKILL, no
#   TERM seen, srun rc 137).
# - (e) SIGKILL of the srun client ends the step within a second ("STEP
#   CANCELLED"), also with --output/--error files and --input=none: a step
#   lives only as long as its srun. The reader of srun's stdout may go:
#   `setsid srun ... | head -1` ran the step to its end.
# - (f) `scontrol update nodename=n2 state=down reason=test` while a step
#   runs there: the step is killed, srun prints "srun: error: Node failure
#   on n2" and exits 0 (!); the --no-kill job stays RUNNING, shrunk to n1
#   (squeue NODELIST n1) and does not get n2 back after `state=resume`; a
#   new step there fails "Requested node configuration is not available".
#   `squeue --steps` still listed the killed step RUNNING 2 s later. sinfo:
#   "n2 down test". With ReturnToService=2 n2 was idle again within 5 ms (its
#   slurmd answered), so this conf has ReturnToService=1: an admin DOWN stays
#   until `scontrol update nodename=n2 state=resume`. `state=drain`: running
#   steps go on, new steps of a job already there still start, sinfo shows
#   "draining" then "drained" when the job ends; `state=resume` -> idle.
# - (g) A step's env has SLURMD_NODENAME, SLURM_JOB_ID, SLURM_STEP_ID,
#   SLURM_PROCID; without GRES Slurm neither sets nor changes
#   CUDA_VISIBLE_DEVICES, HABANA_VISIBLE_MODULES or ROCR_VISIBLE_DEVICES
#   given in srun's environment (passed as they are). srun exits with the
#   task's code, 128+N when a signal N ended it (137, 138 seen).
set -euo pipefail

dir="${TUNER_SLURM_DIR:-/tmp/tuner-local-slurm}"
port="${TUNER_SLURM_PORT:-17817}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

usage() {
  echo "usage: $0 start [--machines n1=dl1,n2=dl1] | stop | status" >&2
  exit 2
}

# node_names: the nodes of the running conf.
node_names() { sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$conf"; }

# alive PIDFILE: the daemon of PIDFILE runs.
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

running() {
  [ -f "$conf" ] && alive "$dir/slurmctld.pid" || return 1
  local n
  for n in $(node_names); do alive "$dir/slurmd-$n.pid" || return 1; done
}

# proctrack: cgroup where a cgroup v1 freezer hierarchy is writable.
proctrack() {
  if [ -n "${TUNER_SLURM_PROCTRACK:-}" ]; then
    echo "$TUNER_SLURM_PROCTRACK"
    return
  fi
  local probe=/sys/fs/cgroup/freezer/tuner-local-slurm-probe.$$
  if mkdir "$probe" 2>/dev/null; then
    rmdir "$probe"
    echo cgroup
  else
    echo linuxproc
  fi
}

# write_conf MACHINES...: slurm.conf, cgroup.conf and the task prolog for
# nodes n1..nN, node i presenting the machine MACHINES[i-1].
write_conf() {
  local host track i=0 m
  host="$(hostname -s)"
  track="$(proctrack)"
  cat > "$conf" <<EOF
# Generated by scripts/local-slurm.sh: a local test cluster.
ClusterName=tuner-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/$track
TaskPlugin=task/none
TaskProlog=$dir/task-prolog.sh
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
PropagateResourceLimits=NONE
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=1
MessageTimeout=10
SlurmdTimeout=30
KillWait=5
InactiveLimit=0
MinJobAge=60
# Job ids from a range of the port: proctrack/cgroup names its cgroups
# slurm_<node>/uid_<uid>/job_<id>, so two clusters on one host (say the
# tests' and one started by hand) must not share job ids.
FirstJobId=$(((port % 1000) * 10000 + 1))
EOF
  : > "$dir/machines"
  for m in "$@"; do
    i=$((i + 1))
    echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1" \
      "Port=$((port + i)) CPUs=8 RealMemory=8000 State=UNKNOWN" >> "$conf"
    echo "n$i $m" >> "$dir/machines"
    mkdir -p "$dir/spool-n$i" "$dir/fake-state/n$i"
  done
  echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$conf"
  if [ "$track" = cgroup ]; then
    printf '%s\n' CgroupPlugin=cgroup/v1 CgroupMountpoint=/sys/fs/cgroup \
      CgroupAutomount=no ConstrainCores=no ConstrainRAMSpace=no \
      ConstrainDevices=no > "$dir/cgroup.conf"
  fi
  cat > "$dir/task-prolog.sh" <<EOF
#!/bin/sh
# Each task of a step on node \$SLURMD_NODENAME sees that node's fake machine.
machine=\$(awk -v n="\$SLURMD_NODENAME" '\$1 == n { print \$2 }' "$dir/machines")
echo "export PATH=$repo/tests/fakes/bin:\$PATH"
echo "export FAKE_MACHINE=\$machine"
[ -n "\${TUNER_FAKE_STATE:-}" ] ||
  echo "export TUNER_FAKE_STATE=$dir/fake-state/\$SLURMD_NODENAME"
EOF
  chmod +x "$dir/task-prolog.sh"
}

# machines_of SPEC: the machine of each node, in node order, from
# "n1=dl1,n2=trn1-32xl" (nodes numbered from 1 without gaps).
machines_of() {
  local spec="$1" i=1 pair name machine
  local -a out=()
  IFS=, read -r -a pairs <<< "$spec"
  for pair in "${pairs[@]}"; do
    name="${pair%%=*}"
    machine="${pair#*=}"
    if [ "$name" != "n$i" ] || [ ! -d "$repo/tests/fakes/machines/$machine" ]; then
      echo "local-slurm: --machines: '$pair' is not n$i=<a folder of tests/fakes/machines>" >&2
      exit 2
    fi
    out+=("$machine")
    i=$((i + 1))
  done
  echo "${out[@]}"
}

log_tails() {
  local f
  for f in "$dir"/slurmctld.log "$dir"/slurmd-*.log; do
    [ -f "$f" ] || continue
    echo "--- $f" >&2
    tail -n 15 "$f" >&2
  done
}

# fail MESSAGE: the start failed; says why, shows the logs, takes down
# what did start.
fail() {
  echo "local-slurm: $*" >&2
  log_tails
  stop
  exit 1
}

# wait_idle: until sinfo shows every node idle; fails at once when a daemon
# died, and after 30 s.
wait_idle() {
  local want states="" n deadline=$((SECONDS + 30))
  want=$(node_names | wc -l)
  while [ $SECONDS -lt $deadline ]; do
    alive "$dir/slurmctld.pid" || fail "slurmctld exited"
    for n in $(node_names); do
      alive "$dir/slurmd-$n.pid" || fail "slurmd $n exited"
    done
    states=$(timeout 5 sinfo --noheader --Node -o '%N %T' 2>/dev/null || true)
    [ "$(grep -c ' idle$' <<< "$states")" = "$want" ] && return 0
    sleep 0.2
  done
  fail "nodes not idle after 30 s: $(tr '\n' ' ' <<< "$states")"
}

start() {
  local spec="n1=dl1,n2=dl1" machines n
  while [ $# -gt 0 ]; do
    case "$1" in
      --machines) [ $# -ge 2 ] || usage; spec="$2"; shift 2 ;;
      *) usage ;;
    esac
  done
  if running; then
    echo "export SLURM_CONF=$conf"
    return
  fi
  machines=$(machines_of "$spec")
  [ -n "$machines" ] || usage
  [ ! -d "$dir" ] || stop > /dev/null
  command -v slurmctld > /dev/null || fail "slurmctld not installed (scripts/install-deps.sh)"
  mkdir -p "$dir/ctld"
  # shellcheck disable=SC2086  # one word per machine
  write_conf $machines
  slurmctld -f "$conf" -i > "$dir/slurmctld.out" 2>&1 || fail "slurmctld did not start"
  for n in $(node_names); do
    slurmd -f "$conf" -N "$n" > "$dir/slurmd-$n.out" 2>&1 || fail "slurmd $n did not start"
  done
  wait_idle
  echo "export SLURM_CONF=$conf"
}

# stepds: the slurmstepd processes of this cluster (they hold its node logs).
stepds() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
    find "$p/fd" -maxdepth 1 -lname "$dir/*" 2>/dev/null | grep -q . &&
      echo "${p#/proc/}"
  done
  return 0
}

# kill_wait PID...: TERM, then KILL what still runs after 5 s.
kill_wait() {
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  local i p left
  for i in $(seq 50); do
    left=()
    for p in "$@"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
    [ ${#left[@]} -gt 0 ] || return 0
    sleep 0.1
  done
  kill -9 "${left[@]}" 2>/dev/null || true
}

stop() {
  [ -d "$dir" ] || return 0
  local jobs pids=() f n i
  if alive "$dir/slurmctld.pid"; then
    jobs=$(squeue --noheader -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086  # one word per job
      scancel --full --signal=KILL $jobs 2>/dev/null || true
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for i in $(seq 50); do
        [ -z "$(squeue --noheader -o %i 2>/dev/null)" ] && break
        sleep 0.1
      done
    fi
  fi
  for f in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid; do
    alive "$f" && pids+=("$(cat "$f")")
  done
  kill_wait "${pids[@]}"
  # shellcheck disable=SC2046  # one word per pid
  kill_wait $(stepds)
  if [ -f "$conf" ]; then
    for n in $(node_names); do
      if [ -d "/sys/fs/cgroup/freezer/slurm_$n" ]; then
        find "/sys/fs/cgroup/freezer/slurm_$n" -depth -type d \
          -exec rmdir {} + 2>/dev/null || true
      fi
    done
  fi
  rm -rf "$dir"
}

status() {
  running || { echo "local-slurm: not running ($dir)"; exit 1; }
  sinfo --Node -o '%N %T %c %E'
  squeue
  squeue --steps
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
