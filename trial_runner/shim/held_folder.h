// A file the shim writes or probes long after it starts, named through its
// folder held open: the project folder may be moved or renamed while a trial
// runs (a tuner killed, `mv A D`, resumed in D), and the status and the
// tuner's lock must still be the files the resumed tuner reads.
#ifndef TUNER_TRIAL_RUNNER_SHIM_HELD_FOLDER_H_
#define TUNER_TRIAL_RUNNER_SHIM_HELD_FOLDER_H_

#include <string>

namespace tuner::shim {

class HeldFolder {
 public:
  // Opens the folder of `file_path` (the working directory for a bare name).
  // When it cannot be opened, fd() is AT_FDCWD and name() the whole path:
  // the file is then reached by its path, as given.
  explicit HeldFolder(const std::string& file_path);
  ~HeldFolder();
  HeldFolder(const HeldFolder&) = delete;
  HeldFolder& operator=(const HeldFolder&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }

 private:
  int fd_;
  std::string name_;
};

// Writes `text` to the file `name` in `folder` atomically: a temporary file
// beside it, renamed over it. False when either step failed.
bool WriteAtomically(const HeldFolder& folder, const std::string& text);

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_SHIM_HELD_FOLDER_H_
