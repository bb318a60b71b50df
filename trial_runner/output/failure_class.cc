#include "trial_runner/output/failure_class.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "trial_runner/output/failure_line.h"
#include "trial_runner/output/rank_prefix.h"

namespace tuner::runner {

namespace {

bool ContainsIgnoringCase(std::string_view line, std::string_view needle) {
  auto it = std::search(line.begin(), line.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != line.end();
}

FailureClass ClassOf(std::string_view line) {
  for (std::string_view needle :
       {"Device acquire failed", "synStatus=8", "nrt_allocate_neuron_cores",
        "NeuronCore(s) not available", "Neuron Core(s) not available",
        "Neuron cores are not contiguous",
        "CUDA-capable devices are busy or unavailable",
        "cudaErrorDevicesUnavailable"}) {
    if (ContainsIgnoringCase(line, needle)) return FailureClass::kDeviceAcquire;
  }
  for (std::string_view needle :
       {"out of memory", "OutOfMemoryError", "MemoryError", "Allocation failed",
        "RESOURCE_EXHAUSTED"}) {
    if (ContainsIgnoringCase(line, needle)) return FailureClass::kOutOfMemory;
  }
  return FailureClass::kOther;
}

}  // namespace

Failure ClassifyFailure(std::string_view output) {
  Failure failure;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    if (FailureClass kind = ClassOf(line); kind != FailureClass::kOther) {
      failure.kind = kind;
      failure.line = PrintableLine(VisibleText(line).text, kMaxFailureLine);
    }
    start = end + 1;
  }
  return failure;
}

std::string FileTail(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  std::streamoff size = in.tellg();
  std::streamoff from =
      std::max<std::streamoff>(0, size - static_cast<std::streamoff>(bytes));
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  return tail;
}

}  // namespace tuner::runner
