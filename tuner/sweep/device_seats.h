// DeviceSeats: where one sweep's trials get their devices.
#ifndef TUNER_TUNER_SWEEP_DEVICE_SEATS_H_
#define TUNER_TUNER_SWEEP_DEVICE_SEATS_H_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trial_runner/devices/device_pool.h"
#include "tuner/base/clock.h"
#include "tuner/sweep/device_share.h"

namespace tuner {

// Takes leases from a sweep's device pool and gives them back, on the
// sweep's behalf in the device share of its process (optional: the
// service's experiments share one machine). It knows no trial: the sweep
// says whether trials wait, and is woken when a device may be free:
// - by the share, when the turn may have passed to it;
// - every 100 ms while other processes hold the free devices (the pool is
//   contended), until StopWaiting().
// Not thread-safe: everything runs on the sweep's event loop.
class DeviceSeats {
 public:
  struct Sweep {
    // Trials wait for a device and the sweep launches.
    std::function<bool()> waits;
    // Devices its trials hold (the share's measure of the sweep).
    std::function<int()> held;
    // A device may be free: launch what waits. Runs from a timer or the
    // share's post, never inside a call of this class.
    std::function<void(const char* why)> wake;
    // Preemption: give back one group overlapping `ids` (any: empty) by
    // stopping a trial; whether one was stopped.
    std::function<bool(const std::vector<int>& ids)> yield;
  };
  struct Share {
    DeviceShare* share = nullptr;  // none: the pool is the sweep's alone
    double weight = 1;             // the sweep's priority
    bool preempts = false;         // it may preempt claimants of lower weight
  };
  // `pool` and `clock` outlive the seats; joins `share.share`, if any.
  DeviceSeats(runner::DevicePool& pool, Clock& clock, Share share, Sweep sweep);
  // Leaves the share.
  ~DeviceSeats();
  DeviceSeats(const DeviceSeats&) = delete;
  DeviceSeats& operator=(const DeviceSeats&) = delete;

  // A lease on a free group; nullopt when none is free or it is not the
  // sweep's turn, with `why` saying which ("no free device", "waiting for
  // its share of the devices").
  std::optional<runner::DeviceLease> Take(std::string* why);
  // The trial on a lease from Take() started: the share counts the sweep as
  // served.
  void Started();
  // The group of exactly `ids` on `node`, held by a trial a previous tuner
  // started (DevicePool::Adopt).
  std::optional<runner::DeviceLease> Adopt(const std::vector<int>& ids,
                                           const std::string& node);
  // Gives the lease back (if any), not handed out again for `rest`; the
  // share wakes the others.
  void Give(std::optional<runner::DeviceLease> lease,
            std::chrono::milliseconds rest = std::chrono::milliseconds(0));
  // Nothing more to launch: no retry, no reservation; the share wakes the
  // others.
  void StopWaiting();
  // Whether a group of the pool is not leased by this sweep.
  bool AnyFree() const { return pool_.free() > 0; }

 private:
  void JoinShare();
  void ArmRetry();
  // No group was free: reservations and preemption (DeviceShare).
  void NoFreeGroup();

  runner::DevicePool& pool_;
  Share share_;
  Sweep sweep_;
  std::unique_ptr<Clock::Timer> retry_timer_;
  bool retry_armed_ = false;
  int share_id_ = 0;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_DEVICE_SEATS_H_
