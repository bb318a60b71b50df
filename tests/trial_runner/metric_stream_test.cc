// Real-world lines from training scripts (Hugging Face Trainer, Habana and
// Neuron tools; their formats are in docs/trainer.md), through the stateful
// MetricStream.
#include "trial_runner/output/metric_stream.h"

#include <cmath>
#include <vector>

#include "tests/catch.h"
#include "trial_runner/output/rank_prefix.h"

namespace tuner::runner {
namespace {

std::vector<core::Metrics> Feed(const std::vector<std::string>& lines,
                                MetricFormat format = {}) {
  MetricStream stream(format);
  std::vector<core::Metrics> out;
  auto emit = [&](core::Metrics m) { out.push_back(std::move(m)); };
  for (const auto& line : lines) stream.Feed(line, emit);
  stream.Finish(emit);
  return out;
}

double Get(const core::Metrics& m, const std::string& key) {
  auto v = core::FindMetric(m, key);
  INFO(key);
  REQUIRE(v.has_value());
  return *v;
}

// One line, one report: the value of `key` in it.
double One(const std::string& line, const std::string& key) {
  auto reports = Feed({line});
  INFO(line);
  REQUIRE(reports.size() == 1);
  return Get(reports[0], key);
}

TEST_CASE("Trainer dict lines of every era", "[runner][parser]") {
  // transformers <= 4.3x: str() of raw floats, epoch rounded to 2 digits
  CHECK(One("{'loss': 0.5604, 'learning_rate': 4.57912457912458e-05, "
            "'epoch': 1.68}",
            "learning_rate") == 4.57912457912458e-05);
  // 4.4x-4.5x: grad_norm appears
  CHECK(One("{'loss': 0.1085, 'grad_norm': 0.030439501628279686, "
            "'learning_rate': 1.941978532056861e-05, 'epoch': 0.09}",
            "grad_norm") == 0.030439501628279686);
  // 5.x: every float a .4g string
  CHECK(One("{'loss': '0.6931', 'grad_norm': '1.234', 'learning_rate': "
            "'2e-05', 'epoch': '1'}",
            "epoch") == 1);
  CHECK(One("{'loss': '1.235e+05', 'epoch': '2'}", "loss") == 123500);
  CHECK(One("{'eval_loss': 0.3853, 'eval_accuracy': 0.8554, 'eval_f1': "
            "0.8981, 'eval_runtime': 5.1234, 'eval_samples_per_second': "
            "79.635, 'eval_steps_per_second': 9.955, 'epoch': 3.0}",
            "eval_f1") == 0.8981);
  CHECK(One("{'eval_loss': '0.4101', 'eval_accuracy': '0.8382', 'eval_f1': "
            "'0.8862', 'eval_runtime': '1.203', 'eval_samples_per_second': "
            "'339.2', 'eval_steps_per_second': '42.4', 'epoch': '1'}",
            "eval_f1") == 0.8862);
  CHECK(One("{'train_runtime': 95.2345, 'train_samples_per_second': 115.6, "
            "'train_steps_per_second': 3.623, 'train_loss': 0.4123, "
            "'epoch': 3.0}",
            "train_loss") == 0.4123);
  CHECK(One("{'epoch': 0.9996, 'eval_f1': 0.88}", "epoch") == 0.9996);
}

TEST_CASE("GaudiTrainer lines: keys with spaces, numpy scalars",
          "[runner][parser]") {
  CHECK(One("{'loss': 0.4822, 'grad_norm': 2.51, 'learning_rate': 2.5e-05, "
            "'epoch': 1.0, 'memory_allocated (GB)': 5.37, "
            "'max_memory_allocated (GB)': 8.91, 'total_memory_available "
            "(GB)': 31.27}",
            "total_memory_available (GB)") == 31.27);
  CHECK(One("{'loss': 0.4822, 'learning_rate': 2.5e-05, 'epoch': 1.0, "
            "'memory_allocated (GB)': np.float64(5.37), "
            "'max_memory_allocated (GB)': np.float64(8.91), "
            "'total_memory_available (GB)': np.float64(31.27)}",
            "memory_allocated (GB)") == 5.37);
  CHECK(One("{\"it's\": 1.0, 'loss': 0.2}", "it's") == 1.0);
}

TEST_CASE("nan, inf, -inf, raw and quoted", "[runner][parser]") {
  CHECK(
      std::isnan(One("{'loss': nan, 'grad_norm': nan, 'learning_rate': "
                     "5e-05, 'epoch': 0.5}",
                     "loss")));
  CHECK(std::isinf(
      One("{'loss': inf, 'grad_norm': inf, 'epoch': 0.5}", "grad_norm")));
  CHECK(One("{'eval_loss': -inf, 'epoch': 1.0}", "eval_loss") == -INFINITY);
  CHECK(std::isnan(
      One("{'loss': 'nan', 'grad_norm': 'inf', 'epoch': '0.5'}", "loss")));
  CHECK(std::isnan(
      One("[tune-metric]: {\"epoch\": 2, \"metric\": NaN}", "metric")));
}

TEST_CASE("JSON lines and Syne Tune's tag", "[runner][parser]") {
  CHECK(One(R"({"epoch": 1, "eval_f1": 0.9, "step": 115})", "step") == 115);
  CHECK(One("[tune-metric]: {\"step\": 0, \"metric\": 0.0, "
            "\"st_worker_timestamp\": 1644311849.6071281, "
            "\"st_worker_time\": 0.0001048670000045604, "
            "\"st_worker_iter\": 0}",
            "st_worker_time") == 0.0001048670000045604);
  // a truncated string value is skipped, the numbers kept
  auto reports =
      Feed({"{'eval_predictions': '[String too long to display, length: "
            "41230]', 'eval_loss': 0.3, 'epoch': 1.0}"});
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].size() == 2);
}

TEST_CASE("progress bars redrawn before a dict line", "[runner][parser]") {
  CHECK(One("\r 33%|###3      | 115/345 [00:31<01:02,  3.67it/s]\r{'loss': "
            "0.5604, 'epoch': 1.0}",
            "loss") == 0.5604);
}

TEST_CASE("the Trainer's metrics blocks", "[runner][parser]") {
  auto reports = Feed({
      "***** train metrics *****",
      "  epoch                    =        3.0",
      "  total_flos               =  4490144GF",
      "  train_loss               =     0.4123",
      "  train_mem_cpu_alloc_delta =      12MB",
      "  train_runtime            = 11:06:58.82",
      "  train_samples_per_second =    115.605",
      "***** eval metrics *****",
      "  epoch                   =        3.0",
      "  eval_accuracy           =     0.8554",
      "  eval_f1                 =     0.9181",
      "  eval_loss               =        nan",
      "  eval_runtime            = 0:02:12.85",
      "  eval_samples            =        408",
      "[INFO|trainer.py:3697] 2024-05-09 12:00:00,123 >> Saving model",
  });
  REQUIRE(reports.size() == 2);
  CHECK(Get(reports[0], "train_runtime") == Approx(11 * 3600 + 6 * 60 + 58.82));
  CHECK(Get(reports[0], "total_flos") == 4490144);
  CHECK(Get(reports[0], "train_mem_cpu_alloc_delta") == 12);
  CHECK(Get(reports[1], "eval_f1") == 0.9181);
  CHECK(std::isnan(Get(reports[1], "eval_loss")));
  CHECK(Get(reports[1], "eval_runtime") == Approx(132.85));
  CHECK(Get(reports[1], "epoch") == 3.0);
  // optimum-neuron's train.py: a runtime without centiseconds
  auto neuron = Feed({"***** train metrics *****",
                      "  epoch                    =        3.0",
                      "  train_runtime            =    0:08:30",
                      "  train_samples_per_second =     96.337", ""});
  REQUIRE(neuron.size() == 1);
  CHECK(Get(neuron[0], "train_runtime") == 510);
  // GaudiTrainer's keys hold spaces, and sort before train_loss.
  auto gaudi = Feed({"***** train metrics *****",
                     "  epoch                       =        3.0",
                     "  max_memory_allocated (GB)   =      12.34",
                     "  memory_allocated (GB)       =       5.37",
                     "  total_memory_available (GB) =      94.62",
                     "  train_loss                  =     0.3241",
                     "  train_runtime               = 0:08:30.00",
                     "Saving model checkpoint"});
  REQUIRE(gaudi.size() == 1);
  CHECK(Get(gaudi[0], "max_memory_allocated (GB)") == 12.34);
  CHECK(Get(gaudi[0], "train_loss") == 0.3241);
  CHECK(Get(gaudi[0], "train_runtime") == 510);
  // A block at the very end of the output is emitted by Finish.
  auto last =
      Feed({"***** eval metrics *****", "  epoch = 1.0", "  eval_f1 = 0.5"});
  REQUIRE(last.size() == 1);
  CHECK(Get(last[0], "eval_f1") == 0.5);
}

TEST_CASE("lines that are not metrics", "[runner][parser]") {
  auto reports = Feed({
      "***** Running Evaluation *****",
      "  Num examples = 408",
      "  Batch size = 8",
      "[INFO|trainer.py:3697] 2024-05-09 >> ***** Running training *****",
      "{'loss': 0.5, 'epoch': ",
      "{'loss: 0.5}",
      "{'flag': True, 'note': 'done'}",
      std::string("\x00\x01{", 3),
      "accuracy=0.9 (Katib style is opt-in)",
      "Epoch 1/3 ━━━━━━━━━━ 100%",
  });
  CHECK(reports.empty());
}

TEST_CASE("opt-in Katib name=value lines and a user regex",
          "[runner][parser]") {
  MetricFormat katib;
  katib.extra = MetricFormat::Extra::kKatib;
  auto k = Feed({"epoch=1 accuracy=0.9812 loss=0.07",
                 "2024-05-09T10:00:00Z accuracy=.98 Score=-7.53e-05"},
                katib);
  REQUIRE(k.size() == 2);
  CHECK(Get(k[0], "accuracy") == 0.9812);
  CHECK(Get(k[1], "accuracy") == 0.98);
  CHECK(Get(k[1], "Score") == -7.53e-05);
  // A diverged trial's values are read as what they are; a word that only
  // begins like one is not a number.
  auto diverged = Feed({"loss=nan acc=-inf grad=Infinity note=info"}, katib);
  REQUIRE(diverged.size() == 1);
  REQUIRE(diverged[0].size() == 3);
  CHECK(std::isnan(Get(diverged[0], "loss")));
  CHECK(Get(diverged[0], "acc") == -HUGE_VAL);
  CHECK(Get(diverged[0], "grad") == HUGE_VAL);

  MetricFormat one_group;
  one_group.extra = MetricFormat::Extra::kRegex;
  one_group.regex = R"(validation f1 ([0-9.]+))";
  one_group.objective = "f1";
  auto r = Feed({"step 10: validation f1 0.8123"}, one_group);
  REQUIRE(r.size() == 1);
  CHECK(Get(r[0], "f1") == 0.8123);

  MetricFormat two_groups;
  two_groups.extra = MetricFormat::Extra::kRegex;
  two_groups.regex = R"((\w+): ([0-9.e+-]+))";
  auto t = Feed({"epoch: 2 top1: 0.71 top5: 0.93"}, two_groups);
  REQUIRE(t.size() == 1);
  CHECK(Get(t[0], "top5") == 0.93);
  CHECK_FALSE(CheckMetricRegex("(unclosed").ok());
  CHECK_FALSE(CheckMetricRegex("no groups").ok());
}

TEST_CASE("katib and a user regex on a 40 KB line: linear, no crash",
          "[runner][parser][regex]") {
  // std::regex recursed once per character here and overflowed the stack.
  std::string name(40000, 'a');
  MetricFormat katib;
  katib.extra = MetricFormat::Extra::kKatib;
  auto k = Feed({name + "=0.5", std::string(40000, '1') + " x=2"}, katib);
  REQUIRE(k.size() == 2);
  CHECK(Get(k[0], name) == 0.5);
  CHECK(Get(k[1], "x") == 2);
  MetricFormat user;
  user.extra = MetricFormat::Extra::kRegex;
  user.regex = R"((\w+): ([0-9.e+-]+))";
  std::string half(20000, 'a');
  auto r = Feed({half + ": 0." + std::string(20000, '1')}, user);
  REQUIRE(r.size() == 1);
  CHECK(r[0][0].first == half);
  // Empty matches step on instead of looping.
  MetricFormat empty;
  empty.extra = MetricFormat::Extra::kRegex;
  empty.regex = "([0-9]*)";
  empty.objective = "f1";
  auto e = Feed({"f1 0.5 then 7"}, empty);
  REQUIRE(e.size() == 1);
  CHECK(e[0] == core::Metrics{{"f1", 1}, {"f1", 0}, {"f1", 5}, {"f1", 7}});
}

TEST_CASE("stdout disabled: no report at all", "[runner][parser]") {
  MetricFormat off;
  off.enabled = false;
  CHECK(Feed({"{'loss': 0.5, 'epoch': 1.0}"}, off).empty());
}

TEST_CASE("rank prefixes of torchrun --tee and torch 2.2+ are stripped",
          "[runner][parser]") {
  // torchrun --tee 3: `[<role><local rank>]:`, no space
  CHECK(One("[default0]:{'loss': 0.4, 'epoch': 1.0}", "loss") == 0.4);
  CHECK(One("[trainer0]:{\"epoch\": 2, \"acc\": 0.9}", "acc") == 0.9);
  // torch >= 2.2 prefixes a rank's output with `[rank0]: `
  CHECK(One("[rank0]: {'eval_f1': 0.88, 'epoch': 3.0}", "eval_f1") == 0.88);
  // both, as torchrun tees a torch 2.2+ rank
  CHECK(One("[default0]:[rank0]: {'eval_loss': 0.31, 'epoch': 1.0}",
            "eval_loss") == 0.31);
  // Syne Tune's tag after a prefix; the tag itself is not a rank
  CHECK(One("[default0]:[tune-metric]: {\"epoch\": 1, \"f1\": 0.7}", "f1") ==
        0.7);
  // a progress bar redrawn before the dict, prefixed once or at each redraw
  CHECK(One("[default0]: 50%|#####     | 1/2 [00:01<00:01,  1.2it/s]\r{'loss': "
            "0.25, 'epoch': 1.0}",
            "loss") == 0.25);
  CHECK(One("\r 99%|#########9| 99/100 [00:09<00:00]\r[default0]:{'loss': "
            "0.125, 'epoch': 2.0}",
            "loss") == 0.125);
  // the Trainer's block, teed
  auto block = Feed({"[default0]:***** eval metrics *****",
                     "[default0]:  epoch                   =        3.0",
                     "[default0]:  eval_f1                 =     0.9181",
                     "[default0]:[INFO|trainer.py:3697] >> Saving model"});
  REQUIRE(block.size() == 1);
  CHECK(Get(block[0], "eval_f1") == 0.9181);
  // not prefixes: a log level, a timestamp, a bracket inside the text
  CHECK(Feed({"[INFO]:{'loss': 0.1}"}).empty());
  CHECK(Feed({"[2024-05-09 12:00:00,123]:{'loss': 0.1}"}).empty());
}

TEST_CASE("only rank 0 reports when several ranks print", "[runner][parser]") {
  auto reports = Feed({
      "[default1]:{'loss': 0.9, 'epoch': 1.0}",
      "[default0]:{'loss': 0.5, 'epoch': 1.0}",
      "[default1]:[rank1]: {'loss': 0.8, 'epoch': 2.0}",
      "[rank3]: {'loss': 0.7, 'epoch': 2.0}",
      // the global rank decides: local rank 0 of a second node is rank 2
      "[default0]:[rank2]: {'loss': 0.6, 'epoch': 2.0}",
      "[default0]:[rank0]: {'loss': 0.4, 'epoch': 2.0}",
      "{'loss': 0.3, 'epoch': 3.0}",  // unprefixed lines count
  });
  REQUIRE(reports.size() == 3);
  CHECK(Get(reports[0], "loss") == 0.5);
  CHECK(Get(reports[1], "loss") == 0.4);
  CHECK(Get(reports[2], "loss") == 0.3);
  // another rank's lines do not end rank 0's block
  auto block = Feed(
      {"[default0]:***** eval metrics *****", "[default0]:  eval_f1 = 0.91",
       "[default1]:***** eval metrics *****", "[default1]:  eval_f1 = 0.12",
       "[default0]:  eval_loss = 0.2", "[default0]:done"});
  REQUIRE(block.size() == 1);
  CHECK(Get(block[0], "eval_f1") == 0.91);
  CHECK(Get(block[0], "eval_loss") == 0.2);
}

TEST_CASE("StripRankPrefix and VisibleText", "[runner][parser]") {
  auto ranked = StripRankPrefix("[default1]:[rank5]: text");
  CHECK(ranked.rank == 5);
  CHECK(ranked.text == "text");
  CHECK(StripRankPrefix("[default3]:  indented").text == "  indented");
  CHECK(StripRankPrefix("[default3]:  indented").rank == 3);
  CHECK_FALSE(StripRankPrefix("[tune-metric]: {}").rank.has_value());
  CHECK_FALSE(StripRankPrefix("[W socket.cpp:601] [c10d]").rank.has_value());
  CHECK_FALSE(StripRankPrefix("[rank]: x").rank.has_value());
  CHECK_FALSE(StripRankPrefix("[0]: x").rank.has_value());
  CHECK(StripRankPrefix("").text.empty());
  auto visible = VisibleText("[default1]:bar\rbar\r{'a': 1}\r\n");
  CHECK(visible.rank == 1);
  CHECK(visible.text == "{'a': 1}\r\n");
  CHECK(VisibleText("{'a': 1}\r").text == "{'a': 1}\r");
  CHECK(VisibleText("\r\r\r").text == "\r\r\r");
}

}  // namespace
}  // namespace tuner::runner
