// Status and Result<T>: how errors cross module boundaries (no exceptions).
#ifndef TUNER_CORE_RESULT_H_
#define TUNER_CORE_RESULT_H_

#include <string>
#include <utility>
#include <variant>

namespace tuner::core {

enum class ErrorCode {
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kIoError,
  kUnavailable,
  kInternal,
  kCancelled,  // given up because the user asked (a signal)
};

// An error: a code and a message that names what failed and where. Messages
// carry no trailing period.
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

// Success, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  static Status Ok() { return Status(); }
  bool ok() const { return ok_; }
  const Error& error() const { return error_; }
  const std::string& message() const { return error_.message; }

 private:
  Error error_;
  bool ok_ = true;
};

// A value of type T, or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}             // NOLINT
  Result(Error error) : data_(std::move(error)) {}         // NOLINT
  Result(const Status& status) : data_(status.error()) {}  // NOLINT: !ok only

  bool ok() const { return std::holds_alternative<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const Error& error() const { return std::get<Error>(data_); }
  const std::string& message() const { return error().message; }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> data_;
};

inline Error InvalidArgument(std::string message) {
  return {ErrorCode::kInvalidArgument, std::move(message)};
}
inline Error NotFound(std::string message) {
  return {ErrorCode::kNotFound, std::move(message)};
}
inline Error AlreadyExists(std::string message) {
  return {ErrorCode::kAlreadyExists, std::move(message)};
}
inline Error IoError(std::string message) {
  return {ErrorCode::kIoError, std::move(message)};
}
inline Error Unavailable(std::string message) {
  return {ErrorCode::kUnavailable, std::move(message)};
}
inline Error Cancelled(std::string message) {
  return {ErrorCode::kCancelled, std::move(message)};
}
inline Error Internal(std::string message) {
  return {ErrorCode::kInternal, std::move(message)};
}

}  // namespace tuner::core

// Returns the Status of `expr` from the enclosing function if it is an error.
#define TUNER_RETURN_IF_ERROR(expr)                        \
  do {                                                     \
    auto tuner_status_ = (expr);                           \
    if (!tuner_status_.ok()) return tuner_status_.error(); \
  } while (0)

#endif  // TUNER_CORE_RESULT_H_
