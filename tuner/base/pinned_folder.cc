#include "tuner/base/pinned_folder.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

namespace tuner {

PinnedFolder::PinnedFolder(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  std::filesystem::create_directories(path_, ec);
  fd_ = UniqueFd(open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

bool PinnedFolder::Moved() const {
  if (!fd_.valid()) return false;
  struct stat held, now;
  if (fstat(fd_.get(), &held) != 0) return false;
  if (stat(path_.c_str(), &now) != 0) return true;
  return now.st_dev != held.st_dev || now.st_ino != held.st_ino;
}

}  // namespace tuner
