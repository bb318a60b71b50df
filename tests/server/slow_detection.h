// SlowDetection: device detection that waits at a gate the test opens. A
// fake hl-smi, put first on PATH, marks that it was entered and waits for
// the gate's file; then it runs the fake machine's hl-smi
// (tests/support/fake_machine.h). Declared before the Service under test:
// PATH is set before the service's threads start and restored after they
// end, so no thread reads it while it changes.
#ifndef TUNER_TESTS_SERVER_SLOW_DETECTION_H_
#define TUNER_TESTS_SERVER_SLOW_DETECTION_H_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/catch.h"

namespace tuner::testing {

class SlowDetection {
 public:
  SlowDetection()
      : gate_(std::filesystem::temp_directory_path() /
              ("tuner-slow-smi-" + std::to_string(getpid()))),
        saved_path_(getenv("PATH")) {
    std::filesystem::remove_all(gate_);
    std::filesystem::create_directories(gate_ / "bin");
    std::ofstream(gate_ / "bin" / "hl-smi")
        << "#!/bin/sh\ntouch '" << (gate_ / "entered").string()
        << "'\nwhile [ ! -e '" << (gate_ / "open").string()
        << "' ]; do sleep 0.02; done\nexec '" << FAKES_DIR << "/bin/hl-smi' "
        << "\"$@\"\n";
    std::filesystem::permissions(gate_ / "bin" / "hl-smi",
                                 std::filesystem::perms::owner_all);
    setenv("PATH", ((gate_ / "bin").string() + ":" + saved_path_).c_str(), 1);
  }
  ~SlowDetection() {
    setenv("PATH", saved_path_.c_str(), 1);
    std::filesystem::remove_all(gate_);
  }

  // Whether a detection has reached the gate since it was last shut.
  bool Entered() const { return std::filesystem::exists(gate_ / "entered"); }
  void Open() { std::ofstream(gate_ / "open") << "open\n"; }
  void Shut() {
    std::filesystem::remove(gate_ / "open");
    std::filesystem::remove(gate_ / "entered");
  }

 private:
  std::filesystem::path gate_;
  std::string saved_path_;
};

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SERVER_SLOW_DETECTION_H_
