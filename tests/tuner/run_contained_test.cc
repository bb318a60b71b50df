// RunContained: a handler that throws is logged and the loop goes on; with
// a bare io_context::run() the exception would end the caller (and, in
// `tuner serve`, the process with every experiment in it).
#include "tuner/base/run_contained.h"

#include <boost/asio/post.hpp>
#include <stdexcept>

#include "tests/catch.h"

namespace tuner {
namespace {

TEST_CASE("a handler that throws does not end the loop", "[tuner][loop]") {
  boost::asio::io_context io;
  int ran_after = 0;
  boost::asio::post(io, [] { throw std::runtime_error("handler bug"); });
  boost::asio::post(io, [&] { ++ran_after; });
  boost::asio::post(io, [] { throw 42; });  // not even a std::exception
  boost::asio::post(io, [&] { ++ran_after; });

  SECTION("bare run() lets the exception out") {
    REQUIRE_THROWS_AS(io.run(), std::runtime_error);
    REQUIRE(ran_after == 0);
  }
  SECTION("RunContained runs every other handler and counts the throws") {
    REQUIRE(RunContained(io, "test") == 2);
    REQUIRE(ran_after == 2);
    REQUIRE(io.stopped());
  }
}

TEST_CASE("RunContained returns when the loop is stopped", "[tuner][loop]") {
  boost::asio::io_context io;
  bool after_stop = false;
  boost::asio::post(io, [&] { io.stop(); });
  boost::asio::post(io, [&] { after_stop = true; });
  REQUIRE(RunContained(io, "test") == 0);
  REQUIRE_FALSE(after_stop);
}

}  // namespace
}  // namespace tuner
