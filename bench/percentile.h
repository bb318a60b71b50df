// The benchmarks' one statistic helper.
#ifndef TUNER_BENCH_PERCENTILE_H_
#define TUNER_BENCH_PERCENTILE_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tuner::bench {

// The value at fraction `p` (0..1) of the sorted values, nearest rank
// below; 0 when there are none.
inline double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t at = static_cast<size_t>(p * static_cast<double>(values.size() - 1));
  return values[at];
}

}  // namespace tuner::bench

#endif  // TUNER_BENCH_PERCENTILE_H_
