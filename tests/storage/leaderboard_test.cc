// The leaderboard: the writer keeps a prefix of each experiment's ranking
// indexed, and `best` reads the same trials from it as from a scan of all.
#include "storage/leaderboard.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "storage/best_order.h"
#include "storage/schema.h"
#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/experiment_record.h"
#include "tests/support/fresh_dir.h"

namespace tuner::storage {
namespace {

using core::Mode;

ExperimentRecord Experiment(const std::string& name, core::Mode mode) {
  return testing::ExperimentNamed(name, mode);
}

TEST_CASE("RanksBefore orders ranks as SQLite sorts the board's index",
          "[storage][leaderboard]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double keys[] = {-inf, -2.0, -0.0, 0.0, 0.5, 3.0, inf};
  const std::optional<double> times[] = {std::nullopt, -inf, 1.0, 2.0, inf};
  auto db = Database::Open(":memory:", false).value();
  REQUIRE(db->Execute("CREATE TABLE trials (id INTEGER PRIMARY KEY, "
                      "last_key REAL, last_time REAL)")
              .ok());
  auto insert = db->Prepare("INSERT INTO trials VALUES (?1, ?2, ?3)").value();
  std::vector<Rank> ranks;
  std::mt19937 random(7);
  for (double key : keys) {
    for (const auto& time : times) {
      for (int copy = 0; copy < 2; ++copy) {
        Rank rank{key, time, static_cast<core::TrialId>(random() % 100000)};
        insert.Bind(1, rank.id).Bind(2, key).Bind(3, time);
        if (!insert.Run().ok()) continue;  // an id drawn twice
        ranks.push_back(rank);
      }
    }
  }
  std::vector<core::TrialId> by_sql;
  // BestTrialsWhereOrder filters on experiment_id: query without it.
  auto plain = db->Prepare(
                     "SELECT id FROM trials ORDER BY "
                     "(abs(last_key) <= 1.7976931348623157e308) DESC, "
                     "(abs(last_time) <= 1.7976931348623157e308) DESC, "
                     "last_time DESC, last_key, id")
                   .value();
  while (plain.Step().value()) by_sql.push_back(plain.Int(0));
  std::sort(ranks.begin(), ranks.end(), RanksBefore);
  std::vector<core::TrialId> by_rank;
  for (const auto& rank : ranks) by_rank.push_back(rank.id);
  CHECK(by_rank == by_sql);
  CHECK(by_rank.size() > 50);
}

// The experiment's trials with a value, best first, by a scan that does
// not use the board.
std::vector<core::TrialId> ScannedBest(Database& db, ExperimentId e,
                                       Mode mode) {
  auto stmt = db.Prepare("SELECT id FROM trials " +
                         BestTrialsWhereOrder(mode, BestBy::kLast,
                                              LastOrderColumn::kLastKey))
                  .value();
  stmt.Bind(1, e).Bind(2, int64_t{1} << 40);
  std::vector<core::TrialId> ids;
  while (stmt.Step().value()) ids.push_back(stmt.Int(0));
  return ids;
}

std::vector<core::TrialId> BoardBest(TrialStore& store,
                                     const ExperimentRecord& e, int64_t limit) {
  auto best = store.trials().Best(e, limit);
  REQUIRE(best.ok());
  std::vector<core::TrialId> ids;
  for (const auto& t : best.value()) ids.push_back(t.id);
  return ids;
}

// The experiment's trials with a value, best first, as RanksBefore orders
// the rows the store lists (its own connection: uncommitted writes too).
std::vector<core::TrialId> OwnRanking(TrialStore& store,
                                      const ExperimentRecord& e) {
  std::vector<Rank> ranks;
  auto trials = store.trials().List(e.id);
  REQUIRE(trials.ok());
  for (const auto& t : trials.value()) {
    if (!t.last_value) continue;
    double key = e.mode == Mode::kMax ? -*t.last_value : *t.last_value;
    ranks.push_back({key, t.last_time, t.id});
  }
  std::sort(ranks.begin(), ranks.end(), RanksBefore);
  std::vector<core::TrialId> ids;
  for (const auto& rank : ranks) ids.push_back(rank.id);
  return ids;
}

// Every trial on the board ranks before every trial with a value off it,
// the board holds at most `high` of them, and its size is stored.
void CheckInvariant(Database& db, ExperimentId e, int64_t high) {
  auto ranked = db.Prepare(
                      "SELECT contender FROM trials WHERE experiment_id = ?1 "
                      "AND last_key IS NOT NULL ORDER BY "
                      "(abs(last_key) <= 1.7976931348623157e308) DESC, "
                      "(abs(last_time) <= 1.7976931348623157e308) DESC, "
                      "last_time DESC, last_key, id")
                    .value();
  ranked.Bind(1, e);
  bool off_seen = false;
  int64_t on_board = 0;
  while (ranked.Step().value()) {
    bool on = ranked.Int(0) != 0;
    CHECK_FALSE((on && off_seen));
    off_seen = off_seen || !on;
    on_board += on;
  }
  CHECK(on_board <= high);
  auto size =
      db.Prepare("SELECT board_size FROM experiments WHERE id = ?1").value();
  REQUIRE(size.Bind(1, e).Step().value());
  CHECK(size.Int(0) == on_board);
}

TEST_CASE(
    "the board reads the same best trials as a scan, through any "
    "sequence of reports, ends and commits, of one writer or two",
    "[storage][leaderboard]") {
  auto dir = testing::FreshDir("leaderboard");
  std::string path = (dir / "t.db").string();
  // A small board, so that it fills, overflows, falls short and refills.
  BoardLimits limits = GENERATE(BoardLimits{2, 4, 6}, BoardLimits{1, 2, 3});
  auto store = TrialStore::Open(path, limits).value();
  // Another writer of the file, now and then, between the store's
  // transactions: what the store kept of the rows it wrote is stale then.
  auto other = TrialStore::Open(path, limits).value();
  auto reader = Database::Open(path, true).value();
  std::mt19937 random(GENERATE(1, 2, 3));
  std::map<Mode, ExperimentRecord> experiments;
  for (auto mode : {Mode::kMax, Mode::kMin}) {
    auto record = Experiment(std::string(core::ToString(mode)), mode);
    record.id = store->experiments().Create(record).value();
    experiments[mode] = record;
  }
  std::map<Mode, std::vector<core::TrialId>> trials;
  std::map<core::TrialId, int64_t> seqs;
  for (int step = 0; step < 600; ++step) {
    Mode mode = random() % 2 ? Mode::kMax : Mode::kMin;
    auto& ids = trials[mode];
    int action = random() % 10;
    if (ids.empty() || action == 0) {
      ids.push_back(
          store->trials()
              .Add(experiments[mode].id, static_cast<int64_t>(ids.size()), {})
              .value());
      continue;
    }
    core::TrialId t = ids[random() % ids.size()];
    // Times go up and down (a retried trial starts over), values repeat.
    double time = static_cast<double>(random() % 6);
    double value = static_cast<double>(random() % 9) / 4 - 1;
    if (action <= 6) {
      REQUIRE(
          store->reports().Append({t, ++seqs[t], time, value, {}}, mode).ok());
    } else if (action == 7) {
      std::optional<double> end_time;
      if (random() % 2) end_time = time;
      REQUIRE(store->trials()
                  .Finish(t, {core::TrialStatus::kCompleted, 0, "", end_time})
                  .ok());
    } else if (action == 8) {
      // Inside the transaction: the writer's own reads see its writes.
      for (auto& [m, e] : experiments) {
        auto all = OwnRanking(*store, e);
        for (int64_t n : {1, 3, 8}) {
          auto want = all;
          if (static_cast<int64_t>(want.size()) > n) want.resize(n);
          INFO("mode " << core::ToString(m) << " top " << n << " step " << step
                       << " (uncommitted)");
          CHECK(BoardBest(*store, e, n) == want);
        }
      }
    } else {
      REQUIRE(store->Commit().ok());
      if (random() % 3 == 0) {
        REQUIRE(other->reports()
                    .Append({t, ++seqs[t], time, value, {}}, mode)
                    .ok());
        if (random() % 2) {
          REQUIRE(
              other->trials()
                  .Finish(t, {core::TrialStatus::kStopped, 0, "", std::nullopt})
                  .ok());
        }
        REQUIRE(other->Commit().ok());
      }
      for (auto& [m, e] : experiments) {
        CheckInvariant(*reader, e.id, limits.high);
        auto all = ScannedBest(*reader, e.id, m);
        for (int64_t n : {1, 2, 3, 5, 8}) {
          auto want = all;
          if (static_cast<int64_t>(want.size()) > n) want.resize(n);
          INFO("mode " << core::ToString(m) << " top " << n << " step "
                       << step);
          CHECK(BoardBest(*store, e, n) == want);
          auto read_only = TrialStore::OpenReadOnly(path).value();
          CHECK(BoardBest(*read_only, e, n) == want);
        }
      }
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "a board is written only where its size or completeness differs from "
    "its row",
    "[storage][leaderboard]") {
  auto dir = testing::FreshDir("leaderboard-writes");
  std::string path = (dir / "t.db").string();
  auto store = TrialStore::Open(path, BoardLimits{1, 2, 3}).value();
  auto record = Experiment("e", Mode::kMax);
  record.id = store->experiments().Create(record).value();
  REQUIRE(store->Commit().ok());
  {
    auto db = Database::Open(path, false).value();
    REQUIRE(db->Execute("CREATE TABLE board_writes (size); "
                        "CREATE TRIGGER log_board AFTER UPDATE OF board_size "
                        "ON experiments BEGIN INSERT INTO board_writes "
                        "VALUES (NEW.board_size); END")
                .ok());
  }
  auto writes = [&] {
    auto db = Database::Open(path, true).value();
    auto count = db->Prepare("SELECT count(*) FROM board_writes").value();
    REQUIRE(count.Step().value());
    return count.Int(0);
  };
  auto enter = [&](int64_t index, double value) {
    auto t = store->trials().Add(record.id, index, {}).value();
    REQUIRE(store->reports().Append({t, 1, 1.0, value, {}}, Mode::kMax).ok());
    REQUIRE(store->Commit().ok());
  };
  for (int64_t i = 0; i < 3; ++i) enter(i, i);  // fills it: 1, 2, 3
  CHECK(writes() == 3);
  enter(3, 10);  // on, and the worst off: 3, no longer complete
  CHECK(writes() == 4);
  enter(4, 20);  // on, and the worst off: as its row says
  enter(5, 30);
  CHECK(writes() == 4);
  CheckInvariant(*Database::Open(path, true).value(), record.id, 3);
  store.reset();
  std::filesystem::remove_all(dir);
}

TEST_CASE("a trial the board put back on in a refill moves from there",
          "[storage][leaderboard]") {
  auto dir = testing::FreshDir("leaderboard-refill");
  std::string path = (dir / "t.db").string();
  auto store = TrialStore::Open(path, BoardLimits{1, 2, 3}).value();
  auto record = Experiment("e", Mode::kMax);
  record.id = store->experiments().Create(record).value();
  std::map<char, core::TrialId> t;
  std::map<char, int64_t> seq;
  auto report = [&](char name, double time, double value) {
    REQUIRE(store->reports()
                .Append({t[name], ++seq[name], time, value, {}}, Mode::kMax)
                .ok());
    REQUIRE(store->trials().List(record.id).ok());  // writes it at once
  };
  for (char name : {'a', 'b', 'c', 'd'})
    t[name] = store->trials().Add(record.id, name, {}).value();
  report('a', 1, 3);
  report('b', 1, 2);
  report('c', 1, 1);
  report('d', 1, 0.5);  // the board is full: d stays off
  REQUIRE(store->Commit().ok());
  // a, b, c fall behind d one by one; the last leaves the board empty,
  // and the refill puts d and a on.
  report('a', 0, 3);
  report('b', 0, 2);
  report('c', 0, 1);
  report('a', 2, 1);  // a, on the board again, moves to the top
  auto reader = Database::Open(path, true).value();
  REQUIRE(store->Commit().ok());
  CheckInvariant(*reader, record.id, 3);
  CHECK(BoardBest(*store, record, 2) ==
        std::vector<core::TrialId>{t['a'], t['d']});
  CHECK(BoardBest(*store, record, 4) ==
        ScannedBest(*reader, record.id, Mode::kMax));
  store.reset();
  reader.reset();
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "a report without a usable time, and best without a limit, rank "
    "as a scan does",
    "[storage][leaderboard]") {
  auto dir = testing::FreshDir("leaderboard-nan");
  std::string path = (dir / "t.db").string();
  auto store = TrialStore::Open(path, BoardLimits{1, 2, 3}).value();
  auto record = Experiment("e", Mode::kMin);
  record.id = store->experiments().Create(record).value();
  std::vector<core::TrialId> ids;
  for (int64_t i = 0; i < 6; ++i) {
    ids.push_back(store->trials().Add(record.id, i, {}).value());
    REQUIRE(store->reports()
                .Append({ids[i], 1, 5.0, 1.0 * i, {}}, Mode::kMin)
                .ok());
  }
  REQUIRE(store->Commit().ok());
  // The best trial reports again, then with a NaN time: its row's time
  // becomes NULL, which ranks after every time.
  REQUIRE(store->reports().Append({ids[0], 2, 6.0, 0.0, {}}, Mode::kMin).ok());
  REQUIRE(store->trials().List(record.id).ok());  // written, and ranked
  REQUIRE(store->reports()
              .Append({ids[0], 3, std::nan(""), 0.0, {}}, Mode::kMin)
              .ok());
  REQUIRE(store->Commit().ok());
  auto reader = Database::Open(path, true).value();
  CheckInvariant(*reader, record.id, 3);
  auto all = ScannedBest(*reader, record.id, Mode::kMin);
  CHECK(all.back() == ids[0]);
  CHECK(BoardBest(*store, record, 2) ==
        std::vector<core::TrialId>{all[0], all[1]});
  CHECK(BoardBest(*store, record, -1) == all);
  store.reset();
  reader.reset();
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "a trial's write that fails leaves the board as the rows are: its "
    "placement is abandoned, and the trials it moved are where they were",
    "[storage][leaderboard]") {
  auto dir = testing::FreshDir("leaderboard-abandon");
  std::string path = (dir / "t.db").string();
  auto store = TrialStore::Open(path, BoardLimits{1, 2, 3}).value();
  auto record = Experiment("e", Mode::kMax);
  record.id = store->experiments().Create(record).value();
  std::vector<core::TrialId> ids;
  for (int64_t i = 0; i < 6; ++i) {
    ids.push_back(store->trials().Add(record.id, i, {}).value());
    REQUIRE(store->reports()
                .Append({ids[i], 1, 1.0, 1.0 * i, {}}, Mode::kMax)
                .ok());
  }
  REQUIRE(store->Commit().ok());
  auto reader = Database::Open(path, true).value();
  CheckInvariant(*reader, record.id, 3);
  // Another connection refuses the end of the worst trial, which the
  // board holds off; its values alone are written.
  {
    auto other = Database::Open(path, false).value();
    REQUIRE(other
                ->Execute("CREATE TRIGGER refuse_end BEFORE UPDATE OF status "
                          "ON trials WHEN NEW.id = " +
                          std::to_string(ids[0]) +
                          " BEGIN SELECT RAISE(ABORT, 'refused'); END")
                .ok());
  }
  // Its end carries the best value yet, at a later time: the board places
  // it first, moving the others down and one off, then the write fails.
  REQUIRE(store->reports().Append({ids[0], 2, 2.0, 10.0, {}}, Mode::kMax).ok());
  CHECK_FALSE(store->trials()
                  .Finish(ids[0], {core::TrialStatus::kCompleted, 0, "", 2.0})
                  .ok());
  // Within the batch, the board ranks as the rows are (a read writes the
  // refused trial's values first, without a status: the trigger lets them
  // through).
  for (int64_t n : {1, 3}) {
    auto want = OwnRanking(*store, record);
    want.resize(n);
    CHECK(BoardBest(*store, record, n) == want);
  }
  REQUIRE(store->reports().Append({ids[1], 2, 2.0, 0.5, {}}, Mode::kMax).ok());
  REQUIRE(store->Commit().ok());
  CheckInvariant(*reader, record.id, 3);
  auto after = ScannedBest(*reader, record.id, Mode::kMax);
  REQUIRE(after.size() == 6);
  CHECK(after[0] == ids[0]);
  for (int64_t n : {1, 2, 3, 6}) {
    auto want = after;
    want.resize(n);
    CHECK(BoardBest(*store, record, n) == want);
  }
  store.reset();
  reader.reset();
  std::filesystem::remove_all(dir);
}

TEST_CASE("a database of schema 12 gets a board of its best 128 trials",
          "[storage][leaderboard]") {
  auto dir = testing::FreshDir("leaderboard-migration");
  std::string path = (dir / "t.db").string();
  std::vector<core::TrialId> before;
  {
    auto store = TrialStore::Open(path).value();
    auto e = store->experiments().Create(Experiment("e", Mode::kMax)).value();
    for (int64_t i = 0; i < 300; ++i) {
      auto t = store->trials().Add(e, i, {}).value();
      double value = static_cast<double>((i * 37) % 300);
      REQUIRE(store->reports()
                  .Append({t, 1, 1.0 + i % 3, value, {}}, Mode::kMax)
                  .ok());
    }
    REQUIRE(store->Commit().ok());
    auto db = Database::Open(path, false).value();
    before = ScannedBest(*db, e, Mode::kMax);
    REQUIRE(db->Execute("DROP INDEX trials_board; "
                        "ALTER TABLE trials DROP COLUMN contender; "
                        "ALTER TABLE experiments DROP COLUMN board_complete; "
                        "ALTER TABLE experiments DROP COLUMN board_size; "
                        "CREATE INDEX trials_best_last ON trials "
                        "(experiment_id, last_key) WHERE last_key IS NOT NULL; "
                        "PRAGMA user_version = 12")
                .ok());
  }
  auto store = TrialStore::Open(path).value();
  auto e = store->experiments().Find("e").value().value();
  auto db = Database::Open(path, true).value();
  auto on_board = db->Prepare(
                        "SELECT count(*), (SELECT board_complete FROM "
                        "experiments), (SELECT board_size FROM experiments) "
                        "FROM trials WHERE contender = 1")
                      .value();
  REQUIRE(on_board.Step().value());
  CHECK(on_board.Int(0) == 128);
  CHECK(on_board.Int(1) == 0);
  CHECK(on_board.Int(2) == 128);
  CheckInvariant(*db, e.id, 256);
  for (int64_t n : {1, 10, 128, 129, 300}) {
    auto want = before;
    want.resize(std::min<size_t>(n, want.size()));
    CHECK(BoardBest(*store, e, n) == want);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tuner::storage
