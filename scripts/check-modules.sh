#!/usr/bin/env bash
# Checks every #include against the module map (docs/architecture.md):
#   core/          the ground floor: the standard library only
#   util/          core; the small utilities every layer uses (no SQL)
#   schedulers/    core; no processes, no SQL, no event loop
#   storage/       core; no processes, no event loop
#   trial_runner/  core, util; no SQL. One library a job:
#     output/      a trial's output to reports: core, util
#     processes/   trial processes: ... and output, the seam (trial_runner.h)
#     devices/     devices and their leases: core, util, processes/spawn.h
#   The seam trial_runner/trial_runner.h and slurm/ may include all three.
#   tuner/         the wiring, one folder a role, each using those before it:
#     base/    core, util
#     config/  core, util, schedulers, trial_runner, base
#     cluster/ core, util, storage, trial_runner, base, config (Slurm: not
#              the sweep)
#     sweep/   core, util, the three leaves, base, config
#     text/    ... and sweep
#     sim/     ... and sweep (not text, server or cli)
#     server/  ... and sweep, text (not sim or cli)
#     cli/     anything
# The leaves (schedulers, storage, trial_runner) never include each other,
# nothing below the wiring includes it, and no role includes one above it.
# An allowed entry is a folder (anything below it) or one header.
# Project includes count in quotes or angle brackets; "." and ".." are
# refused; every source file under tuner/ must sit in a role folder.
# tests/, fuzz/, bench/ and examples/ may include anything.
#   scripts/check-modules.sh [ROOT]   (default: the repository)
# Prints FILE:LINE: what is wrong, for each crossing; exits 1 if any.
set -uo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root" || exit 2

# The project's folders a module may include from.
declare -A allowed=(
  [core]="core"
  [util]="core util"
  [schedulers]="core schedulers"
  [storage]="core storage"
  [trial_runner]="core util trial_runner"
  [trial_runner/output]="core util trial_runner/output"
  [trial_runner/processes]="core util trial_runner/output trial_runner/processes trial_runner/trial_runner.h"
  [trial_runner/devices]="core util trial_runner/devices trial_runner/processes/spawn.h"
  [tuner/base]="core util tuner/base"
  [tuner/config]="core util schedulers trial_runner tuner/base tuner/config"
  [tuner/cluster]="core util storage trial_runner tuner/base tuner/config tuner/cluster"
  [tuner/sweep]="core util schedulers storage trial_runner tuner/base tuner/config tuner/sweep"
  [tuner/text]="core util schedulers storage trial_runner tuner/base tuner/config tuner/sweep tuner/text"
  [tuner/sim]="core util schedulers storage trial_runner tuner/base tuner/config tuner/sweep tuner/sim"
  [tuner/server]="core util schedulers storage trial_runner tuner/base tuner/config tuner/sweep tuner/text tuner/server"
  [tuner/cli]="core util schedulers storage trial_runner tuner"
)
# System or library headers a module must not include (extended regex on
# the name between the angle brackets).
declare -A forbidden=(
  [core]='.'
  [schedulers]='^(spawn\.h|sys/.*|signal\.h|csignal|unistd\.h|fcntl\.h|poll\.h|sqlite3\.h|boost/.*)$'
  [storage]='^(spawn\.h|sys/(wait|epoll|inotify|signalfd|pidfd)\.h|signal\.h|csignal|poll\.h|boost/.*)$'
  [util]='^(sqlite3\.h)$'
  [trial_runner]='^(sqlite3\.h)$'
  [trial_runner/output]='^(sqlite3\.h)$'
  [trial_runner/processes]='^(sqlite3\.h)$'
  [trial_runner/devices]='^(sqlite3\.h)$'
)
# The project's top folders: an include naming one of them, quoted or in
# angle brackets, is checked against the map.
project_top='^(core|util|schedulers|storage|trial_runner|tuner|tests|examples|bench|fuzz)/'
roles="base config cluster sweep text sim server cli"
sources=(--include='*.h' --include='*.hh' --include='*.hpp' --include='*.cc'
         --include='*.cpp' --include='*.cxx' --include='*.inc' --include='*.ipp')
# What core may take from the standard library: any header without a dot
# or a slash (<vector>, <cmath>).
std_header='^[a-z_0-9]+$'

quoted='#[[:space:]]*include[[:space:]]*"([^"]+)"'
angled='#[[:space:]]*include[[:space:]]*<([^>]+)>'
status=0
report() {
  echo "$1"
  status=1
}

# A source file right in tuner/ or in a folder that is no role is in no
# module: it would escape the map.
while IFS= read -r file; do
  role="${file#tuner/}"
  role="${role%%/*}"
  if [[ " $roles " != *" $role "* ]] || [ "$role" = "${file#tuner/}" ]; then
    report "$file: not in a role folder of tuner/ ($roles; docs/architecture.md)"
  fi
done < <(grep -rlE '' tuner "${sources[@]}" 2>/dev/null | sort)

check() {  # FILE LINE MODULE TARGET QUOTED
  local file="$1" line="$2" module="$3" target="$4" quoted="$5" a ok
  if [[ "/$target/" == *"/../"* || "/$target/" == *"/./"* ||
        "$target" == *"//"* ]]; then
    report "$file:$line: includes \"$target\": no . or .. in an include"
    return
  fi
  if [[ "$target" =~ $project_top ]]; then
    ok=0
    for a in ${allowed[$module]}; do
      [[ "$target" == "$a" || "$target" == "$a"/* ]] && ok=1
    done
    [ "$ok" = 1 ] ||
      report "$file:$line: includes \"$target\": $module/ may include only ${allowed[$module]// /, }"
    return
  fi
  # A file beside it, by its own name.
  if [ "$quoted" = 1 ] && [ -e "$(dirname "$file")/$target" ]; then return; fi
  if [ "$module" = core ]; then
    [[ "$target" =~ $std_header ]] && [ "$quoted" = 0 ] && return
    report "$file:$line: includes <$target>: core/ uses the standard library only"
  elif [ -n "${forbidden[$module]:-}" ] &&
    [[ "$target" =~ ${forbidden[$module]} ]]; then
    report "$file:$line: includes <$target>: not in $module/ (see docs/architecture.md)"
  fi
}

# A module's folder holds its sub-modules' folders: each file is checked
# against the innermost module it lies in.
modules=(core util schedulers storage trial_runner trial_runner/output
         trial_runner/processes trial_runner/devices tuner/base tuner/config
         tuner/cluster tuner/sweep tuner/text tuner/sim tuner/server tuner/cli)
inner() {  # FILE MODULE: whether FILE lies in a sub-module of MODULE
  local m
  for m in "${modules[@]}"; do
    [[ "$m" == "$2"/* && "$1" == "$m"/* ]] && return 0
  done
  return 1
}

for module in "${modules[@]}"; do
  [ -d "$module" ] || continue
  while IFS= read -r hit; do
    file="${hit%%:*}"
    inner "$file" "$module" && continue
    rest="${hit#*:}"
    line="${rest%%:*}"
    text="${rest#*:}"
    if [[ "$text" =~ $quoted ]]; then
      check "$file" "$line" "$module" "${BASH_REMATCH[1]}" 1
    elif [[ "$text" =~ $angled ]]; then
      check "$file" "$line" "$module" "${BASH_REMATCH[1]}" 0
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include' "$module" \
             "${sources[@]}" | sort)
done
exit $status
