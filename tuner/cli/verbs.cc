#include "tuner/cli/verbs.h"

#include <cstdint>
#include <cstdio>

#include "tuner/cli/number_flags.h"
#include "tuner/server/http_client.h"
#include "tuner/text/query_text.h"

namespace tuner::cli {

namespace {

// --token-file and --allow-plain-http: how a --server verb sends a token.
void TokenFlags(CLI::App& command, Arguments& a) {
  command.add_option("--token-file", a.remote.token_file,
                     "the service's token (else $TUNER_TOKEN, else "
                     "<db>.token, sent only to the service it belongs to)");
  command.add_flag("--allow-plain-http", a.remote.allow_plain_http,
                   "send the token to a server off this machine over plain "
                   "HTTP (the network can read it)");
}

// A --server URL as ParseServerUrl reads it, rewritten as http://HOST:PORT
// (what messages then name); a malformed one is refused as bad input.
CLI::Validator ServerUrlFlag() {
  return CLI::Validator(
      [](std::string& url) -> std::string {
        auto parsed = server::ParseServerUrl(url);
        if (!parsed.ok()) return parsed.error().message;
        url = "http://" + parsed.value().authority;
        return "";
      },
      "URL");
}

// --server and --token-file: the verbs a running `tuner serve` can answer.
void RemoteFlags(CLI::App& command, Arguments& a) {
  command
      .add_option("--server", a.remote.server,
                  "ask a running `tuner serve` (http://HOST:PORT) "
                  "instead of the database")
      ->transform(ServerUrlFlag());
  TokenFlags(command, a);
}

bool Remote(const Arguments& a) { return !a.remote.server.empty(); }

// --set and --name: what a verb changes in the config it loads.
void OverrideFlags(CLI::App& c, ConfigOverrides& overrides) {
  c.add_option("--set", overrides.sets,
               "KEY=VALUE: overrides a config key (dotted: scheduler.max_t=20; "
               "the value is YAML; repeatable)")
      ->allow_extra_args(false);
  c.add_option("--name", overrides.name,
               "the experiment's name (instead of the "
               "config's)");
}

void RunFlags(CLI::App& c, Arguments& a) {
  c.add_option("config", a.run.config_path, "experiment YAML")->required();
  c.add_flag("--quiet,-q", a.run.quiet,
             "print only warnings, errors and the final summary");
  OverrideFlags(c, a.run.overrides);
}
int RunVerb(Arguments& a) {
  if (a.db_given) a.run.db_path = a.db;
  return Run(a.run);
}

void PlanFlags(CLI::App& c, Arguments& a) {
  c.add_option("config", a.plan.config_path, "experiment YAML")->required();
  c.add_option("--unit-seconds", a.plan.unit_seconds,
               "seconds one time_attr unit takes (for device-hours)")
      ->check(NumberIn(1e-6, 1e9));
  c.add_option("--price-per-hour", a.plan.price_per_hour,
               "the instance's price per hour (for the cost)")
      ->check(NumberIn(0, 1e9));
  c.add_option("--devices", a.plan.devices,
               "devices of the target machine, when its kind is not on this "
               "one (e.g. 8 Gaudi cards)")
      ->check(IntegerIn(1, 1'000'000));
  c.add_option("--format", a.plan.format, "text | json")
      ->check(CLI::IsMember({"text", "json"}));
  OverrideFlags(c, a.plan.overrides);
}
int PlanVerb(Arguments& a) { return Plan(a.plan); }

void SimulateFlags(CLI::App& c, Arguments& a) {
  SimulateOptions& s = a.simulate;
  c.add_option("config", s.config_path, "experiment YAML")->required();
  auto* table = c.add_option(
      "--table", s.table_path,
      "JSON lines: {config: {...}, curve: [{TIME_ATTR, metrics, seconds}]}");
  c.add_option("--from-experiment", s.from_experiment,
               "replay a stored experiment's reports instead")
      ->excludes(table);
  c.add_option("--workers", s.workers, "identical slots (default 1)")
      ->check(IntegerIn(1, 4096));
  c.add_option("--seed", s.seed, "the searcher's seed")
      ->check(IntegerIn(0, INT64_MAX));
  c.add_option("--format", s.format, "table | json")
      ->check(CLI::IsMember({"table", "json"}));
  OverrideFlags(c, s.overrides);
}
int SimulateVerb(Arguments& a) {
  if (a.db_given) a.simulate.db_path = a.db;
  return Simulate(a.simulate);
}

void BestFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.query.name, "experiment name")->required();
  c.add_option("--top", a.query.top, "how many (default 1)")
      ->check(IntegerIn(1, kMaxTop));
  c.add_option("--by", a.query.by,
               "last: rank by the value at the longest training (default); "
               "best: by the best value any report reached")
      ->check(CLI::IsMember({"last", "best"}));
  c.add_option("--format", a.query.format,
               "table | json | yaml | csv | args | command (the whole "
               "command line, for a shell)")
      ->check(
          CLI::IsMember({"table", "json", "yaml", "csv", "args", "command"}));
  RemoteFlags(c, a);
}
int BestVerb(Arguments& a) {
  if (Remote(a)) {
    return RemoteBest(a.query.name, a.query.top, a.query.format, a.remote,
                      a.query.by);
  }
  return Best(a.query);
}

void TrialsFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.query.name, "experiment name")->required();
  c.add_option("--format", a.query.format, "table | json | yaml | csv")
      ->check(CLI::IsMember({"table", "json", "yaml", "csv"}));
  RemoteFlags(c, a);
}
int TrialsVerb(Arguments& a) {
  if (Remote(a)) return RemoteTrials(a.query.name, a.query.format, a.remote);
  return Trials(a.query);
}

void ReportsFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.query.name, "experiment name")->required();
  c.add_option("--format", a.query.format,
               "table | csv | json (an array, a report a line) | jsonl")
      ->check(CLI::IsMember({"table", "csv", "json", "jsonl"}));
  RemoteFlags(c, a);
}
int ReportsVerb(Arguments& a) {
  if (Remote(a)) return RemoteReports(a.query.name, a.query.format, a.remote);
  return Reports(a.query);
}

void StatusFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.query.name, "only this experiment");
  c.add_option("--format", a.query.format, "table | json | csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  RemoteFlags(c, a);
}
int StatusVerb(Arguments& a) {
  if (Remote(a)) {
    return RemoteStatus(a.query.name, a.remote, a.query.format);
  }
  return Status(a.query);
}

void ResumeFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.query.name, "experiment name")->required();
  c.add_flag("--quiet,-q", a.query.quiet,
             "print only warnings, errors and the final summary");
  RemoteFlags(c, a);
}
int ResumeVerb(Arguments& a) {
  if (Remote(a)) return RemoteResume(a.query.name, a.remote);
  return Resume(a.query);
}

void StopFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.stop.name, "experiment name")->required();
  c.add_flag("--detach", a.stop.detach,
             "leave its trials running for a later `tuner resume`");
  c.add_flag("--force", a.stop.force, "kill its trials at once");
  RemoteFlags(c, a);
}
int StopVerb(Arguments& a) {
  if (Remote(a)) {
    if (a.stop.detach) {
      std::fprintf(stderr, "tuner: --detach works with --db only\n");
      return kExitBadInput;
    }
    return RemoteStop(a.stop.name, a.stop.force, a.remote);
  }
  a.stop.db_path = a.db;
  return Stop(a.stop);
}

void DevicesFlags(CLI::App& c, Arguments& a) {
  DevicesOptions& d = a.devices;
  c.add_option("--config", d.config_path,
               "use this experiment's devices section");
  c.add_option("--kind", d.kind, "auto | habana | neuron | cuda | cpu")
      ->check(CLI::IsMember({"auto", "habana", "neuron", "cuda", "cpu"}));
  c.add_option("--lock-dir", d.lock_dir,
               "where leases live (default $TUNER_LOCK_DIR or "
               "/tmp/tuner-locks)");
  c.add_option("--format", d.format, "text | json")
      ->check(CLI::IsMember({"text", "json"}));
}
int DevicesVerb(Arguments& a) { return Devices(a.devices); }

void ServeFlags(CLI::App& c, Arguments& a) {
  server::ServeOptions& s = a.serve;
  c.add_option("--listen", s.listen,
               "HOST:PORT (default 127.0.0.1:8080; port 0: any)");
  c.add_option("--token-file", s.token_file,
               "the token requests must carry (else $TUNER_TOKEN, else the "
               "one kept in <db>.token)");
  c.add_option("--allow-host", s.allow_hosts,
               "a name clients may use in Host besides the bound address and "
               "localhost (repeatable)");
  c.add_option("--http-threads", s.http_threads,
               "threads serving HTTP (default 2)")
      ->check(IntegerIn(1, 64));
  c.add_flag("!--no-resume", s.resume,
             "do not take up experiments a previous service left running");
}
int ServeVerb(Arguments& a) {
  a.serve.db_path = a.db;
  return server::Serve(a.serve);
}

void SubmitFlags(CLI::App& c, Arguments& a) {
  c.add_option("config", a.submit_path, "experiment YAML")->required();
  c.add_option("--server", a.remote.server, "http://HOST:PORT")
      ->required()
      ->transform(ServerUrlFlag());
  TokenFlags(c, a);
  OverrideFlags(c, a.run.overrides);
}
int SubmitVerb(Arguments& a) {
  return RemoteSubmit(a.submit_path, a.remote, a.run.overrides.List());
}

void DeleteFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.del.name, "experiment name")->required();
  c.add_flag("--yes", a.del.yes,
             "do not ask (needed when stdin is no terminal)");
  RemoteFlags(c, a);
}
int DeleteVerb(Arguments& a) {
  if (Remote(a)) {
    std::string question = "delete experiment '" + a.del.name +
                           "' in the service at " + a.remote.server;
    if (!a.del.yes) {
      if (int code = Confirm(question, "--yes")) return code;
    }
    return RemoteDelete(a.del.name, a.remote);
  }
  a.del.db_path = a.db;
  return Delete(a.del);
}

void ExtendFlags(CLI::App& c, Arguments& a) {
  c.add_option("name", a.extend.name, "experiment name")->required();
  c.add_option("--trials", a.extend.trials, "trials added to its budget")
      ->required()
      ->check(IntegerIn(1, 10'000'000));
  c.add_flag("--run", a.extend.run,
             "then resume it here when no tuner runs it (tuner resume)");
  c.add_flag("--quiet,-q", a.extend.quiet,
             "with --run: print only warnings, errors and the final summary");
  RemoteFlags(c, a);
}
int ExtendVerb(Arguments& a) {
  if (Remote(a)) {
    if (a.extend.run) {
      std::fprintf(stderr, "tuner: --run works with --db only\n");
      return kExitBadInput;
    }
    return RemoteExtend(a.extend.name, a.extend.trials, a.remote);
  }
  a.extend.db_path = a.db;
  return Extend(a.extend);
}

constexpr Verb kVerbs[] = {
    {"run", "run a sweep to its end", RunFlags, RunVerb},
    {"plan", "the expected budget of a sweep (brackets, rungs, cost)",
     PlanFlags, PlanVerb, false},
    {"simulate",
     "replay an experiment in simulated time on a table of learning curves",
     SimulateFlags, SimulateVerb},
    {"best", "the best trials of an experiment", BestFlags, BestVerb},
    {"trials", "every trial of an experiment", TrialsFlags, TrialsVerb},
    {"reports", "every report of an experiment (the learning curves)",
     ReportsFlags, ReportsVerb},
    {"resume", "take up an unfinished experiment: adopt its running trials",
     ResumeFlags, ResumeVerb},
    {"stop", "stop the tuner running an experiment (or detach it)", StopFlags,
     StopVerb},
    {"status", "experiments and their progress", StatusFlags, StatusVerb},
    {"devices", "the machine's devices: free, leased by a trial, or busy",
     DevicesFlags, DevicesVerb, false},
    {"serve", "the tuning service: HTTP API, shared devices, dashboard",
     ServeFlags, ServeVerb},
    {"submit", "submit an experiment to a running `tuner serve`", SubmitFlags,
     SubmitVerb},
    {"extend", "add trials to an experiment's budget", ExtendFlags, ExtendVerb},
    {"delete",
     "delete an experiment: its rows, trial directories and "
     "checkpoints",
     DeleteFlags, DeleteVerb},
};

}  // namespace

std::span<const Verb> Verbs() { return kVerbs; }

}  // namespace tuner::cli
