#include "tuner/base/clock.h"

#include <vector>

namespace tuner {

namespace {

class AsioTimer : public Clock::Timer {
 public:
  explicit AsioTimer(boost::asio::io_context& io) : timer_(io) {}
  void Schedule(Clock::Duration delay, std::function<void()> fn) override {
    timer_.expires_after(delay);  // cancels the pending wait
    timer_.async_wait(
        [fn = std::move(fn)](const boost::system::error_code& ec) {
          if (!ec) fn();
        });
  }
  void Cancel() override { timer_.cancel(); }

 private:
  boost::asio::steady_timer timer_;
};

}  // namespace

double UnixNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<Clock::Timer> SteadyClock::MakeTimer() {
  return std::make_unique<AsioTimer>(io_);
}

class ManualClock::ManualTimer : public Clock::Timer {
 public:
  explicit ManualTimer(ManualClock* clock) : clock_(clock) {}
  ~ManualTimer() override {
    if (clock_) clock_->Forget(this);
  }
  void Schedule(Clock::Duration delay, std::function<void()> fn) override {
    if (clock_) clock_->Set(this, delay, std::move(fn));
  }
  void Cancel() override {
    if (clock_) clock_->Drop(this);
  }
  void Orphan() { clock_ = nullptr; }

 private:
  ManualClock* clock_;
};

ManualClock::~ManualClock() {
  for (ManualTimer* timer : timers_) timer->Orphan();
}

std::unique_ptr<Clock::Timer> ManualClock::MakeTimer() {
  auto timer = std::make_unique<ManualTimer>(this);
  timers_.insert(timer.get());
  return timer;
}

void ManualClock::Forget(ManualTimer* timer) {
  Drop(timer);
  timers_.erase(timer);
}

void ManualClock::Set(ManualTimer* timer, Duration delay,
                      std::function<void()> fn) {
  Drop(timer);
  pending_[{now_ + delay, sequence_++}] = Pending{timer, std::move(fn)};
}

void ManualClock::Drop(ManualTimer* timer) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = it->second.timer == timer ? pending_.erase(it) : std::next(it);
  }
}

ManualClock::TimePoint ManualClock::NextDue() const {
  return pending_.empty() ? TimePoint::max() : pending_.begin()->first.first;
}

void ManualClock::Advance(Duration by) {
  TimePoint end = now_ + by;
  while (!pending_.empty() && pending_.begin()->first.first <= end) {
    auto first = pending_.begin();
    now_ = std::max(now_, first->first.first);
    std::function<void()> fn = std::move(first->second.fn);
    pending_.erase(first);
    fn();  // may set or cancel timers
  }
  now_ = end;
}

}  // namespace tuner
