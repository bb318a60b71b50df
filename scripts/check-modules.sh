#!/usr/bin/env bash
# Checks every #include against the module map (docs/architecture.md):
#   core/          the ground floor: the standard library only
#   schedulers/    core; no processes, no SQL, no event loop
#   storage/       core; no processes, no event loop
#   trial_runner/  core; no SQL
#   tuner/         the wiring, one folder a role, each using those before it:
#     base/    core, trial_runner
#     config/  core, schedulers, trial_runner, base
#     cluster/ core, trial_runner, base, config (Slurm: not the sweep)
#     sweep/   core, the three leaves, base, config
#     text/    ... and sweep
#     sim/     ... and sweep (not text, server or cli)
#     server/  ... and sweep, text (not sim or cli)
#     cli/     anything
# The leaves (schedulers, storage, trial_runner) never include each other,
# nothing below the wiring includes it, and no role includes one above it.
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
  [schedulers]="core schedulers"
  [storage]="core storage"
  [trial_runner]="core trial_runner"
  [tuner/base]="core trial_runner tuner/base"
  [tuner/config]="core schedulers trial_runner tuner/base tuner/config"
  [tuner/cluster]="core trial_runner tuner/base tuner/config tuner/cluster"
  [tuner/sweep]="core schedulers storage trial_runner tuner/base tuner/config tuner/sweep"
  [tuner/text]="core schedulers storage trial_runner tuner/base tuner/config tuner/sweep tuner/text"
  [tuner/sim]="core schedulers storage trial_runner tuner/base tuner/config tuner/sweep tuner/sim"
  [tuner/server]="core schedulers storage trial_runner tuner/base tuner/config tuner/sweep tuner/text tuner/server"
  [tuner/cli]="core schedulers storage trial_runner tuner"
)
# System or library headers a module must not include (extended regex on
# the name between the angle brackets).
declare -A forbidden=(
  [core]='.'
  [schedulers]='^(spawn\.h|sys/.*|signal\.h|csignal|unistd\.h|fcntl\.h|poll\.h|sqlite3\.h|boost/.*)$'
  [storage]='^(spawn\.h|sys/(wait|epoll|inotify|signalfd|pidfd)\.h|signal\.h|csignal|poll\.h|boost/.*)$'
  [trial_runner]='^(sqlite3\.h)$'
)
# The project's top folders: an include naming one of them, quoted or in
# angle brackets, is checked against the map.
project_top='^(core|schedulers|storage|trial_runner|tuner|tests|examples|bench|fuzz)/'
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
      [[ "$target" == "$a"/* ]] && ok=1
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

for module in core schedulers storage trial_runner tuner/base tuner/config \
  tuner/sweep tuner/text tuner/sim tuner/server tuner/cli; do
  [ -d "$module" ] || continue
  while IFS= read -r hit; do
    file="${hit%%:*}"
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
