// tuner: hyperparameter sweeps with asynchronous successive halving.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>

#include "tuner/cli.h"
#include "tuner/server/cli_remote.h"
#include "tuner/server/serve.h"
#include "tuner/sim/cli_simulate.h"

namespace {

// An integer from 0 to 2^63 - 1, written in full: no sign, no wrap-around.
std::string NonNegativeInt64(const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end || value < 0)
    return "expected an integer from 0 to 9223372036854775807, got " + text;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("tuner");
  logger->set_pattern("tuner: %^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{
      "tuner: hyperparameter sweeps with asynchronous successive halving"};
  app.require_subcommand(1);
  std::string db = "tuner.db";
  app.add_option("--db", db, "SQLite database (default ./tuner.db)");

  tuner::cli::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run a sweep to its end");
  run_cmd->add_option("config", run.config_path, "experiment YAML")->required();

  tuner::cli::PlanOptions plan;
  auto* plan_cmd = app.add_subcommand(
      "plan", "the expected budget of a sweep (brackets, rungs, cost)");
  plan_cmd->add_option("config", plan.config_path, "experiment YAML")
      ->required();
  plan_cmd
      ->add_option("--unit-seconds", plan.unit_seconds,
                   "seconds one time_attr unit takes (for device-hours)")
      ->check(CLI::PositiveNumber);
  plan_cmd
      ->add_option("--price-per-hour", plan.price_per_hour,
                   "the instance's price per hour (for the cost)")
      ->check(CLI::NonNegativeNumber);
  plan_cmd
      ->add_option("--devices", plan.devices,
                   "devices of the target machine, when its kind is not "
                   "on this one (e.g. 8 Gaudi cards)")
      ->check(CLI::PositiveNumber);
  plan_cmd->add_option("--format", plan.format, "text | json")
      ->check(CLI::IsMember({"text", "json"}));

  tuner::sim::SimulateOptions sim;
  auto* sim_cmd = app.add_subcommand(
      "simulate",
      "replay an experiment in simulated time on a table of learning curves");
  sim_cmd->add_option("config", sim.config_path, "experiment YAML")->required();
  auto* table_opt = sim_cmd->add_option(
      "--table", sim.table_path,
      "JSON lines: {config: {...}, curve: [{TIME_ATTR, metrics, seconds}]}");
  sim_cmd
      ->add_option("--from-experiment", sim.from_experiment,
                   "replay a stored experiment's reports instead")
      ->excludes(table_opt);
  sim_cmd->add_option("--workers", sim.workers, "identical slots (default 1)")
      ->check(CLI::Range(1, 4096));
  sim_cmd->add_option("--seed", sim.seed, "the searcher's seed")
      ->check(NonNegativeInt64);
  sim_cmd->add_option("--name", sim.name, "the experiment's name");
  sim_cmd->add_option("--format", sim.format, "table | json")
      ->check(CLI::IsMember({"table", "json"}));

  tuner::cli::QueryOptions query;
  auto* best = app.add_subcommand("best", "the best trials of an experiment");
  best->add_option("name", query.name, "experiment name")->required();
  best->add_option("--top", query.top, "how many (default 1)")
      ->check(CLI::PositiveNumber);
  best->add_option("--format", query.format, "table | json | yaml | args")
      ->check(CLI::IsMember({"table", "json", "yaml", "args"}));

  auto* trials = app.add_subcommand("trials", "every trial of an experiment");
  trials->add_option("name", query.name, "experiment name")->required();
  trials->add_option("--format", query.format, "table | json | yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}));

  auto* resume = app.add_subcommand(
      "resume", "take up an unfinished experiment: adopt its running trials");
  resume->add_option("name", query.name, "experiment name")->required();

  tuner::cli::StopOptions stop;
  auto* stop_cmd = app.add_subcommand(
      "stop", "stop the tuner running an experiment (or detach it)");
  stop_cmd->add_option("name", stop.name, "experiment name")->required();
  stop_cmd->add_flag("--detach", stop.detach,
                     "leave its trials running for a later `tuner resume`");
  stop_cmd->add_flag("--force", stop.force, "kill its trials at once");

  auto* status = app.add_subcommand("status", "experiments and their progress");
  status->add_option("name", query.name, "only this experiment");

  tuner::cli::DevicesOptions devices;
  auto* devices_cmd = app.add_subcommand(
      "devices", "the machine's devices: free, leased by a trial, or busy");
  devices_cmd->add_option("--config", devices.config_path,
                          "use this experiment's devices section");
  devices_cmd
      ->add_option("--kind", devices.kind,
                   "auto | habana | neuron | cuda | cpu")
      ->check(CLI::IsMember({"auto", "habana", "neuron", "cuda", "cpu"}));
  devices_cmd->add_option("--lock-dir", devices.lock_dir,
                          "where leases live (default $TUNER_LOCK_DIR or "
                          "/tmp/tuner-locks)");
  devices_cmd->add_option("--format", devices.format, "text | json")
      ->check(CLI::IsMember({"text", "json"}));

  tuner::server::ServeOptions serve;
  auto* serve_cmd = app.add_subcommand(
      "serve", "the tuning service: HTTP API, shared devices, dashboard");
  serve_cmd->add_option("--listen", serve.listen,
                        "HOST:PORT (default 127.0.0.1:8080; port 0: any)");
  serve_cmd->add_option("--token-file", serve.token_file,
                        "the token requests must carry (else $TUNER_TOKEN, "
                        "else the one kept in <db>.token)");
  serve_cmd->add_option("--allow-host", serve.allow_hosts,
                        "a name clients may use in Host besides the bound "
                        "address and localhost (repeatable)");
  serve_cmd
      ->add_option("--http-threads", serve.http_threads,
                   "threads serving HTTP (default 2)")
      ->check(CLI::Range(1, 64));
  serve_cmd->add_flag("!--no-resume", serve.resume,
                      "do not take up experiments a previous service left "
                      "running");

  tuner::server::RemoteOptions remote;
  std::string submit_path;
  auto* submit_cmd = app.add_subcommand(
      "submit", "submit an experiment to a running `tuner serve`");
  submit_cmd->add_option("config", submit_path, "experiment YAML")->required();
  submit_cmd->add_option("--server", remote.server, "http://HOST:PORT")
      ->required();
  for (auto* sub : {submit_cmd, best, trials, status, stop_cmd, resume}) {
    if (sub != submit_cmd) {
      sub->add_option("--server", remote.server,
                      "ask a running `tuner serve` (http://HOST:PORT) "
                      "instead of the database");
    }
    sub->add_option("--token-file", remote.token_file,
                    "the service's token (else $TUNER_TOKEN)");
  }

  for (auto* sub : {sim_cmd, serve_cmd, run_cmd, best, trials, status, resume,
                    stop_cmd, submit_cmd}) {
    sub->add_option("--db", db, "SQLite database (default ./tuner.db)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : tuner::cli::kExitBadInput;
  }
  query.db_path = db;
  remote.db_path = db;  // where the CLI finds the service's token
  if (*run_cmd) {
    if (app.count("--db") + run_cmd->count("--db") > 0) run.db_path = db;
    return tuner::cli::Run(run);
  }
  if (*plan_cmd) return tuner::cli::Plan(plan);
  if (*sim_cmd) {
    if (app.count("--db") + sim_cmd->count("--db") > 0) sim.db_path = db;
    return tuner::sim::Simulate(sim);
  }
  if (*serve_cmd) {
    serve.db_path = db;
    return tuner::server::Serve(serve);
  }
  if (*devices_cmd) return tuner::cli::Devices(devices);
  if (*submit_cmd) return tuner::server::RemoteSubmit(submit_path, remote);
  if (!remote.server.empty()) {
    if (*best) {
      return tuner::server::RemoteBest(query.name, query.top, query.format,
                                       remote);
    }
    if (*trials) {
      return tuner::server::RemoteTrials(query.name, query.format, remote);
    }
    if (*status) return tuner::server::RemoteStatus(query.name, remote);
    if (*resume) return tuner::server::RemoteResume(query.name, remote);
    if (*stop_cmd) {
      if (stop.detach) {
        std::fprintf(stderr, "tuner: --detach works with --db only\n");
        return tuner::cli::kExitBadInput;
      }
      return tuner::server::RemoteStop(stop.name, stop.force, remote);
    }
  }
  if (*best) return tuner::cli::Best(query);
  if (*resume) return tuner::cli::Resume(query);
  if (*stop_cmd) {
    stop.db_path = db;
    return tuner::cli::Stop(stop);
  }
  if (*trials) return tuner::cli::Trials(query);
  return tuner::cli::Status(query);
}
