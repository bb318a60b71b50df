// `tuner plan CONFIG`: the expected budget of a sweep; nothing starts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/param_value.h"
#include "schedulers/plan.h"
#include "tuner/cli/cli.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/device_setup.h"

namespace tuner::cli {

namespace {

double Round(double x, double digits = 2) {
  double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

bool HasRungs(const core::SchedulerSpec& s) {
  return s.type == core::SchedulerType::kAsha ||
         s.type == core::SchedulerType::kHyperband;
}

std::string SchedulerName(const core::SchedulerSpec& s) {
  std::string name(core::ToString(s.type));
  if (s.type == core::SchedulerType::kAsha)
    name += s.pasha       ? " (promotion, PASHA)"
            : s.promotion ? " (promotion)"
                          : " (stopping)";
  return name;
}

// How many trials this machine runs at once for `c`, and with how many
// devices each; nullopt when its devices are not here (planning a Gaudi
// sweep on a laptop).
struct Concurrency {
  std::string kind;
  int per_trial = 1;
  std::optional<int> trials;
};

Concurrency ConcurrencyHere(const ExperimentConfig& c,
                            std::optional<int> devices_elsewhere) {
  Concurrency out{c.devices.kind, std::max(1, c.devices.per_trial), {}};
  auto inventory = runner::DetectDevices(RequestedKind(c.devices),
                                         DetectOptionsFor(c.devices));
  if (!inventory.ok()) {
    if (devices_elsewhere) out.trials = *devices_elsewhere / out.per_trial;
    return out;
  }
  auto pool = MakeDevicePool(c.devices, inventory.value(), c.workdir);
  if (!pool.ok()) return out;
  out.kind = runner::ToString(inventory.value().kind);
  out.trials = static_cast<int>(pool.value().groups());
  if (inventory.value().kind == runner::DeviceKind::kCpu) out.per_trial = 1;
  return out;
}

// Device time and cost; absent figures stay out of the JSON.
nlohmann::json Costs(const ExperimentConfig& c,
                     const schedulers::BudgetPlan& plan,
                     const PlanOptions& options) {
  Concurrency here = ConcurrencyHere(c, options.devices);
  nlohmann::json out = {{"kind", here.kind},
                        {"concurrent_trials", nullptr},
                        {"devices_per_trial", here.per_trial}};
  if (here.trials) out["concurrent_trials"] = *here.trials;
  if (!plan.bounded || !options.unit_seconds) return out;
  double trial_hours = plan.total_units * *options.unit_seconds / 3600.0;
  out["device_hours"] = Round(trial_hours * here.per_trial, 3);
  if (!here.trials || *here.trials < 1) return out;
  double wall_hours = trial_hours / *here.trials;
  out["wall_hours_at_full_occupancy"] = Round(wall_hours, 3);
  if (options.price_per_hour)
    out["cost"] = Round(wall_hours * *options.price_per_hour, 2);
  return out;
}

// What the config left to the defaults, as the keys it would give; the
// JSON plan lists them so a reader sees what was chosen for them.
nlohmann::json Defaulted(const ExperimentConfig& c) {
  nlohmann::json keys = nlohmann::json::array();
  if (!c.searcher_type_given) keys.push_back("searcher.type");
  if (!c.grace_period_given && HasRungs(c.scheduler))
    keys.push_back("scheduler.grace_period");
  return keys;
}

nlohmann::json PlanJson(const ExperimentConfig& c,
                        const schedulers::BudgetPlan& plan,
                        const PlanOptions& options) {
  nlohmann::json brackets = nlohmann::json::array();
  for (const auto& b : plan.brackets) {
    nlohmann::json rungs = nlohmann::json::array();
    for (const auto& r : b.rungs)
      rungs.push_back(
          {{"milestone", r.milestone}, {"trials", Round(r.trials)}});
    brackets.push_back({{"bracket", b.bracket},
                        {"trials", Round(b.trials)},
                        {"rungs", rungs},
                        {"units", Round(b.units)}});
  }
  nlohmann::json out = {{"experiment", c.name},
                        {"scheduler", SchedulerName(c.scheduler)},
                        {"searcher", core::ToString(c.searcher.type)},
                        {"num_trials", c.num_trials},
                        {"time_attr", c.time_attr},
                        {"defaults", Defaulted(c)},
                        {"brackets", brackets},
                        {"devices", Costs(c, plan, options)}};
  if (HasRungs(c.scheduler)) {
    out["grace_period"] = c.scheduler.grace_period;
    out["reduction_factor"] = c.scheduler.reduction_factor;
    out["max_t"] = *c.scheduler.max_t;
  }
  if (c.scheduler.pasha) {  // the second rung, or max_t if there is none
    out["pasha_first_top_rung"] =
        std::min(c.scheduler.grace_period * c.scheduler.reduction_factor,
                 *c.scheduler.max_t);
  }
  if (plan.bounded) {
    out["total_units"] = Round(plan.total_units);
    out["full_trials_equivalent"] =
        Round(plan.total_units / *c.scheduler.max_t);
  }
  return out;
}

bool IsDefault(const nlohmann::json& j, const char* key) {
  for (const auto& k : j["defaults"])
    if (k == key) return true;
  return false;
}

void PrintText(const nlohmann::json& j) {
  std::cout << fmt::format(
      "{}: {} scheduler, {} searcher{}, {} trials\n",
      j["experiment"].get<std::string>(), j["scheduler"].get<std::string>(),
      j["searcher"].get<std::string>(),
      IsDefault(j, "searcher.type") ? " (the default)" : "",
      j["num_trials"].get<int64_t>());
  std::string unit = j["time_attr"];
  auto number = [](const nlohmann::json& x) {
    return core::FormatDouble(x.get<double>());  // 3, not 3.0
  };
  // A rung such as max_t / 27 has no short exact text: 6 digits.
  auto milestone = [](const nlohmann::json& x) {
    return fmt::format("{:.6g}", x.get<double>());
  };
  if (j.contains("grace_period")) {
    std::cout << fmt::format(
        "rungs: grace_period {}{}, reduction_factor {}, max_t {}\n",
        milestone(j["grace_period"]),
        IsDefault(j, "scheduler.grace_period")
            ? " (the default: max_t / reduction_factor^3, at least 1)"
            : "",
        number(j["reduction_factor"]), number(j["max_t"]));
  }
  if (j.contains("pasha_first_top_rung")) {
    std::cout << fmt::format(
        "pasha: promotions stop at the top rung, {} {} at first, which grows "
        "while the two highest rungs rank trials differently; the budget "
        "below is its most (every rung up to max_t)\n",
        unit, milestone(j["pasha_first_top_rung"]));
  }
  // Without max_t a trial's length is unknown: no units to count.
  const bool bounded = j.contains("total_units");
  for (const auto& b : j["brackets"]) {
    std::cout << fmt::format(
        "bracket {}: {} trials, {}\n", b["bracket"].get<int>(),
        number(b["trials"]),
        bounded ? number(b["units"]) + " " + unit : "each until it exits");
    for (const auto& r : b["rungs"]) {
      std::cout << fmt::format("  {} {:>10}  {:>10} trials\n", unit,
                               milestone(r["milestone"]), number(r["trials"]));
    }
  }
  if (bounded) {
    std::cout << fmt::format("total: {} {} ({} trials trained to max_t)\n",
                             number(j["total_units"]), unit,
                             number(j["full_trials_equivalent"]));
  } else {
    std::cout << "total: unbounded (no max_t: trials run until they exit)\n";
  }
  const auto& d = j["devices"];
  std::cout << fmt::format(
      "devices: {}, {} per trial, {} trials at once",
      d["kind"].get<std::string>(), d["devices_per_trial"].dump(),
      d["concurrent_trials"].is_null() ? std::string("? (not on this machine)")
                                       : d["concurrent_trials"].dump());
  if (d.contains("device_hours"))
    std::cout << fmt::format(", {} device-hours", d["device_hours"].dump());
  if (d.contains("wall_hours_at_full_occupancy")) {
    std::cout << fmt::format(", {} h wall",
                             d["wall_hours_at_full_occupancy"].dump());
  }
  if (d.contains("cost")) std::cout << ", cost " << d["cost"].dump();
  std::cout << "\n";
}

}  // namespace

int Plan(const PlanOptions& options) {
  auto config = LoadConfigFile(options.config_path,
                               std::filesystem::current_path().string(),
                               options.overrides.List());
  if (!config.ok()) {
    std::cerr << "tuner: " << config.message() << "\n";
    return kExitBadInput;
  }
  const ExperimentConfig& c = config.value();
  auto plan = schedulers::PlanBudget(c.scheduler, c.num_trials);
  nlohmann::json j = PlanJson(c, plan, options);
  if (options.format == "json") {
    std::cout << j.dump(2) << "\n";
  } else {
    PrintText(j);
  }
  return 0;
}

}  // namespace tuner::cli
