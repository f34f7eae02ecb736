// JSON-RPC 2.0 message model: ids, error codes, and classification of an
// incoming JSON value into request / notification / response / invalid.
//
// Decisions (documented here because clients rely on them):
// - Batches (top-level arrays) are NOT supported: an array gets one error
//   response {"id": null, code InvalidRequest}. LSP never sends batches.
// - `id` must be an integer (fits int64) or a string. `id: null`, fractional
//   numbers and other types make the message invalid.
// - `params` may be an object or an array; `params: null` is treated like an
//   absent member (some clients send it); anything else is InvalidRequest.
// - A message that has `method` and also `result`/`error` is InvalidRequest.
// - Malformed *responses* are reported but never answered (answering a
//   response could start an error ping-pong between the peers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace argus::protocol {

using json = nlohmann::json;

// Standard JSON-RPC and LSP error codes, plus Argus' own.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  // LSP: request before a successful `initialize`.
  ServerNotInitialized = -32002,
  UnknownErrorCode = -32001,
  // Argus (JSON-RPC server-error range -32000..-32099): the TCP client's
  // `initializationOptions.token` is missing or wrong.
  Unauthorized = -32010,
  // LSP reserved range.
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

// JSON-RPC request id: integer or string. Comparable and usable as a map key.
class RequestId {
 public:
  RequestId() : value_(std::int64_t{0}) {}
  RequestId(int n) : value_(std::int64_t{n}) {}           // NOLINT: implicit by design
  RequestId(std::int64_t n) : value_(n) {}                // NOLINT
  RequestId(std::string s) : value_(std::move(s)) {}      // NOLINT
  RequestId(const char* s) : value_(std::string(s)) {}    // NOLINT

  // Accepts integers within int64 range and strings; nullopt otherwise.
  static std::optional<RequestId> fromJSON(const json& j);
  json toJSON() const;

  bool isInteger() const { return std::holds_alternative<std::int64_t>(value_); }
  std::int64_t integer() const { return std::get<std::int64_t>(value_); }
  const std::string& string() const { return std::get<std::string>(value_); }
  // Unique textual form ("5" or "\"abc\""), for logs and map keys.
  std::string str() const;

  friend bool operator==(const RequestId&, const RequestId&) = default;
  friend auto operator<=>(const RequestId&, const RequestId&) = default;

 private:
  std::variant<std::int64_t, std::string> value_;
};

// The `error` member of a response.
struct RpcError {
  int code = static_cast<int>(ErrorCode::InternalError);
  std::string message;
  std::optional<json> data;

  RpcError() = default;
  RpcError(ErrorCode c, std::string msg, std::optional<json> d = std::nullopt)
      : code(static_cast<int>(c)), message(std::move(msg)), data(std::move(d)) {}
  RpcError(int c, std::string msg, std::optional<json> d = std::nullopt)
      : code(c), message(std::move(msg)), data(std::move(d)) {}

  json toJSON() const;
  friend bool operator==(const RpcError&, const RpcError&) = default;
};

struct Request {
  RequestId id;
  std::string method;
  json params;  // null when absent, else object or array
};

struct Notification {
  std::string method;
  json params;  // null when absent, else object or array
};

struct Response {
  std::optional<RequestId> id;  // nullopt only for `"id": null` error responses
  std::variant<json, RpcError> outcome;  // result or error

  bool isError() const { return std::holds_alternative<RpcError>(outcome); }
};

// A message that violates JSON-RPC 2.0. `error` is what to send back (to `id`
// when it could be read, else to null) if `shouldReply` is set.
struct InvalidMessage {
  std::optional<RequestId> id;
  RpcError error;
  bool shouldReply = true;
};

using Message = std::variant<Request, Notification, Response, InvalidMessage>;

// Classifies and validates one parsed JSON value. Never throws.
Message classifyMessage(const json& j);

// Maximum nesting of arrays/objects accepted by parseMessage.
inline constexpr int kMaxJsonDepth = 256;

// Parses text first: invalid JSON, or JSON nested deeper than kMaxJsonDepth
// → InvalidMessage{null, ParseError}.
Message parseMessage(std::string_view text);

// Builders for outgoing messages (all include "jsonrpc": "2.0").
json makeRequest(const RequestId& id, std::string_view method, json params);
json makeNotification(std::string_view method, json params);
json makeResultResponse(const RequestId& id, json result);
// `id` nullopt → "id": null.
json makeErrorResponse(const std::optional<RequestId>& id, const RpcError& error);

}  // namespace argus::protocol
