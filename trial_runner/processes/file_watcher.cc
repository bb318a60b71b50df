#include "trial_runner/processes/file_watcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace tuner::runner {

FileWatcher::FileWatcher(boost::asio::io_context& io)
    : inotify_(io, inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

FileWatcher::~FileWatcher() = default;

core::Result<FileWatcher::WatchId> FileWatcher::Watch(
    const std::string& path, std::function<void()> on_change) {
  int wd = inotify_add_watch(inotify_.native_handle(), path.c_str(),
                             IN_MODIFY | IN_CLOSE_WRITE);
  if (wd < 0) {
    return core::IoError("cannot watch " + path + ": " + std::strerror(errno));
  }
  bool first = handlers_.empty();
  handlers_[wd] = std::move(on_change);
  if (first) ArmRead();
  return wd;
}

void FileWatcher::Unwatch(WatchId id) {
  if (handlers_.erase(id) > 0) inotify_rm_watch(inotify_.native_handle(), id);
}

void FileWatcher::ArmRead() {
  if (armed_) return;
  armed_ = true;
  inotify_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                      [this](const boost::system::error_code& ec) {
                        // Aborted only when the watcher is gone.
                        if (ec == boost::asio::error::operation_aborted) return;
                        armed_ = false;
                        if (ec) return;
                        DrainEvents();
                        if (!handlers_.empty()) ArmRead();
                      });
}

void FileWatcher::DrainEvents() {
  alignas(inotify_event) char buffer[16 * 1024];
  std::vector<WatchId> changed;
  for (;;) {
    ssize_t n = read(inotify_.native_handle(), buffer, sizeof(buffer));
    if (n <= 0) break;
    for (char* p = buffer; p < buffer + n;) {
      auto* event = reinterpret_cast<inotify_event*>(p);
      if (event->mask & (IN_MODIFY | IN_CLOSE_WRITE))
        changed.push_back(event->wd);
      p += sizeof(inotify_event) + event->len;
    }
  }
  WatchId last = -1;
  for (WatchId id : changed) {
    if (id == last) continue;  // consecutive duplicates
    last = id;
    // Look up each time: a handler may unwatch others.
    auto it = handlers_.find(id);
    if (it != handlers_.end()) {
      auto handler = it->second;
      handler();
    }
  }
}

}  // namespace tuner::runner
