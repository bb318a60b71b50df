// The API's experiment life cycle: POST /api/experiments/NAME/delete and
// POST /api/experiments/NAME/extend?trials=N (docs/service.md).
#include <charconv>
#include <nlohmann/json.hpp>

#include "tuner/server/api.h"

namespace tuner::server {

namespace {

// N of ?trials=N: 1 to kMaxTrialBudget, digits only.
std::optional<int64_t> TrialsOf(const std::map<std::string, std::string>& q) {
  auto it = q.find("trials");
  if (it == q.end()) return std::nullopt;
  return IntegerIn(it->second, 1, kMaxTrialBudget);
}

}  // namespace

void Api::Delete(const std::string& name, const Reply& reply) const {
  control_.Delete(name, [reply, name](core::Result<DeleteOutcome> done) {
    if (!done.ok()) return reply(ErrorResponse(done.error()));
    nlohmann::ordered_json body = {{"name", name},
                                   {"status", "deleted"},
                                   {"trials", done.value().trials},
                                   {"removed", done.value().removed},
                                   {"left", done.value().failed},
                                   {"skipped", done.value().left}};
    reply(JsonResponse(200, body.dump() + "\n"));
  });
}

std::optional<Response> Api::Extend(const std::string& name, const Query& query,
                                    const Reply& reply) const {
  auto trials = TrialsOf(query);
  if (!trials) {
    return ErrorResponse(400, "trials: expected an integer from 1 to " +
                                  std::to_string(kMaxTrialBudget));
  }
  control_.Extend(name, *trials,
                  [reply, name](core::Result<ExtendOutcome> done) {
                    if (!done.ok()) return reply(ErrorResponse(done.error()));
                    const ExtendOutcome& o = done.value();
                    nlohmann::ordered_json body = {
                        {"name", name},
                        {"budget", o.budget},
                        {"trials", o.trials},
                        {"status", std::string(core::ToString(o.status))},
                        {"running", o.running}};
                    reply(JsonResponse(200, body.dump() + "\n"));
                  });
  return std::nullopt;
}

}  // namespace tuner::server
