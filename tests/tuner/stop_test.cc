// `tuner stop` signals the tuner that holds an experiment's lock, and no
// process that a stale or forged lock file merely names.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/catch.h"
#include "tests/support/tuner_cli.h"
#include "tests/support/wait_for.h"
#include "tuner/base/tuner_lock.h"
#include "util/lock_file.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

std::string StartTimeOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  std::istringstream fields(line.substr(line.rfind(')') + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) fields >> field;
  return field;
}

bool Alive(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) == 0; }

TEST_CASE("tuner stop signals no process that a lock file merely names",
          "[cli][stop][process]") {
  fs::path dir =
      fs::temp_directory_path() / ("forged-stop-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  pid_t sleeper = fork();
  if (sleeper == 0) {
    execlp("sleep", "sleep", "600", nullptr);
    _exit(127);
  }
  std::string proc_exe = "/proc/" + std::to_string(sleeper) + "/exe";
  std::error_code ec;
  testing::WaitFor(
      "the child to exec sleep", std::chrono::seconds(60),
      [&] { return fs::read_symlink(proc_exe, ec).filename() == "sleep"; },
      std::chrono::milliseconds(5));
  std::string sleep_exe = fs::read_symlink(proc_exe, ec).string();
  std::string pid = "pid=" + std::to_string(sleeper);
  std::string start = " start=" + StartTimeOf(sleeper);

  std::ofstream(dir / "tuner.db").flush();  // the database a tuner runs in
  std::string lock =
      TunerLockPath(TrialsRootFor((dir / "tuner.db").string(), "x"), "x");
  fs::create_directories(fs::path(lock).parent_path());
  for (const std::string& owner :
       {pid,                                   // a pid alone
        pid + " start=1 exe=" TUNER_BINARY,    // another start time
        pid + start + " exe=" TUNER_BINARY,    // another executable
        pid + start + " exe=" + sleep_exe}) {  // not a tuner
    INFO(owner);
    auto held = util::LockFile::TryAcquire(lock);
    REQUIRE(held.has_value());
    held->WriteOwner(owner);
    auto out = testing::RunTuner(dir, "stop x --db tuner.db");
    INFO(out.err);
    CHECK(out.code == 2);
    CHECK(out.err.find("nothing was signalled") != std::string::npos);
    CHECK(Alive(sleeper));
  }
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
  fs::remove_all(dir);
}

TEST_CASE("a CLI tuner's lock names its pid, start time and executable",
          "[cli][stop]") {
  std::string owner = CliOwnerText();
  CHECK(owner.rfind("pid=" + std::to_string(getpid()) + " start=", 0) == 0);
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-stop-owner-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string held = (dir / ".tuner-a.lock").string();
  std::string other = (dir / ".tuner-b.lock").string();
  auto lock = HoldTunerLock(held, owner);
  REQUIRE(lock);
  struct stat st;
  REQUIRE(stat(held.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);  // no one else writes whom stop signals
  std::ofstream(other) << owner;       // its text copied into another lock
  std::string why;
  // Checked by a process of the same executable (here: this test binary).
  CHECK(VerifiedTunerPid(owner, held, &why) == getpid());
  CHECK_FALSE(VerifiedTunerPid(owner, other, &why));
  CHECK(why.find("does not hold this experiment's lock") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner
