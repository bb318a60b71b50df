// What a spawned process (a shim, a device tool) inherits of the tuner:
// stdin, stdout, stderr and the fds it is asked to keep, nothing else.
#include "trial_runner/processes/spawn.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/catch.h"
#include "util/capture.h"

namespace tuner::runner {
namespace {

namespace fs = std::filesystem;

std::string ReadAllOf(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// The shell's own fds, one a line, as a child ls reads them (a glob in the
// shell would open one more).
constexpr const char* kListOwnFds = "ls -1 /proc/$$/fd";

TEST_CASE("a spawned process keeps only 0, 1, 2 and the fds it is given",
          "[runner][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-spawn-fds-" + std::to_string(getpid()));
  fs::create_directories(dir);
  // What a library may leave open without close-on-exec: a listening
  // socket (Asio's acceptor) and a file.
  int leaked_socket = socket(AF_INET, SOCK_STREAM, 0);
  int leaked_file = open((dir / "config.yaml").c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(leaked_socket >= 0);
  REQUIRE(leaked_file >= 0);
  // Two kept fds, close-on-exec as the lease locks are.
  int keep_a =
      open((dir / "a.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  int keep_b =
      open((dir / "b.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  SpawnRequest request;
  request.argv = {
      "sh", "-c",
      std::string(kListOwnFds) + "; readlink /proc/$$/fd/3 /proc/$$/fd/4 >&2"};
  request.stdout_path = (dir / "out").string();
  request.stderr_path = (dir / "err").string();
  request.inherit_fds = {keep_b, keep_a};
  auto child = Spawn(request);
  REQUIRE(child.ok());
  waitpid(child.value().pid, nullptr, 0);
  close(child.value().pidfd);
  CHECK(ReadAllOf(dir / "out") == "0\n1\n2\n3\n4\n");
  // In the order given.
  CHECK(ReadAllOf(dir / "err") ==
        (dir / "b.lock").string() + "\n" + (dir / "a.lock").string() + "\n");

  auto tool =
      util::RunCapture({"sh", "-c", kListOwnFds}, std::chrono::seconds(60));
  REQUIRE(tool.ok());
  CHECK(tool.value().output == "0\n1\n2\n");
  for (int fd : {leaked_socket, leaked_file, keep_a, keep_b}) close(fd);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::runner
