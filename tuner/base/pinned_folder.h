// A folder opened once, to tell later whether its path still leads to it:
// a project folder moved or renamed (`mv A D`) while a tuner runs in it
// would otherwise get its next trials launched at the old path.
#ifndef TUNER_TUNER_BASE_PINNED_FOLDER_H_
#define TUNER_TUNER_BASE_PINNED_FOLDER_H_

#include <string>

#include "tuner/base/unique_fd.h"

namespace tuner {

class PinnedFolder {
 public:
  // Creates `path` when it is missing, then holds it open. When it cannot
  // be opened, Moved() is always false: nothing is pinned.
  explicit PinnedFolder(std::string path);

  // Whether `path` no longer names the folder opened: moved, renamed or
  // removed, or another folder put in its place.
  bool Moved() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  UniqueFd fd_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_PINNED_FOLDER_H_
