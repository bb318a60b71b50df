// The answers of the query verbs (status, trials, best) as text. The CLI
// prints them from the database; the service sends the same text, so
// `tuner best NAME --server URL` prints what `tuner best NAME --db FILE` does.
#ifndef TUNER_TUNER_TEXT_QUERY_TEXT_H_
#define TUNER_TUNER_TEXT_QUERY_TEXT_H_

#include <string>

#include "core/result.h"
#include "storage/trial_store.h"

namespace tuner {

// The experiment called `name`; kNotFound says which ones `where` (the
// database's path, the server's URL) has.
core::Result<storage::ExperimentRecord> FindExperimentIn(
    storage::TrialStore& store, const std::string& name,
    const std::string& where);

// `format`: table | json | yaml | args (args: best only, the command-line
// flags of each trial).
core::Result<std::string> TrialsText(storage::TrialStore& store,
                                     const storage::ExperimentRecord& e,
                                     const std::string& format);
// kNotFound when no trial has a value yet.
core::Result<std::string> BestText(storage::TrialStore& store,
                                   const storage::ExperimentRecord& e,
                                   int64_t top, const std::string& format);
// One line per experiment (only `name`'s when not empty): trials by status
// and the best value.
core::Result<std::string> StatusText(storage::TrialStore& store,
                                     const std::string& name);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_QUERY_TEXT_H_
