#include "tuner/server/token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
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

std::string TokenServerPathFor(const std::string& db_path) {
  return TokenPathFor(db_path) + ".server";
}

core::Status BindTokenToServer(const std::string& db_path,
                               const std::string& address, uint16_t port) {
  bool v6 = address.find(':') != std::string::npos;
  std::string line =
      (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port) + "\n";
  const std::string path = TokenServerPathFor(db_path);
  const std::string temporary = path + ".new";
  unlink(temporary.c_str());
  int fd = open(temporary.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return core::IoError(Errno(temporary, "cannot create"));
  bool ok =
      write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ok = close(fd) == 0 && ok;
  if (!ok || rename(temporary.c_str(), path.c_str()) != 0) {
    unlink(temporary.c_str());
    return core::IoError(Errno(path, "cannot write"));
  }
  return core::Status::Ok();
}

core::Result<ClientToken> FindClientToken(
    const std::optional<std::string>& file, const std::string& db_path) {
  auto given = ReadToken(file);
  if (!given.ok()) return given.error();
  ClientToken token;
  token.value = given.value();
  token.source = file ? *file : "$TUNER_TOKEN";
  if (file || !token.value.empty()) return token;
  // None beside the database: no token (reads on loopback need none).
  token.source = TokenPathFor(db_path);
  auto text = ReadSmallFile(token.source, kMaxTokenFile);
  if (!text.ok()) return token;
  token.value = TrimEnd(text.value().substr(0, text.value().find('\n')));
  token.bound = true;
  auto server = ReadSmallFile(TokenServerPathFor(db_path), kMaxTokenFile);
  if (server.ok()) {
    token.bound_to =
        TrimEnd(server.value().substr(0, server.value().find('\n')));
  }
  return token;
}

namespace {

// Whether the server at `peer` is the one "IP:PORT" names: the same
// port and address, or any address of this machine for 0.0.0.0 and ::.
bool IsBoundServer(const std::string& bound_to, const PeerAddress& peer) {
  size_t colon = bound_to.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = bound_to.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') {
    host = host.substr(1, host.size() - 2);
  }
  if (bound_to.substr(colon + 1) != std::to_string(peer.port)) return false;
  boost::system::error_code ec;
  auto bound = boost::asio::ip::make_address(host, ec);
  if (ec) return false;
  auto reached = boost::asio::ip::make_address(peer.address, ec);
  if (ec) return false;
  return bound == reached || (bound.is_unspecified() && peer.this_machine);
}

}  // namespace

core::Status MayCarryToken(const ClientToken& token, const PeerAddress& peer,
                           bool plain_http_allowed) {
  bool v6 = peer.address.find(':') != std::string::npos;
  std::string shown = (v6 ? "[" + peer.address + "]" : peer.address) + ":" +
                      std::to_string(peer.port);
  if (token.bound && token.bound_to.empty()) {
    return core::InvalidArgument(
        "not sending the token of " + token.source + " to " + shown + ": no " +
        token.source +
        ".server says which service it belongs to (start `tuner serve` "
        "again, or give --token-file)");
  }
  if (token.bound && !IsBoundServer(token.bound_to, peer)) {
    return core::InvalidArgument(
        "not sending the token of " + token.source + " to " + shown +
        ": it belongs to the service at " + token.bound_to +
        " (give --token-file or $TUNER_TOKEN to send another)");
  }
  if (!peer.this_machine && !plain_http_allowed) {
    return core::InvalidArgument(
        "not sending the token to " + shown +
        " over plain HTTP off this machine: pass --allow-plain-http, or "
        "reach it through an SSH tunnel to a local port");
  }
  return core::Status::Ok();
}

}  // namespace tuner::server
