#!/usr/bin/env bash
# The local Slurm of scripts/local-slurm.sh (SLURM_CONF set by
# scripts/test.sh) works as the Slurm runner needs: every node runs a step
# as itself, presents its recorded machine through the fake hl-smi, runs two
# steps of one job at once, and scancel --signal reaches a step.
# Without SLURM_CONF it fails, unless TUNER_NO_SLURM=1 skips it (exit 77).
set -uo pipefail
if [ -z "${SLURM_CONF:-}" ]; then
  if [ "${TUNER_NO_SLURM:-}" = 1 ]; then
    echo "skipped: TUNER_NO_SLURM=1"
    exit 77
  fi
  # shellcheck disable=SC2016  # the command to type, as it is
  echo "SLURM_CONF is not set: start a local Slurm first" \
    '(eval "$(scripts/local-slurm.sh start)"), or set TUNER_NO_SLURM=1 to skip'
  exit 1
fi
fail() {
  echo "FAIL: $*"
  exit 1
}
work=$(mktemp -d)
job=""
cleanup() {
  [ -z "$job" ] || scancel "$job" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

nodes=$(sinfo --noheader --Node -o %N | sort -u)
[ -n "$nodes" ] || fail "sinfo lists no node (SLURM_CONF=$SLURM_CONF)"
state_dir=$(dirname "$SLURM_CONF")
fakes="$(cd "$(dirname "$0")/../fakes" && pwd)"
for n in $nodes; do
  # the node's own machine, whatever this environment says
  machine=$(awk -v n="$n" '$1 == n { print $2 }' "$state_dir/machines")
  # shellcheck disable=SC2016  # expanded in the step
  got=$(FAKE_MACHINE=none timeout 30 srun --nodelist "$n" --nodes 1 \
    --ntasks 1 bash -c 'echo "$SLURMD_NODENAME $FAKE_MACHINE"')
  [ "$got" = "$n $machine" ] || fail "a step on $n ran as '$got', not '$n $machine'"
  [ -f "$fakes/machines/$machine/hl-smi.csv" ] || continue
  want=$(FAKE_MACHINE="$machine" "$fakes/bin/hl-smi" -Q uuid,memory.used -f csv,noheader)
  got=$(FAKE_MACHINE=none timeout 30 srun --nodelist "$n" --nodes 1 \
    --ntasks 1 hl-smi -Q uuid,memory.used -f csv,noheader)
  if [ -z "$want" ] || [ "$got" != "$want" ]; then
    fail "hl-smi on $n printed '$got', not $machine's '$want'"
  fi
done
echo "ok: every node runs steps as itself with its own machine"

first=$(head -n 1 <<< "$nodes")
job=$(timeout 30 salloc --no-shell --nodes 1 --nodelist "$first" --no-kill \
  --job-name local-slurm-test 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$job" ] || fail "salloc --no-shell printed no job id"

# Two steps on one node: each waits for the other's mark, so they can only
# both finish when they run at the same time.
step() { # step MINE THEIRS: marks MINE, waits for THEIRS (10 s at most)
  timeout 30 srun --jobid "$job" --nodelist "$first" --nodes 1 --ntasks 1 \
    --overlap bash -c "touch $work/$1; for i in \$(seq 100); do
      [ -e $work/$2 ] && exit 0; sleep 0.1; done; exit 1"
}
step a b & pa=$!
step b a & pb=$!
wait $pa || fail "step a never saw step b running"
wait $pb || fail "step b never saw step a running"
echo "ok: two steps on $first ran at once"

# scancel --signal=TERM reaches the step's process (the step traps it).
timeout 30 srun --jobid "$job" --nodelist "$first" --nodes 1 --ntasks 1 \
  --overlap --job-name "signal me" bash -c "trap 'touch $work/term; exit 0' TERM
    touch $work/up; for i in \$(seq 200); do sleep 0.1; done" 2>/dev/null &
ps=$!
for _ in $(seq 100); do [ -e "$work/up" ] && break; sleep 0.1; done
[ -e "$work/up" ] || fail "the signalled step did not start"
s=$(squeue --steps --jobs "$job" --noheader -O 'StepId:|,StepName:|' |
  awk -F'|' '$2 == "signal me" { print $1 }')
[ -n "$s" ] || fail "squeue --steps shows no step named 'signal me'"
scancel --signal=TERM "$s" || fail "scancel --signal=TERM $s failed"
wait $ps
[ -e "$work/term" ] || fail "step $s did not get SIGTERM"
echo "ok: scancel --signal=TERM $s reached the step"
