// Reading /proc files of processes that may exit meanwhile.
#ifndef TUNER_UTIL_PROC_FILE_H_
#define TUNER_UTIL_PROC_FILE_H_

#include <string>

namespace tuner::util {

// What is left to read from `fd` (at most 1 MiB), "" on any error. Never
// throws: read(2) on a /proc file of a process that has exited since it
// was opened fails with ESRCH, which std::ifstream turns into an
// exception (std::__ios_failure) that killed the tuner during adoption.
std::string ReadProcFd(int fd);

// The contents of `path` (e.g. "/proc/42/cmdline"), "" if it cannot be
// opened or read.
std::string ReadProcFile(const std::string& path);

// Whether process `pid` has `path` (a file or a folder) open, by device and
// inode: it was moved or renamed since, or not. False when either is gone.
bool ProcessHoldsOpen(int pid, const std::string& path);

}  // namespace tuner::util

#endif  // TUNER_UTIL_PROC_FILE_H_
