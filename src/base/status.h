// Status and Result<T>: errors as values at every layer boundary.
//
// Contract: functions that can fail on input return Status or Result<T>; they
// never throw across a layer boundary. A Status carries a code, a message that
// already names "what" and "where" (path, byte offset, line or event index), so
// the CLI can print it as the single error line and exit with code 2.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gpuwhy {

// StatusCode: coarse classes; the CLI maps kInvalidInput/kNotFound/kUnsupported
// to exit code 2.
enum class StatusCode {
  kOk = 0,
  kInvalidInput,   // the bytes are not a valid container of the claimed format
  kNotFound,       // a path does not exist
  kUnsupported,    // a recognised format we cannot read (e.g. .nsys-rep)
  kIoError,        // the OS refused (permissions, directory, read error)
  kInternal,       // a bug in gpuwhy
};

// Status: a code plus a human-readable message. Default is OK.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  // Ok: the success value.
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Convenience constructors; the message should name what and where.
inline Status InvalidInput(std::string msg) { return {StatusCode::kInvalidInput, std::move(msg)}; }
inline Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
inline Status Unsupported(std::string msg) { return {StatusCode::kUnsupported, std::move(msg)}; }
inline Status IoError(std::string msg) { return {StatusCode::kIoError, std::move(msg)}; }
inline Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

// Result<T>: either a T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}    // NOLINT: must not be OK

  bool ok() const { return std::holds_alternative<T>(v_); }
  // status(): OK when holding a value.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace gpuwhy

#define GPUWHY_CONCAT_INNER(a, b) a##b
#define GPUWHY_CONCAT(a, b) GPUWHY_CONCAT_INNER(a, b)

// RETURN_IF_ERROR(expr): propagate a non-OK Status.
#define RETURN_IF_ERROR(expr)                   \
  do {                                          \
    ::gpuwhy::Status gpuwhy_st_ = (expr);       \
    if (!gpuwhy_st_.ok()) return gpuwhy_st_;    \
  } while (0)

// ASSIGN_OR_RETURN(lhs, expr): unwrap a Result or propagate its Status.
#define ASSIGN_OR_RETURN(lhs, expr)                                   \
  auto GPUWHY_CONCAT(gpuwhy_res_, __LINE__) = (expr);                 \
  if (!GPUWHY_CONCAT(gpuwhy_res_, __LINE__).ok())                     \
    return GPUWHY_CONCAT(gpuwhy_res_, __LINE__).status();             \
  lhs = std::move(GPUWHY_CONCAT(gpuwhy_res_, __LINE__)).value()
