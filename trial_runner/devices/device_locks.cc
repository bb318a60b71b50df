#include "trial_runner/devices/device_locks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tuner::runner {

bool CheckLockDir(const std::string& dir, std::string* error) {
  struct stat link;
  struct stat st;
  if (lstat(dir.c_str(), &link) != 0 || stat(dir.c_str(), &st) != 0) {
    if (error) *error = "cannot use " + dir + ": " + std::strerror(errno);
    return false;
  }
  uid_t me = geteuid();
  std::string why;
  if (S_ISLNK(link.st_mode) && link.st_uid != 0 && link.st_uid != me) {
    why = "is a symlink owned by uid " + std::to_string(link.st_uid);
  } else if (!S_ISDIR(st.st_mode)) {
    why = "is not a directory";
  } else {
    bool shared = st.st_uid == 0 && (st.st_mode & S_ISVTX);
    bool mine = st.st_uid == me && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
    if (shared || mine) return true;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", st.st_mode & 07777);
    why = "is not safe for locks (owner uid " + std::to_string(st.st_uid) +
          ", mode " + mode +
          "): it must be root's with the sticky bit (shared by every user: "
          "install -d -o root -m 1777 DIR) or yours and writable by you "
          "only; or set $TUNER_LOCK_DIR";
  }
  if (error) *error = dir + " " + why;
  return false;
}

bool EnsureLockDir(const std::string& dir, std::string* error) {
  std::error_code ec;
  std::filesystem::path path(dir);
  if (path.filename().empty()) path = path.parent_path();  // "dir/"
  if (path.has_parent_path())
    std::filesystem::create_directories(path.parent_path(), ec);
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    if (error) *error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  return CheckLockDir(dir, error);
}

}  // namespace tuner::runner
