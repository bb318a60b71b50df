// Parsers for what the vendors' tools print about their devices. Pure
// functions of the text, so that recorded outputs can be replayed in tests.
#ifndef TUNER_TRIAL_RUNNER_DEVICES_DEVICE_PARSERS_H_
#define TUNER_TRIAL_RUNNER_DEVICES_DEVICE_PARSERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "trial_runner/devices/device.h"

namespace tuner::runner {

// The fields ParseHlSmi expects, in order, for
// `hl-smi -Q <fields> --format=csv,noheader,nounits`.
inline constexpr const char* kHlSmiFields =
    "index,module_id,bus_id,name,uuid,memory.used,memory.total";
// One card per line. Values may carry units ("512 MiB"). A card whose
// memory.used exceeds `busy_memory_mib` is marked busy.
core::Result<std::vector<Device>> ParseHlSmi(std::string_view csv,
                                             int64_t busy_memory_mib);

// `neuron-ls --json-output` (a top-level array of chips) or the newer
// `neuron-ls --output-format json` (an object holding that array next to
// instance-wide fields; found by its shape). One Device per NeuronCore; the
// cores of a chip with processes attached are marked busy.
core::Result<std::vector<Device>> ParseNeuronLs(std::string_view json);

// The fields ParseNvidiaSmi expects for
// `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`.
inline constexpr const char* kNvidiaSmiFields =
    "index,uuid,name,pci.bus_id,memory.total,memory.used";
core::Result<std::vector<Device>> ParseNvidiaSmi(std::string_view csv);
// Marks busy the GPUs that `nvidia-smi --query-compute-apps=pid,gpu_uuid
// --format=csv,noheader` lists.
void MarkNvidiaBusy(std::string_view compute_apps_csv,
                    std::vector<Device>& gpus);

// The CPU numbers in a Linux cpu list ("0-3,8,10-11").
core::Result<std::vector<int>> ParseCpuList(std::string_view text);
// `ids` as a cpu list, ranges collapsed ("0-3,8").
std::string FormatCpuList(const std::vector<int>& ids);

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_DEVICES_DEVICE_PARSERS_H_
