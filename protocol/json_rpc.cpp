#include "protocol/json_rpc.h"

#include <limits>

namespace argus::protocol {

std::optional<RequestId> RequestId::fromJSON(const json& j) {
  if (j.is_string()) return RequestId(j.get<std::string>());
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return RequestId(static_cast<std::int64_t>(u));
  }
  if (j.is_number_integer()) return RequestId(j.get<std::int64_t>());
  return std::nullopt;
}

json RequestId::toJSON() const {
  if (isInteger()) return integer();
  return string();
}

std::string RequestId::str() const {
  if (isInteger()) return std::to_string(integer());
  return json(string()).dump(-1, ' ', false, json::error_handler_t::replace);
}

json RpcError::toJSON() const {
  json j = {{"code", code}, {"message", message}};
  if (data) j["data"] = *data;
  return j;
}

namespace {

InvalidMessage invalid(std::optional<RequestId> id, std::string why, bool reply = true) {
  return InvalidMessage{std::move(id), RpcError(ErrorCode::InvalidRequest, std::move(why)), reply};
}

Message classifyResponse(const json& j, const std::optional<RequestId>& id) {
  auto idIt = j.find("id");
  auto resIt = j.find("result");
  auto errIt = j.find("error");
  if (resIt != j.end() && errIt != j.end())
    return invalid(id, "response has both result and error", false);
  if (idIt == j.end()) return invalid(std::nullopt, "response without id", false);
  if (!id && !idIt->is_null()) return invalid(std::nullopt, "response id must be integer, string or null", false);
  if (resIt != j.end()) {
    if (!id) return invalid(std::nullopt, "result response with null id", false);
    return Response{id, *resIt};
  }
  const json& e = *errIt;
  if (!e.is_object()) return invalid(id, "response error must be an object", false);
  auto code = e.find("code");
  auto message = e.find("message");
  if (code == e.end() || !code->is_number_integer())
    return invalid(id, "response error code must be an integer", false);
  if (message == e.end() || !message->is_string())
    return invalid(id, "response error message must be a string", false);
  // Codes outside int range are clamped into a generic code rather than rejected.
  int c = static_cast<int>(ErrorCode::UnknownErrorCode);
  if (code->is_number_unsigned()) {
    auto u = code->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) c = static_cast<int>(u);
  } else {
    auto v = code->get<std::int64_t>();
    if (v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max()) c = static_cast<int>(v);
  }
  RpcError err(c, message->get<std::string>());
  if (auto d = e.find("data"); d != e.end()) err.data = *d;
  return Response{id, std::move(err)};
}

// Deeply nested JSON would overflow the stack in recursive json copies/dumps
// later on; reject it before parsing (linear scan, strings skipped).
bool nestingWithin(std::string_view text, int maxDepth) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return false;
    } else if (c == ']' || c == '}') --depth;
  }
  return true;
}

}  // namespace

Message classifyMessage(const json& j) {
  if (j.is_array()) return invalid(std::nullopt, "batch requests are not supported");
  if (!j.is_object()) return invalid(std::nullopt, "message must be a JSON object");

  std::optional<RequestId> id;
  auto idIt = j.find("id");
  if (idIt != j.end()) id = RequestId::fromJSON(*idIt);

  auto methodIt = j.find("method");
  bool looksLikeResponse = methodIt == j.end() && (j.contains("result") || j.contains("error"));

  auto versionIt = j.find("jsonrpc");
  if (versionIt == j.end() || !versionIt->is_string() || versionIt->get_ref<const std::string&>() != "2.0")
    return invalid(id, "jsonrpc must be \"2.0\"", !looksLikeResponse);

  if (looksLikeResponse) return classifyResponse(j, id);

  if (methodIt == j.end()) return invalid(id, "missing method");
  if (!methodIt->is_string()) return invalid(id, "method must be a string");
  if (idIt != j.end() && !id) return invalid(std::nullopt, "id must be an integer or a string");
  if (j.contains("result") || j.contains("error"))
    return invalid(id, "request must not contain result or error");

  json params;
  if (auto p = j.find("params"); p != j.end() && !p->is_null()) {
    if (!p->is_object() && !p->is_array()) return invalid(id, "params must be an object or an array");
    params = *p;
  }
  std::string method = methodIt->get<std::string>();
  if (id) return Request{std::move(*id), std::move(method), std::move(params)};
  return Notification{std::move(method), std::move(params)};
}

Message parseMessage(std::string_view text) {
  if (!nestingWithin(text, kMaxJsonDepth))
    return InvalidMessage{std::nullopt, RpcError(ErrorCode::ParseError, "JSON nested too deeply"), true};
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return InvalidMessage{std::nullopt, RpcError(ErrorCode::ParseError, "invalid JSON"), true};
  return classifyMessage(j);
}

json makeRequest(const RequestId& id, std::string_view method, json params) {
  json j = {{"jsonrpc", "2.0"}, {"id", id.toJSON()}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

json makeNotification(std::string_view method, json params) {
  json j = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

json makeResultResponse(const RequestId& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id.toJSON()}, {"result", std::move(result)}};
}

json makeErrorResponse(const std::optional<RequestId>& id, const RpcError& error) {
  return json{{"jsonrpc", "2.0"}, {"id", id ? id->toJSON() : json(nullptr)}, {"error", error.toJSON()}};
}

}  // namespace argus::protocol
