// Clock: the time a sweep runs on, now and later. SteadyClock is the
// machine's (Asio timers on the sweep's event loop); ManualClock is a
// test's or a simulation's, which moves only when told.
#ifndef TUNER_CLOCK_H_
#define TUNER_CLOCK_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

namespace tuner {

// The system clock's time as Unix seconds: what the store stamps rows
// with, for a reader comparing with them.
double UnixNow();

class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  // One pending call at a time. Destroying it cancels what is pending.
  class Timer {
   public:
    virtual ~Timer() = default;
    // Calls `fn` on the clock's loop once `delay` has passed, in place of
    // any call still pending.
    virtual void Schedule(Duration delay, std::function<void()> fn) = 0;
    // Drops the pending call, if any: `fn` is not called.
    virtual void Cancel() = 0;
  };

  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
  virtual std::unique_ptr<Timer> MakeTimer() = 0;
};

// std::chrono::steady_clock, with Asio timers on `io`.
class SteadyClock : public Clock {
 public:
  explicit SteadyClock(boost::asio::io_context& io) : io_(io) {}
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  std::unique_ptr<Timer> MakeTimer() override;

 private:
  boost::asio::io_context& io_;
};

// Time that moves only by Advance(). Its timers fire inside Advance(), on
// the calling thread, in time order (then in the order they were set).
class ManualClock : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint{}) : now_(start) {}
  ~ManualClock() override;
  TimePoint Now() const override { return now_; }
  std::unique_ptr<Timer> MakeTimer() override;
  // Moves the time forward by `by`, firing every timer that falls due on
  // the way (each at its own time: Now() is its due time while it runs).
  void Advance(Duration by);
  // The next due time of a pending timer; TimePoint::max() if none.
  TimePoint NextDue() const;

 private:
  class ManualTimer;
  using Key = std::pair<TimePoint, long>;  // due time, sequence
  struct Pending {
    ManualTimer* timer;
    std::function<void()> fn;
  };
  void Set(ManualTimer* timer, Duration delay, std::function<void()> fn);
  void Drop(ManualTimer* timer);
  void Forget(ManualTimer* timer);

  TimePoint now_;
  long sequence_ = 0;
  std::map<Key, Pending> pending_;
  std::set<ManualTimer*> timers_;  // alive, to orphan when the clock goes
};

}  // namespace tuner

#endif  // TUNER_CLOCK_H_
