// Trials written in one of the query formats one at a time, as the store
// reads them: a listing of a million trials never holds more than one.
#ifndef TUNER_TUNER_TEXT_TRIAL_WRITER_H_
#define TUNER_TUNER_TEXT_TRIAL_WRITER_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "core/result.h"
#include "storage/trial_store.h"

namespace tuner {

class TrialWriter {
 public:
  virtual ~TrialWriter() = default;
  // Writes the header (table, csv); called once, before any row.
  virtual void Begin(std::ostream& out) = 0;
  // Writes one trial; fails only where the format needs the stored config
  // and it cannot be used (args, command).
  virtual core::Status Row(const storage::TrialRecord& trial,
                           std::ostream& out) = 0;
  // Writes what ends the listing after `rows` trials ("]" for json, the
  // experiment's failure for table).
  virtual void End(std::ostream& out, int64_t rows) = 0;
};

// What a listing of trials needs besides the store.
struct TrialListing {
  std::string format = "table";  // table | json | yaml | csv | args | command
  // Where the database is (for {trial_dir} in `command`, the trial
  // directories of experiments stored before they were scoped).
  std::string db_path = "tuner.db";
  // The Unix time a running trial's duration runs to; none: the system
  // clock's when the writer is made.
  std::optional<double> now;
};

// A writer for `listing.format`; kInvalidArgument for an unknown one, or
// for args/command when the experiment's stored config cannot be read.
// csv asks the store for the experiment's param names (the columns).
core::Result<std::unique_ptr<TrialWriter>> MakeTrialWriter(
    storage::TrialStore& store, const storage::ExperimentRecord& experiment,
    const TrialListing& listing);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_TRIAL_WRITER_H_
