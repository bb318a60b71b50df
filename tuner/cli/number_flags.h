// CLI11 validators for the verbs' numeric flags: one rule for every number
// typed on the command line.
#ifndef TUNER_TUNER_CLI_NUMBER_FLAGS_H_
#define TUNER_TUNER_CLI_NUMBER_FLAGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>

namespace tuner::cli {

// A flag's number, as typed: written in decimal (core::IsDecimalNumber:
// no "nan", "inf", "0x10", "+5" or leading zero) and within [low, high], so
// what the verb computes from it stays finite. Anything else is refused before
// the verb runs, in the one line CLI11 prefixes with the flag:
// "--unit-seconds: expected a number from 1e-06 to 1000000000, got nan".
CLI::Validator NumberIn(double low, double high);

// The same for an integer flag (core::IsDecimalInteger): "1e3", "+3", "010"
// and "0x10" (which CLI11 alone would read as 8 and 16) are refused.
CLI::Validator IntegerIn(int64_t low, int64_t high);

}  // namespace tuner::cli

#endif  // TUNER_TUNER_CLI_NUMBER_FLAGS_H_
