// A file descriptor owned by one object: closed when it goes.
#ifndef TUNER_TUNER_BASE_UNIQUE_FD_H_
#define TUNER_TUNER_BASE_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace tuner {

// Owns `fd` (or nothing, when negative); move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_UNIQUE_FD_H_
