// Change notification for files, through inotify on an Asio event loop.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_FILE_WATCHER_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_FILE_WATCHER_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "core/result.h"

namespace tuner::runner {

// Calls a handler on the event loop whenever a watched file is written to.
// Several writes may be reported by one call. Not thread-safe: use it from
// the thread that runs the io_context.
class FileWatcher {
 public:
  using WatchId = int;

  explicit FileWatcher(boost::asio::io_context& io);
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  core::Result<WatchId> Watch(const std::string& path,
                              std::function<void()> on_change);
  // After this returns, the handler of `id` is never called again.
  void Unwatch(WatchId id);

 private:
  void ArmRead();
  void DrainEvents();

  boost::asio::posix::stream_descriptor inotify_;
  std::unordered_map<WatchId, std::function<void()>> handlers_;
  bool armed_ = false;  // an async_wait is pending
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_FILE_WATCHER_H_
