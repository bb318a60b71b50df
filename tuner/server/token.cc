#include "tuner/server/token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "tuner/base/small_file.h"

namespace tuner::server {

namespace {

constexpr size_t kMinStoredToken = 32;

std::string TrimEnd(std::string text) {
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.back()))) {
    text.pop_back();
  }
  return text;
}

std::string Errno(const std::string& path, const std::string& what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

// 32 bytes of /dev/urandom as 64 hex digits.
core::Result<std::string> RandomToken() {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::IoError(Errno("/dev/urandom", "cannot open"));
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = read(fd, bytes + got, sizeof bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  if (got < sizeof bytes) return core::IoError("/dev/urandom: short read");
  static const char* kHex = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

core::Result<std::string> CreateTokenFile(const std::string& path) {
  auto token = RandomToken();
  if (!token.ok()) return token;
  int fd = open(path.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return core::InvalidArgument(Errno(path, "cannot create the token"));
  std::string line = token.value() + "\n";
  bool ok =
      write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ok = fsync(fd) == 0 && ok;
  close(fd);
  if (!ok) return core::IoError(Errno(path, "cannot write the token"));
  return token;
}

// A token file holds one line; anything larger is not one.
constexpr size_t kMaxTokenFile = 4096;

// Reads the token of an existing file after checking who may see it.
core::Result<std::string> ReadTokenFile(const std::string& path, int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    return core::InvalidArgument(Errno(path, "cannot stat the token"));
  }
  if (!S_ISREG(st.st_mode)) {
    return core::InvalidArgument(path + ": the token is not a regular file");
  }
  if (st.st_uid != geteuid()) {
    return core::InvalidArgument(path + ": the token belongs to another user");
  }
  if ((st.st_mode & 077) != 0) {
    return core::InvalidArgument(
        path +
        ": others may read or write the token (chmod 600 it, or "
        "remove it to get a new one)");
  }
  std::string text(256, '\0');
  ssize_t n = read(fd, text.data(), text.size());
  if (n < 0) return core::InvalidArgument(Errno(path, "cannot read the token"));
  text.resize(static_cast<size_t>(n));
  std::string token = TrimEnd(text.substr(0, text.find('\n')));
  if (token.size() < kMinStoredToken) {
    return core::InvalidArgument(path +
                                 ": the token is shorter than 32 characters");
  }
  return token;
}

}  // namespace

core::Result<std::string> ReadToken(const std::optional<std::string>& file) {
  std::string token;
  if (file) {
    auto text = ReadSmallFile(*file, kMaxTokenFile);
    if (!text.ok()) {
      return core::InvalidArgument("cannot read the token: " + text.message());
    }
    token = text.value().substr(0, text.value().find('\n'));
  } else if (const char* env = std::getenv("TUNER_TOKEN")) {
    token = env;
  }
  return TrimEnd(token);
}

std::string TokenPathFor(const std::string& db_path) {
  return db_path + ".token";
}

core::Result<std::string> LoadOrCreateTokenFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return CreateTokenFile(path);
  if (fd < 0) {
    return core::InvalidArgument(Errno(path, errno == ELOOP
                                                 ? "the token is a symlink"
                                                 : "cannot open the token"));
  }
  auto token = ReadTokenFile(path, fd);
  close(fd);
  return token;
}

core::Result<std::string> FindClientToken(
    const std::optional<std::string>& file, const std::string& db_path) {
  auto token = ReadToken(file);
  if (!token.ok() || file || !token.value().empty()) return token;
  // None beside the database: no token (reads on loopback need none).
  auto text = ReadSmallFile(TokenPathFor(db_path), kMaxTokenFile);
  if (!text.ok()) return std::string();
  return TrimEnd(text.value().substr(0, text.value().find('\n')));
}

}  // namespace tuner::server
