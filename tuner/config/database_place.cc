#include "tuner/config/database_place.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "tuner/base/lexical_path.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;

// Device, inode and, where the file system keeps it, birth time: a file
// written anew at a freed inode (a restored backup) gets another id.
struct FileStat {
  std::string id;
  uid_t owner = 0;
};

std::optional<FileStat> StatFile(const std::string& path) {
  struct statx st {};
  if (path.empty() ||
      ::statx(AT_FDCWD, path.c_str(), 0, STATX_INO | STATX_BTIME, &st) != 0) {
    return std::nullopt;
  }
  FileStat file;
  file.id = std::to_string(makedev(st.stx_dev_major, st.stx_dev_minor)) + ":" +
            std::to_string(st.stx_ino);
  if (st.stx_mask & STATX_BTIME) {
    file.id += ":" + std::to_string(st.stx_btime.tv_sec) + "." +
               std::to_string(st.stx_btime.tv_nsec);
  }
  file.owner = st.stx_uid;
  return file;
}

}  // namespace

DatabasePlace PlaceOf(const std::string& db_path) {
  DatabasePlace place;
  std::error_code ec;
  place.folder = NormalPath(fs::absolute(db_path, ec).parent_path()).string();
  if (auto file = StatFile(db_path)) place.file_id = file->id;
  return place;
}

std::string Rebased(const std::string& path, const std::string& from,
                    const std::string& to) {
  if (from.empty() || to.empty()) return path;
  fs::path normal = NormalPath(path);
  fs::path rel = normal.lexically_relative(NormalPath(from));
  if (!normal.is_absolute() || rel.empty() || *rel.begin() == "..") {
    return path;
  }
  return rel == "." ? NormalPath(to).string()
                    : NormalPath(fs::path(to) / rel).string();
}

std::pair<std::string, std::string> MovedRoot(const std::string& base,
                                              const std::string& db_folder,
                                              const std::string& now_folder) {
  if (db_folder.empty() || now_folder.empty()) return {};
  fs::path then = NormalPath(db_folder);
  fs::path now = NormalPath(now_folder);
  fs::path below = then.lexically_relative(NormalPath(base));
  if (base.empty() || below.empty() || *below.begin() == "..") {
    return {then.string(), now.string()};
  }
  // `now` must end with the same folders below the project folder.
  std::vector<fs::path> parts(below.begin(), below.end());
  fs::path project = now;
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
    if (*part == ".") continue;
    if (project.filename() != *part) return {then.string(), now.string()};
    project = project.parent_path();
  }
  return {NormalPath(base).string(), project.string()};
}

bool IsRecordedFile(const std::string& file_id, const std::string& db_path) {
  auto file = StatFile(db_path);
  return !file_id.empty() && file && file->owner == ::geteuid() &&
         file->id == file_id;
}

}  // namespace tuner
