// The processes a trial started, found by their parent links in /proc, so
// that one that left the trial's process group or session (setsid: a
// daemon, torch's elastic workers) is still the trial's.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_SHIM_PROCESS_TREE_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_SHIM_PROCESS_TREE_H_

#include <sys/types.h>

#include <vector>

namespace tuner::shim {

// Every live or zombie process below `root` (not `root` itself), parents
// before their children. A snapshot: a process forked while /proc is read
// may be missing, so callers repeat until it comes back empty. Complete for
// a child subreaper's tree: its descendants' orphans reparent to it and so
// never leave the tree.
std::vector<pid_t> Descendants(pid_t root);

// Sends `signal` to every process of Descendants(root); returns how many
// there were.
size_t SignalDescendants(pid_t root, int signal);

// Marks every descriptor above stderr close-on-exec, so that a program this
// process executes inherits only stdin, stdout, stderr and what its spawn
// hands it explicitly. This process keeps them open (the device leases).
void CloseOnExecAbove2();

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_SHIM_PROCESS_TREE_H_
