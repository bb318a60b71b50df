#include "tuner/server/listening_socket.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace tuner::server {

namespace {

namespace fs = std::filesystem;

// The state of a listening socket in /proc/net/tcp{,6} (TCP_LISTEN).
constexpr const char* kListen = "0A";

// Adds to `inodes` those of the sockets listening on `port` in `table`
// (a /proc/net/tcp-style file: "sl local:PORT remote st ... uid timeout
// inode", the port in hex).
void AddListeners(const std::string& table, uint16_t port,
                  std::set<std::string>& inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // the heading
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid,
        timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >>
        retransmits >> uid >> timeout >> inode;
    size_t colon = local.rfind(':');
    if (!fields || colon == std::string::npos || state != kListen) continue;
    unsigned long listening = std::stoul(local.substr(colon + 1), nullptr, 16);
    if (listening == port) inodes.insert("socket:[" + inode + "]");
  }
}

}  // namespace

bool ProcessListensOn(int pid, uint16_t port) {
  if (pid <= 0) return false;
  std::set<std::string> inodes;
  AddListeners("/proc/net/tcp", port, inodes);
  AddListeners("/proc/net/tcp6", port, inodes);
  if (inodes.empty()) return false;
  std::error_code ec;
  fs::directory_iterator fds("/proc/" + std::to_string(pid) + "/fd", ec);
  for (; !ec && fds != fs::directory_iterator(); fds.increment(ec)) {
    std::error_code link_ec;
    fs::path target = fs::read_symlink(fds->path(), link_ec);
    if (!link_ec && inodes.count(target.string())) return true;
  }
  return false;
}

}  // namespace tuner::server
