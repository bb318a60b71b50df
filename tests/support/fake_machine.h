// Helpers for tests on the fake machines of tests/fakes: selecting one, and
// reading back what examples/device_trainer recorded about its lifetime.
#ifndef TUNER_TESTS_SUPPORT_FAKE_MACHINE_H_
#define TUNER_TESTS_SUPPORT_FAKE_MACHINE_H_

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace tuner::testing {

// Whether this build runs under ASan/UBSan (scripts/sanitize.sh sets
// TUNER_SANITIZED): processes start several times slower.
inline bool Sanitized() { return getenv("TUNER_SANITIZED") != nullptr; }

// device_trainer flags that hold each trial, once started, until `n` trials
// have started (a fresh folder counts them): the first `n` trials then run
// at one instant however slow the machine, so a test can require that `n`
// ran at once without any timing.
inline std::string BarrierFlags(int n) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("tuner-barrier-" + std::to_string(getpid()) + "-" +
              std::to_string(counter++));
  std::filesystem::remove_all(dir);
  return "--barrier " + dir.string() + " --barrier-n " + std::to_string(n);
}

// Puts the fake hl-smi, neuron-ls, nvidia-smi and docker first on PATH and
// selects `machine` (a folder of tests/fakes/machines) for them.
inline void UseFakeMachine(const std::string& machine) {
  static const std::string original = getenv("PATH") ? getenv("PATH") : "";
  std::string path = std::string(FAKES_DIR) + "/bin:" + original;
  setenv("PATH", path.c_str(), 1);
  setenv("FAKE_MACHINE", machine.c_str(), 1);
}

// One process of a trial, as device_trainer recorded it.
struct Lifetime {
  std::string trial_dir;
  int pid = 0;
  double start = 0;  // seconds since the epoch
  double end = std::numeric_limits<double>::infinity();  // never recorded
  double last_child_beat = 0;  // its SIGTERM-ignoring child's last line
  nlohmann::json env;
  std::string cpus;
};

inline std::vector<Lifetime> ReadLifetimes(const std::filesystem::path& root) {
  std::vector<Lifetime> out;
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator(root, ec)) {
    std::ifstream in(dir.path() / "lifetime.jsonl");
    std::map<int, Lifetime> by_pid;
    double child = 0;
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;
      double t = j["t"].get<double>() / 1e9;
      int pid = j["pid"].get<int>();
      std::string event = j["event"];
      if (event == "start") {
        Lifetime& l = by_pid[pid];
        l.trial_dir = dir.path().string();
        l.pid = pid;
        l.start = t;
        l.env = j["env"];
        l.cpus = j["cpus"];
      } else if (event == "end") {
        by_pid[pid].end = t;
      } else {
        child = std::max(child, t);
      }
    }
    for (auto& [pid, l] : by_pid) {
      l.last_child_beat = child;
      out.push_back(l);
    }
  }
  std::sort(out.begin(), out.end(), [](const Lifetime& a, const Lifetime& b) {
    return a.start < b.start;
  });
  return out;
}

// The ids in "4,5" or "2-3" (or "7").
inline std::vector<int> IdsOf(const std::string& text) {
  std::vector<int> ids;
  size_t dash = text.find('-');
  if (dash != std::string::npos) {
    for (int i = std::stoi(text.substr(0, dash));
         i <= std::stoi(text.substr(dash + 1)); ++i)
      ids.push_back(i);
    return ids;
  }
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    ids.push_back(std::stoi(part));
  return ids;
}

// The largest number of `lifetimes` alive at one instant.
inline int MaxConcurrent(const std::vector<Lifetime>& lifetimes) {
  std::vector<std::pair<double, int>> events;
  for (const auto& l : lifetimes) {
    events.push_back({l.start, +1});
    events.push_back({l.end, -1});
  }
  std::sort(events.begin(), events.end());
  int now = 0, most = 0;
  for (const auto& [t, delta] : events) most = std::max(most, now += delta);
  return most;
}

// For each device id, whether two lifetimes that name it overlap in time;
// the first overlap found, described, or "" when there is none.
inline std::string FirstOverlap(
    const std::vector<Lifetime>& lifetimes,
    const std::function<std::vector<int>(const Lifetime&)>& devices_of) {
  std::map<int, std::vector<const Lifetime*>> by_device;
  for (const auto& l : lifetimes)
    for (int id : devices_of(l)) by_device[id].push_back(&l);
  for (auto& [id, list] : by_device) {
    std::sort(list.begin(), list.end(),
              [](auto* a, auto* b) { return a->start < b->start; });
    for (size_t i = 1; i < list.size(); ++i) {
      if (list[i]->start < list[i - 1]->end) {
        return "device " + std::to_string(id) + ": pid " +
               std::to_string(list[i]->pid) + " started before pid " +
               std::to_string(list[i - 1]->pid) + " ended";
      }
    }
  }
  return "";
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_FAKE_MACHINE_H_
