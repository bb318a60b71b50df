// Where an experiment's database was when the experiment was stored, so
// that paths inside its folder follow the database when it is copied or
// moved with its folder, and a copy is told from the file the experiment
// was created in.
#ifndef TUNER_TUNER_CONFIG_DATABASE_PLACE_H_
#define TUNER_TUNER_CONFIG_DATABASE_PLACE_H_

#include <string>
#include <utility>

namespace tuner {

struct DatabasePlace {
  std::string folder;  // absolute and normalised
  // "device:inode:birth time" (no birth time where the file system keeps
  // none); empty when the file cannot be read.
  std::string file_id;
};

// The place of the database file at `db_path` now.
DatabasePlace PlaceOf(const std::string& db_path);

// `path` with its leading folder `from` replaced by `to` when it is `from`
// or below it (lexically, both absolute); unchanged otherwise or when
// `from` is empty.
std::string Rebased(const std::string& path, const std::string& from,
                    const std::string& to);

// The folder that moved with a database, as {then, now}: the project
// folder `base` (where the experiment was started) when the database's
// folder `db_folder` was inside it and `now_folder` is the same folders
// below another folder (`cp -r proj proj2` with the database in
// proj/db/); else the database's folder, then and now. Empty when
// either folder is.
std::pair<std::string, std::string> MovedRoot(const std::string& base,
                                              const std::string& db_folder,
                                              const std::string& now_folder);

// True only when the database at `db_path` is the very file whose
// `file_id` was recorded (same device, inode and birth time: moved or
// renamed within its file system, never copied or restored) and belongs to
// the user running the tuner. A database is data anyone may craft or copy: only
// this ties it to the files its experiments made outside its folder.
bool IsRecordedFile(const std::string& file_id, const std::string& db_path);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_DATABASE_PLACE_H_
