// initialize / initialized / shutdown / exit and configuration changes.
// Only the client fields Argus uses are parsed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"
#include "protocol/lsp_text_sync.h"

namespace argus::protocol {

struct InitializeParams {
  std::optional<std::int64_t> processId;  // null/absent: no parent process
  std::optional<std::string> rootUri;
  // capabilities.window.workDoneProgress: may we create progress tokens?
  bool workDoneProgress = false;
  // Raw; for TCP clients it carries {"token": ...} (see DESIGN.md).
  json initializationOptions;  // null when absent
  friend bool operator==(const InitializeParams&, const InitializeParams&) = default;
};

struct ServerCapabilities {
  TextDocumentSyncKind textDocumentSync = TextDocumentSyncKind::Incremental;
  bool codeLensProvider = true;
  std::vector<std::string> executeCommands;  // empty: no executeCommandProvider
  // Advertised as workDoneProgress on the codeLens/executeCommand options.
  bool workDoneProgress = true;
  std::optional<json> experimental;  // e.g. Argus extensions
};

struct ServerInfo {
  std::string name;
  std::optional<std::string> version;
};

struct InitializeResult {
  ServerCapabilities capabilities;
  std::optional<ServerInfo> serverInfo;
};

struct DidChangeConfigurationParams {
  json settings;  // raw
};

bool fromJSON(const json& j, InitializeParams& out, JsonPath path);
json toJSON(const InitializeParams& p);  // for test clients
json toJSON(const ServerCapabilities& c);
json toJSON(const InitializeResult& r);
bool fromJSON(const json& j, DidChangeConfigurationParams& out, JsonPath path);

}  // namespace argus::protocol
