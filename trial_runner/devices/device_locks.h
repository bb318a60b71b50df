// Device leases that the kernel holds: an exclusive flock (LockFile) on one
// file per device. A lock vanishes when the last process holding its file
// descriptor dies, so a crashed tuner never leaves a card locked, and a
// trial that inherited the descriptor keeps its card locked for as long as
// it lives.
//
// The lock directory may be shared with other users of the machine, so it
// must be one no other user can tamper with (CheckLockDir), and nothing in
// it is trusted (see util/lock_file.h for the files).
#ifndef TUNER_TRIAL_RUNNER_DEVICES_DEVICE_LOCKS_H_
#define TUNER_TRIAL_RUNNER_DEVICES_DEVICE_LOCKS_H_

#include <string>

#include "util/lock_file.h"

namespace tuner::runner {

// Whether `dir` is safe to keep locks in for the current user: owned by
// root with the sticky bit (like /tmp: shared by every user of the machine;
// no user can remove or replace another's lock file), or owned by the user
// and writable by nobody else. A symlink to it must belong to root or the
// user. Else false, and `error` says why and how to fix it, in one line.
bool CheckLockDir(const std::string& dir, std::string* error);

// Creates `dir` when missing (mode 0700: private to the user; a directory
// shared between users is made by root, mode 1777), then CheckLockDir.
bool EnsureLockDir(const std::string& dir, std::string* error);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICES_DEVICE_LOCKS_H_
