#include "protocol/lsp_lifecycle.h"

namespace argus::protocol {

bool fromJSON(const json& j, InitializeParams& out, JsonPath path) {
  ObjectReader o(j, path);
  if (!(o.ok() && o.optional("processId", out.processId) && o.optional("rootUri", out.rootUri))) return false;
  out.initializationOptions = j.contains("initializationOptions") ? j["initializationOptions"] : json();
  out.workDoneProgress = false;
  auto caps = j.find("capabilities");
  if (caps == j.end() || caps->is_null()) return true;
  ObjectReader c(*caps, path.field("capabilities"));
  if (!c.ok()) return false;
  auto window = caps->find("window");
  if (window == caps->end() || window->is_null()) return true;
  ObjectReader w(*window, path.field("capabilities").field("window"));
  return w.ok() && w.optional("workDoneProgress", out.workDoneProgress);
}

json toJSON(const InitializeParams& p) {
  json j = {{"processId", p.processId ? json(*p.processId) : json()},
            {"rootUri", p.rootUri ? json(*p.rootUri) : json()},
            {"capabilities", {{"window", {{"workDoneProgress", p.workDoneProgress}}}}}};
  if (!p.initializationOptions.is_null()) j["initializationOptions"] = p.initializationOptions;
  return j;
}

json toJSON(const ServerCapabilities& c) {
  json j = json::object();
  j["textDocumentSync"] = {{"openClose", true},
                           {"change", static_cast<int>(c.textDocumentSync)},
                           {"save", {{"includeText", false}}}};
  if (c.codeLensProvider)
    j["codeLensProvider"] = {{"resolveProvider", false}, {"workDoneProgress", c.workDoneProgress}};
  if (!c.executeCommands.empty())
    j["executeCommandProvider"] = {{"commands", c.executeCommands}, {"workDoneProgress", c.workDoneProgress}};
  if (c.experimental) j["experimental"] = *c.experimental;
  return j;
}

json toJSON(const InitializeResult& r) {
  json j = {{"capabilities", toJSON(r.capabilities)}};
  if (r.serverInfo) {
    j["serverInfo"] = {{"name", r.serverInfo->name}};
    if (r.serverInfo->version) j["serverInfo"]["version"] = *r.serverInfo->version;
  }
  return j;
}

bool fromJSON(const json& j, DidChangeConfigurationParams& out, JsonPath path) {
  ObjectReader o(j, path);
  if (!o.ok()) return false;
  out.settings = j.contains("settings") ? j["settings"] : json();
  return true;
}

}  // namespace argus::protocol
