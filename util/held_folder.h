// A file named through its folder held open, for a file written or read
// long after a trial starts (the shim's status, the tuner's lock): the
// project folder may be moved or renamed while the trial runs (`mv A D`,
// with the tuner alive, or killed and resumed in D), and these must still
// be the files in the folder that moved.
#ifndef TUNER_UTIL_HELD_FOLDER_H_
#define TUNER_UTIL_HELD_FOLDER_H_

#include <cstddef>
#include <optional>
#include <string>

namespace tuner::util {

class HeldFolder {
 public:
  // Opens the folder of `file_path` (the working directory for a bare name).
  // When it cannot be opened, fd() is AT_FDCWD and name() the whole path:
  // the file is then reached by its path, as given.
  explicit HeldFolder(const std::string& file_path);
  ~HeldFolder();
  HeldFolder(HeldFolder&& other) noexcept;
  HeldFolder(const HeldFolder&) = delete;
  HeldFolder& operator=(const HeldFolder&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }  // as given

 private:
  int fd_;
  std::string name_;
  std::string path_;
};

// Writes `text` to the file `name` in `folder` atomically: a temporary file
// beside it, renamed over it. False when either step failed.
bool WriteAtomically(const HeldFolder& folder, const std::string& text);

// The text of the file `name` in `folder`, up to `limit` bytes; nullopt when
// it cannot be opened (missing, a symlink) or read.
std::optional<std::string> ReadHeld(const HeldFolder& folder, size_t limit);

}  // namespace tuner::util

#endif  // TUNER_UTIL_HELD_FOLDER_H_
