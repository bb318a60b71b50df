#include "schedulers/ranked_rung.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tuner::schedulers {

double Internal(double value, core::Mode mode) {
  if (!std::isfinite(value)) return std::numeric_limits<double>::infinity();
  return mode == core::Mode::kMax ? -value : value;
}

int64_t TopCount(int64_t n, double reduction_factor) {
  auto keep = static_cast<int64_t>(std::floor(n / reduction_factor));
  // n / rf may land just below an integer (e.g. 9 / 3.0000000001).
  if (static_cast<double>(keep + 1) * reduction_factor <= n * (1 + 1e-12))
    ++keep;
  return keep;
}

void RankedRung::AddToBlockCount(size_t block, int64_t delta) {
  for (size_t i = block + 1; i < fenwick_.size(); i += i & (~i + 1))
    fenwick_[i] += delta;
}

int64_t RankedRung::CountBeforeBlock(size_t block) const {
  int64_t sum = 0;
  for (size_t i = block; i > 0; i -= i & (~i + 1)) sum += fenwick_[i];
  return sum;
}

void RankedRung::SplitBlock(size_t block) {
  std::vector<Key>& full = blocks_[block];
  std::vector<Key> upper(full.begin() + full.size() / 2, full.end());
  full.resize(full.size() / 2);
  firsts_.insert(firsts_.begin() + block + 1, upper.front());
  blocks_.insert(blocks_.begin() + block + 1, std::move(upper));
  fenwick_.assign(blocks_.size() + 1, 0);  // rebuilt: O(blocks)
  for (size_t i = 1; i <= blocks_.size(); ++i) {
    fenwick_[i] += static_cast<int64_t>(blocks_[i - 1].size());
    size_t parent = i + (i & (~i + 1));
    if (parent <= blocks_.size()) fenwick_[parent] += fenwick_[i];
  }
}

RankedRung::Key RankedRung::Insert(double internal) {
  Key key{internal, sequence_++};
  if (blocks_.empty()) {
    blocks_.push_back({key});
    firsts_.push_back(key);
    fenwick_.assign(2, 1);
    size_ = 1;
    return key;
  }
  auto after = std::upper_bound(firsts_.begin(), firsts_.end(), key);
  size_t block = after == firsts_.begin() ? 0 : (after - firsts_.begin()) - 1;
  std::vector<Key>& keys = blocks_[block];
  keys.insert(std::lower_bound(keys.begin(), keys.end(), key), key);
  firsts_[block] = keys.front();
  AddToBlockCount(block, 1);
  ++size_;
  if (keys.size() > 2 * kBlock) SplitBlock(block);
  return key;
}

int64_t RankedRung::CountBelow(const Key& key) const {
  auto after = std::upper_bound(firsts_.begin(), firsts_.end(), key);
  if (after == firsts_.begin()) return 0;
  size_t block = (after - firsts_.begin()) - 1;
  const std::vector<Key>& keys = blocks_[block];
  return CountBeforeBlock(block) +
         (std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
}

int64_t RankedRung::RankOf(double internal) const {
  return CountBelow({internal, std::numeric_limits<int64_t>::min()}) + 1;
}

double RankedRung::ValueAt(int64_t order) const {
  // Fenwick descent: the block holding the order-th key.
  size_t pos = 0;
  size_t step = 1;
  while (step * 2 < fenwick_.size()) step *= 2;
  for (; step > 0; step /= 2) {
    if (pos + step < fenwick_.size() && fenwick_[pos + step] <= order) {
      pos += step;
      order -= fenwick_[pos];
    }
  }
  return blocks_[pos][static_cast<size_t>(order)].first;
}

void RankedRung::AddCandidate(core::TrialId trial, Key key) {
  candidates_.emplace(key, trial);
  candidate_keys_[trial] = key;
}

void RankedRung::RemoveCandidate(core::TrialId trial) {
  auto it = candidate_keys_.find(trial);
  if (it == candidate_keys_.end()) return;
  candidates_.erase(it->second);
  candidate_keys_.erase(it);
}

std::optional<std::pair<core::TrialId, RankedRung::Key>>
RankedRung::BestCandidate() const {
  if (candidates_.empty()) return std::nullopt;
  const auto& [key, trial] = *candidates_.begin();
  return std::make_pair(trial, key);
}

}  // namespace tuner::schedulers
