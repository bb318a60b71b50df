#include "trial_runner/devices/device_parsers.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace tuner::runner {

namespace {

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string_view::npos;
       start = at + 1) {
    parts.push_back(TrimBlanks(text.substr(start, at - start)));
  }
  parts.push_back(TrimBlanks(text.substr(start)));
  return parts;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (auto line : Split(text, '\n')) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// The leading integer of "512", "512 MiB"; nullopt for "N/A" and the like.
std::optional<int64_t> LeadingInt(std::string_view field) {
  int64_t value = 0;
  auto [end, ec] =
      std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end == field.data()) return std::nullopt;
  return value;
}

core::Error BadLine(std::string_view tool, size_t line, std::string_view text,
                    std::string_view what) {
  return core::InvalidArgument(
      std::string(tool) + " output line " + std::to_string(line + 1) + ": " +
      std::string(what) + ": '" + std::string(text) + "'");
}

// The rows of a tool's CSV (no header), each with at least `fields` fields.
using Row = std::vector<std::string_view>;
core::Result<std::vector<Row>> CsvRows(std::string_view tool,
                                       std::string_view csv, size_t fields) {
  std::vector<Row> rows;
  auto lines = Lines(csv);
  for (size_t i = 0; i < lines.size(); ++i) {
    rows.push_back(Split(lines[i], ','));
    if (rows.back().size() < fields) {
      return BadLine(tool, i, lines[i],
                     std::to_string(fields) + " fields expected");
    }
    if (!LeadingInt(rows.back()[0])) {
      return BadLine(tool, i, lines[i], "the first field must be an integer");
    }
  }
  return rows;
}

void SortById(std::vector<Device>& devices) {
  std::sort(devices.begin(), devices.end(),
            [](const Device& a, const Device& b) { return a.id < b.id; });
}

}  // namespace

core::Result<std::vector<Device>> ParseHlSmi(std::string_view csv,
                                             int64_t busy_memory_mib) {
  auto rows = CsvRows("hl-smi", csv, 7);
  if (!rows.ok()) return rows.error();
  std::vector<Device> cards;
  for (const auto& fields : rows.value()) {
    auto module = LeadingInt(fields[1]);
    if (!module) {
      return core::InvalidArgument("hl-smi: module_id '" +
                                   std::string(fields[1]) +
                                   "' is not an integer");
    }
    Device card;
    card.id = static_cast<int>(*module);
    card.index = static_cast<int>(*LeadingInt(fields[0]));
    card.bus_id = fields[2];
    card.name = fields[3];
    card.uuid = fields[4];
    card.memory_used_mib = LeadingInt(fields[5]).value_or(-1);
    card.memory_total_mib = LeadingInt(fields[6]).value_or(-1);
    if (card.memory_used_mib > busy_memory_mib) {
      card.busy = "memory.used " + std::to_string(card.memory_used_mib) +
                  " MiB > " + std::to_string(busy_memory_mib) + " MiB";
    }
    cards.push_back(std::move(card));
  }
  SortById(cards);
  return cards;
}

namespace {

using nlohmann::json;

bool LooksLikeChip(const json& j) {
  return j.is_object() &&
         (j.contains("nc_count") || j.contains("neuroncore_ids"));
}

// The array of chips: the document itself (old form) or, in the new form,
// the first array of chip-shaped objects found within two levels.
const json* FindChips(const json& doc) {
  if (doc.is_array()) return &doc;
  if (!doc.is_object()) return nullptr;
  for (const auto& [key, value] : doc.items()) {
    if (value.is_array() && !value.empty() && LooksLikeChip(value.front()))
      return &value;
    if (value.is_object()) {
      if (const json* inner = FindChips(value); inner && !inner->empty())
        return inner;
    }
  }
  return nullptr;
}

int64_t IntOf(const json& chip, const char* key, int64_t fallback) {
  auto it = chip.find(key);
  if (it == chip.end()) return fallback;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string())
    return LeadingInt(it->get<std::string>()).value_or(fallback);
  return fallback;
}

std::string StringOf(const json& chip, const char* key) {
  auto it = chip.find(key);
  return it != chip.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string BusyReason(const json& chip) {
  auto it = chip.find("neuron_processes");
  if (it == chip.end() || !it->is_array() || it->empty()) return "";
  std::string pids;
  for (const auto& process : *it) {
    if (!process.is_object() || !process.contains("pid")) continue;
    pids += (pids.empty() ? "" : ",") + process["pid"].dump();
  }
  return "chip has processes" + (pids.empty() ? "" : " (pid " + pids + ")");
}

}  // namespace

core::Result<std::vector<Device>> ParseNeuronLs(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return core::InvalidArgument("neuron-ls: output is not JSON");
  const json* chips = FindChips(doc);
  if (!chips)
    return core::InvalidArgument("neuron-ls: no device list in the JSON");
  std::vector<Device> cores;
  int next_core = 0;
  for (const auto& chip : *chips) {
    if (!LooksLikeChip(chip)) continue;
    int chip_id = static_cast<int>(IntOf(chip, "neuron_device", -1));
    int64_t count = IntOf(chip, "nc_count", 0);
    std::vector<int> ids;
    if (auto it = chip.find("neuroncore_ids");
        it != chip.end() && it->is_array()) {
      for (const auto& id : *it)
        if (id.is_number_integer()) ids.push_back(id.get<int>());
    }
    for (int64_t i = static_cast<int64_t>(ids.size()); i < count; ++i)
      ids.push_back(next_core + static_cast<int>(i));
    int64_t bytes = IntOf(chip, "memory_size", -1);
    for (int id : ids) {
      Device core;
      core.id = id;
      core.index = chip_id;
      core.name = "NeuronCore";
      core.bus_id = StringOf(chip, "bdf");
      if (bytes > 0)
        core.memory_total_mib =
            bytes / (1 << 20) / std::max<size_t>(1, ids.size());
      core.busy = BusyReason(chip);
      cores.push_back(std::move(core));
      next_core = std::max(next_core, id + 1);
    }
  }
  SortById(cores);
  return cores;
}

core::Result<std::vector<Device>> ParseNvidiaSmi(std::string_view csv) {
  auto rows = CsvRows("nvidia-smi", csv, 6);
  if (!rows.ok()) return rows.error();
  std::vector<Device> gpus;
  for (const auto& fields : rows.value()) {
    Device gpu;
    gpu.id = gpu.index = static_cast<int>(*LeadingInt(fields[0]));
    gpu.uuid = fields[1];
    gpu.name = fields[2];
    gpu.bus_id = fields[3];
    gpu.memory_total_mib = LeadingInt(fields[4]).value_or(-1);
    gpu.memory_used_mib = LeadingInt(fields[5]).value_or(-1);
    gpus.push_back(std::move(gpu));
  }
  SortById(gpus);
  return gpus;
}

void MarkNvidiaBusy(std::string_view compute_apps_csv,
                    std::vector<Device>& gpus) {
  for (auto line : Lines(compute_apps_csv)) {
    auto fields = Split(line, ',');
    if (fields.size() < 2) continue;
    for (auto& gpu : gpus) {
      if (gpu.uuid != fields[1]) continue;
      gpu.busy += (gpu.busy.empty() ? "compute process pid " : ",") +
                  std::string(fields[0]);
    }
  }
}

core::Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  for (auto part : Split(TrimBlanks(text), ',')) {
    if (part.empty()) continue;
    size_t dash = part.find('-');
    auto first = LeadingInt(part.substr(0, dash));
    auto last = dash == std::string_view::npos
                    ? first
                    : LeadingInt(part.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last > 65535) {
      return core::InvalidArgument("bad cpu list '" + std::string(text) + "'");
    }
    for (int64_t c = *first; c <= *last; ++c)
      cpus.push_back(static_cast<int>(c));
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace tuner::runner
