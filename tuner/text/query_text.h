// The answers of the query verbs (status, trials, best) as text. The CLI
// writes them from the database as it reads them; the service sends the
// same text, so `tuner best NAME --server URL` prints what
// `tuner best NAME --db FILE` does.
#ifndef TUNER_TUNER_TEXT_QUERY_TEXT_H_
#define TUNER_TUNER_TEXT_QUERY_TEXT_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "core/result.h"
#include "storage/trial_store.h"
#include "tuner/text/trial_writer.h"

namespace tuner {

// The experiment called `name`; kNotFound says which ones `where` (the
// database's path, the server's URL) has.
core::Result<storage::ExperimentRecord> FindExperimentIn(
    storage::TrialStore& store, const std::string& name,
    const std::string& where);

// Writes every trial of `e` to `out` in `listing.format` (table | json |
// yaml | csv), each as it is read. An error after the first row leaves
// what was written.
core::Status WriteTrials(storage::TrialStore& store,
                         const storage::ExperimentRecord& e,
                         const TrialListing& listing, std::ostream& out);

// The most trials `best` lists, asked from the CLI or the service.
inline constexpr int64_t kMaxTop = 100'000;

struct BestQuery {
  int64_t top = 1;  // 1 to kMaxTop
  storage::BestBy by = storage::BestBy::kLast;
  // table | json | yaml | csv | args (the flags of each trial) | command
  // (the whole command line of each trial).
  TrialListing listing;
};
// Writes the best trials of `e`; kNotFound (nothing written) when no trial
// has a value yet.
core::Status WriteBest(storage::TrialStore& store,
                       const storage::ExperimentRecord& e,
                       const BestQuery& query, std::ostream& out);

// WriteTrials and WriteBest into a string (the service's answers).
core::Result<std::string> TrialsText(storage::TrialStore& store,
                                     const storage::ExperimentRecord& e,
                                     const TrialListing& listing);
core::Result<std::string> BestText(storage::TrialStore& store,
                                   const storage::ExperimentRecord& e,
                                   const BestQuery& query);

// Every experiment (only `name`'s when not empty: kNotFound, naming
// `where`, when there is none) with its trials by status and the best
// value. `format`: table (one line each), json (an array of
// ExperimentSummary) or csv. `unwatched`, when given, says whether no
// tuner runs an experiment stored as running (its tuner was killed): the
// table then says so under its row.
core::Result<std::string> StatusText(
    storage::TrialStore& store, const std::string& name,
    const std::string& format = "table", const std::string& where = "",
    const std::function<bool(const storage::ExperimentRecord&)>& unwatched =
        {});

// {name, status, reason, metric, mode, time_attr, max_t, created_at,
// updated_at, counts: {STATUS: n}, best: {trial, value, time, params} or
// null, priority: null, held_devices: 0}; the service fills the last two
// (and status "stopping") for the experiments it runs.
nlohmann::ordered_json ExperimentSummary(storage::TrialStore& store,
                                         const storage::ExperimentRecord& e);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_QUERY_TEXT_H_
