#include "protocol/lsp_progress.h"

namespace argus::protocol {

bool fromJSON(const json& j, RequestId& out, JsonPath path) {
  auto id = RequestId::fromJSON(j);
  if (!id) return path.fail("expected integer or string");
  out = std::move(*id);
  return true;
}

json toJSON(const RequestId& id) { return id.toJSON(); }

bool fromJSON(const json& j, WorkDoneProgressCreateParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("token", out.token);
}

json toJSON(const WorkDoneProgressCreateParams& p) { return json{{"token", toJSON(p.token)}}; }

bool fromJSON(const json& j, WorkDoneProgressCancelParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("token", out.token);
}

json toJSON(const WorkDoneProgressCancelParams& p) { return json{{"token", toJSON(p.token)}}; }

namespace {
void putCommon(json& j, const std::optional<bool>& cancellable, const std::optional<std::string>& message,
               const std::optional<int>& percentage) {
  if (cancellable) j["cancellable"] = *cancellable;
  if (message) j["message"] = *message;
  if (percentage) j["percentage"] = *percentage;
}
}  // namespace

json toJSON(const WorkDoneProgressBegin& b) {
  json j = {{"kind", "begin"}, {"title", b.title}};
  putCommon(j, b.cancellable, b.message, b.percentage);
  return j;
}

json toJSON(const WorkDoneProgressReport& r) {
  json j = {{"kind", "report"}};
  putCommon(j, r.cancellable, r.message, r.percentage);
  return j;
}

json toJSON(const WorkDoneProgressEnd& e) {
  json j = {{"kind", "end"}};
  if (e.message) j["message"] = *e.message;
  return j;
}

bool fromJSON(const json& j, CancelParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("id", out.id);
}

json toJSON(const CancelParams& p) { return json{{"id", toJSON(p.id)}}; }

}  // namespace argus::protocol
