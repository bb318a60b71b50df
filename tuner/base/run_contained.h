// Runs an io_context so that no exception thrown by a handler ends the
// process: each one is logged and the loop goes on with its other work.
#ifndef TUNER_RUN_CONTAINED_H_
#define TUNER_RUN_CONTAINED_H_

#include <boost/asio/io_context.hpp>
#include <string_view>

namespace tuner {

// Runs `io` until it has no work left or is stopped, as io_context::run()
// does. A handler that throws is logged as an internal error of `loop` and
// the loop resumes with the next handler (Asio allows run() again after a
// handler threw). Returns how many handlers threw. Components that own
// state (a Sweep) contain their own exceptions and fail themselves; this is
// the last guard for the rest (HTTP sessions, the hub's timers).
int RunContained(boost::asio::io_context& io, std::string_view loop);

}  // namespace tuner

#endif  // TUNER_RUN_CONTAINED_H_
