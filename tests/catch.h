// Catch2 shim: Debian 12 / Ubuntu 22.04 ship Catch2 v2 (single header).
#ifndef TUNER_TESTS_CATCH_H_
#define TUNER_TESTS_CATCH_H_
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
#endif  // TUNER_TESTS_CATCH_H_
