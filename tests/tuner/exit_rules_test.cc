// ExitRules: what an attempt's exit makes of its trial, without a sweep.
#include "tuner/sweep/exit_rules.h"

#include "tests/catch.h"

namespace tuner::testing {
namespace {

using Kind = ExitRoute::Kind;
using core::TrialStatus;

struct Rules {
  Rules() {
    config.metric = "acc";
    config.time_attr = "epoch";
    config.trial.max_failures = 1;
  }
  ExitRoute Route(const ExitingTrial& trial, const runner::TrialExit& exit,
                  bool stopping = false) {
    return ExitRules(config).Route(trial, exit, stopping, [this] {
      ++stderr_reads;
      return stderr_tail;
    });
  }
  ExperimentConfig config;
  std::string stderr_tail;
  int stderr_reads = 0;
};

runner::TrialExit Code(int code) {
  runner::TrialExit exit;
  exit.exit_code = code;
  return exit;
}

runner::TrialExit StopAsked() {
  runner::TrialExit exit;
  exit.signal = 15;
  exit.stop_requested = true;
  return exit;
}

ExitingTrial In(TrialPhase phase) {
  ExitingTrial trial;
  trial.phase = phase;
  trial.judged = 2;
  trial.verdict_reason = "rung 3: rank 5 of 9";
  return trial;
}

TEST_CASE("a verdict decides the exit of its attempt", "[tuner][sweep][exit]") {
  Rules r;
  ExitRoute stopped = r.Route(In(TrialPhase::kStopping), StopAsked());
  CHECK(stopped.kind == Kind::kEnd);
  CHECK(stopped.status == TrialStatus::kStopped);
  CHECK(stopped.reason == "rung 3: rank 5 of 9");
  CHECK(r.Route(In(TrialPhase::kPausing), StopAsked()).kind == Kind::kPause);
  CHECK(r.Route(In(TrialPhase::kResuming), StopAsked()).kind == Kind::kResume);
  ExitRoute done = r.Route(In(TrialPhase::kCompleting), Code(0));
  CHECK(done.kind == Kind::kEnd);
  CHECK(done.status == TrialStatus::kCompleted);
  // Completed, then crashed on its own: failed, never retried.
  r.stderr_tail = "Traceback\nRuntimeError: disk quota\n";
  ExitRoute crashed = r.Route(In(TrialPhase::kCompleting), Code(1));
  CHECK(crashed.kind == Kind::kEnd);
  CHECK(crashed.status == TrialStatus::kFailed);
  CHECK(crashed.reason == "exit code 1: RuntimeError: disk quota");
  CHECK(r.stderr_reads == 1);  // read only for the attempt that failed
}

TEST_CASE(
    "a failed attempt is retried up to max_failures, elsewhere when "
    "its device was busy",
    "[tuner][sweep][exit]") {
  Rules r;
  r.stderr_tail = "ValueError: nan loss\n";
  ExitingTrial trial = In(TrialPhase::kRunning);
  ExitRoute retry = r.Route(trial, Code(3));
  CHECK(retry.kind == Kind::kRetry);
  CHECK(retry.reason == "exit code 3: ValueError: nan loss");
  trial.failures = 1;
  CHECK(r.Route(trial, Code(3)).kind == Kind::kEnd);
  // Stopping: nothing runs again; a stop it asked for leaves it pending.
  trial.failures = 0;
  CHECK(r.Route(trial, Code(3), true).kind == Kind::kEnd);
  ExitRoute pending = r.Route(trial, StopAsked(), true);
  CHECK(pending.status == TrialStatus::kPending);
  CHECK(pending.reason == "interrupted");

  r.stderr_tail =
      "RuntimeError: CUDA error: all CUDA-capable devices are busy "
      "or unavailable\n";
  ExitRoute busy = r.Route(trial, Code(1));
  CHECK(busy.kind == Kind::kRetryElsewhere);
  trial.device_retries = ExitRules::kMaxDeviceRetries;
  CHECK(r.Route(trial, Code(1)).kind != Kind::kRetryElsewhere);

  r.stderr_tail = "torch.cuda.OutOfMemoryError: CUDA out of memory.\n";
  trial.device_retries = 0;
  ExitRoute oom = r.Route(trial, Code(1));
  CHECK(oom.kind == Kind::kEnd);  // it would run out the same way
  CHECK(oom.reason.find("out of memory") != std::string::npos);

  runner::TrialExit node;
  node.cause = runner::EndCause::kNodeFailed;
  node.lost_why = "node n2 failed";
  ExitRoute moved = r.Route(trial, node);
  CHECK(moved.kind == Kind::kRetryElsewhere);
  CHECK(moved.reason == "node n2 failed");
}

TEST_CASE(
    "the shim's limits and a clean exit without the objective fail "
    "with the reason",
    "[tuner][sweep][exit]") {
  Rules r;
  r.config.trial.timeout = std::chrono::milliseconds(1500);
  ExitingTrial trial = In(TrialPhase::kRunning);
  runner::TrialExit exit;
  exit.signal = 9;
  exit.cause = runner::EndCause::kTimedOut;
  CHECK(r.Route(trial, exit).reason == "timed out after 1.5 s");
  exit.cause = runner::EndCause::kCancelled;
  exit.lost_why = "scancel";
  CHECK(r.Route(trial, exit).reason == "cancelled through Slurm: scancel");
  CHECK(r.Route(trial, Code(0)).status == TrialStatus::kCompleted);
  trial.judged = 0;
  trial.seen_keys = "loss";
  ExitRoute quiet = r.Route(trial, Code(0));
  CHECK(quiet.status == TrialStatus::kFailed);
  CHECK(quiet.reason ==
        "exited 0 without reporting 'acc' with 'epoch'; its reports had: loss");
  CHECK(r.stderr_reads == 0);
}

TEST_CASE(
    "a preempted attempt, or one an earlier tuner's stop ended, runs "
    "again uncounted",
    "[tuner][sweep][exit]") {
  Rules r;
  ExitRoute preempted = r.Route(In(TrialPhase::kPreempting), StopAsked());
  CHECK(preempted.kind == Kind::kRequeue);
  CHECK(preempted.reason.empty());
  // Preempted, then the sweep is stopped: it ends pending, not requeued.
  CHECK(r.Route(In(TrialPhase::kPreempting), StopAsked(), true).kind ==
        Kind::kEnd);

  ExitingTrial adopted = In(TrialPhase::kRunning);
  adopted.origin = AttemptOrigin::kEarlierTuner;
  ExitRoute stopped = r.Route(adopted, StopAsked());
  CHECK(stopped.kind == Kind::kRequeue);
  CHECK(stopped.reason == "interrupted (a tuner stopped it)");
  runner::TrialExit lost;
  lost.cause = runner::EndCause::kLost;
  lost.lost_why = "its shim was killed by signal 9";
  CHECK(r.Route(adopted, lost).reason ==
        "interrupted (exit status lost: its shim was killed by signal 9)");
  // This tuner's own attempt with a lost status is a failure, retried.
  CHECK(r.Route(In(TrialPhase::kRunning), lost).kind == Kind::kRetry);
  // A decided attempt is not interrupted, whoever started it.
  adopted.phase = TrialPhase::kStopping;
  CHECK(r.Route(adopted, StopAsked()).status == TrialStatus::kStopped);
}

}  // namespace
}  // namespace tuner::testing
