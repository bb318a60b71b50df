#include "tuner/text/query_text.h"

#include <fmt/format.h>

#include <sstream>

#include "core/printable.h"

namespace tuner {

namespace {

using storage::ExperimentRecord;
using storage::TrialRecord;
using storage::TrialStore;

// Runs `write` into a string.
core::Result<std::string> Text(
    const std::function<core::Status(std::ostream&)>& write) {
  std::ostringstream out;
  auto status = write(out);
  if (!status.ok()) return status.error();
  return std::move(out).str();
}

}  // namespace

core::Result<ExperimentRecord> FindExperimentIn(TrialStore& store,
                                                const std::string& name,
                                                const std::string& where) {
  auto found = store.experiments().Find(name);
  if (!found.ok()) return found.error();
  if (found.value()) return *found.value();
  std::string names;
  if (auto all = store.experiments().List(); all.ok()) {
    for (const auto& e : all.value())
      names += (names.empty() ? "" : ", ") + e.name;
  }
  return core::NotFound(
      fmt::format("no experiment {} in {}{}", core::QuotedInput(name), where,
                  names.empty() ? "" : " (it has: " + names + ")"));
}

core::Status WriteTrials(TrialStore& store, const ExperimentRecord& e,
                         const TrialListing& listing, std::ostream& out) {
  if (listing.format == "args" || listing.format == "command") {
    return core::InvalidArgument("format '" + listing.format +
                                 "' is for best only");
  }
  auto writer = MakeTrialWriter(store, e, listing);
  if (!writer.ok()) return writer.error();
  TrialWriter& w = *writer.value();
  w.Begin(out);
  int64_t rows = 0;
  TUNER_RETURN_IF_ERROR(
      store.trials().ForEach(e.id, [&](const TrialRecord& t) -> core::Status {
        ++rows;
        return w.Row(t, out);
      }));
  w.End(out, rows);
  return core::Status::Ok();
}

core::Status WriteBest(TrialStore& store, const ExperimentRecord& e,
                       const BestQuery& query, std::ostream& out) {
  auto writer = MakeTrialWriter(store, e, query.listing);
  if (!writer.ok()) return writer.error();
  TrialWriter& w = *writer.value();
  int64_t rows = 0;
  TUNER_RETURN_IF_ERROR(store.trials().ForEachBest(
      e, query.top, query.by, [&](const TrialRecord& t) -> core::Status {
        if (rows++ == 0) w.Begin(out);  // nothing at all when no trial
        return w.Row(t, out);
      }));
  if (rows == 0) {
    return core::NotFound("experiment '" + e.name +
                          "' has no trial with a value yet");
  }
  w.End(out, rows);
  return core::Status::Ok();
}

core::Result<std::string> TrialsText(TrialStore& store,
                                     const ExperimentRecord& e,
                                     const TrialListing& listing) {
  return Text(
      [&](std::ostream& out) { return WriteTrials(store, e, listing, out); });
}

core::Result<std::string> BestText(TrialStore& store, const ExperimentRecord& e,
                                   const BestQuery& query) {
  return Text(
      [&](std::ostream& out) { return WriteBest(store, e, query, out); });
}

}  // namespace tuner
