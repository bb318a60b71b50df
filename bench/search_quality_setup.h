// The table a search-quality run replays and what each method is measured
// against: the target, E64, the horizon and the floor (see
// bench/search_quality.cc).
#ifndef TUNER_BENCH_SEARCH_QUALITY_SETUP_H_
#define TUNER_BENCH_SEARCH_QUALITY_SETUP_H_

#include <string>
#include <vector>

#include "tuner/sim/curve_table.h"

namespace tuner::bench {

struct Options {
  std::string table, summary, space, metric, mode, time_attr = "epoch";
  int seeds = 20, workers = 8;
  double horizon_factor = 1.5;
  std::vector<std::string> methods;
};

struct Setup {
  sim::CurveTable table;
  std::string metric, time_attr, space_text;
  bool maximise = false;
  double max_t = 0;
  double target = 0;  // expected best of random search, k = 64
  double mean_s = 0;  // mean seconds of a whole run
  double e64_s = 0;
  double horizon_s = 0;
  // The least run time of a row that reaches the target at max_t: no
  // method reaches the target sooner, even one launching that row first.
  double fastest_target_s = 0;
};

// Prints "search_quality: MESSAGE" and exits 2.
[[noreturn]] void Fail(const std::string& message);

// Fills the space, metric and mode left unset from the table's file name
// (kProfiles), and the summary from the table's path (X.jsonl[.xz] ->
// X.summary.json). Fails when one stays unset.
void ApplyDefaults(Options& o);

// The table (a .xz one decompressed), its summary's target and mean run
// seconds, the space's text, E64 for o.workers, the horizon and the floor.
// Fails with a line on stderr on any bad input. REQUIRES: ApplyDefaults(o).
Setup ReadSetup(const Options& o);

}  // namespace tuner::bench

#endif  // TUNER_BENCH_SEARCH_QUALITY_SETUP_H_
