#include "tuner/base/lexical_path.h"

namespace tuner {

namespace fs = std::filesystem;

fs::path NormalPath(const fs::path& path) {
  fs::path normal = path.lexically_normal();
  if (normal.has_relative_path() && normal.filename().empty()) {
    normal = normal.parent_path();
  }
  return normal;
}

bool Inside(const fs::path& path, const fs::path& root) {
  fs::path rel = NormalPath(path).lexically_relative(NormalPath(root));
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

}  // namespace tuner
