// Work-done progress ($/progress, window/workDoneProgress/create|cancel) and
// request cancellation ($/cancelRequest; the Dispatcher handles it itself).
#pragma once

#include <optional>
#include <string>

#include "protocol/json_parse.h"
#include "protocol/json_rpc.h"

namespace argus::protocol {

// integer | string, like a request id.
using ProgressToken = RequestId;

bool fromJSON(const json& j, RequestId& out, JsonPath path);
json toJSON(const RequestId& id);

// Params of the server→client request window/workDoneProgress/create.
struct WorkDoneProgressCreateParams {
  ProgressToken token;
  friend bool operator==(const WorkDoneProgressCreateParams&, const WorkDoneProgressCreateParams&) = default;
};

// Client→server window/workDoneProgress/cancel (user pressed cancel).
struct WorkDoneProgressCancelParams {
  ProgressToken token;
  friend bool operator==(const WorkDoneProgressCancelParams&, const WorkDoneProgressCancelParams&) = default;
};

struct WorkDoneProgressBegin {
  std::string title;
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<int> percentage;  // 0..100
  friend bool operator==(const WorkDoneProgressBegin&, const WorkDoneProgressBegin&) = default;
};

struct WorkDoneProgressReport {
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<int> percentage;
  friend bool operator==(const WorkDoneProgressReport&, const WorkDoneProgressReport&) = default;
};

struct WorkDoneProgressEnd {
  std::optional<std::string> message;
  friend bool operator==(const WorkDoneProgressEnd&, const WorkDoneProgressEnd&) = default;
};

// $/progress params; T is one of the WorkDoneProgress* values.
template <class T>
struct ProgressParams {
  ProgressToken token;
  T value;
};

struct CancelParams {
  RequestId id;
  friend bool operator==(const CancelParams&, const CancelParams&) = default;
};

bool fromJSON(const json& j, WorkDoneProgressCreateParams& out, JsonPath path);
json toJSON(const WorkDoneProgressCreateParams& p);
bool fromJSON(const json& j, WorkDoneProgressCancelParams& out, JsonPath path);
json toJSON(const WorkDoneProgressCancelParams& p);
json toJSON(const WorkDoneProgressBegin& b);    // "kind": "begin"
json toJSON(const WorkDoneProgressReport& r);   // "kind": "report"
json toJSON(const WorkDoneProgressEnd& e);      // "kind": "end"
bool fromJSON(const json& j, CancelParams& out, JsonPath path);
json toJSON(const CancelParams& p);

template <class T>
json toJSON(const ProgressParams<T>& p) {
  return json{{"token", toJSON(p.token)}, {"value", toJSON(p.value)}};
}

}  // namespace argus::protocol
