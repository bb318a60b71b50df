// Checks a Prometheus text exposition (format 0.0.4) the way a scraper
// reads it, so that every test checks /metrics' format even where promtool
// is not installed: HELP and TYPE once per family before its samples,
// metric and label names, quoted and escaped label values, numbers, no
// series twice, counters named *_total, histograms with cumulative
// buckets that end at +Inf and equal _count.
#ifndef TUNER_TESTS_SERVER_PROMETHEUS_CHECK_H_
#define TUNER_TESTS_SERVER_PROMETHEUS_CHECK_H_

#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tuner::testing {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped
  double value = 0;
};

inline bool IsPromName(const std::string& s, bool colon) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' &&
        !(colon && c == ':'))
      return false;
  }
  return true;
}

inline bool ParsePromValue(const std::string& text, double& value) {
  if (text == "NaN" || text == "+Inf" || text == "-Inf") {
    value = text == "NaN" ? NAN : (text[0] == '+' ? INFINITY : -INFINITY);
    return true;
  }
  size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size();
}

// Parses `line` into `sample`; "" or what is wrong.
inline std::string ParsePromSample(const std::string& line,
                                   PromSample& sample) {
  size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  sample.name = line.substr(0, i);
  if (!IsPromName(sample.name, true)) return "bad metric name";
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      size_t eq = line.find('=', i);
      if (eq == std::string::npos) return "label without =";
      std::string label = line.substr(i, eq - i);
      if (!IsPromName(label, false)) return "bad label name " + label;
      if (eq + 1 >= line.size() || line[eq + 1] != '"') return "unquoted value";
      std::string value;
      size_t k = eq + 2;
      for (; k < line.size() && line[k] != '"'; ++k) {
        if (line[k] != '\\') {
          value += line[k];
          continue;
        }
        if (++k >= line.size()) return "dangling backslash";
        if (line[k] == 'n')
          value += '\n';
        else if (line[k] == '\\' || line[k] == '"')
          value += line[k];
        else
          return "bad escape";
      }
      if (k >= line.size()) return "unterminated label value";
      if (!sample.labels.emplace(label, value).second) return "label twice";
      i = k + 1;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return "unterminated labels";
    ++i;
  }
  if (i >= line.size() || line[i] != ' ') return "no value";
  if (!ParsePromValue(line.substr(i + 1), sample.value)) return "bad value";
  return "";
}

// Every problem found (empty when the exposition is clean).
inline std::vector<std::string> PrometheusProblems(const std::string& text) {
  std::vector<std::string> problems;
  std::map<std::string, std::string> types;  // family -> type
  std::set<std::string> helped, series, done_families;
  std::string current;  // the family whose samples come now
  std::map<std::string, std::vector<PromSample>> samples;  // by family
  std::istringstream in(text);
  std::string line;
  auto problem = [&](const std::string& what) {
    problems.push_back(what + ": " + line);
  };
  if (!text.empty() && text.back() != '\n') problems.push_back("no final \\n");
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, rest;
      words >> name >> rest;
      if (!IsPromName(name, true) || rest.empty()) problem("bad comment");
      if (done_families.count(name)) problem("family split");
      if (line[2] == 'H' && !helped.insert(name).second) problem("HELP twice");
      if (line[2] == 'T') {
        if (!types.emplace(name, rest).second) problem("TYPE twice");
        if (rest != "counter" && rest != "gauge" && rest != "histogram")
          problem("unknown type");
        bool total =
            name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0;
        if (rest == "counter" && !total) problem("counter not named _total");
      }
      if (name != current && !current.empty()) done_families.insert(current);
      current = name;
      continue;
    }
    if (line.empty() || line[0] == '#') {
      problem("stray line");
      continue;
    }
    PromSample sample;
    if (std::string why = ParsePromSample(line, sample); !why.empty()) {
      problem(why);
      continue;
    }
    std::string family = sample.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      std::string s = suffix;
      if (family.size() > s.size() &&
          family.compare(family.size() - s.size(), s.size(), s) == 0 &&
          types.count(family.substr(0, family.size() - s.size())) &&
          types[family.substr(0, family.size() - s.size())] == "histogram")
        family = family.substr(0, family.size() - s.size());
    }
    if (family != current || !types.count(family) || !helped.count(family))
      problem("sample outside its family's HELP/TYPE");
    std::string key = line.substr(0, line.rfind(' '));
    if (!series.insert(key).second) problem("series twice");
    samples[family].push_back(sample);
  }
  for (const auto& [family, type] : types) {
    if (type != "histogram") continue;
    double last = 0, inf = -1, count = -1;
    for (const auto& s : samples[family]) {
      if (s.name == family + "_bucket") {
        if (s.value < last) problems.push_back(family + ": buckets decrease");
        last = s.value;
        if (s.labels.count("le") && s.labels.at("le") == "+Inf") inf = s.value;
      }
      if (s.name == family + "_count") count = s.value;
    }
    if (inf < 0 || inf != count)
      problems.push_back(family + ": +Inf bucket differs from _count");
  }
  return problems;
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SERVER_PROMETHEUS_CHECK_H_
