// Removing a tree of files without following a symbolic link anywhere on
// the way to it or in it: what `tuner delete` removes (trial directories,
// checkpoint directories) may hold links that a trial or another user
// planted.
#ifndef TUNER_TUNER_BASE_REMOVE_TREE_H_
#define TUNER_TUNER_BASE_REMOVE_TREE_H_

#include <filesystem>
#include <string>

#include "tuner/base/unique_fd.h"

namespace tuner {

struct TreeRemoval {
  enum Kind {
    kRemoved,  // it was there and is gone
    kAbsent,   // nothing was there (a component is missing or no directory)
    kLink,     // a component between root and it is a symbolic link:
               // nothing was removed
    kFailed,   // refused or a system call failed; part of it may be left
  };
  Kind kind = kAbsent;
  std::string why;  // kLink, kFailed: "PATH: reason"
};

// Removes `root`/`below` and all it holds. `root`, absolute, is the
// trusted folder the walk starts from: it is opened as it is (links in it
// followed). Each component of `below`, a relative path without `..`, is
// opened with openat(O_NOFOLLOW | O_DIRECTORY), so no link between them is
// followed (kLink); the last one, when a link, is unlinked, never what it
// points at; the directories under it are opened the same way and emptied
// with unlinkat. Creates nothing. A `below` that is empty, absolute or has
// a `..` component is refused (kFailed), and so are directories nested
// deeper than 256 levels.
TreeRemoval RemoveTreeBelow(const std::filesystem::path& root,
                            const std::filesystem::path& below);

// The directory `root`/`below` opened (O_RDONLY | O_DIRECTORY) by the same
// walk: `root`, absolute, as it is, then each component of `below` (a
// relative path without `..`) with openat(O_NOFOLLOW | O_DIRECTORY). An
// invalid descriptor when a component is missing, no directory, or a
// symbolic link.
UniqueFd OpenDirBelow(const std::filesystem::path& root,
                      const std::filesystem::path& below);

}  // namespace tuner

#endif  // TUNER_TUNER_BASE_REMOVE_TREE_H_
