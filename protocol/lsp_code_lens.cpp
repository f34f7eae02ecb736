#include "protocol/lsp_code_lens.h"

namespace argus::protocol {

bool fromJSON(const json& j, Command& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("title", out.title) && o.required("command", out.command) &&
         o.optional("arguments", out.arguments);
}

json toJSON(const Command& c) {
  json j = {{"title", c.title}, {"command", c.command}};
  if (c.arguments) j["arguments"] = *c.arguments;
  return j;
}

bool fromJSON(const json& j, CodeLens& out, JsonPath path) {
  ObjectReader o(j, path);
  if (!(o.ok() && o.required("range", out.range) && o.optional("command", out.command))) return false;
  out.data.reset();
  if (auto it = j.find("data"); it != j.end()) out.data = *it;
  return true;
}

json toJSON(const CodeLens& c) {
  json j = {{"range", toJSON(c.range)}};
  if (c.command) j["command"] = toJSON(*c.command);
  if (c.data) j["data"] = *c.data;
  return j;
}

bool fromJSON(const json& j, CodeLensParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("textDocument", out.textDocument);
}

json toJSON(const CodeLensParams& p) { return json{{"textDocument", toJSON(p.textDocument)}}; }

bool fromJSON(const json& j, ExecuteCommandParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("command", out.command) && o.optional("arguments", out.arguments);
}

json toJSON(const ExecuteCommandParams& p) {
  json j = {{"command", p.command}};
  if (p.arguments) j["arguments"] = *p.arguments;
  return j;
}

}  // namespace argus::protocol
