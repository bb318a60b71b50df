// toy_trainer: a dependency-free stand-in for a training script.
//
// Prints one metric line per epoch with a deterministic curve:
//   score(epoch) = quality * epoch / (epoch + 1),  loss = 1 - score
// where quality is --quality, or derived from --lr (best at lr = 1e-2).
// Switches make it misbehave the ways real trainers do: crash, hang,
// report NaN, print garbage, ignore SIGTERM; --hold-at/--gate hold it at
// an epoch until a file exists.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

extern char** environ;

namespace {

struct Options {
  double lr = 0.01;
  double quality = -1;  // < 0: derived from lr
  int epochs = 10;
  std::string format = "json";  // json | hf | hf-quoted | tune
  int sleep_ms = 0;
  int crash_at = 0;  // exit 3 right after this epoch
  int hang_at = 0;   // sleep forever after this epoch
  int nan_at = 0;    // report NaN from this epoch on
  bool garbage = false;
  bool ignore_sigterm = false;
  std::string env_file;  // write the environment here first
  int hold_at = 0;       // after this epoch, wait until `gate` exists
  std::string gate;
};

void PrintMetrics(const Options& o, int epoch, double score) {
  double loss = 1 - score;
  if (o.format == "hf") {
    std::printf("{'loss': %.4f, 'learning_rate': %g, 'epoch': %.2f}\n", loss,
                o.lr, static_cast<double>(epoch));
    std::printf("{'eval_loss': %.6f, 'eval_score': %.6f, 'epoch': %.1f}\n",
                loss, score, static_cast<double>(epoch));
  } else if (o.format == "hf-quoted") {
    std::printf("{'eval_loss': '%.4g', 'eval_score': '%.4g', 'epoch': '%d'}\n",
                loss, score, epoch);
  } else if (o.format == "tune") {
    std::printf("[tune-metric]: {\"epoch\": %d, \"score\": %.17g}\n", epoch,
                score);
  } else {
    std::printf("{\"epoch\": %d, \"score\": %.17g, \"loss\": %.17g}\n", epoch,
                score, loss);
  }
}

void WriteEnv(const std::string& path) {
  std::ofstream out(path);
  out << "pid=" << getpid() << "\n";
  for (char** e = environ; *e; ++e) out << *e << "\n";
}

// Holds the trial until `path` exists: tests open the gate once they have
// seen what they need of the running sweep, so no timing decides it.
void WaitForGate(const std::string& path) {
  while (access(path.c_str(), F_OK) != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"toy trainer with deterministic curves"};
  app.add_option("--lr", o.lr);
  app.add_option("--quality", o.quality);
  app.add_option("--epochs", o.epochs);
  app.add_option("--format", o.format)
      ->check(CLI::IsMember({"json", "hf", "hf-quoted", "tune"}));
  app.add_option("--sleep-ms", o.sleep_ms);
  app.add_option("--crash-at", o.crash_at);
  app.add_option("--hang-at", o.hang_at);
  app.add_option("--nan-at", o.nan_at);
  app.add_flag("--garbage", o.garbage);
  app.add_flag("--ignore-sigterm", o.ignore_sigterm);
  app.add_option("--env-file", o.env_file);
  app.add_option("--hold-at", o.hold_at);
  app.add_option("--gate", o.gate);
  CLI11_PARSE(app, argc, argv);

  if (o.ignore_sigterm) std::signal(SIGTERM, SIG_IGN);
  if (!o.env_file.empty()) WriteEnv(o.env_file);
  double quality = o.quality >= 0
                       ? o.quality
                       : 1.0 / (1.0 + std::abs(std::log10(o.lr) + 2.0));
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    if (o.sleep_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(o.sleep_ms));
    }
    if (o.garbage) {
      std::printf("}{ not json at all \x01\x02 {'epoch': \n");
      std::printf("{\"epoch\": %d, \"score\": \n", epoch);
      std::printf("Epoch %d/%d ━━━━━━━━━━ 100%%\n", epoch, o.epochs);
    }
    double score = quality * epoch / (epoch + 1.0);
    if (o.nan_at > 0 && epoch >= o.nan_at) score = std::nan("");
    PrintMetrics(o, epoch, score);
    std::fflush(stdout);
    if (epoch == o.crash_at) {
      std::fprintf(stderr, "RuntimeError: simulated crash at epoch %d\n",
                   epoch);
      return 3;
    }
    if (epoch == o.hang_at) {
      for (;;) pause();
    }
    if (epoch == o.hold_at) WaitForGate(o.gate);
  }
  return 0;
}
