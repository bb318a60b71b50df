#include "tuner/base/remove_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/result.h"
#include "tuner/base/unique_fd.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr int kMaxDepth = 256;

core::Error SystemError(const std::string& where, int error) {
  return core::IoError(where + ": " + std::strerror(error));
}

// The names in the directory `dir`, without `.` and `..`.
core::Result<std::vector<std::string>> Names(int dir,
                                             const std::string& where) {
  // closedir() closes the descriptor it is given: give it a copy.
  int copy = fcntl(dir, F_DUPFD_CLOEXEC, 0);
  DIR* stream = copy < 0 ? nullptr : fdopendir(copy);
  if (stream == nullptr) {
    int error = errno;
    if (copy >= 0) close(copy);
    return SystemError(where, error);
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* entry = readdir(stream)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
    errno = 0;
  }
  int error = errno;
  closedir(stream);
  if (error != 0) return SystemError(where, error);
  return names;
}

// Removes the entry `name` of the directory `parent` (`where` names it in
// errors): a directory with all it holds, anything else (a link too)
// unlinked. One gone meanwhile is no error.
core::Status RemoveEntry(int parent, const std::string& name,
                         const std::string& where, int depth) {
  struct stat st {};
  if (fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? core::Status::Ok() : SystemError(where, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    if (depth >= kMaxDepth) {
      return core::IoError(where + ": nested deeper than " +
                           std::to_string(kMaxDepth) + " directories");
    }
    UniqueFd dir(openat(parent, name.c_str(), kDirFlags));
    if (!dir.valid()) return SystemError(where, errno);
    auto names = Names(dir.get(), where);
    if (!names.ok()) return names.error();
    for (const auto& entry : names.value()) {
      TUNER_RETURN_IF_ERROR(
          RemoveEntry(dir.get(), entry, where + "/" + entry, depth + 1));
    }
  }
  int flags = S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0;
  if (unlinkat(parent, name.c_str(), flags) != 0 && errno != ENOENT) {
    return SystemError(where, errno);
  }
  return core::Status::Ok();
}

bool IsLink(int dir, const std::string& name) {
  struct stat st {};
  return fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISLNK(st.st_mode);
}

TreeRemoval Failed(const std::string& why) {
  return {TreeRemoval::kFailed, why};
}

}  // namespace

TreeRemoval RemoveTreeBelow(const fs::path& root, const fs::path& below) {
  fs::path path = root / below;
  std::vector<std::string> parts;
  for (const auto& part : below) {
    if (!part.empty() && part != ".") parts.push_back(part.string());
  }
  bool dot_dot = std::find(parts.begin(), parts.end(), "..") != parts.end();
  if (!root.is_absolute() || below.is_absolute() || dot_dot || parts.empty()) {
    return Failed(path.string() + ": not a path inside " + root.string());
  }
  UniqueFd dir(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) return {};
    return Failed(SystemError(root.string(), errno).message);
  }
  fs::path at = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    at /= parts[i];
    UniqueFd next(openat(dir.get(), parts[i].c_str(), kDirFlags));
    if (!next.valid()) {
      int error = errno;
      if (IsLink(dir.get(), parts[i])) {
        return {TreeRemoval::kLink,
                at.string() + ": a symbolic link, not followed"};
      }
      if (error == ENOENT || error == ENOTDIR) return {};
      return Failed(SystemError(at.string(), error).message);
    }
    dir = std::move(next);
  }
  struct stat st {};
  if (fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return Failed(SystemError(path.string(), errno).message);
  }
  auto removed = RemoveEntry(dir.get(), parts.back(), path.string(), 0);
  if (!removed.ok()) return Failed(removed.message());
  return {TreeRemoval::kRemoved, ""};
}

UniqueFd OpenDirBelow(const fs::path& root, const fs::path& below) {
  if (!root.is_absolute() || below.is_absolute()) return UniqueFd(-1);
  UniqueFd dir(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  for (const auto& part : below) {
    if (!dir.valid()) break;
    if (part.empty() || part == ".") continue;
    if (part == "..") return UniqueFd(-1);
    dir = UniqueFd(openat(dir.get(), part.c_str(), kDirFlags));
  }
  return dir;
}

}  // namespace tuner
