#include "schedulers/sobol.h"

#include <utility>

#include "schedulers/sampling.h"

namespace tuner::schedulers {

namespace {

// Joe & Kuo (2008), new-joe-kuo-6.21201, dimensions 2..21: degree s,
// polynomial coefficients a, initial direction numbers m_1..m_s.
struct Primitive {
  int s;
  uint32_t a;
  std::array<uint32_t, 7> m;
};
constexpr Primitive kPrimitives[] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}},
    {6, 22, {1, 3, 1, 15, 13, 25}},
    {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}},
    {7, 4, {1, 3, 7, 13, 13, 15, 69}},
};

std::array<uint32_t, 32> Directions(const Primitive& p) {
  std::array<uint32_t, 32> v{};
  for (int j = 0; j < 32; ++j) {
    if (j < p.s) {
      v[j] = p.m[j] << (31 - j);
      continue;
    }
    uint32_t x = v[j - p.s] ^ (v[j - p.s] >> p.s);
    for (int k = 1; k < p.s; ++k) {
      if ((p.a >> (p.s - 1 - k)) & 1u) x ^= v[j - k];
    }
    v[j] = x;
  }
  return v;
}

uint32_t ReverseBits(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}

// Laine & Karras' hash: a random permutation of each bit that depends only
// on the bits below it; on reversed bits, an Owen scramble.
uint32_t OwenScramble(uint32_t x, uint32_t seed) {
  x = ReverseBits(x);
  x += seed;
  x ^= x * 0x6c50b47cu;
  x ^= x * 0xb82f1e52u;
  x ^= x * 0xc7afe638u;
  x ^= x * 0x8d22f6e6u;
  return ReverseBits(x);
}

}  // namespace

SobolSequence::SobolSequence(uint64_t seed) : seed_(seed) {
  std::array<uint32_t, 32> first{};
  for (int j = 0; j < 32; ++j) first[j] = 1u << (31 - j);
  directions_.push_back(first);
  for (const auto& p : kPrimitives) directions_.push_back(Directions(p));
  Rng rng(seed ^ 0x50b01u);
  for (int d = 0; d < kMaxDims; ++d)
    scramble_seeds_.push_back(static_cast<uint32_t>(rng.Next()));
}

double SobolSequence::At(uint64_t index, int dim) const {
  if (dim >= kMaxDims) {
    Rng rng = Rng::ForIndex(seed_ ^ static_cast<uint64_t>(dim), index);
    return rng.NextUnit();
  }
  uint32_t x = 0;
  const auto& v = directions_[dim];
  for (int j = 0; j < 32 && (index >> j) != 0; ++j) {
    if ((index >> j) & 1u) x ^= v[j];
  }
  return OwenScramble(x, scramble_seeds_[dim]) * 0x1.0p-32;
}

SobolSearcher::SobolSearcher(core::SearchSpace space, uint64_t seed)
    : space_(std::move(space)),
      sequence_(seed),
      grid_(GridAxes(space_, false)) {}

std::optional<core::Params> SobolSearcher::Suggest(int64_t index) {
  core::Params params;
  grid_.AppendCombination(index, params);
  int dim = 0;
  for (const auto& spec : space_.params) {
    if (spec.distribution == core::Distribution::kGrid) continue;
    double u = sequence_.At(static_cast<uint64_t>(index), dim++);
    params.emplace_back(spec.name, FromUnit(spec, u));
  }
  params = InDeclarationOrder(space_, std::move(params));
  DropInactive(space_, params);
  return params;
}

}  // namespace tuner::schedulers
