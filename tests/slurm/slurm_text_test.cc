// Slurm's command lines and outputs, as the runner builds and reads them.
#include "trial_runner/slurm/slurm_text.h"

#include <algorithm>

#include "tests/catch.h"

using namespace tuner::runner;

TEST_CASE("a step's name is fixed by its status path, and safe", "[slurm]") {
  std::string a = StepName("/shared/exp.db.trials/e/3/status.attempt-1.json");
  CHECK(a == StepName("/shared/exp.db.trials/e/3/status.attempt-1.json"));
  CHECK(a != StepName("/shared/exp.db.trials/e/3/status.attempt-2.json"));
  CHECK(a.size() == 22);
  CHECK(a.rfind("tuner-", 0) == 0);
  CHECK(std::all_of(a.begin() + 6, a.end(), [](char c) {
    return std::isxdigit(c) && !std::isupper(c);
  }));
  CHECK(StepName("") != StepName("x"));
}

TEST_CASE("squeue's steps are parsed, batch, extern and garbage skipped",
          "[slurm]") {
  auto steps = ParseSteps(
      "12.0|n1|tuner-00000000000000aa\n"
      "12.batch|n1|batch\n"
      "12.extern|n[1-2]|extern\n"
      "  12.13|n2|a|name|with|bars\r\n"
      "garbage without bars\n"
      "x.1|n1|y\n"
      "12.99999999999999999999|n1|too-big\n"
      "12_3.4|n9|array\n");
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].job == "12");
  CHECK(steps[0].step == 0);
  CHECK(steps[0].node == "n1");
  CHECK(steps[0].name == "tuner-00000000000000aa");
  CHECK(steps[1].step == 13);
  CHECK(steps[1].name == "a|name|with|bars");
  CHECK(steps[2].job == "12_3");
  CHECK(ParseSteps("").empty());
  CHECK(ParseSteps(std::string(1000, '|')).empty());
}

TEST_CASE("a node that is down, drained or not responding is unfit",
          "[slurm]") {
  auto states = ParseNodeStates(
      "n1|IDLE\nn2|down*\nn3|draining\nn4|mixed\n"
      "n5|allocated\nn6|drained\nn7|idle*\nbad\n");
  CHECK(states.size() == 7);
  CHECK_FALSE(NodeUnfit(states["n1"]));
  CHECK(NodeUnfit(states["n2"]));
  CHECK(NodeUnfit(states["n3"]));
  CHECK_FALSE(NodeUnfit(states["n4"]));
  CHECK_FALSE(NodeUnfit(states["n5"]));
  CHECK(NodeUnfit(states["n6"]));
  CHECK(NodeUnfit(states["n7"]));  // not responding
  CHECK(NodeUnfit(""));
  CHECK(NodeUnfit("fail"));
  CHECK(NodeLeftAllocation("down*"));
  CHECK(NodeLeftAllocation("failing"));
  CHECK_FALSE(NodeLeftAllocation("drained"));
  CHECK_FALSE(NodeLeftAllocation("mixed"));
}

TEST_CASE("salloc's and sbatch's job ids are read, job ids are checked",
          "[slurm]") {
  CHECK(ParseGrantedJob("salloc: Granted job allocation 1234\n") == "1234");
  CHECK(ParseGrantedJob("salloc: Pending job allocation 7\nsalloc: job 7 "
                        "queued and waiting for resources\nsalloc: Granted "
                        "job allocation 7\n") == "7");
  CHECK(ParseGrantedJob("Submitted batch job 99") == "99");
  CHECK_FALSE(ParseGrantedJob("salloc: error: Job submit/allocate failed"));
  CHECK_FALSE(ParseGrantedJob("Granted job allocation "));
  CHECK(ValidJobId("1234"));
  CHECK(ValidJobId("12_3"));
  CHECK(ValidJobId("12+1"));
  CHECK_FALSE(ValidJobId(""));
  CHECK_FALSE(ValidJobId("12;rm -rf /"));
  CHECK_FALSE(ValidJobId("-1"));
  CHECK_FALSE(ValidJobId("1_"));
}

TEST_CASE("how a step ended without its status is read from its logs",
          "[slurm]") {
  auto cancelled = ClassifyStepEnd(
      "slurmstepd-n1: error: *** STEP 7.2 ON n1 CANCELLED AT "
      "2026-11-24T07:34:42 ***\n");
  CHECK(cancelled.cause == EndCause::kCancelled);
  CHECK(cancelled.line.find("STEP 7.2") != std::string::npos);
  auto failed = ClassifyStepEnd(
      "srun: error: Node failure on n2\nsrun: error: *** STEP 7.3 CANCELLED "
      "AT 2026-11-24T07:35:00 DUE TO NODE FAILURE ***\n");
  CHECK(failed.cause == EndCause::kNodeFailed);
  auto killed = ClassifyStepEnd("srun: error: n1: task 0: Killed\n");
  CHECK(killed.cause == EndCause::kCancelled);
  CHECK(killed.line == "srun: error: n1: task 0: Killed");
  auto neither = ClassifyStepEnd("srun: error: n1: task 0: Exited with 3\n");
  CHECK(neither.cause == EndCause::kLost);
  CHECK(neither.line.empty());
}

TEST_CASE("srun runs one task on the lease's node, sharing it, then the shim",
          "[slurm]") {
  auto argv = SrunArgv({}, "12", "n2", "tuner-ab", "/t/step.log",
                       {"--mpi=none"}, {"/bin/tuner-shim", "--", "train"});
  auto has = [&](const std::string& arg) {
    return std::find(argv.begin(), argv.end(), arg) != argv.end();
  };
  CHECK(argv.front() == "srun");
  for (const char* arg : {"--jobid=12", "--nodelist=n2", "--nodes=1",
                          "--ntasks=1", "--overlap", "--job-name=tuner-ab",
                          "--input=none", "--output=/t/step.log", "--mpi=none"})
    CHECK(has(arg));
  auto shim = std::find(argv.begin(), argv.end(), "/bin/tuner-shim");
  REQUIRE(shim != argv.end());
  CHECK(shim > std::find(argv.begin(), argv.end(), "--mpi=none"));
  CHECK(argv.back() == "train");
  CHECK(IsDeviceVariable("HABANA_VISIBLE_MODULES"));
  CHECK(IsDeviceVariable("CUDA_VISIBLE_DEVICES"));
  CHECK_FALSE(IsDeviceVariable("WANDB_API_KEY"));
}
