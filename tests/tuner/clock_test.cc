// ManualClock: time moves only by Advance(), and timers fire inside it, in
// time order, each seeing its own due time as Now().
#include "tuner/base/clock.h"

#include <memory>
#include <string>
#include <vector>

#include "tests/catch.h"

namespace tuner {
namespace {

using std::chrono::milliseconds;

TEST_CASE("manual clock: timers fire in time order, at their due time",
          "[tuner][clock]") {
  ManualClock clock;
  auto start = clock.Now();
  std::vector<std::string> fired;
  std::vector<milliseconds> at;
  auto a = clock.MakeTimer(), b = clock.MakeTimer(), c = clock.MakeTimer();
  auto note = [&](std::string name) {
    return [&, name] {
      fired.push_back(name);
      at.push_back(
          std::chrono::duration_cast<milliseconds>(clock.Now() - start));
    };
  };
  a->Schedule(milliseconds(300), note("a"));
  b->Schedule(milliseconds(100), note("b"));
  c->Schedule(milliseconds(100), note("c"));  // same time: set after b
  clock.Advance(milliseconds(99));
  CHECK(fired.empty());
  CHECK(clock.NextDue() == start + milliseconds(100));
  clock.Advance(milliseconds(500));
  CHECK(fired == std::vector<std::string>{"b", "c", "a"});
  CHECK(at == std::vector<milliseconds>{milliseconds(100), milliseconds(100),
                                        milliseconds(300)});
  CHECK(clock.Now() == start + milliseconds(599));
  CHECK(clock.NextDue() == ManualClock::TimePoint::max());
}

TEST_CASE("manual clock: cancel, replace, destroy, and timers set by timers",
          "[tuner][clock]") {
  ManualClock clock;
  int ran = 0;
  auto timer = clock.MakeTimer();
  timer->Schedule(milliseconds(10), [&] { ran += 1; });
  timer->Cancel();
  clock.Advance(milliseconds(20));
  CHECK(ran == 0);

  timer->Schedule(milliseconds(10), [&] { ran += 1; });
  timer->Schedule(milliseconds(30), [&] { ran += 10; });  // replaces it
  clock.Advance(milliseconds(20));
  CHECK(ran == 0);
  clock.Advance(milliseconds(10));
  CHECK(ran == 10);

  {
    auto gone = clock.MakeTimer();
    gone->Schedule(milliseconds(5), [&] { ran += 100; });
  }
  clock.Advance(milliseconds(10));
  CHECK(ran == 10);

  // A timer that sets itself again inside one Advance fires each time due.
  auto again = clock.MakeTimer();
  std::function<void()> tick = [&] {
    ++ran;
    again->Schedule(milliseconds(10), tick);
  };
  ran = 0;
  again->Schedule(milliseconds(10), tick);
  clock.Advance(milliseconds(55));
  CHECK(ran == 5);
}

TEST_CASE(
    "a timer that outlives its manual clock is inert: its pending call is "
    "dropped uncalled, and what it is given later is neither called nor "
    "kept",
    "[tuner][clock]") {
  // Each callback holds a copy of `token`: its use count tells how many of
  // them are still kept somewhere.
  auto token = std::make_shared<int>(0);
  int calls = 0;
  auto callback = [token, &calls] { ++calls; };
  std::unique_ptr<Clock::Timer> timer, idle;
  {
    ManualClock clock;
    timer = clock.MakeTimer();
    idle = clock.MakeTimer();  // nothing pending when the clock goes
    timer->Schedule(milliseconds(1), callback);
    CHECK(token.use_count() == 3);  // `callback` and the pending copy
  }
  CHECK(token.use_count() == 2);  // the pending call went with the clock
  idle->Schedule(milliseconds(1), callback);
  CHECK(token.use_count() == 2);  // not kept: no clock will ever run it
  idle.reset();
  timer->Schedule(milliseconds(1), callback);
  CHECK(token.use_count() == 2);
  timer->Cancel();
  timer.reset();
  CHECK(calls == 0);
  CHECK(token.use_count() == 2);
}

}  // namespace
}  // namespace tuner
