#include "trial_runner/processes/shim_launch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tuner::runner {

core::Status CreateLogFiles(const SpawnRequest& request) {
  for (const auto& path : {request.stdout_path, request.stderr_path}) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      return core::IoError("cannot create " + path + ": " +
                           std::strerror(errno));
    }
    close(fd);
  }
  return core::Status::Ok();
}

core::Status CheckExecutable(const std::vector<std::string>& argv,
                             const std::string& cwd) {
  if (argv.empty()) return core::InvalidArgument("empty command");
  const std::string& program = argv[0];
  auto executable = [](const std::string& path) {
    return access(path.c_str(), X_OK) == 0 &&
           !std::filesystem::is_directory(path);
  };
  bool found = false;
  if (program.find('/') != std::string::npos) {
    std::filesystem::path p(program);
    if (p.is_relative() && !cwd.empty()) p = std::filesystem::path(cwd) / p;
    found = executable(p.string());
  } else {
    const char* path = getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; !found && std::getline(dirs, dir, ':');)
      found = executable((dir.empty() ? "." : dir) + "/" + program);
  }
  if (found) return core::Status::Ok();
  return core::InvalidArgument("cannot execute '" + program +
                               "': No such file or directory");
}

std::vector<std::string> ShimArgv(const std::string& shim_path,
                                  const ShimLock& lock,
                                  const TrialLaunch& launch,
                                  const std::vector<std::string>& env) {
  const SpawnRequest& s = launch.spawn;
  std::vector<std::string> argv = {shim_path,
                                   "--stdout",
                                   s.stdout_path,
                                   "--stderr",
                                   s.stderr_path,
                                   "--status",
                                   launch.status_path,
                                   "--grace-ms",
                                   std::to_string(launch.stop_grace.count())};
  auto add = [&argv](const char* flag, const std::string& value) {
    argv.insert(argv.end(), {flag, value});
  };
  if (!s.cwd.empty()) add("--cwd", s.cwd);
  if (launch.timeout.count() > 0)
    add("--timeout-ms", std::to_string(launch.timeout.count()));
  if (launch.idle_timeout.count() > 0)
    add("--idle-ms", std::to_string(launch.idle_timeout.count()));
  if (launch.log_cap > 0) add("--log-cap", std::to_string(launch.log_cap));
  if (!lock.path.empty() && lock.orphan_timeout.count() > 0) {
    add("--tuner-lock", lock.path);
    add("--orphan-ms", std::to_string(lock.orphan_timeout.count()));
  }
  for (const auto& pair : env) add("--env", pair);
  argv.push_back("--");
  argv.insert(argv.end(), s.argv.begin(), s.argv.end());
  return argv;
}

namespace {

// Whether a status says how the trial ended as only a shim writes it: an
// exit code 0-255 or a signal number 1-64.
bool StatusSaysHow(const nlohmann::json& status) {
  auto in = [&status](const char* key, int64_t low, int64_t high) {
    auto it = status.find(key);
    return it != status.end() && it->is_number_integer() &&
           it->get<int64_t>() >= low && it->get<int64_t>() <= high;
  };
  return in("exit_code", 0, 255) || in("signal", 1, 64);
}

}  // namespace

TrialExit ReadShimStatus(const std::string& path, int shim_status) {
  return ReadShimStatus(util::HeldFolder(path), shim_status);
}

TrialExit ReadShimStatus(const util::HeldFolder& folder, int shim_status) {
  TrialExit exit;
  const std::string& path = folder.path();
  std::optional<std::string> text = util::ReadHeld(folder, 64 * 1024);
  auto status = nlohmann::json::parse(text.value_or(""), nullptr, false);
  // A shim killed by a signal wrote no status: a file there is the trial's.
  bool shim_killed = shim_status >= 0 && WIFSIGNALED(shim_status);
  if (!status.is_object() || shim_killed || !StatusSaysHow(status)) {
    // Never invent a cause: the trial may well have exited 0.
    exit.cause = EndCause::kLost;
    if (shim_killed) {
      exit.lost_why = "its shim was killed by signal " +
                      std::to_string(WTERMSIG(shim_status));
    } else {
      exit.lost_why = std::string(text ? "empty or unreadable " : "no ") +
                      path + " (trial directory removed? disk full?)";
    }
    return exit;
  }
  // Written by our shim, yet in the trial's folder: a field of another
  // type is ignored, never thrown on.
  auto integer = [&status](const char* key) -> std::optional<int> {
    auto it = status.find(key);
    if (it == status.end() || !it->is_number_integer()) return std::nullopt;
    auto value = it->get<int64_t>();
    if (value < INT_MIN || value > INT_MAX) return std::nullopt;
    return static_cast<int>(value);
  };
  auto flag = [&status](const char* key) {
    auto it = status.find(key);
    return it != status.end() && it->is_boolean() && it->get<bool>();
  };
  exit.exit_code = integer("exit_code");
  exit.signal = integer("signal").value_or(0);
  if (flag("timed_out")) {
    exit.cause = EndCause::kTimedOut;
  } else if (flag("idle")) {
    exit.cause = EndCause::kIdle;
  } else if (flag("orphaned")) {
    exit.cause = EndCause::kOrphaned;
  }
  exit.stop_requested = flag("stop_requested");
  if (auto it = status.find("ended_at");
      it != status.end() && it->is_number() && std::isfinite(it->get<double>()))
    exit.ended_at = it->get<double>();
  return exit;
}

}  // namespace tuner::runner
