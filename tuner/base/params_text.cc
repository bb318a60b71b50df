#include "tuner/base/params_text.h"

#include <fmt/format.h>

#include <variant>

#include "tuner/base/one_line.h"

namespace tuner {

nlohmann::ordered_json ParamsObject(const core::Params& params) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const auto& [name, value] : params) {
    const std::string& key = name;  // clang 14 cannot capture a binding
    std::visit([&](const auto& v) { object[key] = v; }, value);
  }
  return object;
}

std::string FormatParams(const core::Params& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    std::string text = core::FormatParamValue(value);
    if (auto* d = std::get_if<double>(&value)) text = fmt::format("{:.4g}", *d);
    out += (out.empty() ? "" : " ") + name + "=" + text;
  }
  // Stored by older versions, a value may hold control characters.
  return OneLine(out);
}

}  // namespace tuner
