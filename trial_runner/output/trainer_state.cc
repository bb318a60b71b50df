#include "trial_runner/output/trainer_state.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trial_runner/output/python_dict.h"
#include "util/utf8_text.h"

namespace tuner::runner {

namespace {

using nlohmann::json;

// Python's json.dumps writes NaN, Infinity and -Infinity bare; JSON has no
// such tokens. Quotes them (outside strings), so that they parse as text
// that ParseNumber reads.
std::string QuoteNonFinite(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {  // copy a string, escapes included
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"')
        end += text[end] == '\\' ? 2 : 1;
      out.append(text, i, end - i + 1);
      i = end;
      continue;
    }
    bool matched = false;
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (text.compare(i, token.size(), token) != 0) continue;
      out += '"';
      out += token;
      out += '"';
      i += token.size() - 1;
      matched = true;
      break;
    }
    if (!matched) out += c;
  }
  return out;
}

std::optional<double> Number(const json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return ParseNumber(value.get<std::string>());
  return std::nullopt;
}

core::Metrics Entry(const json& object) {
  core::Metrics metrics;
  for (const auto& [key, value] : object.items()) {
    if (auto number = Number(value)) metrics.emplace_back(key, *number);
  }
  return metrics;
}

}  // namespace

std::optional<Checkpoint> ReadTrainerState(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  // A key or value that is not UTF-8 would make the whole file unreadable.
  json state =
      json::parse(QuoteNonFinite(util::ValidUtf8(text.str())), nullptr, false);
  if (!state.is_object() || !state.contains("log_history") ||
      !state["log_history"].is_array()) {
    return std::nullopt;  // not written completely yet, or not a state
  }
  Checkpoint checkpoint;
  checkpoint.state_path = path;
  checkpoint.dir = std::filesystem::path(path).parent_path().string();
  checkpoint.epoch = Number(state.value("epoch", json())).value_or(0);
  checkpoint.global_step = static_cast<int64_t>(
      Number(state.value("global_step", json())).value_or(0));
  for (const auto& entry : state["log_history"]) {
    if (entry.is_object()) checkpoint.log_history.push_back(Entry(entry));
  }
  return checkpoint;
}

std::vector<Checkpoint> ScanCheckpoints(const std::string& output_dir,
                                        const std::string& pattern) {
  std::vector<Checkpoint> found;
  std::string full = output_dir + "/" + pattern;
  glob_t matches{};
  if (glob(full.c_str(), GLOB_NOSORT, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) {
      if (auto checkpoint = ReadTrainerState(matches.gl_pathv[i]))
        found.push_back(std::move(*checkpoint));
    }
  }
  globfree(&matches);
  std::sort(found.begin(), found.end(),
            [](const Checkpoint& a, const Checkpoint& b) {
              return a.global_step < b.global_step;
            });
  return found;
}

}  // namespace tuner::runner
