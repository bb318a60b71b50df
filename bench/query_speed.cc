// query_speed: how long the query verbs take, and how much memory, on a
// large experiment (a database `bookkeeping --trials 1000000` made). Runs
// the real `tuner` binary for each query, stdout to /dev/null, and takes
// the child's peak RSS from wait4. With --baseline, another build of tuner
// (say, before a change) answers the same queries in the same run.
// Prints one JSON object.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storage/trial_store.h"

namespace {

struct Sample {
  double ms = 0;
  double cpu_ms = 0;  // user + system
  double rss_mb = 0;
  int code = 0;
};

// Runs `argv` with stdout (and stderr) on /dev/null. posix_spawn (vfork
// underneath): a forked copy of this process would count its own pages in
// the child's peak RSS.
Sample RunOnce(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int spawned =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  Sample s;
  if (spawned != 0) {
    s.code = 127;
    return s;
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  s.ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
             .count();
  s.rss_mb = usage.ru_maxrss / 1024.0;
  auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  s.cpu_ms = ms(usage.ru_utime) + ms(usage.ru_stime);
  s.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return s;
}

double Round(double x, double unit) { return std::round(x / unit) * unit; }

// The median time and the largest peak RSS of `repeat` runs.
nlohmann::json Measure(const std::vector<std::string>& argv, int repeat) {
  std::vector<double> ms;
  std::vector<double> cpu;
  double rss = 0;
  int code = 0;
  for (int i = 0; i < repeat; ++i) {
    Sample s = RunOnce(argv);
    ms.push_back(s.ms);
    cpu.push_back(s.cpu_ms);
    rss = std::max(rss, s.rss_mb);
    code = std::max(code, s.code);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  return {{"median_ms", Round(ms[ms.size() / 2], 0.1)},
          {"median_cpu_ms", Round(cpu[cpu.size() / 2], 0.1)},
          {"peak_rss_mb", Round(rss, 0.1)},
          {"exit_code", code}};
}

nlohmann::json MeasureAll(const std::string& tuner, const std::string& db,
                          const std::string& name, int repeat, bool reports) {
  auto verb = [&](std::vector<std::string> words) {
    std::vector<std::string> argv = {tuner, "--db", db};
    argv.insert(argv.end(), words.begin(), words.end());
    return argv;
  };
  nlohmann::json out = {
      {"best", Measure(verb({"best", name}), repeat)},
      {"best_top_10_json",
       Measure(verb({"best", name, "--top", "10", "--format", "json"}),
               repeat)},
      {"status", Measure(verb({"status"}), repeat)},
      {"trials_json", Measure(verb({"trials", name, "--format", "json"}), 1)},
      {"trials_csv", Measure(verb({"trials", name, "--format", "csv"}), 1)},
  };
  if (reports) {
    out["reports_csv"] = Measure(verb({"reports", name, "--format", "csv"}), 1);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"query verbs on a large database"};
  std::string db;
  std::string name = "bookkeeping";
  std::string tuner = TUNER_BINARY;
  std::string baseline;
  std::string baseline_db;
  int repeat = 5;
  bool reports = false;
  app.add_option("--db", db, "the database (bench/bookkeeping made it)")
      ->required();
  app.add_option("--experiment", name, "its experiment");
  app.add_option("--tuner", tuner, "the tuner binary measured");
  app.add_option("--baseline", baseline,
                 "another tuner binary, measured in the same run");
  app.add_option("--baseline-db", baseline_db,
                 "the database the baseline reads (default --db)");
  app.add_option("--repeat", repeat, "runs of best and status (median)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--reports", reports, "also time `reports --format csv`");
  CLI11_PARSE(app, argc, argv);

  // The store migrates the schema (indexes, counts) as any writer does.
  auto start = std::chrono::steady_clock::now();
  auto store = tuner::storage::TrialStore::Open(db);
  if (!store.ok()) {
    std::cerr << "query_speed: " << store.message() << "\n";
    return 1;
  }
  store.value().reset();
  double open_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  nlohmann::json out = {
      {"db", db},
      {"open_and_migrate_s", Round(open_s, 0.001)},
      {"tuner", MeasureAll(tuner, db, name, repeat, reports)}};
  if (!baseline.empty()) {
    out["baseline"] =
        MeasureAll(baseline, baseline_db.empty() ? db : baseline_db, name,
                   repeat, reports);
  }
  std::cout << out.dump() << std::endl;
  return 0;
}
