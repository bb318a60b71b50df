#include "tuner/device_share.h"

#include <boost/asio/post.hpp>

namespace tuner {

int DeviceShare::Join(Claimant claimant) {
  int id = next_id_++;
  claimants_.emplace(id, std::move(claimant));
  return id;
}

void DeviceShare::Leave(int id) {
  claimants_.erase(id);
  WakeWaiting(id);
}

bool DeviceShare::MayTake(int id) const {
  auto self = claimants_.find(id);
  if (self == claimants_.end()) return true;
  const Claimant& me = self->second;
  double mine = me.held() / me.weight;
  for (const auto& [other_id, other] : claimants_) {
    if (other_id == id) continue;
    if (other.wanted() <= 0) continue;
    double theirs = other.held() / other.weight;
    // Ties go to the claimant that joined first.
    if (theirs < mine || (theirs == mine && other_id < id)) return false;
  }
  return true;
}

void DeviceShare::Released(int id) { WakeWaiting(id); }

std::map<int, int> DeviceShare::Holdings() const {
  std::map<int, int> out;
  for (const auto& [id, claimant] : claimants_) out[id] = claimant.held();
  return out;
}

void DeviceShare::WakeWaiting(int except) {
  for (const auto& [id, claimant] : claimants_) {
    if (id == except || claimant.wanted() <= 0) continue;
    // By id, not by reference: the claimant may leave before this runs.
    boost::asio::post(io_, [this, id = id] {
      auto it = claimants_.find(id);
      if (it != claimants_.end()) it->second.wake();
    });
  }
}

}  // namespace tuner
