// `tuner plan CONFIG`: the expected budget of a sweep; nothing starts.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "schedulers/plan.h"
#include "tuner/cli.h"
#include "tuner/config_loader.h"

namespace tuner::cli {

namespace {

double Round(double x, double digits = 2) {
  double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

std::string SchedulerName(const core::SchedulerSpec& s) {
  std::string name(core::ToString(s.type));
  if (s.type == core::SchedulerType::kAsha)
    name += s.promotion ? " (promotion)" : " (stopping)";
  return name;
}

// Device time and cost; absent figures stay out of the JSON.
nlohmann::json Costs(const ExperimentConfig& c,
                     const schedulers::BudgetPlan& plan,
                     const PlanOptions& options) {
  nlohmann::json out = {{"kind", c.devices.kind},
                        {"slots", c.devices.slots},
                        {"devices_per_trial", 1}};
  if (!plan.bounded || !options.unit_seconds) return out;
  double device_hours = plan.total_units * *options.unit_seconds / 3600.0;
  double wall_hours = device_hours / c.devices.slots;
  out["device_hours"] = Round(device_hours, 3);
  out["wall_hours_at_full_occupancy"] = Round(wall_hours, 3);
  if (options.price_per_hour)
    out["cost"] = Round(wall_hours * *options.price_per_hour, 2);
  return out;
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
                        {"brackets", brackets},
                        {"devices", Costs(c, plan, options)}};
  if (plan.bounded) {
    out["total_units"] = Round(plan.total_units);
    out["full_trials_equivalent"] =
        Round(plan.total_units / *c.scheduler.max_t);
  }
  return out;
}

void PrintText(const nlohmann::json& j) {
  std::cout << fmt::format(
      "{}: {} scheduler, {} searcher, {} trials\n",
      j["experiment"].get<std::string>(), j["scheduler"].get<std::string>(),
      j["searcher"].get<std::string>(), j["num_trials"].get<int64_t>());
  std::string unit = j["time_attr"];
  for (const auto& b : j["brackets"]) {
    std::cout << fmt::format("bracket {}: {} trials, {} {}\n",
                             b["bracket"].get<int>(), b["trials"].dump(),
                             b["units"].dump(), unit);
    for (const auto& r : b["rungs"]) {
      std::cout << fmt::format("  {} {:>10}  {:>10} trials\n", unit,
                               r["milestone"].dump(), r["trials"].dump());
    }
  }
  if (j.contains("total_units")) {
    std::cout << fmt::format("total: {} {} ({} trials trained to max_t)\n",
                             j["total_units"].dump(), unit,
                             j["full_trials_equivalent"].dump());
  } else {
    std::cout << "total: unbounded (no max_t: trials run until they exit)\n";
  }
  const auto& d = j["devices"];
  std::cout << fmt::format("devices: {} x {} slots, {} per trial",
                           d["kind"].get<std::string>(), d["slots"].dump(),
                           d["devices_per_trial"].dump());
  if (d.contains("device_hours")) {
    std::cout << fmt::format(", {} device-hours, {} h wall",
                             d["device_hours"].dump(),
                             d["wall_hours_at_full_occupancy"].dump());
  }
  if (d.contains("cost")) std::cout << ", cost " << d["cost"].dump();
  std::cout << "\n";
}

}  // namespace

int Plan(const PlanOptions& options) {
  auto config = LoadConfigFile(options.config_path,
                               std::filesystem::current_path().string());
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
