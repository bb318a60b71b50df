#include "schedulers/fifo.h"

#include "schedulers/brackets.h"

namespace tuner::schedulers {

core::Decision FifoScheduler::OnReport(core::TrialId, double time, double) {
  core::Decision decision;
  if (max_t_ && Reached(time, *max_t_))
    decision.action = core::Action::kComplete;
  return decision;
}

}  // namespace tuner::schedulers
