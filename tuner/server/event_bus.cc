#include "tuner/server/event_bus.h"

namespace tuner::server {

void EventBus::Publish(const std::string& type, const std::string& data) {
  std::vector<std::function<void()>> notify;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back({next_id_++, type, data});
    if (events_.size() > capacity_) events_.pop_front();
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

}  // namespace tuner::server
