// DeviceShare: one machine's devices shared between the experiments that one
// process (the service) runs, in proportion to their priorities.
#ifndef TUNER_TUNER_SWEEP_DEVICE_SHARE_H_
#define TUNER_TUNER_SWEEP_DEVICE_SHARE_H_

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <optional>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it
#include <vector>

namespace tuner {

// Weighted fair sharing. Each experiment (a claimant) has a weight (its
// priority). Among the claimants that wait for devices, the one that holds
// the fewest devices per unit of weight has the turn (ties: the one served
// least recently, then the older one). While it has the turn, the others
// take nothing, even if its group does not fit yet, so a 4-card experiment
// is not starved by 1-card ones; unless it has reserved the group it waits
// for (its pool holds `.reserve` locks that every other pool skips): then
// the others may take the devices outside that group. A claimant that waits
// for nothing does not hold the others back. So while several experiments
// want devices, each holds about weight / total weight of them.
//
// No lost wake-ups: whenever the turn may pass to another claimant (one
// took or gave back devices, stopped waiting, or left), every waiting
// claimant is woken, later, on the io_context, so a claimant never runs
// inside another's call.
//
// Preemption (optional, per claimant): a claimant that `preempts`, has the
// turn and finds no free group may ask a claimant of lower weight that holds
// more devices per unit of weight than it would with its next group to give
// one group back (NoFreeGroup). One
// request per preempting claimant is pending at a time, until the victim
// gives devices back or leaves. Once the victim gave back, it may take
// nothing until the preempting claimant has taken a group (or stopped
// waiting, or left): what it gave back is not its own to take again.
//
// Not thread-safe: everything runs on the io_context's thread.
class DeviceShare {
 public:
  struct Claimant {
    double weight = 1;
    std::function<int()> held;    // devices it holds now
    std::function<int()> wanted;  // devices of the group it waits for; 0
                                  // when it waits for none (or cannot take)
    std::function<void()> wake;   // try again to start waiting trials
    // Optional: whether it holds a reservation on the group it waits for.
    std::function<bool()> reserved;
    // Whether it may preempt claimants of lower weight.
    bool preempts = false;
    // Optional: give back one group, preferably one that overlaps `ids`
    // (any group when empty), by stopping one of its trials and queueing it
    // again. Returns whether it does so.
    std::function<bool(const std::vector<int>& ids)> yield;
  };

  explicit DeviceShare(boost::asio::io_context& io) : io_(io) {}

  // Returns the claimant's id.
  int Join(Claimant claimant);
  // It left (its devices were given back): the others are woken.
  void Leave(int id);
  // Whether `id` may take its next group now: it has the turn, or the one
  // that has it waits on a reserved group.
  bool MayTake(int id) const;
  // The waiting claimant whose turn it is; nullopt when none waits.
  std::optional<int> Turn() const;
  // `id` took a group: it counts as served now, the others are woken.
  void Took(int id);
  // `id` gave devices back: the others are woken, and a preemption that
  // waited on `id` is settled (`id` may take again once its requester took).
  void Released(int id);
  // Something else changed for `id` (it stopped waiting, say): the others
  // are woken.
  void Changed(int id);
  // `id` may take but found no free group. Wakes the claimants that hold a
  // reservation without having the turn (so they drop it: it may be what
  // blocks `id`). Then, if `id` preempts and has the turn, asks a claimant
  // of lower weight that holds more devices per unit of weight than `id`
  // would with its next group (the most first) to give back a group overlapping
  // `ids` (the group `id` reserved; empty: any). Returns the victim's id, or
  // nullopt (nothing to preempt, or a request of `id`'s is still pending).
  std::optional<int> NoFreeGroup(int id, const std::vector<int>& ids);
  // Devices held, by claimant id.
  std::map<int, int> Holdings() const;

 private:
  struct Entry {
    Claimant claimant;
    long served = 0;  // when it last took a group; 0: never
  };
  bool Before(int a, const Entry& x, int b, const Entry& y) const;
  void WakeWaiting(int except);
  std::optional<int> Preempt(int id, const std::vector<int>& ids);

  boost::asio::io_context& io_;
  std::map<int, Entry> claimants_;
  struct Request {
    int victim = 0;
    bool given = false;  // the victim gave devices back since
  };
  // Whether `id` gave devices back to a claimant that still waits for them.
  bool OwesGroup(int id) const;
  std::map<int, Request> pending_;  // by preempting claimant
  int next_id_ = 1;
  long served_seq_ = 0;
};

}  // namespace tuner

#endif  // TUNER_TUNER_SWEEP_DEVICE_SHARE_H_
