#include "trial_runner/devices/device_parsers.h"

#include "tests/catch.h"

namespace tuner::runner {
namespace {

TEST_CASE("hl-smi CSV: module id is the id, index kept, units tolerated",
          "[devices]") {
  auto cards = ParseHlSmi(
      "3, 6, 0000:20:1e.0, HL-205, U3, 512, 32768\n"
      "0, 5, 0000:10:1d.0, HL-205, U0, 512 MiB, 32768 MiB\n"
      "4, 2, 0000:90:1d.0, HL-205, U4, 30112, 32768\n",
      2048);
  REQUIRE(cards.ok());
  REQUIRE(cards.value().size() == 3);
  const auto& c = cards.value();
  CHECK(c[0].id == 2);
  CHECK(c[0].index == 4);
  CHECK_FALSE(c[0].busy.empty());  // 30112 MiB in use
  CHECK(c[1].id == 5);
  CHECK(c[1].memory_used_mib == 512);
  CHECK(c[1].memory_total_mib == 32768);
  CHECK(c[1].busy.empty());
  CHECK(c[2].id == 6);
  CHECK(c[2].index == 3);
  CHECK(c[2].bus_id == "0000:20:1e.0");
}

TEST_CASE("hl-smi CSV: a malformed line is an error naming it", "[devices]") {
  auto cards = ParseHlSmi("0, 5, bus, HL-205, U, 512, 32768\nN/A, x\n", 2048);
  REQUIRE_FALSE(cards.ok());
  CHECK(cards.message().find("line 2") != std::string::npos);
}

TEST_CASE("neuron-ls: the old array form and the new object form",
          "[devices]") {
  const char* old_form = R"([{"neuron_device": 0, "bdf": "0000:00:1e.0",
    "cpu_affinity": "0-7", "numa_node": "-1", "connected_to": null,
    "nc_count": 2, "memory_size": 34359738368, "neuroncore_ids": [0, 1],
    "neuron_processes": []}])";
  auto cores = ParseNeuronLs(old_form);
  REQUIRE(cores.ok());
  REQUIRE(cores.value().size() == 2);
  CHECK(cores.value()[1].id == 1);
  CHECK(cores.value()[1].index == 0);
  CHECK(cores.value()[1].memory_total_mib == 16384);

  const char* new_form = R"({"instance_type": "trn1.32xlarge",
    "neuron_devices": [
      {"neuron_device": 0, "nc_count": 2, "neuroncore_ids": [0, 1],
       "neuron_processes": [{"pid": 4242, "command": "python train.py"}]},
      {"neuron_device": 1, "nc_count": 2}]})";
  cores = ParseNeuronLs(new_form);
  REQUIRE(cores.ok());
  REQUIRE(cores.value().size() == 4);
  CHECK(cores.value()[0].busy.find("4242") != std::string::npos);
  CHECK(cores.value()[1].busy.find("4242") != std::string::npos);
  CHECK(cores.value()[2].id == 2);  // derived from nc_count
  CHECK(cores.value()[3].busy.empty());
  CHECK_FALSE(ParseNeuronLs("level=fatal msg=...").ok());
  CHECK_FALSE(ParseNeuronLs(R"({"instance_type": "x"})").ok());
}

TEST_CASE("nvidia-smi CSV and compute processes", "[devices]") {
  auto gpus = ParseNvidiaSmi(
      "0, GPU-aaa, NVIDIA A100-SXM4-40GB, 00000000:10:1C.0, 40960, 0\n"
      "1, GPU-bbb, NVIDIA A100-SXM4-40GB, 00000000:10:1D.0, 40960 MiB, 0 "
      "MiB\n");
  REQUIRE(gpus.ok());
  REQUIRE(gpus.value().size() == 2);
  CHECK(gpus.value()[1].uuid == "GPU-bbb");
  CHECK(gpus.value()[1].memory_total_mib == 40960);
  MarkNvidiaBusy("4821, GPU-bbb\n", gpus.value());
  CHECK(gpus.value()[0].busy.empty());
  CHECK(gpus.value()[1].busy == "compute process pid 4821");
}

TEST_CASE("cpu lists round-trip", "[devices]") {
  auto cpus = ParseCpuList("0-3,8,10-11");
  REQUIRE(cpus.ok());
  CHECK(cpus.value() == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(FormatCpuList(cpus.value()) == "0-3,8,10-11");
  CHECK_FALSE(ParseCpuList("3-1").ok());
}

}  // namespace
}  // namespace tuner::runner
