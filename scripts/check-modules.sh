#!/usr/bin/env bash
# Checks every #include against the module map (docs/architecture.md):
#   core/          the ground floor: the standard library only
#   schedulers/    core; no processes, no SQL, no event loop
#   storage/       core; no processes, no event loop
#   trial_runner/  core; no SQL
#   tuner/         the wiring, one folder a role, each using those before it:
#     base/    core, trial_runner
#     config/  core, schedulers, trial_runner, base
#     sweep/   core, the three leaves, base, config
#     text/    ... and sweep
#     sim/     ... and sweep (not text, server or cli)
#     server/  ... and sweep, text (not sim or cli)
#     cli/     anything
# The leaves (schedulers, storage, trial_runner) never include each other,
# nothing below the wiring includes it, and no role includes one above it.
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
  [schedulers]='^(spawn\.h|sys/wait\.h|signal\.h|csignal|unistd\.h|sqlite3\.h|boost/.*)$'
  [storage]='^(spawn\.h|sys/wait\.h|signal\.h|csignal|boost/.*)$'
  [trial_runner]='^(sqlite3\.h)$'
)
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

for module in core schedulers storage trial_runner tuner/base tuner/config \
  tuner/sweep tuner/text tuner/sim tuner/server tuner/cli; do
  [ -d "$module" ] || continue
  while IFS= read -r hit; do
    file="${hit%%:*}"
    rest="${hit#*:}"
    line="${rest%%:*}"
    text="${rest#*:}"
    if [[ "$text" =~ $quoted ]]; then
      target="${BASH_REMATCH[1]}"
      top="${target%%/*}"
      [ "$top" = "$target" ] && continue  # a file beside it, by its own name
      ok=0
      for a in ${allowed[$module]}; do
        [ "$top" = "$a" ] && ok=1
        [[ "$target" == "$a"/* ]] && ok=1  # tuner/base/clock.h under tuner/base
      done
      if [ "$ok" = 0 ]; then
        report "$file:$line: includes \"$target\": $module/ may include only ${allowed[$module]// /, }"
      fi
    elif [[ "$text" =~ $angled ]]; then
      target="${BASH_REMATCH[1]}"
      if [ "$module" = core ]; then
        [[ "$target" =~ $std_header ]] && continue
        report "$file:$line: includes <$target>: core/ uses the standard library only"
      elif [ -n "${forbidden[$module]:-}" ] &&
        [[ "$target" =~ ${forbidden[$module]} ]]; then
        report "$file:$line: includes <$target>: not in $module/ (see docs/architecture.md)"
      fi
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include' "$module" \
             --include='*.h' --include='*.cc' --include='*.cpp' | sort)
done
exit $status
