// DeviceShare: one machine's devices shared between the experiments that one
// process (the service) runs, in proportion to their priorities.
#ifndef TUNER_TUNER_DEVICE_SHARE_H_
#define TUNER_TUNER_DEVICE_SHARE_H_

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

namespace tuner {

// Weighted fair sharing without preemption. Each experiment (a claimant)
// has a weight (its priority). When devices come free, the waiting claimant
// that holds the fewest devices per unit of weight goes first; the others
// wait, even if that claimant's group does not fit yet (so a 4-card
// experiment is not starved by 1-card ones). A claimant
// that waits for nothing does not hold the others back: free devices go to
// whoever wants them. So while several experiments want devices, each
// holds about weight / total weight of them; a finished or stopped
// experiment's devices go to the others at once (Released wakes them).
// Not thread-safe: everything runs on the io_context's thread.
class DeviceShare {
 public:
  struct Claimant {
    double weight = 1;
    std::function<int()> held;    // devices it holds now
    std::function<int()> wanted;  // devices of the group it waits for; 0
    std::function<void()> wake;   // try again to start waiting trials
  };

  explicit DeviceShare(boost::asio::io_context& io) : io_(io) {}

  // Returns the claimant's id.
  int Join(Claimant claimant);
  // Its devices were given back: the others are woken.
  void Leave(int id);
  // Whether `id` may take its next group now: no other waiting claimant
  // holds fewer devices per unit of weight (ties: the older one). The
  // group's size does not count, so no claimant starves.
  bool MayTake(int id) const;
  // `id` gave devices back: wakes every claimant that waits (later, on the
  // io_context, so a claimant never runs inside another's call).
  void Released(int id);
  // Devices held, by claimant id.
  std::map<int, int> Holdings() const;

 private:
  void WakeWaiting(int except);

  boost::asio::io_context& io_;
  std::map<int, Claimant> claimants_;
  int next_id_ = 1;
};

}  // namespace tuner

#endif  // TUNER_TUNER_DEVICE_SHARE_H_
