#include "tuner/server/token.h"

#include <cctype>
#include <cstdlib>
#include <fstream>

namespace tuner::server {

core::Result<std::string> ReadToken(const std::optional<std::string>& file) {
  std::string token;
  if (file) {
    std::ifstream in(*file);
    if (!in) return core::InvalidArgument(*file + ": cannot read the token");
    std::getline(in, token);
  } else if (const char* env = std::getenv("TUNER_TOKEN")) {
    token = env;
  }
  while (!token.empty() &&
         std::isspace(static_cast<unsigned char>(token.back()))) {
    token.pop_back();
  }
  return token;
}

}  // namespace tuner::server
