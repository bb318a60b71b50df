#include "tuner/sweep/device_seats.h"

#include <utility>

namespace tuner {

DeviceSeats::DeviceSeats(runner::DevicePool& pool, Clock& clock, Share share,
                         Sweep sweep)
    : pool_(pool),
      share_(share),
      sweep_(std::move(sweep)),
      retry_timer_(clock.MakeTimer()) {
  JoinShare();
}

DeviceSeats::~DeviceSeats() {
  if (share_.share) share_.share->Leave(share_id_);
}

void DeviceSeats::JoinShare() {
  if (!share_.share) return;
  DeviceShare::Claimant claimant;
  claimant.weight = share_.weight;
  claimant.held = [this] { return sweep_.held(); };
  // A sweep whose own trials hold every group of its pool cannot take more:
  // it holds nobody back.
  claimant.wanted = [this] {
    return sweep_.waits() && AnyFree() ? pool_.group_size() : 0;
  };
  claimant.wake = [this] { sweep_.wake("a device share wake-up"); };
  claimant.reserved = [this] { return !pool_.reserved_ids().empty(); };
  claimant.preempts = share_.preempts;
  claimant.yield = [this](const std::vector<int>& ids) {
    return sweep_.yield(ids);
  };
  share_id_ = share_.share->Join(std::move(claimant));
}

std::optional<runner::DeviceLease> DeviceSeats::Take(std::string* why) {
  if (share_.share && !share_.share->MayTake(share_id_)) {
    // Not its turn: a group it reserved earlier would only hold up the
    // claimant whose turn it is.
    pool_.StopWaiting();
    *why = "waiting for its share of the devices";
    return std::nullopt;
  }
  auto lease = pool_.TryAcquire();
  if (!lease) {
    if (pool_.contended()) ArmRetry();
    NoFreeGroup();
    *why = "no free device";
    return std::nullopt;
  }
  return lease;
}

void DeviceSeats::NoFreeGroup() {
  if (!share_.share) return;
  // Only the claimant whose turn it is keeps a group reserved.
  auto turn = share_.share->Turn();
  if (turn && *turn != share_id_) pool_.StopWaiting();
  share_.share->NoFreeGroup(share_id_, pool_.reserved_ids());
}

void DeviceSeats::Started() {
  if (share_.share) share_.share->Took(share_id_);
}

std::optional<runner::DeviceLease> DeviceSeats::Adopt(
    const std::vector<int>& ids, const std::string& node) {
  return pool_.Adopt(ids, node);
}

void DeviceSeats::Give(std::optional<runner::DeviceLease> lease,
                       std::chrono::milliseconds rest) {
  if (lease) pool_.Release(std::move(*lease), rest);
  if (share_.share) share_.share->Released(share_id_);
}

void DeviceSeats::ArmRetry() {
  if (retry_armed_) return;
  retry_armed_ = true;
  retry_timer_->Schedule(std::chrono::milliseconds(100), [this] {
    retry_armed_ = false;
    sweep_.wake("a device retry");
  });
}

void DeviceSeats::StopWaiting() {
  retry_timer_->Cancel();
  retry_armed_ = false;
  pool_.StopWaiting();
  if (share_.share) share_.share->Changed(share_id_);
}

}  // namespace tuner
