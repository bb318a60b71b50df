#include "trial_runner/processes/shim/shim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "trial_runner/processes/shim/capped_log.h"
#include "trial_runner/processes/shim/process_tree.h"
#include "util/held_folder.h"
#include "util/lock_file.h"

extern char** environ;

namespace tuner::shim {

namespace {

using Clock = std::chrono::steady_clock;
using Ms = std::chrono::milliseconds;

struct Trial {
  pid_t pid = -1;  // also its process group
  bool exited = false;
  int status = 0;
  bool stopping = false;
  Clock::time_point kill_at = Clock::time_point::max();
  bool timed_out = false, idle = false, orphaned = false, requested = false;
};

pid_t SpawnTrial(const ShimOptions& o, int out, int err) {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_init(&actions);
  sigset_t empty, all;
  sigemptyset(&empty);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  for (const auto& pair : o.env) {
    size_t eq = pair.find('=');
    if (eq != std::string::npos && eq > 0)
      setenv(pair.substr(0, eq).c_str(), pair.c_str() + eq + 1, 1);
  }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  if (!o.cwd.empty())
    posix_spawn_file_actions_addchdir_np(&actions, o.cwd.c_str());
  std::vector<char*> argv;
  for (const auto& arg : o.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::string message =
        "cannot execute '" + o.argv[0] + "': " + std::strerror(rc) + "\n";
    (void)!write(err, message.data(), message.size());
    return -1;
  }
  return pid;
}

// Reaps every child that has ended (the trial, and the orphans of its tree
// that reparented to this subreaper), noting the trial's own status.
void Reap(Trial& t) {
  int status = 0;
  for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
    if (pid == t.pid) t.exited = true, t.status = status;
  }
}

// Whether any process of the trial's tree remains (zombies included: their
// parent is in the tree too, or they are this process's to reap).
bool TreeAlive(Trial& t) {
  Reap(t);
  return !Descendants(getpid()).empty();
}

// SIGTERM to every process of the tree, not just the trial's group: a
// worker that called setsid() is the trial's too. SIGKILL after the grace.
void Stop(Trial& t, int64_t grace_ms) {
  if (t.stopping) return;
  t.stopping = true;
  SignalDescendants(getpid(), SIGTERM);
  t.kill_at = std::min(t.kill_at, Clock::now() + Ms(grace_ms));
}

void WriteStatus(const util::HeldFolder& status_folder, const Trial& t) {
  nlohmann::json status;
  if (t.pid < 0)
    status["exit_code"] = 127;
  else if (WIFEXITED(t.status))
    status["exit_code"] = WEXITSTATUS(t.status);
  else if (WIFSIGNALED(t.status))
    status["signal"] = WTERMSIG(t.status);
  status["timed_out"] = t.timed_out;
  status["idle"] = t.idle;
  status["orphaned"] = t.orphaned;
  status["stop_requested"] = t.requested;
  status["ended_at"] = std::chrono::duration<double>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  util::WriteAtomically(status_folder, status.dump() + "\n");
}

// Reads what is there; false at EOF.
bool Pump(int fd, CappedLog& log) {
  char buffer[65536];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      log.Write(std::string_view(buffer, static_cast<size_t>(n)));
      if (static_cast<size_t>(n) < sizeof buffer) return true;
      continue;
    }
    if (n < 0 && (errno == EINTR)) continue;
    return n < 0 && errno == EAGAIN;
  }
}

int SignalFd() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD}) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

}  // namespace

int RunShim(const ShimOptions& o) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  CloseOnExecAbove2();  // the lease locks stay here, not in the trial
  int signals = SignalFd();
  // Held from the start: the project folder may be moved while the trial
  // runs, and the status and the lock are then read where it went.
  util::HeldFolder status_folder(o.status_path), lock_folder(o.tuner_lock);
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return 2;
  CappedLog out_log(o.stdout_path, o.log_cap, CappedLog::Kind::kStdout),
      err_log(o.stderr_path, o.log_cap, CappedLog::Kind::kStderr);
  Trial t;
  t.pid = SpawnTrial(o, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  for (int fd : {out[0], err[0]}) fcntl(fd, F_SETFL, O_NONBLOCK);
  auto start = Clock::now(), last_output = start, tuner_seen = start,
       next_orphan_check = start;
  bool open_out = true, open_err = true;
  while (t.pid > 0 && (!t.exited || TreeAlive(t))) {
    auto now = Clock::now();
    if (o.timeout_ms > 0 && now - start >= Ms(o.timeout_ms) && !t.stopping)
      t.timed_out = true, Stop(t, o.grace_ms);
    if (o.idle_ms > 0 && now - last_output >= Ms(o.idle_ms) && !t.stopping)
      t.idle = true, Stop(t, o.grace_ms);
    if (now >= t.kill_at) SignalDescendants(getpid(), SIGKILL);
    if (o.orphan_ms > 0 && now >= next_orphan_check) {
      next_orphan_check = now + Ms(1000);
      if (util::ProbeLockAt(lock_folder.fd(), lock_folder.name()).held)
        tuner_seen = now;
      if (now - tuner_seen >= Ms(o.orphan_ms) && !t.stopping)
        t.orphaned = true, Stop(t, o.grace_ms);
    }
    if (t.exited && !t.stopping) Stop(t, o.grace_ms);  // its leftovers
    pollfd fds[3] = {{signals, POLLIN, 0},
                     {open_out ? out[0] : -1, POLLIN, 0},
                     {open_err ? err[0] : -1, POLLIN, 0}};
    int wait_ms = t.exited ? 5 : 100;  // an exited leader: poll the tree
    if (poll(fds, 3, wait_ms) < 0 && errno != EINTR) break;
    if (fds[1].revents) {
      open_out = Pump(out[0], out_log);
      last_output = Clock::now();
    }
    if (fds[2].revents) {
      open_err = Pump(err[0], err_log);
      last_output = Clock::now();
    }
    signalfd_siginfo info;
    while (read(signals, &info, sizeof info) == sizeof info) {
      int s = static_cast<int>(info.ssi_signo);
      if (s == SIGUSR1) t.requested = true, t.kill_at = Clock::now();
      if (s == SIGTERM || s == SIGINT || s == SIGHUP)
        t.requested = true, Stop(t, o.grace_ms);
    }
    Reap(t);
  }
  if (open_out) Pump(out[0], out_log);
  if (open_err) Pump(err[0], err_log);
  out_log.Close();
  err_log.Close();
  WriteStatus(status_folder, t);
  return 0;
}

}  // namespace tuner::shim
