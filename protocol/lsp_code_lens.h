// Code lenses (textDocument/codeLens) and commands (workspace/executeCommand).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"

namespace argus::protocol {

struct Command {
  std::string title;    // shown to the user, e.g. "verified (k ≤ 8)"
  std::string command;  // identifier, e.g. "argus.showCounterexample"
  std::optional<std::vector<json>> arguments;
  friend bool operator==(const Command&, const Command&) = default;
};

struct CodeLens {
  Range range;
  std::optional<Command> command;
  std::optional<json> data;
  friend bool operator==(const CodeLens&, const CodeLens&) = default;
};

struct CodeLensParams {
  TextDocumentIdentifier textDocument;
  friend bool operator==(const CodeLensParams&, const CodeLensParams&) = default;
};

struct ExecuteCommandParams {
  std::string command;
  std::optional<std::vector<json>> arguments;
  friend bool operator==(const ExecuteCommandParams&, const ExecuteCommandParams&) = default;
};

bool fromJSON(const json& j, Command& out, JsonPath path);
json toJSON(const Command& c);
bool fromJSON(const json& j, CodeLens& out, JsonPath path);
json toJSON(const CodeLens& c);
bool fromJSON(const json& j, CodeLensParams& out, JsonPath path);
json toJSON(const CodeLensParams& p);
bool fromJSON(const json& j, ExecuteCommandParams& out, JsonPath path);
json toJSON(const ExecuteCommandParams& p);

}  // namespace argus::protocol
