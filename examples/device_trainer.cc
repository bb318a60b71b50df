// device_trainer: a stand-in trial that records what device tests check.
//
// Appends to $TUNER_TRIAL_DIR/lifetime.jsonl (or --record FILE) one JSON
// line when it starts (pid, time, the device env vars, its CPU affinity)
// and one when it ends (normally or on SIGTERM); prints one metric line per
// epoch. --child-ignores-sigterm MS forks a child in its process group that
// ignores SIGTERM and writes a heartbeat line every 5 ms for MS ms (0:
// until killed), as a stuck dataloader worker would. --barrier DIR
// --barrier-n N makes it wait, once started, until N trials have entered DIR
// (or 120 s pass): tests prove N trials ran at once without any timing.
// --gate DIR holds it, once started, until DIR/all or DIR/<its
// TUNER_TRIAL_ID> exists (or SIGTERM): tests decide when each trial ends.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace {

volatile sig_atomic_t g_terminate = 0;

void OnSigterm(int) { g_terminate = 1; }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Append(const std::string& path, const nlohmann::json& line) {
  std::ofstream(path, std::ios::app) << line.dump() << "\n";
}

std::string Affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set))
      out += (out.empty() ? "" : ",") + std::to_string(cpu);
  }
  return out;
}

nlohmann::json DeviceEnv() {
  nlohmann::json env = nlohmann::json::object();
  for (const char* name :
       {"HLS_MODULE_ID", "HABANA_VISIBLE_MODULES", "HABANA_VISIBLE_DEVICES",
        "HABANA_LOGS", "PT_HPU_RECIPE_CACHE_CONFIG", "NEURON_RT_VISIBLE_CORES",
        "NEURON_RT_ROOT_COMM_ID", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
        "MASTER_ADDR", "MASTER_PORT", "PET_MASTER_PORT", "TUNER_DEVICES",
        "TUNER_CPUS", "OMP_NUM_THREADS", "TUNER_TRIAL_ID",
        "FAKE_DOCKER_IMAGE"}) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  return env;
}

// Runs in the forked child: ignores SIGTERM, beats until `ms` pass.
[[noreturn]] void Linger(const std::string& record, int ms) {
  signal(SIGTERM, SIG_IGN);
  auto start = std::chrono::steady_clock::now();
  while (ms == 0 || std::chrono::steady_clock::now() - start <
                        std::chrono::milliseconds(ms)) {
    Append(record, {{"event", "child"}, {"pid", getpid()}, {"t", NowNs()}});
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  _exit(0);
}

// Sleeps `ms`, waking every millisecond to notice SIGTERM.
bool SleepUnlessTerminated(int ms) {
  for (int i = 0; i < ms && !g_terminate; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return !g_terminate;
}

// Enters `dir` (a file named by the pid) and waits until `n` trials have,
// or `limit` passes: past the limit the trial goes on, and a test that
// counts concurrent trials sees fewer than `n`.
void Barrier(const std::string& dir, int n, std::chrono::seconds limit) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + std::to_string(getpid())).put('\n');
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline && !g_terminate) {
    auto entries = std::filesystem::directory_iterator(dir);
    if (std::distance(begin(entries), end(entries)) >= n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Waits until `dir`/all or `dir`/<trial id> exists, or SIGTERM comes.
void Gate(const std::string& dir) {
  const char* id = std::getenv("TUNER_TRIAL_ID");
  std::filesystem::path own = std::filesystem::path(dir) / (id ? id : "none");
  std::filesystem::path all = std::filesystem::path(dir) / "all";
  while (!g_terminate && !std::filesystem::exists(own) &&
         !std::filesystem::exists(all))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace

int main(int argc, char** argv) {
  double lr = 0.01;
  int epochs = 3, sleep_ms = 10, child_ms = -1;
  int barrier_n = 0;
  std::string record, barrier, gate;
  CLI::App app{"a trial that records its devices and its lifetime"};
  app.add_option("--lr", lr);
  app.add_option("--epochs", epochs);
  app.add_option("--sleep-ms", sleep_ms);
  app.add_option("--child-ignores-sigterm", child_ms);
  app.add_option("--record", record);
  app.add_option("--barrier", barrier);
  app.add_option("--barrier-n", barrier_n);
  app.add_option("--gate", gate);
  CLI11_PARSE(app, argc, argv);
  if (record.empty()) {
    const char* dir = std::getenv("TUNER_TRIAL_DIR");
    record = std::string(dir ? dir : ".") + "/lifetime.jsonl";
  }
  signal(SIGTERM, OnSigterm);
  Append(record, {{"event", "start"},
                  {"pid", getpid()},
                  {"t", NowNs()},
                  {"cpus", Affinity()},
                  {"env", DeviceEnv()}});
  if (child_ms >= 0 && fork() == 0) Linger(record, child_ms);
  if (!barrier.empty()) Barrier(barrier, barrier_n, std::chrono::seconds(120));
  if (!gate.empty()) Gate(gate);
  double quality = 1.0 / (1.0 + std::abs(std::log10(lr) + 2.0));
  int code = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    if (!SleepUnlessTerminated(sleep_ms)) {
      code = 143;
      break;
    }
    std::printf("{\"epoch\": %d, \"score\": %.17g}\n", epoch,
                quality * epoch / (epoch + 1.0));
    std::fflush(stdout);
  }
  Append(record, {{"event", "end"}, {"pid", getpid()}, {"t", NowNs()}});
  return code;
}
