#include "tuner/sweep/checkpoint_keeper.h"

#include <glob.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "tuner/base/lexical_path.h"
#include "tuner/base/one_line.h"
#include "tuner/base/remove_tree.h"
#include "tuner/sweep/experiment_lifecycle.h"

namespace tuner {

CheckpointKeeper::CheckpointKeeper(const ExperimentConfig& config,
                                   std::string trials_root,
                                   bool original_database)
    : config_(config),
      trials_root_(std::move(trials_root)),
      original_database_(original_database) {}

void CheckpointKeeper::Ended(core::TrialStatus status,
                             std::optional<double> last_value,
                             const std::string& output_dir) {
  if (status != core::TrialStatus::kStopped &&
      status != core::TrialStatus::kFailed) {
    return;
  }
  if (config_.checkpoints.keep_best < 0 || output_dir.empty()) return;
  double value = last_value.value_or(NAN);
  double goodness = !std::isfinite(value)              ? -INFINITY
                    : config_.mode == core::Mode::kMax ? value
                                                       : -value;
  kept_.emplace_back(goodness, output_dir);
  std::sort(kept_.begin(), kept_.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string first = config_.checkpoints.pattern.substr(
      0, config_.checkpoints.pattern.find('/'));
  while (kept_.size() > static_cast<size_t>(config_.checkpoints.keep_best)) {
    std::string dir = kept_.back().second;
    kept_.pop_back();
    glob_t matches{};
    if (glob((dir + "/" + first).c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        if (IsCheckpointOf(matches.gl_pathv[i], dir)) {
          Remove(matches.gl_pathv[i]);
        }
      }
    }
    globfree(&matches);
  }
}

bool CheckpointKeeper::IsCheckpointOf(const std::filesystem::path& match,
                                      const std::string& output_dir) {
  namespace fs = std::filesystem;
  // Strictly inside, and no deeper than one component (lexical_path.h).
  if (!Inside(match, output_dir) ||
      NormalPath(match).parent_path() != NormalPath(output_dir)) {
    return false;
  }
  std::error_code ec;
  fs::file_status status = fs::symlink_status(match, ec);
  return fs::is_directory(status) || fs::is_symlink(status);
}

void CheckpointKeeper::Remove(const std::filesystem::path& path) const {
  namespace fs = std::filesystem;
  fs::path root = CheckpointWalkRoot(config_.checkpoints.dir, config_.workdir,
                                     fs::absolute(trials_root_));
  fs::path full = path.is_absolute() ? path : config_.workdir / path;
  fs::path below = full.lexically_normal().lexically_relative(root);
  bool inside = !below.empty() && *below.begin() != ".." && below != ".";
  // Outside the trial directories, only the original database's own.
  bool foreign =
      !original_database_ && !Inside(full, fs::absolute(trials_root_));
  TreeRemoval removal;
  if (!inside) {
    removal = {TreeRemoval::kFailed,
               path.string() + ": not inside " + root.string()};
  } else if (foreign) {
    removal = {TreeRemoval::kFailed,
               path.string() +
                   ": this database is not the file the experiment was "
                   "created in (a copy?): remove it yourself if it is this "
                   "experiment's"};
  } else {
    removal = RemoveTreeBelow(root, below);
  }
  if (removal.kind == TreeRemoval::kLink ||
      removal.kind == TreeRemoval::kFailed) {
    spdlog::warn("keep_best: {} left in place ({})", OneLine(path.string()),
                 OneLine(removal.why));
  }
}

}  // namespace tuner
