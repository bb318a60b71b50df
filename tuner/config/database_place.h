// Where an experiment's database was when the experiment was stored, so
// that paths inside its folder follow the database when it is copied or
// moved with its folder, and a copy is told from the file the experiment
// was created in.
#ifndef TUNER_TUNER_CONFIG_DATABASE_PLACE_H_
#define TUNER_TUNER_CONFIG_DATABASE_PLACE_H_

#include <string>

namespace tuner {

struct DatabasePlace {
  std::string folder;   // absolute and normalised
  std::string file_id;  // "device:inode"; empty when the file cannot be read
};

// The place of the database file at `db_path` now.
DatabasePlace PlaceOf(const std::string& db_path);

// `path` with its leading folder `from` replaced by `to` when it is `from`
// or below it (lexically, both absolute); unchanged otherwise or when
// `from` is empty.
std::string Rebased(const std::string& path, const std::string& from,
                    const std::string& to);

// True only when the database at `db_path` is the very file whose
// `file_id` was recorded (same device and inode: moved or renamed within its
// file system, never copied or restored) and belongs to the user running
// the tuner. A database is data anyone may craft or copy: only this ties
// it to the files its experiments made outside its folder.
bool IsRecordedFile(const std::string& file_id, const std::string& db_path);

}  // namespace tuner

#endif  // TUNER_TUNER_CONFIG_DATABASE_PLACE_H_
