#include "tuner/base/run_contained.h"

#include <spdlog/spdlog.h>

#include <exception>

namespace tuner {

int RunContained(boost::asio::io_context& io, std::string_view loop) {
  int escaped = 0;
  for (;;) {
    try {
      io.run();
      return escaped;
    } catch (const std::exception& e) {
      spdlog::error("internal error in the {} loop (it goes on): {}", loop,
                    e.what());
    } catch (...) {
      spdlog::error(
          "internal error in the {} loop (it goes on): an unknown "
          "exception",
          loop);
    }
    ++escaped;
  }
}

}  // namespace tuner
