#include "tuner/config/config_loader.h"

#include <regex>

#include "tests/catch.h"
#include "tests/support/config_text.h"
#include "tuner/config/launch_spec.h"

namespace tuner {
namespace {

using testing::ExpectError;
using testing::Load;
using testing::Replace;

const std::string kValid = R"(name: sweep-1
command: python3 train.py --lr {lr} --hidden {hidden} --epochs {max_t}
metric: eval_accuracy
mode: max
time_attr: epoch
search_space:
  lr:      {type: loguniform, low: 1.0e-4, high: 1.0}
  hidden:  {type: choice, values: [16, 32, 64, 128]}
  dropout: {type: uniform, low: 0.0, high: 0.5}
  layers:  {type: randint, low: 1, high: 4}
  seed:    {type: grid, values: [1, 2]}
searcher: {type: random, seed: 7}
num_trials: 32
scheduler: {type: asha, max_t: 27, grace_period: 1, reduction_factor: 3}
devices: {kind: cpu, slots: 2}
trial: {timeout: 10m, max_failures: 2}
env: {WANDB_MODE: disabled, OUT: "{trial_dir}/out"}
)";

TEST_CASE("the example config loads", "[tuner][config]") {
  auto config = Load(kValid);
  REQUIRE(config.ok());
  const auto& c = config.value();
  CHECK(c.name == "sweep-1");
  CHECK(c.space.params.size() == 5);
  CHECK(c.space.params[0].distribution == core::Distribution::kLogUniform);
  CHECK(c.space.params[1].values[2] == core::ParamValue(int64_t{64}));
  CHECK(c.searcher.seed == 7);
  CHECK(c.num_trials == 32);
  CHECK(c.scheduler.max_t == 27);
  CHECK(c.devices.slots == 2);
  CHECK(c.trial.timeout == std::chrono::minutes(10));
  CHECK(c.trial.max_failures == 2);
  CHECK(c.workdir == "/work");
  CHECK(c.env.size() == 2);
}

TEST_CASE("the devices section: kinds, groups, launcher, each checked",
          "[tuner][config][devices]") {
  auto c = Load(Replace(kValid, "{kind: cpu, slots: 2}",
                        "{kind: habana, per_trial: 4, ids: [0, 1, 2, 3], "
                        "launcher: docker, image: img, docker_options: "
                        "[--ipc=host], recipe_cache: /cache}"));
  INFO(c.status().message());
  REQUIRE(c.ok());
  const DevicesSpec& d = c.value().devices;
  CHECK(d.kind == "habana");
  CHECK(d.per_trial == 4);
  CHECK(d.ids == std::vector<int>{0, 1, 2, 3});
  CHECK(d.launcher == "docker");
  CHECK(d.docker_options == std::vector<std::string>{"--ipc=host"});
  CHECK(Load(Replace(kValid, "{kind: cpu, slots: 2}", "{kind: auto}")).ok());
  CHECK(Load(Replace(kValid, "--epochs {max_t}",
                     "--devices {devices} --n {num_devices} --port "
                     "{master_port}"))
            .ok());
  ExpectError(
      Replace(kValid, "{kind: cpu, slots: 2}", "{kind: habana, per_trial: 3}"),
      "x.yaml:15: devices.per_trial: Gaudi trials use 1, 2, 4 or 8 "
      "cards (aligned module groups)");
  ExpectError(
      Replace(kValid, "{kind: cpu, slots: 2}", "{kind: neuron, slots: 2}"),
      "x.yaml:15: devices.slots: slots is for kind cpu; neuron trials "
      "get per_trial devices each, as many at once as fit");
  ExpectError(Replace(kValid, "{kind: cpu, slots: 2}",
                      "{kind: cuda, launcher: docker, image: x}"),
              "x.yaml:15: devices.launcher: launcher docker is for kind "
              "habana (the Habana container runtime partitions cards by "
              "HABANA_VISIBLE_DEVICES)");
  ExpectError(Replace(kValid, "{kind: cpu, slots: 2}", "{kind: tpu}"),
              "x.yaml:15: devices.kind: 'tpu' is not one of auto | habana | "
              "neuron | cuda | cpu (did you mean 'cpu'?)");
  // One lock directory for the machine: no config can split exclusion.
  ExpectError(
      Replace(kValid, "{kind: cpu, slots: 2}", "{kind: cpu, lock_dir: locks}"),
      "x.yaml:15: devices.lock_dir: is not a config key: every tuner "
      "on the machine must use the same lock directory; set "
      "$TUNER_LOCK_DIR instead");
}

TEST_CASE("metrics formats and checkpoints, each checked",
          "[tuner][config][trainer]") {
  auto c = Load(kValid +
                "checkpoints: {dir: \"{trial_dir}/out\", keep_best: 2, "
                "resume: \"--resume {checkpoint}\"}\n"
                "metrics_format: trainer_state\n");
  INFO(c.status().message());
  REQUIRE(c.ok());
  CHECK(c.value().checkpoints.keep_best == 2);
  CHECK(c.value().checkpoints.pattern == "checkpoint-*/trainer_state.json");
  CHECK(c.value().metrics_format == "trainer_state");
  ExpectError(kValid + "metrics_format: trainer_state\n",
              "x.yaml:18: metrics_format: trainer_state needs checkpoints.dir "
              "(where trainer_state.json files appear)");
  ExpectError(kValid + "metrics_format: regex\nmetrics_regex: \"(a\"\n",
              "x.yaml:19: metrics_regex: does not compile: missing ): (a");
  // RE2 has no lookaround or backreferences (what makes them slow).
  ExpectError(kValid + "metrics_format: regex\nmetrics_regex: \"(a)(?=b)\"\n",
              "x.yaml:19: metrics_regex: does not compile: invalid perl "
              "operator: (?=");
  ExpectError(kValid + "checkpoints: {dir: x, resume: \"--r {chekpoint}\"}\n",
              "x.yaml:18: checkpoints.resume: placeholder {chekpoint} names no "
              "parameter (did you mean {checkpoint}?)");
  // keep_best removes what the pattern's first component matches: never
  // above or at checkpoints.dir.
  for (std::string pattern : {"../out/checkpoint-*", "./checkpoint-*",
                              "checkpoint-*/../x", "/abs/checkpoint-*"}) {
    INFO(pattern);
    ExpectError(
        kValid + "checkpoints: {dir: x, pattern: \"" + pattern + "\"}\n",
        "x.yaml:18: checkpoints.pattern: a glob inside "
        "checkpoints.dir (relative, no '.' or '..' component), e.g. "
        "checkpoint-*/trainer_state.json");
  }
  CHECK(
      Load(kValid + "checkpoints: {dir: x, pattern: \"ck..1/*.json\"}\n").ok());
}

TEST_CASE("the shipped accelerator configs say what their docs say",
          "[tuner][config][trainer]") {
  auto load = [](const std::string& name) {
    auto c = LoadConfigFile(SOURCE_DIR "/configs/" + name, "/work");
    INFO(name << ": " << c.status().message());
    REQUIRE(c.ok());
    return c.value();
  };
  ExperimentConfig gaudi = load("gaudi-bert-mrpc.yaml");
  CHECK(gaudi.devices.kind == "habana");
  CHECK(gaudi.metric == "eval_f1");
  CHECK(gaudi.scheduler.promotion);
  CHECK(gaudi.checkpoints.dir == "{trial_dir}/output");
  CHECK(gaudi.command.find("--num_train_epochs {max_t}") != std::string::npos);
  CHECK(gaudi.command.find("--eval_strategy epoch --save_strategy epoch") !=
        std::string::npos);
  const auto& lr = gaudi.space.params[0];
  CHECK(lr.distribution == core::Distribution::kLogUniform);
  CHECK(lr.low == 1e-6);
  CHECK(lr.high == 1e-4);
  ExperimentConfig neuron = load("trainium-bert-emotion.yaml");
  CHECK(neuron.devices.kind == "neuron");
  CHECK(neuron.devices.per_trial == 2);
  CHECK(neuron.metric == "loss");
  CHECK(neuron.mode == core::Mode::kMin);
  CHECK_FALSE(neuron.scheduler.promotion);  // NeuronTrainer cannot resume
  CHECK(neuron.command.find("--nproc_per_node {num_devices}") !=
        std::string::npos);
  CHECK(load("cuda-example.yaml").devices.kind == "cuda");
}

TEST_CASE("bad configs get one line naming file and line and key",
          "[tuner][config]") {
  ExpectError("name: [unclosed\n",
              "x.yaml:2: invalid YAML: end of sequence flow not found");
  ExpectError(Replace(kValid, "metric:", "metrc:"),
              "x.yaml:3: metrc: unknown key (did you mean 'metric'?)");
  ExpectError(Replace(kValid, "slots: 2", "slots: two"),
              "x.yaml:15: devices.slots: expected a decimal integer (no sign "
              "'+', no leading zero, no exponent), got 'two'");
  ExpectError(
      Replace(kValid, "low: 1.0e-4", "low: 0"),
      "x.yaml:7: search_space.lr.low: loguniform needs low > 0 (got 0)");
  ExpectError(Replace(kValid, "low: 0.0, high: 0.5", "low: 0.5, high: 0.5"),
              "x.yaml:9: search_space.dropout.high: uniform needs low < high "
              "(got low 0.5, high 0.5)");
  ExpectError(Replace(kValid, "values: [16, 32, 64, 128]", "values: []"),
              "x.yaml:8: search_space.hidden.values: choice needs at least "
              "one value");
  ExpectError(Replace(kValid, "--lr {lr}", "--lr {lrr}"),
              "x.yaml:2: command: placeholder {lrr} names no parameter (did "
              "you mean {lr}?)");
  ExpectError(Replace(kValid, "type: loguniform", "type: logunifrom"),
              "x.yaml:7: search_space.lr.type: 'logunifrom' is not one of "
              "uniform | loguniform | quniform | randint | lograndint | choice "
              "| grid (did you mean 'loguniform'?)");
  ExpectError(Replace(kValid, "mode: max", "mode: maximum"),
              "x.yaml:4: mode: 'maximum' is not one of max | min");
  ExpectError(Replace(kValid, "metric: eval_accuracy\n", ""),
              "x.yaml:1: metric: required");
  ExpectError(Replace(kValid, "max_t: 27, ", ""),
              "x.yaml:14: scheduler.max_t: asha needs max_t");
  ExpectError(Replace(kValid, "timeout: 10m", "timeout: soon"),
              "x.yaml:16: trial.timeout: expected a duration such as 90, 90s, "
              "10m or 2h, got 'soon'");
  ExpectError(
      Replace(kValid, "searcher: {type: random", "searcher: {type: grid"),
      "x.yaml:12: searcher.type: grid search needs every parameter to "
      "be a grid or a choice; 'lr' is not");
  ExpectError(Replace(kValid, "name: sweep-1", "name: a/b"),
              "x.yaml:1: name: use letters, digits, '.', '_' and '-', not "
              "starting with '.' or '-' (at most 128)");
}

TEST_CASE("grid search defaults num_trials to the grid size",
          "[tuner][config]") {
  auto config = Load(R"(name: g
command: run {a} {b}
metric: m
mode: min
search_space:
  a: {type: grid, values: [1, 2, 3]}
  b: {type: choice, values: [x, "y"]}
searcher: {type: grid}
)");
  REQUIRE(config.ok());
  CHECK(config.value().num_trials == 6);
  CHECK(config.value().scheduler.type == core::SchedulerType::kFifo);
  CHECK(config.value().time_attr == "report");
}

TEST_CASE("did you mean suggests only near misses", "[tuner][config]") {
  CHECK(DidYouMean("serach_space", {"search_space", "scheduler"}) ==
        "search_space");
  CHECK(DidYouMean("xyz", {"search_space", "scheduler"}).empty());
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

TEST_CASE("the HyperBand family and model-based searchers load",
          "[tuner][config]") {
  auto c =
      Load(Replace(Replace(kValid, "type: random, seed: 7",
                           "type: tpe, seed: 7, n_startup: 5"),
                   "type: asha,", "type: asha, mode: promotion, brackets: 2,"));
  REQUIRE(c.ok());
  CHECK(c.value().searcher.type == core::SearcherType::kTpe);
  CHECK(c.value().searcher.n_startup == 5);
  CHECK(c.value().scheduler.promotion);
  CHECK(c.value().scheduler.brackets == 2);
  CHECK(c.value().scheduler.seed == 7);
  auto hb = Load(Replace(kValid, "type: asha,", "type: hyperband,"));
  REQUIRE(hb.ok());
  CHECK(hb.value().scheduler.type == core::SchedulerType::kHyperband);
  auto gp =
      Load(Replace(Replace(kValid, "type: random, seed: 7",
                           "type: gp, seed: 7, max_points: 64"),
                   "type: asha,", "type: asha, mode: promotion, pasha: true,"));
  REQUIRE(gp.ok());
  CHECK(gp.value().searcher.type == core::SearcherType::kGp);
  CHECK(gp.value().searcher.max_points == 64);
  CHECK(gp.value().scheduler.pasha);
  auto when = Load(Replace(kValid, "layers:  {type: randint, low: 1, high: 4}",
                           "layers:  {type: randint, low: 1, high: 4, when: "
                           "{hidden: [64, 128]}}"));
  REQUIRE(when.ok());
  const auto& layers = when.value().space.params[3];
  REQUIRE(layers.when);
  CHECK(layers.when->param == "hidden");
  CHECK(layers.when->values.size() == 2);
}

TEST_CASE("bad scheduler and searcher keys say what and where",
          "[tuner][config]") {
  ExpectError(Replace(kValid, "type: asha,", "type: median, brackets: 2,"),
              "x.yaml:14: scheduler.brackets: applies to asha and hyperband "
              "only");
  ExpectError(Replace(kValid, "type: asha,", "type: asha, mode: promtion,"),
              "x.yaml:14: scheduler.mode: 'promtion' is not one of stopping | "
              "promotion (did you mean 'promotion'?)");
  ExpectError(Replace(kValid, "type: random, seed: 7",
                      "type: random, seed: 7, gamma: 0.2"),
              "x.yaml:12: searcher.gamma: applies to tpe only");
  ExpectError(Replace(kValid, "type: random, seed: 7", "type: tpe, gamma: 2"),
              "x.yaml:12: searcher.gamma: must be in (0, 1)");
  ExpectError(Replace(kValid, "type: random, seed: 7",
                      "type: random, seed: 7, n_startup: 3"),
              "x.yaml:12: searcher.n_startup: applies to tpe and gp only");
  ExpectError(Replace(kValid, "type: random, seed: 7", "type: gp, gamma: 0.2"),
              "x.yaml:12: searcher.gamma: applies to tpe only");
  ExpectError(
      Replace(kValid, "type: random, seed: 7", "type: tpe, max_points: 9"),
      "x.yaml:12: searcher.max_points: applies to gp only");
  ExpectError(
      Replace(kValid, "type: random, seed: 7", "type: gp, max_points: 1"),
      "x.yaml:12: searcher.max_points: must be >= 2");
  // One suggestion scores n_candidates points against max_points: bounded.
  ExpectError(Replace(kValid, "type: random, seed: 7",
                      "type: gp, n_candidates: 100000, max_points: 4096"),
              "x.yaml:12: searcher.max_points: n_candidates x max_points^2 "
              "is 1677721600000, at most 268435456 (e.g. 1024 candidates "
              "with 512 points): a suggestion would keep the sweep waiting");
  ExpectError(Replace(kValid, "type: asha,", "type: asha, pasha: true,"),
              "x.yaml:14: scheduler.pasha: needs mode: promotion");
  ExpectError(Replace(kValid, "type: asha,",
                      "type: asha, mode: promotion, brackets: 2, pasha: true,"),
              "x.yaml:14: scheduler.pasha: takes one bracket (brackets: 1)");
  ExpectError(Replace(kValid, "type: asha,", "type: median, pasha: true,"),
              "x.yaml:14: scheduler.pasha: applies to asha only");
  // A quoted word is a string, not a switch.
  ExpectError(Replace(kValid, "type: asha,",
                      "type: asha, mode: promotion, pasha: \"yes\","),
              "x.yaml:14: scheduler.pasha: expected true or false, got 'yes' "
              "(quoted: a string)");
  ExpectError(Replace(kValid, "layers:  {type: randint, low: 1, high: 4}",
                      "layers:  {type: randint, low: 1, high: 4, when: "
                      "{seeds: 1}}"),
              "x.yaml:10: search_space.layers.when.seeds: names no earlier "
              "parameter (conditions refer to parameters declared above)");
  ExpectError(Replace(kValid, "layers:  {type: randint, low: 1, high: 4}",
                      "layers:  {type: randint, low: 1, high: 4, when: "
                      "{hidden: 48}}"),
              "x.yaml:10: search_space.layers.when.hidden: '48' is not one "
              "of the values of 'hidden'");
}

TEST_CASE("launchers that would share a fixed port are warned about",
          "[tuner][config]") {
  auto warnings = [](const std::string& command) {
    auto config = Load(Replace(
        kValid,
        "command: python3 train.py --lr {lr} --hidden {hidden} --epochs "
        "{max_t}",
        "command: " + command));
    INFO(config.status().message());
    REQUIRE(config.ok());
    return LauncherWarnings(config.value());
  };
  CHECK(warnings("torchrun --nproc_per_node 2 train.py --lr {lr}").empty());
  auto standalone =
      warnings("torchrun --standalone --nproc_per_node 2 train.py --lr {lr}");
  REQUIRE(standalone.size() == 1);
  CHECK(standalone[0].find("29400") != std::string::npos);
  CHECK(standalone[0].find('\n') == std::string::npos);
  auto deepspeed = warnings("deepspeed --num_gpus 2 train.py --lr {lr}");
  REQUIRE(deepspeed.size() == 1);
  CHECK(deepspeed[0].find("--master_port {master_port}") != std::string::npos);
  CHECK(warnings("/opt/venv/bin/deepspeed --master_port {master_port} "
                 "train.py --lr {lr}")
            .empty());
  CHECK(warnings("deepspeed --master_port={master_port} train.py --lr {lr}")
            .empty());
  // with shell: true the words are split at spaces
  auto loaded = Load(kValid);
  REQUIRE(loaded.ok());
  ExperimentConfig config = loaded.value();
  config.shell = true;
  config.command = "cd /w && python -m torch.distributed.run --standalone t.py";
  CHECK(LauncherWarnings(config).size() == 1);
  // the shipped DDP config needs none
  auto ddp = LoadConfigFile(SOURCE_DIR "/configs/ddp-mlp.yaml", "/work");
  INFO(ddp.status().message());
  REQUIRE(ddp.ok());
  CHECK(LauncherWarnings(ddp.value()).empty());
}

}  // namespace
}  // namespace tuner
