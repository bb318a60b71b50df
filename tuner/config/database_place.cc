#include "tuner/config/database_place.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace tuner {

namespace {

namespace fs = std::filesystem;

// Without `.`, `..` resolved lexically, and no trailing slash.
fs::path Normal(const fs::path& path) {
  fs::path normal = path.lexically_normal();
  if (normal.has_relative_path() && normal.filename().empty()) {
    normal = normal.parent_path();
  }
  return normal;
}

std::string FileId(const struct stat& st) {
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

}  // namespace

DatabasePlace PlaceOf(const std::string& db_path) {
  DatabasePlace place;
  std::error_code ec;
  place.folder = Normal(fs::absolute(db_path, ec).parent_path()).string();
  struct stat st {};
  if (!db_path.empty() && ::stat(db_path.c_str(), &st) == 0) {
    place.file_id = FileId(st);
  }
  return place;
}

std::string Rebased(const std::string& path, const std::string& from,
                    const std::string& to) {
  if (from.empty() || to.empty()) return path;
  fs::path normal = Normal(path);
  fs::path rel = normal.lexically_relative(Normal(from));
  if (!normal.is_absolute() || rel.empty() || *rel.begin() == "..") {
    return path;
  }
  return rel == "." ? Normal(to).string() : Normal(fs::path(to) / rel).string();
}

bool IsRecordedFile(const std::string& file_id, const std::string& db_path) {
  struct stat st {};
  if (file_id.empty() || ::stat(db_path.c_str(), &st) != 0) return false;
  return st.st_uid == ::geteuid() && FileId(st) == file_id;
}

}  // namespace tuner
