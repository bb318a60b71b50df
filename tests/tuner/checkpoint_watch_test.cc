// CheckpointWatch on its own: times snapped to the rungs, a pause held
// until its rung's checkpoint is in or its wait ran out, polled on a
// ManualClock only while a pause waits, and keep_best. No process, no
// sweep.
#include "tuner/sweep/checkpoint_watch.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// A sweep with rungs 1, 3 and 9 (max_t 27) on epochs, polling every
// 200 ms and waiting 1 s for a checkpoint, and what its watch asked of it.
struct Watched {
  Watched() : root(FreshDir("checkpoint-watch")) {
    config.workdir = root.string();
    config.time_attr = "epoch";
    config.scheduler.max_t = 27;
    config.checkpoints.dir = "{trial_dir}/output";
    config.checkpoints.poll = milliseconds(200);
    config.checkpoints.wait = milliseconds(1000);
  }
  ~Watched() { fs::remove_all(root); }

  CheckpointWatch::Sweep Hooks() {
    return {.milestones =
                [] {
                  return std::vector<double>{1, 3, 9};
                },
            .stop = [this](core::TrialId trial) { stopped.push_back(trial); },
            .enter =
                [this](const std::function<void()>& poll) {
                  ++polls;
                  poll();
                }};
  }
  CheckpointWatch Watch() {
    return CheckpointWatch(
        config, clock, CheckpointKeeper(config, root.string(), true), Hooks());
  }
  // The trial's output folder (made, empty).
  std::string Output(core::TrialId trial) {
    fs::path output = root / std::to_string(trial) / "output";
    fs::create_directories(output);
    return output.string();
  }
  // A complete checkpoint at `epoch` in `output`.
  void Save(const std::string& output, int step, double epoch) {
    fs::path dir = fs::path(output) / ("checkpoint-" + std::to_string(step));
    fs::create_directories(dir);
    std::ofstream(dir / "trainer_state.json")
        << "{\"epoch\": " << epoch << ", \"global_step\": " << step
        << ", \"log_history\": []}";
  }
  bool Idle() const { return clock.NextDue() == Clock::TimePoint::max(); }

  fs::path root;
  ExperimentConfig config;
  ManualClock clock;
  std::vector<core::TrialId> stopped;
  int polls = 0;
};

TEST_CASE("CheckpointWatch: a time within 0.01 of a rung or max_t is that mark",
          "[checkpoint_watch]") {
  Watched w;
  CheckpointWatch watch = w.Watch();
  CHECK(watch.SnapToRung(0.9996) == 1);
  CHECK(watch.SnapToRung(3.0004) == 3);
  CHECK(watch.SnapToRung(26.995) == 27);  // max_t
  CHECK(watch.SnapToRung(2.98) == 2.98);  // not a rounding: kept
  CHECK(watch.SnapToRung(5) == 5);
  w.config.scheduler.max_t.reset();
  CHECK(watch.SnapToRung(26.995) == 26.995);
}

TEST_CASE("CheckpointWatch: a rung's checkpoint already in stops at once",
          "[checkpoint_watch]") {
  Watched w;
  CheckpointWatch watch = w.Watch();
  std::string output = w.Output(1);
  w.Save(output, 30, 2.9996);  // a Trainer's epoch 3
  watch.PauseAt(1, output, 3);
  CHECK(w.stopped == std::vector<core::TrialId>{1});
  CHECK(w.Idle());  // nothing held: no poll
}

TEST_CASE(
    "CheckpointWatch: a pause is polled every checkpoints.poll until its "
    "rung's checkpoint is in, then the watch is idle",
    "[checkpoint_watch]") {
  Watched w;
  CheckpointWatch watch = w.Watch();
  std::string output = w.Output(1);
  w.Save(output, 10, 1);  // an earlier rung's: not this pause's
  watch.PauseAt(1, output, 3);
  CHECK(w.stopped.empty());
  CHECK(w.clock.NextDue() == w.clock.Now() + milliseconds(200));
  w.clock.Advance(milliseconds(200));
  CHECK(w.polls == 1);
  CHECK(w.stopped.empty());
  w.Save(output, 30, 3);
  w.clock.Advance(milliseconds(199));
  CHECK(w.stopped.empty());
  w.clock.Advance(milliseconds(1));
  CHECK(w.polls == 2);
  CHECK(w.stopped == std::vector<core::TrialId>{1});
  CHECK(w.Idle());
}

TEST_CASE(
    "CheckpointWatch: without its checkpoint a pause is stopped once "
    "checkpoints.wait has passed",
    "[checkpoint_watch]") {
  Watched w;
  CheckpointWatch watch = w.Watch();
  watch.PauseAt(1, w.Output(1), 3);
  w.clock.Advance(milliseconds(800));
  CHECK(w.stopped.empty());
  w.clock.Advance(milliseconds(200));  // 1 s: the fifth poll
  CHECK(w.polls == 5);
  CHECK(w.stopped == std::vector<core::TrialId>{1});
  CHECK(w.Idle());
}

TEST_CASE(
    "CheckpointWatch: an exited trial's pause is dropped, one without a "
    "folder is not polled, StopPolling ends the polls",
    "[checkpoint_watch]") {
  Watched w;
  CheckpointWatch watch = w.Watch();
  watch.PauseAt(1, w.Output(1), 3);
  watch.Exited(1);
  w.clock.Advance(milliseconds(2000));
  CHECK(w.polls == 1);  // the poll already due finds nothing, and stops
  CHECK(w.stopped.empty());
  CHECK(w.Idle());

  watch.PauseAt(2, "", 3);  // checked once, never polled
  CHECK(w.Idle());
  CHECK(w.stopped.empty());

  watch.PauseAt(3, w.Output(3), 3);
  CHECK_FALSE(w.Idle());
  watch.StopPolling();
  CHECK(w.Idle());
  w.clock.Advance(milliseconds(2000));
  CHECK(w.stopped.empty());
}

TEST_CASE("CheckpointWatch: under time_attr step a checkpoint's step counts",
          "[checkpoint_watch]") {
  Watched w;
  w.config.time_attr = "step";
  w.config.scheduler.max_t = 900;
  CheckpointWatch watch = w.Watch();
  std::string output = w.Output(1);
  w.Save(output, 100, 9);  // epoch 9, but step 100 < rung 300
  watch.PauseAt(1, output, 300);
  CHECK(w.stopped.empty());
  w.Save(output, 300, 27);
  w.clock.Advance(milliseconds(200));
  CHECK(w.stopped == std::vector<core::TrialId>{1});
}

TEST_CASE("CheckpointWatch: ended trials go to keep_best",
          "[checkpoint_watch]") {
  Watched w;
  w.config.mode = core::Mode::kMax;
  w.config.checkpoints.keep_best = 1;
  CheckpointWatch watch = w.Watch();
  std::string a = w.Output(1), b = w.Output(2);
  w.Save(a, 10, 1);
  w.Save(b, 10, 1);
  watch.TrialEnded(core::TrialStatus::kStopped, 0.5, a);
  watch.TrialEnded(core::TrialStatus::kStopped, 0.7, b);  // better: a's go
  CHECK_FALSE(fs::exists(fs::path(a) / "checkpoint-10"));
  CHECK(fs::exists(fs::path(b) / "checkpoint-10"));
}

}  // namespace
}  // namespace tuner::testing
