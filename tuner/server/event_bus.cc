#include "tuner/server/event_bus.h"

namespace tuner::server {

namespace {
constexpr std::chrono::seconds kRateHorizon{60};
}

void EventBus::Publish(const std::string& type, const std::string& data) {
  std::vector<std::function<void()>> notify;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back({next_id_++, type, data});
    if (events_.size() > capacity_) events_.pop_front();
    if (type == "trial_reported") {
      auto now = std::chrono::steady_clock::now();
      ++reports_total_;
      report_times_.push_back(now);
      while (!report_times_.empty() &&
             now - report_times_.front() > kRateHorizon) {
        report_times_.pop_front();
      }
    }
    for (const auto& [token, callback] : subscribers_)
      notify.push_back(callback);
  }
  for (const auto& callback : notify) callback();
}

std::vector<Event> EventBus::Since(int64_t after, size_t limit,
                                   bool& lost) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Event> out;
  lost = !events_.empty() && after + 1 < events_.front().id;
  for (const auto& event : events_) {
    if (event.id <= after) continue;
    if (out.size() >= limit) break;
    out.push_back(event);
  }
  return out;
}

int64_t EventBus::last_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_id_ - 1;
}

int EventBus::Subscribe(std::function<void()> notify) {
  std::lock_guard<std::mutex> lock(mutex_);
  int token = next_token_++;
  subscribers_.emplace(token, std::move(notify));
  return token;
}

void EventBus::Unsubscribe(int token) {
  std::lock_guard<std::mutex> lock(mutex_);
  subscribers_.erase(token);
}

double EventBus::ReportRate(std::chrono::seconds window) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto since = std::chrono::steady_clock::now() - window;
  int64_t n = 0;
  for (auto it = report_times_.rbegin(); it != report_times_.rend(); ++it) {
    if (*it < since) break;
    ++n;
  }
  return static_cast<double>(n) / static_cast<double>(window.count());
}

int64_t EventBus::reports_total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reports_total_;
}

}  // namespace tuner::server
