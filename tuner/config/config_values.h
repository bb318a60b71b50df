// Typed reading of YAML nodes, with errors that name the line and the key.
#ifndef TUNER_TUNER_CONFIG_CONFIG_VALUES_H_
#define TUNER_TUNER_CONFIG_CONFIG_VALUES_H_

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/param_value.h"
#include "tuner/config/command_template.h"

// Internal to config_loader.cc; LoadError never leaves LoadConfigText().
namespace tuner::config {

// "<line>: <key path>: <message>"; the loader prefixes the file name.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A dotted key path such as search_space.lr.low.
class Path {
 public:
  explicit Path(std::string text) : text_(std::move(text)) {}
  Path operator/(const std::string& key) const {
    return Path(text_.empty() ? key : text_ + "." + key);
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// The bounds of every duration in a config: 0.0001ms would round to 0 (which
// means "none" for timeouts) and 1e300s overflows.
inline constexpr std::chrono::milliseconds kMinDuration{1};
inline constexpr std::chrono::milliseconds kMaxDuration{30LL * 24 * 3600 *
                                                        1000};  // 30 days

// The largest time on the time_attr axis a config may name (max_t,
// grace_period): far past any training (asha's 64 rungs of factor 3 reach
// 3.4e30), and what is computed from it (a plan's units times
// --unit-seconds, summed over 10^7 trials and 64 brackets) stays finite.
inline constexpr double kMaxTimeUnits = 1e30;

[[noreturn]] void Fail(const YAML::Node& node, const Path& path,
                       const std::string& message);

// Typed getters: each fails with a LoadError on a value of the wrong kind.
class Reader {
 public:
  // Fails unless `node` is a mapping whose keys are all distinct (the
  // second of two equal keys is named).
  void Map(const YAML::Node& node, const Path& path) const;
  // Fails on a key of `node` not in `allowed`, suggesting the closest one.
  void Keys(const YAML::Node& node, const Path& path,
            const std::vector<std::string>& allowed) const;
  YAML::Node Required(const YAML::Node& node, const Path& path,
                      const std::string& key) const;
  std::string String(const YAML::Node& node, const Path& path) const;
  // Text that names something shown to people (the metric, the time
  // attribute): a String without any control character (C0, DEL, C1), as
  // it stands after YAML's escapes ("\e", "\x1b") are read.
  std::string Label(const YAML::Node& node, const Path& path) const;
  // A finite number (neither NaN nor ±inf) written in decimal
  // (core::IsDecimalNumber): "010", which YAML 1.1 reads as octal 8, and
  // "+5" are refused like Int's, in core::kDecimalNumberRule's words.
  double Number(const YAML::Node& node, const Path& path) const;
  // An integer written in decimal (core::IsDecimalInteger): an optional
  // '-', then digits without a leading zero ("010" is YAML 1.1's octal 8,
  // "0x10" its hex 16, "+5", "1e3": all refused, in
  // core::kDecimalIntegerRule's words, rather than read as something the
  // file does not show). One past int64_t's range: "must be <= ...".
  int64_t Int(const YAML::Node& node, const Path& path) const;
  // An integer in [low, high]: "must be >= low" or "must be <= high".
  int64_t Int(const YAML::Node& node, const Path& path, int64_t low,
              int64_t high) const;
  bool Bool(const YAML::Node& node, const Path& path) const;
  // A duration: seconds as a number, or "500ms", "90s", "10m", "2h", the
  // number written in decimal as Number's; at least kMinDuration and at
  // most kMaxDuration.
  std::chrono::milliseconds Duration(const YAML::Node& node,
                                     const Path& path) const;
  // A list of scalars: integers, reals, true/false, else strings. A plain
  // scalar is a number only when written in decimal as Number's; one that
  // YAML would read as a number by another rule ("010", "0x10") is a
  // string, passed to the trial as written.
  std::vector<core::ParamValue> Values(const YAML::Node& node,
                                       const Path& path) const;

  template <typename T>
  T Enum(const YAML::Node& node, const Path& path,
         const std::vector<std::pair<std::string, T>>& options) const {
    std::string text = String(node, path);
    std::vector<std::string> names;
    for (const auto& [name, value] : options) {
      if (name == text) return value;
      names.push_back(name);
    }
    FailChoice(node, path, text, names);
  }

 private:
  [[noreturn]] void FailChoice(const YAML::Node& node, const Path& path,
                               const std::string& text,
                               const std::vector<std::string>& names) const;
};

bool IsIdentifier(const std::string& text);
// Experiment names: letters, digits, '.', '_' and '-', not starting with '.'
// (a hidden directory) or '-' (a flag on a command line), at most 128.
bool IsName(const std::string& text);
// What IsName allows, for the errors that refuse a name.
inline constexpr const char* kNameRule =
    "use letters, digits, '.', '_' and '-', not starting with '.' or '-' (at "
    "most 128)";
// The edit distance between `a` and `b` where swapping two neighbouring
// letters counts as one edit (optimal string alignment): "stauts" is 1 from
// "status". Both are cut to 64 characters first (hostile input stays cheap).
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace tuner::config

#endif  // TUNER_TUNER_CONFIG_CONFIG_VALUES_H_
