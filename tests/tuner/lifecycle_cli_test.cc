// The life-cycle verbs end to end (the real `tuner` binary): run --set and
// --name, extend, and delete's question and its refusals.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/catch.h"
#include "tests/support/csv_reader.h"
#include "tests/support/tuner_cli.h"
#include "tests/support/wait_for.h"

namespace tuner::testing {
namespace {

namespace fs = std::filesystem;

// A fresh directory `what` with c.yaml: one trial that reports once.
fs::path SweepDir(const std::string& what) {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-" + what + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "c.yaml")
      << "name: c\ncommand: |\n  echo '{{\"score\": 0.5, \"epoch\": 1}}'\n"
         "shell: true\nmetric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: uniform, low: 0.1, high: 0.9}}\n"
         "num_trials: 1\ndevices: {kind: cpu, slots: 1}\n";
  return dir;
}

TEST_CASE("tuner run --set, extend, delete: exit codes and one-line answers",
          "[tuner][lifecycle][process]") {
  fs::path dir = SweepDir("lifecycle-cli");
  Output bad = RunTuner(dir, "run c.yaml --set scheduler.max_tt=3");
  CHECK(bad.code == 2);
  CHECK(bad.err ==
        "tuner: --set scheduler.max_tt=3: scheduler.max_tt: unknown key (did "
        "you mean 'max_t'?)\n");
  Output run = RunTuner(dir, "run c.yaml --set num_trials=2 --name d");
  INFO(run.err);
  REQUIRE(run.code == 0);
  Output extend = RunTuner(dir, "extend d --trials 1");
  CHECK(extend.code == 0);
  CHECK(extend.out ==
        "d: budget 3 trials (2 so far, finished); run them: tuner resume d\n");
  CHECK(RunTuner(dir, "resume d").code == 0);
  Output unknown = RunTuner(dir, "resume nope");
  CHECK(unknown.code == 1);  // as best and delete answer an unknown name
  CHECK(unknown.err.rfind("tuner: no experiment 'nope' in ", 0) == 0);
  Output unknown_stop = RunTuner(dir, "stop nope");
  CHECK(unknown_stop.code == 1);
  CHECK(unknown_stop.err == unknown.err);
  // extend --run takes resume's --quiet.
  Output quiet = RunTuner(dir, "extend d --trials 1 --run -q");
  INFO(quiet.err);
  CHECK(quiet.code == 0);
  Output refused = RunTuner(dir, "delete d </dev/null");
  CHECK(refused.code == 2);
  CHECK(refused.err.find("stdin is not a terminal; add --yes") !=
        std::string::npos);
  Output deleted = RunTuner(dir, "delete d --yes");
  CHECK(deleted.code == 0);
  CHECK(deleted.out == "d: deleted (4 trials, 1 paths removed)\n");
  CHECK_FALSE(fs::exists(dir / "tuner.db.trials" / "d"));
  // As `tuner best` says it: exit 1, the experiments there are.
  Output gone = RunTuner(dir, "delete d --yes");
  CHECK(gone.code == 1);
  CHECK(gone.err == RunTuner(dir, "best d").err);
  CHECK(gone.err.starts_with("tuner: no experiment 'd' in "));
  Output more = RunTuner(dir, "extend d --trials 1");
  CHECK(more.code == 1);
  CHECK(more.err == gone.err);
  Output nodb = RunTuner(dir, "delete d --yes --db none.db");
  CHECK(nodb.code == 1);
  CHECK(nodb.err == RunTuner(dir, "best d --db none.db").err);
  CHECK(nodb.err.starts_with("tuner: no database at ./none.db"));
  CHECK(RunTuner(dir, "extend d --trials 1 --db none.db").err == nodb.err);
  for (std::string verb : {"resume d", "stop d", "status"}) {
    INFO(verb);
    Output missing = RunTuner(dir, verb + " --db none.db");
    CHECK(missing.code == 1);
    CHECK(missing.err.starts_with("tuner: no database at ./none.db"));
  }
  // A folder where the database should be: bad input, said as such.
  fs::create_directories(dir / "folder.db");
  for (std::string verb : {"resume d", "stop d", "status", "best d",
                           "delete d --yes", "extend d --trials 1"}) {
    INFO(verb);
    Output folder = RunTuner(dir, verb + " --db folder.db");
    CHECK(folder.code == 2);
    CHECK(folder.err ==
          "tuner: ./folder.db is not a database file (--db FILE)\n");
  }
  CHECK_FALSE(fs::exists(dir / "none.db"));
  fs::remove_all(dir);
}

TEST_CASE("tuner delete: answering n deletes nothing, exit 1",
          "[tuner][lifecycle][process]") {
  fs::path dir = SweepDir("lifecycle-no");
  REQUIRE(RunTuner(dir, "run c.yaml").code == 0);
  fs::path root = dir / "tuner.db.trials" / "c";
  Output no = RunTunerTyping(dir, "delete c", "n\n");
  CHECK(no.code == 1);
  CHECK(no.err == "delete experiment 'c' (1 trial, " + root.string() +
                      ")? [y/N] tuner: nothing deleted\n");
  CHECK(no.out.empty());
  CHECK(fs::exists(root / "1" / "stdout.log"));
  CHECK(RunTuner(dir, "best c").code == 0);
  Output yes = RunTunerTyping(dir, "delete c", "y\n");
  CHECK(yes.code == 0);
  CHECK(yes.out == "c: deleted (1 trials, 1 paths removed)\n");
  CHECK_FALSE(fs::exists(root));
  fs::remove_all(dir);
}

// Runs c.yaml in a fresh directory `what`, then moves only its database to
// `moved_to` (`what`-only-db); returns the directory it ran in.
fs::path RunThenMoveOnlyDb(const std::string& what, fs::path& moved_to) {
  fs::path dir = SweepDir(what);
  moved_to = dir.string() + "-only-db";
  fs::remove_all(moved_to);
  fs::create_directories(moved_to);
  REQUIRE(RunTuner(dir, "run c.yaml").code == 0);
  fs::rename(dir / "tuner.db", moved_to / "tuner.db");
  return dir;
}

// What delete says of the trial folder a database moved alone left in
// `dir`.
std::string LeftInPlace(const fs::path& dir) {
  return "tuner: left in place: " + (dir / "tuner.db.trials" / "c").string() +
         ": its trial folder where the database was (the database was moved "
         "or copied without it)\n";
}

TEST_CASE("a copied or moved database runs and deletes in its own folder",
          "[tuner][lifecycle][paths][process]") {
  fs::path a = SweepDir("lifecycle-a");
  fs::path b = a.string() + "-copy";
  fs::path d = a.string() + "-moved";
  fs::remove_all(b);
  fs::remove_all(d);
  REQUIRE(RunTuner(a, "run c.yaml").code == 0);
  fs::copy(a, b, fs::copy_options::recursive);
  Output more = RunTuner(b, "extend c --trials 1 --run -q");
  INFO(more.err);
  CHECK(more.code == 0);
  CHECK(fs::exists(b / "tuner.db.trials" / "c" / "2" / "stdout.log"));
  CHECK_FALSE(fs::exists(a / "tuner.db.trials" / "c" / "2"));
  Output deleted = RunTuner(b, "delete c --yes");
  CHECK(deleted.code == 0);
  CHECK(deleted.out == "c: deleted (2 trials, 1 paths removed)\n");
  CHECK_FALSE(fs::exists(b / "tuner.db.trials" / "c"));
  CHECK(fs::exists(a / "tuner.db.trials" / "c" / "1" / "stdout.log"));

  fs::rename(a, d);
  Output moved = RunTuner(d, "delete c --yes");
  CHECK(moved.code == 0);
  CHECK(moved.out == "c: deleted (1 trials, 1 paths removed)\n");
  CHECK_FALSE(fs::exists(d / "tuner.db.trials" / "c"));
  CHECK_FALSE(fs::exists(a));
  fs::remove_all(b);
  fs::remove_all(d);

  // Only the file moved: the trial folder it left is named, never removed.
  fs::path f;
  fs::path e = RunThenMoveOnlyDb("lifecycle-e", f);
  Output only = RunTuner(f, "delete c --yes");
  CHECK(only.code == 0);
  CHECK(only.out == "c: deleted (1 trials, 0 paths removed)\n");
  CHECK(only.err == LeftInPlace(e));
  CHECK(fs::exists(e / "tuner.db.trials" / "c" / "1" / "stdout.log"));
  fs::remove_all(e);
  fs::remove_all(f);

  // A link in that folder's place is not named as the folder.
  fs::path h;
  fs::path g = RunThenMoveOnlyDb("lifecycle-g", h);
  fs::path real = g / "elsewhere";
  fs::rename(g / "tuner.db.trials" / "c", real);
  fs::create_directory_symlink(real, g / "tuner.db.trials" / "c");
  Output linked = RunTuner(h, "delete c --yes");
  CHECK(linked.code == 0);
  CHECK(linked.err.empty());
  CHECK(fs::exists(real / "1" / "stdout.log"));
  fs::remove_all(g);
  fs::remove_all(h);

  // Moved and renamed: the folder it left is still named.
  fs::path j;
  fs::path i = RunThenMoveOnlyDb("lifecycle-i", j);
  fs::rename(j / "tuner.db", j / "renamed.db");
  Output renamed = RunTuner(j, "delete c --yes --db renamed.db");
  CHECK(renamed.code == 0);
  CHECK(renamed.err == LeftInPlace(i));
  CHECK(fs::exists(i / "tuner.db.trials" / "c" / "1" / "stdout.log"));
  fs::remove_all(i);
  fs::remove_all(j);

  // A lock beside the moved database (the service creates it to hold the
  // experiment) is no trial folder: the one left is still named.
  fs::path l;
  fs::path k = RunThenMoveOnlyDb("lifecycle-k", l);
  fs::create_directories(l / "tuner.db.trials" / "c");
  std::ofstream(l / "tuner.db.trials" / "c" / ".tuner-c.lock").flush();
  Output locked = RunTuner(l, "delete c --yes");
  CHECK(locked.code == 0);
  CHECK(locked.err == LeftInPlace(k));
  CHECK(fs::exists(k / "tuner.db.trials" / "c" / "1" / "stdout.log"));
  fs::remove_all(k);
  fs::remove_all(l);
}

// Waits until `path` exists (a process test: the tuner in the background).
Waited AppearsWithin(const fs::path& path, int seconds) {
  return WaitFor(
      path.string() + " to appear", std::chrono::seconds(seconds),
      [&] { return fs::exists(path); }, std::chrono::milliseconds(50));
}

// A fresh directory `what` with c.yaml: `trials` trials, `slots` at once;
// trial N touches gates/started-N, then reports once when gates/N exists.
// `gates` (emptied) is beside the directory, outside the project.
fs::path GatedSweepDir(const std::string& what, int trials, int slots,
                       fs::path& gates) {
  fs::path dir = SweepDir(what);
  gates = dir.string() + "-gates";
  fs::remove_all(gates);
  fs::create_directories(gates);
  std::ofstream(dir / "c.yaml")
      << "name: c\ncommand: |\n  touch " << gates.string()
      << "/started-{trial_id}\n  while [ ! -e " << gates.string()
      << "/{trial_id} ]; do sleep 0.05; done\n"
         "  echo '{{\"score\": 0.5, \"epoch\": 1}}'\n"
         "shell: true\nmetric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: uniform, low: 0.1, high: 0.9}}\n"
      << "num_trials: " << trials << "\ndevices: {kind: cpu, slots: " << slots
      << "}\n";
  return dir;
}

TEST_CASE(
    "a project moved while its tuner runs launches nothing at the old place, "
    "resumed where it is, its running trial is taken up, not rerun",
    "[tuner][lifecycle][paths][process]") {
  // Trials 1 and 2 run at once. (A folder moved before a trial has started
  // its command may fail that trial: its working directory is gone.)
  fs::path gates;
  fs::path a = GatedSweepDir("running-move", 3, 2, gates);
  fs::path d = a.string() + "-moved";
  fs::remove_all(d);
  std::string background =
      "(cd '" + a.string() + "' && '" TUNER_BINARY "' run c.yaml -q 2> " +
      (gates / "err").string() + "; echo $? > " + (gates / "rc.tmp").string() +
      "; mv " + (gates / "rc.tmp").string() + " " + (gates / "rc").string() +
      ") &";
  REQUIRE(std::system(background.c_str()) == 0);
  fs::path trials = fs::path("tuner.db.trials") / "c";
  REQUIRE(AppearsWithin(gates / "started-1", 30));
  REQUIRE(AppearsWithin(gates / "started-2", 30));
  fs::rename(a, d);
  std::ofstream(gates / "1").put('\n');  // trial 1 ends: a slot is free
  REQUIRE(AppearsWithin(gates / "rc", 30));
  CHECK(ReadFile(gates / "rc") == "1\n");
  CHECK(ReadFile(gates / "err").find("the project folder moved") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(a));  // trial 3 was not launched there
  std::ofstream(gates / "2").put('\n');
  std::ofstream(gates / "3").put('\n');
  Output resumed = RunTuner(d, "resume c -q");
  INFO(resumed.err);
  CHECK(resumed.code == 0);
  auto rows = ParseCsv(RunTuner(d, "reports c --format csv").out);
  CHECK(rows.size() == 4);  // a header, then one report per trial: no rerun
  auto trials_csv = ParseCsv(RunTuner(d, "trials c --format csv").out);
  REQUIRE(trials_csv.size() == 4);
  for (size_t row = 1; row < trials_csv.size(); ++row) {
    INFO(row << ": " << trials_csv[row].back());
    CHECK(trials_csv[row][1] == "completed");  // none lost its exit status
  }
  CHECK(fs::exists(d / trials / "3" / "stdout.log"));
  CHECK_FALSE(fs::exists(a));
  fs::remove_all(d);
  fs::remove_all(gates);
}

TEST_CASE(
    "a sweep stopped after its project moved ends interrupted, its trials "
    "pending, none left running",
    "[tuner][lifecycle][paths][process]") {
  fs::path gates;
  fs::path a = GatedSweepDir("stopped-move", 2, 2, gates);
  fs::path d = a.string() + "-moved";
  fs::remove_all(d);
  std::string g = gates.string();
  std::string background = "sh -c 'cd \"" + a.string() +
                           "\" && \"" TUNER_BINARY "\" run c.yaml -q 2>" + g +
                           "/err & echo $! > " + g +
                           "/pid; wait $!; echo $? > " + g + "/rc.tmp; mv " +
                           g + "/rc.tmp " + g + "/rc' &";
  REQUIRE(std::system(background.c_str()) == 0);
  REQUIRE(AppearsWithin(gates / "started-1", 30));
  REQUIRE(AppearsWithin(gates / "started-2", 30));
  fs::rename(a, d);
  kill(std::stoi(ReadFile(gates / "pid")), SIGINT);
  REQUIRE(AppearsWithin(gates / "rc", 30));
  CHECK(ReadFile(gates / "rc") == "130\n");
  auto trials_csv = ParseCsv(RunTuner(d, "trials c --format csv").out);
  REQUIRE(trials_csv.size() == 3);
  for (size_t row = 1; row < trials_csv.size(); ++row) {
    INFO(row << ": " << trials_csv[row].back());
    CHECK(trials_csv[row][1] == "pending");  // interrupted: resume runs it
  }
  std::ofstream(gates / "1").put('\n');
  std::ofstream(gates / "2").put('\n');
  CHECK(RunTuner(d, "resume c -q").code == 0);
  CHECK_FALSE(fs::exists(a));
  fs::remove_all(d);
  fs::remove_all(gates);
}

TEST_CASE(
    "tuner delete refuses while a killed tuner's trial still runs, then "
    "deletes once it ended",
    "[tuner][lifecycle][process]") {
  fs::path gates;
  fs::path a = GatedSweepDir("orphan-delete", 1, 1, gates);
  std::string background = "cd '" + a.string() +
                           "' && { '" TUNER_BINARY
                           "' run c.yaml -q > /dev/null 2>&1 & echo $! > " +
                           (gates / "pid").string() + "; }";
  REQUIRE(std::system(background.c_str()) == 0);
  REQUIRE(AppearsWithin(gates / "started-1", 30));
  const std::string alone = "  no tuner is running it (killed?)";
  CHECK(RunTuner(a, "status").out.find(alone) == std::string::npos);
  pid_t tuner = std::stoi(ReadFile(gates / "pid"));
  kill(tuner, SIGKILL);
  Output refused;
  WaitFor(
      "the killed tuner's lock to be free", std::chrono::seconds(10),
      [&] {
        refused = RunTuner(a, "delete c --yes");
        return refused.err.find("is running (") == std::string::npos;
      },
      std::chrono::milliseconds(50));
  CHECK(refused.code == 1);
  CHECK(refused.err.starts_with(
      "tuner: experiment 'c' has trials still running with no tuner watching "
      "them: trial 1 (its shim, pid "));
  CHECK(fs::exists(a / "tuner.db.trials" / "c" / "1"));
  Output status = RunTuner(a, "status");
  CHECK(status.out.find(alone + ": its trials go on under their shims; "
                                "`tuner resume c` takes them up\n") !=
        std::string::npos);
  // The database moved alone (with its WAL) refuses the same way: the
  // trial runs in the folder it left.
  fs::path m = a.string() + "-db-moved";
  fs::remove_all(m);
  fs::create_directories(m);
  auto move_db = [](const fs::path& from, const fs::path& to) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::error_code ec;
      fs::rename(from / ("tuner.db" + std::string(suffix)),
                 to / ("tuner.db" + std::string(suffix)), ec);
    }
  };
  move_db(a, m);
  Output moved = RunTuner(m, "delete c --yes");
  CHECK(moved.code == 1);
  CHECK(moved.err.starts_with(
      "tuner: experiment 'c' has trials still running with no tuner watching "
      "them: trial 1 (its shim, pid "));
  move_db(m, a);
  fs::remove_all(m);
  std::ofstream(gates / "1").put('\n');
  Output deleted;
  WaitFor(
      "the trial's shim to end and `delete` to succeed",
      std::chrono::seconds(10),
      [&] {
        deleted = RunTuner(a, "delete c --yes");
        return deleted.code == 0;
      },
      std::chrono::milliseconds(50));
  CHECK(deleted.code == 0);
  CHECK_FALSE(fs::exists(a / "tuner.db.trials" / "c"));
  fs::remove_all(a);
  fs::remove_all(gates);
}

TEST_CASE("tuner run of a changed file, resume of a finished one: one line",
          "[tuner][lifecycle][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-changed-cli-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string yaml =
      "name: c\ncommand: |\n  echo '{{\"score\": 0.5, \"epoch\": 1}}'\n"
      "shell: true\nmetric: score\nmode: max\ntime_attr: epoch\n"
      "search_space: {lr: {type: uniform, low: 0.1, high: 0.9}}\n"
      "num_trials: 1\ndevices: {kind: cpu, slots: 1}\n";
  // Comments and layout are no change.
  std::ofstream(dir / "c.yaml") << "# first\n" << yaml;
  Output run = RunTuner(dir, "run c.yaml -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  std::ofstream(dir / "c.yaml") << yaml << "# more\n";
  Output again = RunTuner(dir, "run c.yaml -q");
  CHECK(again.code == 2);
  CHECK(again.err ==
        "tuner: experiment 'c' already finished in tuner.db; run this file as "
        "a new experiment with --name NEW, or add trials to it with `tuner "
        "extend c --trials N --run` (its results: tuner best c)\n");
  Output resume = RunTuner(dir, "resume c");
  CHECK(resume.code == 2);
  CHECK(resume.err ==
        "tuner: experiment 'c' is finished in tuner.db: nothing to resume; "
        "add trials and run them with `tuner extend c --trials N --run` (its "
        "results: tuner best c)\n");
  std::string fixed = yaml;
  fixed.replace(fixed.find("0.5"), 3, "0.75");
  std::ofstream(dir / "c.yaml") << fixed;
  Output changed = RunTuner(dir, "run c.yaml --set num_trials=3");
  CHECK(changed.code == 2);
  CHECK(changed.err ==
        "tuner: experiment 'c' in tuner.db was started from another config "
        "(these keys differ: command, num_trials); add trials to it as stored "
        "with `tuner extend c --trials N --run`, or run this file as a new "
        "experiment with --name NEW\n");
  CHECK(RunTuner(dir, "run c.yaml --name c2 -q").code == 0);
  fs::remove_all(dir);
}

TEST_CASE("the fail_fast error is printed once",
          "[tuner][lifecycle][process]") {
  fs::path dir = fs::temp_directory_path() /
                 ("tuner-fail-fast-cli-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "f.yaml")
      << "name: f\ncommand: /bin/false {lr}\nmetric: score\nmode: max\n"
         "search_space: {lr: {type: uniform, low: 0.1, high: 0.9}}\n"
         "num_trials: 5\ndevices: {kind: cpu, slots: 1}\n";
  Output run = RunTuner(dir, "run f.yaml -q");
  CHECK(run.code == 1);
  size_t first = run.err.find("fail_fast: the first 3 trials");
  REQUIRE(first != std::string::npos);
  CHECK(run.err.find("fail_fast:", first + 1) == std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tuner::testing
