// EventBus: what the sweeps did, for the service's event stream (SSE) and
// its /metrics (metrics(), fed by EventProgress). Published on the sweeps'
// thread, read on the HTTP threads.
#ifndef TUNER_TUNER_SERVER_EVENT_BUS_H_
#define TUNER_TUNER_SERVER_EVENT_BUS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tuner/server/service_metrics.h"

namespace tuner::server {

struct Event {
  int64_t id = 0;    // 1, 2, ... in publication order
  std::string type;  // trial_started, trial_reported, trial_stopped, ...
  std::string data;  // one line of JSON
};

// Keeps the newest `capacity` events; a reader that fell further behind is
// told so (Since() sets `lost`) and reloads what it shows. Thread-safe.
class EventBus {
 public:
  explicit EventBus(size_t capacity = 4096) : capacity_(capacity) {}

  void Publish(const std::string& type, const std::string& data);
  // Events with id > `after`, at most `limit`; `lost` is set when some of
  // them were dropped already.
  std::vector<Event> Since(int64_t after, size_t limit, bool& lost) const;
  int64_t last_id() const;

  // `notify` is called (on the publishing thread, without the bus's lock)
  // after each Publish until Unsubscribe; it must only post work.
  int Subscribe(std::function<void()> notify);
  void Unsubscribe(int token);

  // The counters of /metrics; thread-safe too.
  ServiceMetrics& metrics() { return metrics_; }
  const ServiceMetrics& metrics() const { return metrics_; }

 private:
  mutable std::mutex mutex_;
  size_t capacity_;
  std::deque<Event> events_;
  int64_t next_id_ = 1;
  std::map<int, std::function<void()>> subscribers_;
  int next_token_ = 1;
  ServiceMetrics metrics_;
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_EVENT_BUS_H_
