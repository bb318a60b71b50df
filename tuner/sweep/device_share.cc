#include "tuner/sweep/device_share.h"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace tuner {

namespace {

double PerWeight(const DeviceShare::Claimant& c) { return c.held() / c.weight; }

}  // namespace

int DeviceShare::Join(Claimant claimant) {
  int id = next_id_++;
  claimants_.emplace(id, Entry{std::move(claimant), 0});
  return id;
}

void DeviceShare::Leave(int id) {
  claimants_.erase(id);
  pending_.erase(id);
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = it->second.victim == id ? pending_.erase(it) : std::next(it);
  }
  WakeWaiting(id);
}

bool DeviceShare::OwesGroup(int id) const {
  for (const auto& [requester, request] : pending_) {
    if (request.victim != id || !request.given) continue;
    auto it = claimants_.find(requester);
    if (it != claimants_.end() && it->second.claimant.wanted() > 0) {
      return true;
    }
  }
  return false;
}

// Whether `a` goes before `b`: fewer devices per unit of weight, then the
// one served least recently (so a claimant that gives a group back and
// wants it again at once does not win every tie), then the older one.
bool DeviceShare::Before(int a, const Entry& x, int b, const Entry& y) const {
  double mine = PerWeight(x.claimant), theirs = PerWeight(y.claimant);
  if (mine != theirs) return mine < theirs;
  if (x.served != y.served) return x.served < y.served;
  return a < b;
}

std::optional<int> DeviceShare::Turn() const {
  std::optional<int> turn;
  for (const auto& [id, entry] : claimants_) {
    if (entry.claimant.wanted() <= 0) continue;
    if (OwesGroup(id)) continue;  // the turn is its requester's
    if (!turn || Before(id, entry, *turn, claimants_.at(*turn))) turn = id;
  }
  return turn;
}

bool DeviceShare::MayTake(int id) const {
  if (claimants_.count(id) == 0) return true;
  if (OwesGroup(id)) return false;
  std::optional<int> turn = Turn();
  if (!turn || *turn == id) return true;
  const Claimant& first = claimants_.at(*turn).claimant;
  // Its pool holds `.reserve` locks on its group: the others' pools skip
  // those devices, so they may take the rest without delaying it.
  return first.reserved && first.reserved();
}

void DeviceShare::Took(int id) {
  auto it = claimants_.find(id);
  if (it != claimants_.end()) it->second.served = ++served_seq_;
  pending_.erase(id);  // its victim may take again
  WakeWaiting(id);
}

void DeviceShare::Released(int id) {
  for (auto& [requester, request] : pending_) {
    if (request.victim == id) request.given = true;
  }
  WakeWaiting(id);
}

void DeviceShare::Changed(int id) { WakeWaiting(id); }

std::optional<int> DeviceShare::NoFreeGroup(int id,
                                            const std::vector<int>& ids) {
  std::optional<int> turn = Turn();
  for (const auto& [other_id, entry] : claimants_) {
    const Claimant& other = entry.claimant;
    if (other_id == id || other_id == turn || !other.reserved) continue;
    if (!other.reserved()) continue;
    boost::asio::post(io_, [this, other_id = other_id] {
      auto it = claimants_.find(other_id);
      if (it != claimants_.end()) it->second.claimant.wake();
    });
  }
  return Preempt(id, ids);
}

std::optional<int> DeviceShare::Preempt(int id, const std::vector<int>& ids) {
  auto self = claimants_.find(id);
  if (self == claimants_.end() || !self->second.claimant.preempts) {
    return std::nullopt;
  }
  // A request stands until its victim gave back; if the requester still
  // found nothing free after that (another took it), it may ask again.
  auto pending = pending_.find(id);
  if (pending != pending_.end() && !pending->second.given) return std::nullopt;
  if (Turn() != id) return std::nullopt;
  const Claimant& me = self->second.claimant;
  // With the group it waits for, it must still hold less per unit of
  // weight than its victim: shares settle instead of swinging back.
  double mine = (me.held() + me.wanted()) / me.weight;
  std::vector<std::pair<double, int>> victims;  // (-held per weight, id)
  for (const auto& [other_id, entry] : claimants_) {
    const Claimant& other = entry.claimant;
    if (other_id == id || !other.yield || other.weight >= me.weight) continue;
    if (other.held() <= 0 || PerWeight(other) <= mine) continue;
    victims.emplace_back(-PerWeight(other), other_id);
  }
  std::sort(victims.begin(), victims.end());
  // `yield` runs inside `id`'s call: it only marks a trial and signals it.
  for (const auto& [unused, victim] : victims) {
    if (claimants_.at(victim).claimant.yield(ids)) {
      pending_[id] = Request{victim, false};
      return victim;
    }
  }
  return std::nullopt;
}

std::map<int, int> DeviceShare::Holdings() const {
  std::map<int, int> out;
  for (const auto& [id, entry] : claimants_) out[id] = entry.claimant.held();
  return out;
}

void DeviceShare::WakeWaiting(int except) {
  for (const auto& [id, entry] : claimants_) {
    if (id == except || entry.claimant.wanted() <= 0) continue;
    // By id, not by reference: the claimant may leave before this runs.
    boost::asio::post(io_, [this, id = id] {
      auto it = claimants_.find(id);
      if (it != claimants_.end()) it->second.claimant.wake();
    });
  }
}

}  // namespace tuner
