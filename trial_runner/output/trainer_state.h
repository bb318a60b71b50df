// Hugging Face Trainer checkpoints: checkpoint-N/trainer_state.json.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_TRAINER_STATE_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_TRAINER_STATE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/metrics.h"

namespace tuner::runner {

// A complete checkpoint: its trainer_state.json exists and parses (the
// Trainer writes it after the weights, optimizer and scheduler).
struct Checkpoint {
  std::string dir;  // checkpoint-N/
  std::string state_path;
  double epoch = 0;  // trainer_state.json "epoch"
  int64_t global_step = 0;
  std::vector<core::Metrics> log_history;  // each entry's numeric values
};

// The complete checkpoints under `output_dir` whose state file matches
// `pattern` (a glob relative to it, e.g. "checkpoint-*/trainer_state.json"),
// by global step. Files that do not parse (being written) are skipped.
std::vector<Checkpoint> ScanCheckpoints(const std::string& output_dir,
                                        const std::string& pattern);

// One trainer_state.json; nullopt when it does not parse. Accepts NaN and
// Infinity (Python's json.dumps writes them); bytes that are not UTF-8
// become U+FFFD (in keys too) instead of making the file unreadable.
std::optional<Checkpoint> ReadTrainerState(const std::string& path);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_TRAINER_STATE_H_
