#include "trial_runner/processes/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace tuner::runner {

namespace {

// RAII for the posix_spawn attribute and file-action objects.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// The child keeps stdin, stdout, stderr and `keep` (moved to 3, 4, ...)
// and nothing else: a descriptor some library opened without close-on-exec
// (Asio's listening and accepted sockets, another thread's pipe) never
// reaches a shim or a trial. First every kept fd is copied above all of
// them, so that moving one to 3 + i cannot overwrite another not yet moved.
void KeepOnly(posix_spawn_file_actions_t& actions,
              const std::vector<int>& keep) {
  int n = static_cast<int>(keep.size());
  int above = 3 + n;
  for (int fd : keep) above = std::max(above, fd + 1);
  for (int i = 0; i < n; ++i)
    posix_spawn_file_actions_adddup2(&actions, keep[i], above + i);
  for (int i = 0; i < n; ++i)  // dup2 clears close-on-exec
    posix_spawn_file_actions_adddup2(&actions, above + i, 3 + i);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3 + n);
}

void Configure(SpawnSetup& setup, const SpawnRequest& request) {
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setsigmask(&setup.attr, &empty);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  short group =
      request.new_session ? POSIX_SPAWN_SETSID : POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&setup.attr,
                           static_cast<short>(group | POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETSIGDEF));
  auto& actions = setup.actions;
  constexpr int kOutFlags = O_WRONLY | O_CREAT | O_TRUNC;
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, request.stdout_path.c_str(),
                                   kOutFlags, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, request.stderr_path.c_str(),
                                   kOutFlags, 0644);
  KeepOnly(actions, request.inherit_fds);
  if (!request.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());
  }
}

// Sets the calling thread's CPU affinity for as long as it lives, so that a
// process spawned meanwhile inherits it (posix_spawn has no attribute for
// it), and restores the old one.
class ScopedAffinity {
 public:
  explicit ScopedAffinity(const std::vector<int>& cpus) {
    if (cpus.empty() || sched_getaffinity(0, sizeof saved_, &saved_) != 0)
      return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus)
      if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
    active_ = sched_setaffinity(0, sizeof set, &set) == 0;
  }
  ~ScopedAffinity() {
    if (active_) sched_setaffinity(0, sizeof saved_, &saved_);
  }

 private:
  cpu_set_t saved_;
  bool active_ = false;
};

std::string Describe(const std::vector<std::string>& argv) {
  return argv.empty() ? std::string("(empty command)") : argv[0];
}

}  // namespace

std::vector<std::string> MergeEnvironment(char** base,
                                          const EnvVars& overrides) {
  std::vector<std::string> merged;
  for (char** entry = base; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::string_view name = text.substr(0, text.find('='));
    bool overridden = false;
    for (const auto& [key, value] : overrides) overridden |= key == name;
    if (!overridden) merged.emplace_back(text);
  }
  for (const auto& [key, value] : overrides)
    merged.push_back(key + "=" + value);
  return merged;
}

core::Result<SpawnedProcess> Spawn(const SpawnRequest& request) {
  if (request.argv.empty()) return core::InvalidArgument("empty command");
  SpawnSetup setup;
  Configure(setup, request);
  std::vector<char*> argv;
  for (const auto& arg : request.argv)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env = MergeEnvironment(environ, request.env);
  std::vector<char*> envp;
  for (auto& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  ScopedAffinity affinity(request.cpus);
  int rc = posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(),
                        envp.data());
  if (rc != 0) {
    return core::InvalidArgument("cannot execute '" + Describe(request.argv) +
                                 "': " + std::strerror(rc));
  }
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    int error = errno;
    kill(-pid, SIGKILL);
    return core::Internal(std::string("pidfd_open failed (Linux >= 5.3 is "
                                      "required): ") +
                          std::strerror(error));
  }
  fcntl(pidfd, F_SETFD, FD_CLOEXEC);
  return SpawnedProcess{pid, pidfd};
}

}  // namespace tuner::runner
