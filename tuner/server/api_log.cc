// GET /api/trials/{id}/log: the tail of a trial's stdout.log or stderr.log,
// for a client with the token (Api::Guard). The path is built from the
// numeric id and a fixed file name, and it is walked from the database's
// folder without following a symbolic link (on the way to the trial dir,
// the trial dir or the log), so no request reaches a file outside it.
// The text is at most the file's last kMaxTailBytes, made valid UTF-8, with
// every control character a terminal acts on shown as U+FFFD.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tuner/base/one_line.h"
#include "tuner/base/remove_tree.h"
#include "tuner/base/unique_fd.h"
#include "tuner/config/trials_root.h"
#include "tuner/server/api.h"
#include "util/utf8_text.h"

namespace tuner::server {

namespace {

constexpr int64_t kMaxTailLines = 10000;
constexpr off_t kMaxTailBytes = 1 << 20;

// The last `lines` lines of at most the last kMaxTailBytes of the file.
std::string Tail(int fd, int64_t lines) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  off_t start = st.st_size > kMaxTailBytes ? st.st_size - kMaxTailBytes : 0;
  std::string text(static_cast<size_t>(st.st_size - start), '\0');
  ssize_t got = pread(fd, text.data(), text.size(), start);
  text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (int64_t n = 0; n < lines && pos > 0; ++n) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    pos = nl;
    if (n + 1 == lines) ++pos;
  }
  return text.substr(pos == 0 ? 0 : pos);
}

}  // namespace

Response Api::GetLog(int64_t id, const Query& query) const {
  std::string stream = "stdout";
  if (auto it = query.find("stream"); it != query.end()) stream = it->second;
  if (stream != "stdout" && stream != "stderr") {
    return ErrorResponse(400, "stream: stdout or stderr");
  }
  int64_t lines = 200;
  if (auto it = query.find("tail"); it != query.end()) {
    auto given = IntegerIn(it->second, 1, kMaxTailLines);
    if (!given) {
      return ErrorResponse(400, "tail: a number of lines from 1 to " +
                                    std::to_string(kMaxTailLines));
    }
    lines = *given;
  }
  auto store = stores_.Borrow();
  if (!store.ok()) return ErrorResponse(500, store.message());
  auto trial = store.value()->trials().Find(id);
  if (!trial.ok()) return ErrorResponse(500, trial.message());
  if (!trial.value())
    return ErrorResponse(404, "no trial " + std::to_string(id));
  auto experiments = store.value()->experiments().List();
  if (!experiments.ok()) return ErrorResponse(500, experiments.message());
  core::Result<std::string> root =
      core::NotFound("trial " + std::to_string(id) + " has no experiment");
  for (const auto& e : experiments.value()) {
    if (e.id == trial.value()->experiment_id)
      root = NamedTrialsRoot(e.config_json, options_.db_path, e.name);
  }
  if (!root.ok()) {
    return ErrorResponse(
        404, "trial " + std::to_string(id) + " has no logs: " + root.message());
  }
  // Walked from the database's folder: no link on the way is followed.
  std::filesystem::path folder =
      std::filesystem::absolute(options_.db_path).parent_path();
  std::filesystem::path dir =
      std::filesystem::absolute(root.value() + "/" + std::to_string(id));
  UniqueFd dir_fd =
      OpenDirBelow(folder, dir.lexically_normal().lexically_relative(folder));
  if (dir_fd.get() < 0) {
    return ErrorResponse(404, "trial " + std::to_string(id) + " has no logs");
  }
  std::string file = stream + ".log";
  UniqueFd log(openat(dir_fd.get(), file.c_str(),
                      O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (log.get() < 0) {
    return ErrorResponse(404,
                         "trial " + std::to_string(id) + " has no " + file);
  }
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.body = Printable(util::ValidUtf8(Tail(log.get(), lines)), "\t\r\n",
                     ControlShown::kReplaced);
  return r;
}

}  // namespace tuner::server
