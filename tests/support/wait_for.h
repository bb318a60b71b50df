// Waiting, in the process tier, for what another process or thread does:
// poll a condition until it holds or a timeout passes. The deterministic
// tier never waits on the wall clock (it runs on a ManualClock), so it has
// no use for this.
#ifndef TUNER_TESTS_SUPPORT_WAIT_FOR_H_
#define TUNER_TESTS_SUPPORT_WAIT_FOR_H_

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>

namespace tuner::testing {

// What a wait came to: true when the condition held. Printed, as Catch
// prints the operand of a failed REQUIRE(WaitFor(...)), it names what was
// awaited and, after a timeout, for how long.
class Waited {
 public:
  Waited(bool held, std::string what, std::chrono::milliseconds timeout)
      : held_(held), what_(std::move(what)), timeout_(timeout) {}
  explicit operator bool() const { return held_; }

  friend std::ostream& operator<<(std::ostream& out, const Waited& waited) {
    if (waited.held_) return out << "held: " << waited.what_;
    return out << "timed out after " << waited.timeout_.count() / 1000.0
               << " s waiting for " << waited.what_;
  }

 private:
  bool held_;
  std::string what_;
  std::chrono::milliseconds timeout_;
};

// Calls `done` until it returns true, `poll` apart, for `timeout` at most
// (`done` is called at least once). `what` names the condition for the failure
// message. `done` may do work of its own between checks (run an io_context,
// read a socket).
inline Waited WaitFor(
    std::string what, std::chrono::milliseconds timeout,
    const std::function<bool()>& done,
    std::chrono::milliseconds poll = std::chrono::milliseconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Waited(false, std::move(what), timeout);
    }
    std::this_thread::sleep_for(poll);
  }
  return Waited(true, std::move(what), timeout);
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_WAIT_FOR_H_
