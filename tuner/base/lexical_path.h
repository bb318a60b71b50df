// Paths compared as text: what the tuner decides about a path before it
// touches the file system (whether a stored path lies in a folder).
#ifndef TUNER_TUNER_BASE_LEXICAL_PATH_H_
#define TUNER_TUNER_BASE_LEXICAL_PATH_H_

#include <filesystem>

namespace tuner {

// `path` without `.`, doubled or trailing slashes, and with `..` resolved
// lexically (no link is followed: "a/link/.." is "a").
std::filesystem::path NormalPath(const std::filesystem::path& path);

// Whether `path` is strictly inside `root`, both normalised (NormalPath):
// never `root` itself, never through a `..`.
bool Inside(const std::filesystem::path& path,
            const std::filesystem::path& root);

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_LEXICAL_PATH_H_
