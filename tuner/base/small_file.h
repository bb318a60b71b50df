// Reading a small text file that a user names (a config, a token file),
// bounded: never a FIFO that blocks, a device that never ends, or a file
// that fills memory.
#ifndef TUNER_SMALL_FILE_H_
#define TUNER_SMALL_FILE_H_

#include <cstddef>
#include <string>

#include "core/result.h"

namespace tuner {

// The whole of `path`, which must be a regular file of at most `max_bytes`.
// Errors name the path: "PATH: not a regular file", "PATH: larger than N
// bytes", or the system's reason.
core::Result<std::string> ReadSmallFile(const std::string& path,
                                        size_t max_bytes);

}  // namespace tuner

#endif  // TUNER_SMALL_FILE_H_
