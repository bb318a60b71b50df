#include "trial_runner/processes/shim/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace tuner::shim {

namespace {

// Field 4 of /proc/PID/stat (after the parenthesised command), or -1.
pid_t ParentOf(const char* pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[512];
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return -1;
  buffer[n] = '\0';
  const char* close_paren = std::strrchr(buffer, ')');
  if (!close_paren || close_paren[1] == '\0') return -1;
  // ") S PPID ..."
  const char* fields = close_paren + 2;
  const char* space = std::strchr(fields, ' ');
  if (!space) return -1;
  return static_cast<pid_t>(std::strtol(space + 1, nullptr, 10));
}

bool IsNumber(const char* name) {
  if (!*name) return false;
  for (; *name; ++name)
    if (!std::isdigit(static_cast<unsigned char>(*name))) return false;
  return true;
}

}  // namespace

std::vector<pid_t> Descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent → child
  DIR* proc = opendir("/proc");
  if (!proc) return {};
  while (dirent* entry = readdir(proc)) {
    if (!IsNumber(entry->d_name)) continue;
    pid_t parent = ParentOf(entry->d_name);
    if (parent > 0)
      children.emplace(parent, static_cast<pid_t>(std::atol(entry->d_name)));
  }
  closedir(proc);
  std::vector<pid_t> out;
  std::vector<pid_t> frontier = {root};
  while (!frontier.empty()) {
    pid_t parent = frontier.back();
    frontier.pop_back();
    auto [begin, end] = children.equal_range(parent);
    for (auto it = begin; it != end; ++it) {
      out.push_back(it->second);
      frontier.push_back(it->second);
    }
  }
  return out;
}

size_t SignalDescendants(pid_t root, int signal) {
  std::vector<pid_t> pids = Descendants(root);
  for (pid_t pid : pids) kill(pid, signal);
  return pids.size();
}

void CloseOnExecAbove2() {
  DIR* fds = opendir("/proc/self/fd");
  if (!fds) {
    for (int fd = 3; fd < 1024; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
    return;
  }
  while (dirent* entry = readdir(fds)) {
    if (!IsNumber(entry->d_name)) continue;
    int fd = std::atoi(entry->d_name);
    if (fd > 2) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  closedir(fds);
}

}  // namespace tuner::shim
