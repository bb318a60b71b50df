// DeviceSeats on its own: leases taken and given back, the retry while
// other processes hold the devices, and turns in a device share. No
// process; time is a ManualClock.
#include "tuner/sweep/device_seats.h"

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/support/fresh_dir.h"

namespace tuner::testing {
namespace {

using std::chrono::milliseconds;

// `n` devices of one kind; with `lock_dir`, leased across pools (as across
// processes) through its lock files.
runner::DevicePool PoolOf(int n, const std::string& lock_dir = "") {
  runner::Inventory inventory;
  for (int i = 0; i < n; ++i) {
    runner::Device d;
    d.id = i;
    d.index = i;
    inventory.devices.push_back(d);
  }
  runner::PoolOptions options;
  options.lock_dir = lock_dir;
  auto pool = runner::DevicePool::Create(inventory, options);
  REQUIRE(pool.ok());
  return std::move(pool).value();
}

// What a test sweep says to its seats, and how often it was woken.
struct FakeSweep {
  bool waits = true;
  int held = 0;
  std::vector<std::string> wakes;
  DeviceSeats::Sweep Hooks() {
    return {.waits = [this] { return waits; },
            .held = [this] { return held; },
            .wake = [this](const char* why) { wakes.push_back(why); },
            .yield = [](const std::vector<int>&) { return false; }};
  }
};

TEST_CASE("DeviceSeats: a lease per free group, given back for the next",
          "[seats]") {
  auto pool = PoolOf(2);
  ManualClock clock;
  FakeSweep sweep;
  DeviceSeats seats(pool, clock, {}, sweep.Hooks());
  std::string why;
  auto first = seats.Take(&why);
  auto second = seats.Take(&why);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->ids() != second->ids());
  CHECK_FALSE(seats.AnyFree());
  CHECK_FALSE(seats.Take(&why));
  CHECK(why == "no free device");
  // Nobody else holds the devices: nothing to retry.
  clock.Advance(milliseconds(1000));
  CHECK(sweep.wakes.empty());
  std::vector<int> given = first->ids();
  seats.Give(std::move(first));
  CHECK(seats.AnyFree());
  auto again = seats.Take(&why);
  REQUIRE(again);
  CHECK(again->ids() == given);
}

TEST_CASE(
    "DeviceSeats: held by another process, retried every 100 ms until "
    "it stops waiting",
    "[seats]") {
  auto locks = FreshDir("seats-locks");
  auto other = PoolOf(1, locks.string());
  auto held = other.TryAcquire();  // another tuner's lease
  REQUIRE(held);
  auto pool = PoolOf(1, locks.string());
  ManualClock clock;
  FakeSweep sweep;
  DeviceSeats seats(pool, clock, {}, sweep.Hooks());
  std::string why;
  CHECK_FALSE(seats.Take(&why));
  CHECK(why == "no free device");
  clock.Advance(milliseconds(99));
  CHECK(sweep.wakes.empty());
  clock.Advance(milliseconds(1));
  REQUIRE(sweep.wakes.size() == 1);
  CHECK(sweep.wakes[0] == std::string("a device retry"));
  // Woken once per failed attempt, not on a timer of its own.
  clock.Advance(milliseconds(1000));
  CHECK(sweep.wakes.size() == 1);
  CHECK_FALSE(seats.Take(&why));
  seats.StopWaiting();
  clock.Advance(milliseconds(1000));
  CHECK(sweep.wakes.size() == 1);
  other.Release(std::move(*held));
  held.reset();
  CHECK(seats.Take(&why));
  std::filesystem::remove_all(locks);
}

TEST_CASE("DeviceSeats: in a share, only the claimant whose turn it is takes",
          "[seats]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  auto pool_a = PoolOf(4);
  auto pool_b = PoolOf(4);
  ManualClock clock;
  FakeSweep a, b;
  DeviceSeats seats_a(pool_a, clock, {&share, 1, false}, a.Hooks());
  DeviceSeats seats_b(pool_b, clock, {&share, 1, false}, b.Hooks());
  a.held = 2;  // b holds fewer devices per unit of weight: its turn
  std::string why;
  CHECK_FALSE(seats_a.Take(&why));
  CHECK(why == "waiting for its share of the devices");
  auto lease = seats_b.Take(&why);
  REQUIRE(lease);
  seats_b.Started();
  b.held = 3;  // now a's turn; the share wakes it
  io.run();
  REQUIRE_FALSE(a.wakes.empty());
  CHECK(a.wakes.back() == std::string("a device share wake-up"));
  CHECK(seats_a.Take(&why));
  b.waits = false;  // a sweep that waits for nothing holds nobody back
  a.held = 4;
  CHECK(seats_a.Take(&why));
  seats_b.Give(std::move(lease));
}

}  // namespace
}  // namespace tuner::testing
