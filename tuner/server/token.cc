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
#include <sstream>

#include "tuner/base/small_file.h"
#include "tuner/server/listening_socket.h"

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

// Whether the file open at `fd` is one only this user can see: a regular
// file owned by this user that nobody else may read or write.
core::Status CheckPrivateFile(const std::string& path, int fd,
                              const std::string& what) {
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    return core::InvalidArgument(Errno(path, "cannot stat " + what));
  }
  if (!S_ISREG(st.st_mode)) {
    return core::InvalidArgument(path + ": " + what + " is not a regular file");
  }
  if (st.st_uid != geteuid()) {
    return core::InvalidArgument(path + ": " + what +
                                 " belongs to another user");
  }
  if ((st.st_mode & 077) != 0) {
    return core::InvalidArgument(path + ": others may read or write " + what +
                                 " (chmod 600 it, or remove it to get a new "
                                 "one)");
  }
  return core::Status::Ok();
}

// The text of `path` (at most kMaxTokenFile bytes), read only when it is
// private (CheckPrivateFile) and not a symlink (O_NOFOLLOW); nullopt when
// there is no such file. kInvalidArgument naming `what` and why otherwise.
core::Result<std::optional<std::string>> ReadPrivateFile(
    const std::string& path, const std::string& what) {
  // O_NONBLOCK: a planted FIFO does not hang the open.
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::optional<std::string>();
  if (fd < 0) {
    return core::InvalidArgument(Errno(
        path, errno == ELOOP ? what + " is a symlink" : "cannot open " + what));
  }
  auto checked = CheckPrivateFile(path, fd, what);
  std::string text(kMaxTokenFile, '\0');
  ssize_t n = checked.ok() ? read(fd, text.data(), text.size()) : 0;
  int read_errno = errno;
  close(fd);
  if (!checked.ok()) return checked;
  if (n < 0) {
    errno = read_errno;
    return core::InvalidArgument(Errno(path, "cannot read " + what));
  }
  text.resize(static_cast<size_t>(n));
  return std::optional<std::string>(std::move(text));
}

// Line `index` (from 0) of `text` without trailing spaces; "" past the end.
std::string LineOf(const std::string& text, size_t index) {
  std::istringstream lines(text);
  std::string line;
  for (size_t i = 0; i <= index; ++i) {
    if (!std::getline(lines, line)) return "";
  }
  return TrimEnd(line);
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
  auto text = ReadPrivateFile(path, "the token");
  if (!text.ok()) return text.error();
  if (!text.value()) return CreateTokenFile(path);
  std::string token = LineOf(*text.value(), 0);
  if (token.size() < kMinStoredToken) {
    return core::InvalidArgument(path +
                                 ": the token is shorter than 32 characters");
  }
  return token;
}

std::string TokenServerPathFor(const std::string& db_path) {
  return TokenPathFor(db_path) + ".server";
}

core::Status BindTokenToServer(const std::string& db_path,
                               const std::string& address, uint16_t port,
                               int pid) {
  bool v6 = address.find(':') != std::string::npos;
  std::string line = (v6 ? "[" + address + "]" : address) + ":" +
                     std::to_string(port) + "\n" + std::to_string(pid) + "\n";
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

void UnbindTokenFromServer(const std::string& db_path, int pid) {
  const std::string path = TokenServerPathFor(db_path);
  auto text = ReadPrivateFile(path, "the token's server record");
  if (text.ok() && text.value() &&
      LineOf(*text.value(), 1) == std::to_string(pid)) {
    unlink(path.c_str());
  }
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
  auto kept = ReadPrivateFile(token.source, "the token");
  if (kept.ok() && !kept.value()) return token;
  token.bound = true;
  auto server =
      ReadPrivateFile(TokenServerPathFor(db_path), "the token's server record");
  if (!kept.ok() || !server.ok()) {
    token.refused = kept.ok() ? server.message() : kept.message();
    return token;
  }
  token.value = LineOf(*kept.value(), 0);
  if (server.value()) {
    token.bound_to = LineOf(*server.value(), 0);
    std::string pid = LineOf(*server.value(), 1);
    char* end = nullptr;
    long number = std::strtol(pid.c_str(), &end, 10);
    bool whole = !pid.empty() && *end == '\0' && number > 0;
    token.bound_pid =
        whole && number <= INT32_MAX ? static_cast<int>(number) : 0;
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
  if (!token.refused.empty()) {
    return core::InvalidArgument("not sending the token to " + shown + ": " +
                                 token.refused);
  }
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

core::Status RecordedServiceListens(const ClientToken& token,
                                    const PeerAddress& peer) {
  if (!token.bound || !peer.this_machine) return core::Status::Ok();
  if (ProcessListensOn(token.bound_pid, peer.port)) return core::Status::Ok();
  return core::InvalidArgument(
      "not sending the token of " + token.source + " to port " +
      std::to_string(peer.port) + ": the service recorded in " + token.source +
      ".server" +
      (token.bound_pid > 0 ? " (pid " + std::to_string(token.bound_pid) + ")"
                           : "") +
      " is gone (start `tuner serve` again, or give --token-file)");
}

}  // namespace tuner::server
