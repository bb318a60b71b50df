// tuner best | trials | status | reports on a database (--db); the text
// comes from tuner/text, which the service shares. Listings are written to
// stdout as they are read, so memory does not grow with the experiment.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "storage/trial_store.h"
#include "tuner/base/closed_pipe.h"
#include "tuner/base/one_line.h"
#include "tuner/base/tuner_lock.h"
#include "tuner/cli/cli.h"
#include "tuner/config/trials_root.h"
#include "tuner/text/printable_stream.h"
#include "tuner/text/query_text.h"
#include "tuner/text/reports_text.h"
#include "util/lock_file.h"

namespace tuner::cli {

namespace {

using storage::TrialStore;

// Ends a listing written to `out` (a PrintableStream over std::cout): its
// error, or a failed write (a full disk). A reader that left (`| head`) is
// no error: CommandLine::Run ends the verb with kExitClosedPipe.
int Finish(const core::Status& status, std::ostream& out) {
  out.flush();
  if (!status.ok()) return Fail(status.message(), ExitCodeOf(status.error()));
  if (!out && !ReaderGone(STDOUT_FILENO)) {
    return Fail("cannot write to stdout");
  }
  return kExitOk;
}

int Print(const core::Result<std::string>& text, const std::string& format) {
  if (!text.ok()) return Fail(text.message(), ExitCodeOf(text.error()));
  PrintableStream out(std::cout, format);
  out << text.value();
  return Finish(core::Status::Ok(), out);
}

// "./tuner.db" rather than "tuner.db": a path, visibly.
std::string Shown(const std::string& path) {
  std::filesystem::path p(path);
  return p.is_relative() && !path.starts_with(".") ? "./" + path : path;
}

core::Result<std::unique_ptr<TrialStore>> OpenToRead(const std::string& path) {
  TUNER_RETURN_IF_ERROR(DatabaseThere(path));
  return TrialStore::OpenReadOnly(path);
}

// The store and the experiment `options` name; 0, or the exit code after
// saying what is missing.
int Open(const QueryOptions& options, std::unique_ptr<TrialStore>& store,
         storage::ExperimentRecord& experiment) {
  auto opened = OpenToRead(options.db_path);
  if (!opened.ok()) return Fail(opened.message(), ExitCodeOf(opened.error()));
  store = std::move(opened).value();
  auto found = FindExperimentIn(*store, options.name, options.db_path);
  if (!found.ok()) return Fail(found.message());
  experiment = std::move(found).value();
  return kExitOk;
}

}  // namespace

core::Status DatabaseThere(const std::string& path) {
  std::error_code error;
  auto status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return core::NotFound("no database at " + Shown(path) +
                          " (run `tuner run CONFIG` first, or pass --db FILE)");
  }
  if (!error && status.type() != std::filesystem::file_type::regular) {
    return core::InvalidArgument(Shown(path) +
                                 " is not a database file (--db FILE)");
  }
  return core::Status::Ok();
}

int Best(const QueryOptions& options) {
  std::unique_ptr<TrialStore> store;
  storage::ExperimentRecord experiment;
  if (int code = Open(options, store, experiment); code != kExitOk) {
    return code;
  }
  BestQuery query;
  query.top = options.top;
  query.by =
      options.by == "best" ? storage::BestBy::kBest : storage::BestBy::kLast;
  query.listing = {options.format, options.db_path};
  PrintableStream out(std::cout, options.format);
  auto status = WriteBest(*store, experiment, query, out);
  // No trial with a value yet: a fact, as before (exit 1).
  if (!status.ok() && status.error().code == core::ErrorCode::kNotFound) {
    return Fail(status.message());
  }
  return Finish(status, out);
}

int Trials(const QueryOptions& options) {
  std::unique_ptr<TrialStore> store;
  storage::ExperimentRecord experiment;
  if (int code = Open(options, store, experiment); code != kExitOk) {
    return code;
  }
  PrintableStream out(std::cout, options.format);
  return Finish(
      WriteTrials(*store, experiment, {options.format, options.db_path}, out),
      out);
}

int Reports(const QueryOptions& options) {
  std::unique_ptr<TrialStore> store;
  storage::ExperimentRecord experiment;
  if (int code = Open(options, store, experiment); code != kExitOk) {
    return code;
  }
  PrintableStream out(std::cout, options.format);
  return Finish(WriteReports(*store, experiment, options.format, out), out);
}

int Status(const QueryOptions& options) {
  auto store = OpenToRead(options.db_path);
  if (!store.ok()) return Fail(store.message(), ExitCodeOf(store.error()));
  // Its tuner (CLI or service) holds the experiment's lock while it runs;
  // probing opens an existing lock file read-only and creates nothing.
  auto unwatched = [&options](const storage::ExperimentRecord& e) {
    auto root = NamedTrialsRoot(e.config_json, options.db_path, e.name);
    return root.ok() &&
           !util::ProbeLock(TunerLockPath(root.value(), e.name)).held;
  };
  return Print(StatusText(*store.value(), options.name, options.format,
                          options.db_path, unwatched),
               options.format);
}

}  // namespace tuner::cli
