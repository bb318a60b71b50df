// CheckpointKeeper: keep_best, the checkpoints of ended trials kept or
// removed.
#ifndef TUNER_TUNER_SWEEP_CHECKPOINT_KEEPER_H_
#define TUNER_TUNER_SWEEP_CHECKPOINT_KEEPER_H_

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/trial.h"
#include "tuner/config/experiment_config.h"

namespace tuner {

// Of the stopped and failed trials' checkpoints (their checkpoints.dir),
// keeps the `checkpoints.keep_best` best, by the trial's last value in the
// experiment's mode (one without a finite value ranks last), and removes
// the folders matching the first part of `checkpoints.pattern` in the
// others. A removal walks from the fixed part of checkpoints.dir without
// following a link on the way; a path outside it, one behind a link, or
// (when the database is not the file the experiment was created in) one
// outside the trials root is left in place with a warning naming it.
// keep_best < 0: keeps everything.
class CheckpointKeeper {
 public:
  CheckpointKeeper(const ExperimentConfig& config, std::string trials_root,
                   bool original_database);

  // A trial ended with `status`; its checkpoints are in `output_dir`.
  void Ended(core::TrialStatus status, std::optional<double> last_value,
             const std::string& output_dir);

 private:
  // Whether `match`, a match of the pattern's first component, is a
  // checkpoint of the trial whose checkpoints are in `output_dir`: a
  // directory (or a link, which Remove() removes alone) directly in it,
  // never the folder itself, its parent or a file (a log).
  static bool IsCheckpointOf(const std::filesystem::path& match,
                             const std::string& output_dir);
  void Remove(const std::filesystem::path& path) const;

  const ExperimentConfig& config_;
  std::string trials_root_;
  bool original_database_;
  // Kept so far: (goodness, output dir), best first.
  std::vector<std::pair<double, std::string>> kept_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_CHECKPOINT_KEEPER_H_
