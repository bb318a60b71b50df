// A sweep of real PyTorch DDP trials (configs/ddp-mlp.yaml): torchrun, 2
// ranks per trial on gloo, 2 trials at once, no --master_port in the
// command. Needs Debian's python3-torch; without it the test says so and
// passes.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tests/catch.h"
#include "tests/support/tuner_cli.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

bool HasTorchrun() {
  return std::system(
             "/usr/bin/python3 -c 'import torch.distributed.run' "
             ">/dev/null 2>&1") == 0;
}

// Listens on 0.0.0.0:`port` while it lives, as another job on the machine
// would; -1 when the port is taken already (by such a job).
class PortHolder {
 public:
  explicit PortHolder(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(static_cast<uint16_t>(port));
    if (bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(fd_, 1) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~PortHolder() {
    if (fd_ >= 0) close(fd_);
  }
  bool holding() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

std::string ShippedConfig(int trials, int max_t) {
  std::string yaml =
      testing::ReadFile(fs::path(SOURCE_DIR) / "configs" / "ddp-mlp.yaml");
  auto set = [&yaml](const std::string& pattern, const std::string& value) {
    std::regex re(pattern);
    REQUIRE(std::regex_search(yaml, re));
    yaml = std::regex_replace(yaml, re, value);
  };
  set("num_trials: \\d+", "num_trials: " + std::to_string(trials));
  set("max_t: \\d+", "max_t: " + std::to_string(max_t));
  return yaml + "workdir: " SOURCE_DIR "\n";
}

TEST_CASE("DDP trials under torchrun, 2 at once, never share a port",
          "[tuner][cli][process][torch]") {
  if (!HasTorchrun()) {
    WARN("no torch for /usr/bin/python3 (apt install python3-torch): skipped");
    return;
  }
  fs::path dir =
      fs::temp_directory_path() / ("tuner-ddp-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "ddp.yaml") << ShippedConfig(2, 2);
  // A trial that fell back to torchrun's default port would fail on it.
  PortHolder default_port(29500);
  if (!default_port.holding()) WARN("port 29500 is in use already");

  testing::Output run = testing::RunTuner(dir, "run ddp.yaml");
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  testing::Output trials =
      testing::RunTuner(dir, "trials ddp-mlp --format json");
  REQUIRE(trials.code == 0);
  auto json = nlohmann::json::parse(trials.out);
  REQUIRE(json.size() == 2);
  std::set<int> ports;
  for (const auto& t : json) {
    INFO(t.dump());
    std::string status = t["status"];
    CHECK((status == "completed" || status == "stopped"));
    std::string log =
        testing::ReadFile(dir / "tuner.db.trials" / "ddp-mlp" /
                          std::to_string(t["id"].get<int>()) / "stdout.log");
    std::smatch port;
    REQUIRE(std::regex_search(log, port, std::regex("'master_port': (\\d+)")));
    ports.insert(std::stoi(port[1]));
  }
  CHECK(ports.size() == 2);
  CHECK(ports.count(29500) == 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner
