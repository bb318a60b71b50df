// DeviceShare on its own: who may take devices, reservations across group
// sizes, wake-ups and preemption. Pure: no process, no clock.
#include "tuner/sweep/device_share.h"

#include <set>
#include <vector>

#include "tests/catch.h"

namespace tuner::testing {
namespace {

// What a test claimant reports to the share, and what the share asked of it.
struct Fake {
  int held = 0;
  int wanted = 0;
  bool reserved = false;
  int wakes = 0;
  std::vector<std::vector<int>> yields;  // the ids of each yield request
  bool yields_ok = true;
};

DeviceShare::Claimant ClaimantOf(Fake& f, double weight,
                                 bool preempts = false) {
  DeviceShare::Claimant c;
  c.weight = weight;
  c.held = [&f] { return f.held; };
  c.wanted = [&f] { return f.wanted; };
  c.wake = [&f] { ++f.wakes; };
  c.reserved = [&f] { return f.reserved; };
  c.preempts = preempts;
  c.yield = [&f](const std::vector<int>& ids) {
    f.yields.push_back(ids);
    return f.yields_ok;
  };
  return c;
}

TEST_CASE("DeviceShare: grants follow the weights and nobody starves",
          "[share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  // Two claimants that always want one more card; 8 cards in all.
  Fake fa{0, 1}, fb{0, 1};
  int a = share.Join(ClaimantOf(fa, 1)), b = share.Join(ClaimantOf(fb, 3));
  int free_cards = 8;
  // Hand out cards one by one to whoever may take one.
  while (free_cards > 0) {
    bool granted = false;
    for (auto [id, f] : {std::pair{a, &fa}, std::pair{b, &fb}}) {
      if (free_cards > 0 && share.MayTake(id)) {
        ++f->held;
        --free_cards;
        share.Took(id);
        granted = true;
      }
    }
    REQUIRE(granted);
  }
  CHECK(fa.held == 2);
  CHECK(fb.held == 6);
  // One of b's cards comes back: b (at 5/3) is below a (2/1) and gets it.
  io.restart();
  io.run();
  fa.wakes = fb.wakes = 0;
  --fb.held;
  share.Released(b);
  io.restart();
  io.run();
  CHECK(fa.wakes == 1);  // the other waiting claimant was woken
  CHECK(share.MayTake(b));
  CHECK_FALSE(share.MayTake(a));
  // A claimant that needs a whole 8-card group and holds none goes first,
  // even though its group does not fit yet: the 1-card ones wait for it.
  Fake fc{0, 8};
  int c = share.Join(ClaimantOf(fc, 1));
  CHECK(share.Turn() == c);
  CHECK_FALSE(share.MayTake(a));
  CHECK_FALSE(share.MayTake(b));
  CHECK(share.MayTake(c));
  // Once it has reserved its group, the others may take the other cards
  // (their pools skip the reserved ones).
  fc.reserved = true;
  CHECK(share.MayTake(a));
  CHECK(share.MayTake(b));
  share.Leave(c);
  CHECK(share.MayTake(b));
}

TEST_CASE("DeviceShare: a tie goes to the claimant served least recently",
          "[share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  Fake fa{0, 1}, fb{0, 1};
  int a = share.Join(ClaimantOf(fa, 1)), b = share.Join(ClaimantOf(fb, 1));
  // a is older: it wins the first tie, then b has not been served yet.
  CHECK(share.Turn() == a);
  fa.held = 1;
  share.Took(a);
  // a's trial fails and a wants its card back at once: b goes first.
  fa.held = 0;
  share.Released(a);
  CHECK(share.Turn() == b);
  CHECK(share.MayTake(b));
  CHECK_FALSE(share.MayTake(a));
}

// A machine of 8 cards; "big" needs aligned groups of 4, "small" single
// cards and always wants more. Cards free up one at a time, the oldest
// small trial first. Like DevicePool, big reserves the group it waits for
// and small skips reserved cards.
TEST_CASE(
    "DeviceShare: a 4-card claimant is not starved by a 1-card one of the "
    "same weight",
    "[share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  Fake fbig{0, 4}, fsmall{0, 1};
  int small = share.Join(ClaimantOf(fsmall, 1));
  std::vector<int> owner(8, 0);  // 0 free, else the claimant
  std::vector<int> small_order;  // cards of small's trials, oldest first
  std::set<int> reserved;
  // small starts alone and fills the machine.
  for (int card = 0; card < 8; ++card) {
    REQUIRE(share.MayTake(small));
    owner[card] = small;
    small_order.push_back(card);
    ++fsmall.held;
    share.Took(small);
  }
  int big = share.Join(ClaimantOf(fbig, 1));
  int big_groups = 0;
  for (int step = 0; step < 64 && big_groups < 1; ++step) {
    // The oldest small trial ends.
    REQUIRE_FALSE(small_order.empty());
    owner[small_order.front()] = 0;
    small_order.erase(small_order.begin());
    --fsmall.held;
    share.Released(small);
    // Both try, in either order: big first on even steps.
    for (int round = 0; round < 2; ++round) {
      bool big_now = (step + round) % 2 == 0;
      if (big_now && share.MayTake(big)) {
        for (int g = 0; g < 8 && big_groups == 0; g += 4) {
          bool all_free = true;
          for (int c = g; c < g + 4; ++c) all_free &= owner[c] == 0;
          if (!all_free) continue;
          for (int c = g; c < g + 4; ++c) owner[c] = big;
          fbig.held += 4;
          ++big_groups;
          reserved.clear();
          fbig.reserved = false;
          share.Took(big);
        }
        if (big_groups == 0 && reserved.empty()) {
          // Reserve the group with the most free cards.
          int free0 = 0, free4 = 0;
          for (int c = 0; c < 4; ++c) free0 += owner[c] == 0;
          for (int c = 4; c < 8; ++c) free4 += owner[c] == 0;
          int g = free0 >= free4 ? 0 : 4;
          for (int c = g; c < g + 4; ++c) reserved.insert(c);
          fbig.reserved = true;
        }
      } else if (!big_now && share.MayTake(small)) {
        for (int c = 0; c < 8; ++c) {
          if (owner[c] != 0 || reserved.count(c) > 0) continue;
          owner[c] = small;
          small_order.push_back(c);
          ++fsmall.held;
          share.Took(small);
          break;
        }
      }
    }
  }
  // big got its group after at most the four trials on it ended, and small
  // never took a reserved card meanwhile.
  CHECK(big_groups == 1);
  CHECK(fbig.held == 4);
  CHECK(fsmall.held <= 4);
}

TEST_CASE("DeviceShare: every change that may pass the turn wakes the others",
          "[share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  Fake fa{0, 2}, fb{0, 1};
  int a = share.Join(ClaimantOf(fa, 1)), b = share.Join(ClaimantOf(fb, 1));
  auto settle = [&] {
    io.restart();
    io.run();
  };
  // a takes a group: b (which waits) is woken, a is not.
  fa.held = 2;
  share.Took(a);
  settle();
  CHECK(fb.wakes == 1);
  CHECK(fa.wakes == 0);
  // a stops waiting without taking or giving back: b is woken again.
  fa.wanted = 0;
  share.Changed(a);
  settle();
  CHECK(fb.wakes == 2);
  // A claimant that waits for nothing is not woken.
  fb.wanted = 0;
  share.Released(a);
  settle();
  CHECK(fb.wakes == 2);
  // a reserved a group while it had the turn, then lost it to b (b gave
  // its card back). b finds no free group: a is woken to drop its
  // reservation.
  fa.held = 0;
  fa.wanted = 2;
  fa.reserved = true;
  fb.wanted = 1;
  fb.held = 0;
  share.Took(b);  // b is now the most recently served: a has the turn
  settle();
  CHECK(share.Turn() == a);
  fa.wakes = 0;
  share.NoFreeGroup(b, {});
  settle();
  CHECK(fa.wakes == 0);  // a has the turn: its reservation is no hold-up
  fa.held = 2;           // a took a group and wants another: b's turn
  CHECK(share.Turn() == b);
  share.NoFreeGroup(b, {});
  settle();
  CHECK(fa.wakes == 1);
}

TEST_CASE("DeviceShare: preemption takes from lower priorities only, once",
          "[share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  Fake low{8, 1}, mid{0, 0}, high{0, 1};
  int l = share.Join(ClaimantOf(low, 1));
  int m = share.Join(ClaimantOf(mid, 4));
  int h = share.Join(ClaimantOf(high, 4, /*preempts=*/true));
  // high has the turn, no free card: low (lower priority, 8 per weight)
  // is asked for a group overlapping high's reservation.
  CHECK(share.Turn() == h);
  CHECK(share.NoFreeGroup(h, {4, 5}) == l);
  REQUIRE(low.yields.size() == 1);
  CHECK(low.yields[0] == std::vector<int>{4, 5});
  // One request at a time: asking again waits for low to give back.
  CHECK_FALSE(share.NoFreeGroup(h, {4, 5}));
  CHECK(low.yields.size() == 1);
  low.held = 7;
  share.Released(l);
  CHECK(share.NoFreeGroup(h, {4, 5}) == l);
  CHECK(low.yields.size() == 2);
  // Nobody of equal or higher priority is preempted, nor anyone by a
  // claimant that does not preempt.
  mid.held = 8;
  low.held = 0;
  low.wanted = 0;
  share.Released(l);
  CHECK_FALSE(share.NoFreeGroup(h, {}));
  CHECK(mid.yields.empty());
  low.held = 8;
  Fake plain{0, 1};
  int p = share.Join(ClaimantOf(plain, 8));
  CHECK_FALSE(share.NoFreeGroup(p, {}));
  // A claimant already at or above the victim's share preempts nobody.
  share.Leave(p);
  share.Leave(m);
  high.held = 40;  // 10 per weight, low 8
  CHECK_FALSE(share.NoFreeGroup(h, {}));
  // A victim with nothing to give back is skipped.
  high.held = 0;
  low.yields_ok = false;
  CHECK_FALSE(share.NoFreeGroup(h, {}));
}

}  // namespace
}  // namespace tuner::testing

namespace tuner::testing {
namespace {

// A card a preempted sweep gives back goes to the sweep that preempted it:
// the victim never takes it again at once for the trial it requeued (which
// would loop, 100 times a second, while the preempting sweep never got it).
TEST_CASE("DeviceShare: what a victim gave back goes to who asked for it",
          "[share]") {
  boost::asio::io_context io;
  DeviceShare share(io);
  Fake low{2, 0}, high{1, 1};
  int l = share.Join(ClaimantOf(low, 1));
  int h = share.Join(ClaimantOf(high, 4, /*preempts=*/true));
  REQUIRE(share.NoFreeGroup(h, {0}) == l);
  // low stops a trial, gives its card back and queues the trial again.
  low.held = 1;
  low.wanted = 1;
  share.Released(l);
  CHECK_FALSE(share.MayTake(l));
  CHECK(share.MayTake(h));
  // Even when low now holds less per weight than high: the turn is high's,
  // so neither waits for the other.
  low.held = 0;
  CHECK(share.Turn() == h);
  CHECK(share.MayTake(h));
  low.held = 1;
  // Once high took the card, low takes its turn again as usual.
  high.held = 2;
  share.Took(h);
  high.wanted = 0;
  CHECK(share.MayTake(l));
  // A requester that stops waiting releases the victim too.
  high.wanted = 1;
  high.held = 1;
  low.held = 2;
  REQUIRE(share.NoFreeGroup(h, {}) == l);
  low.held = 1;
  share.Released(l);
  CHECK_FALSE(share.MayTake(l));
  high.wanted = 0;
  CHECK(share.MayTake(l));
}

}  // namespace
}  // namespace tuner::testing
