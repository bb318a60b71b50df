// tuner-shim: see shim.h. The tuner starts it; nobody else should.
#include <CLI/CLI.hpp>

#include "trial_runner/processes/shim/shim.h"

int main(int argc, char** argv) {
  tuner::shim::ShimOptions o;
  CLI::App app{"tuner-shim: supervises one trial for the tuner"};
  app.add_option("--stdout", o.stdout_path)->required();
  app.add_option("--stderr", o.stderr_path)->required();
  app.add_option("--status", o.status_path)->required();
  app.add_option("--cwd", o.cwd);
  app.add_option("--grace-ms", o.grace_ms);
  app.add_option("--timeout-ms", o.timeout_ms);
  app.add_option("--idle-ms", o.idle_ms);
  app.add_option("--log-cap", o.log_cap);
  app.add_option("--tuner-lock", o.tuner_lock);
  app.add_option("--orphan-ms", o.orphan_ms);
  app.add_option("--env", o.env)->allow_extra_args(false);
  app.add_option("command", o.argv)->required();
  app.allow_extras(false);
  app.prefix_command(false);
  CLI11_PARSE(app, argc, argv);
  return tuner::shim::RunShim(o);
}
