// Diagnostics (textDocument/publishDiagnostics). For Argus, relatedInformation
// carries the steps of an error path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"

namespace argus::protocol {

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
  friend bool operator==(const DiagnosticRelatedInformation&, const DiagnosticRelatedInformation&) = default;
};

struct Diagnostic {
  Range range;
  std::optional<DiagnosticSeverity> severity;
  // LSP allows integer | string; integers are read as their decimal string.
  std::optional<std::string> code;
  std::optional<std::string> source;  // e.g. "argus"
  std::string message;
  std::optional<std::vector<DiagnosticRelatedInformation>> relatedInformation;
  std::optional<json> data;  // preserved between publishDiagnostics and codeAction
  friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int> version;
  std::vector<Diagnostic> diagnostics;
  friend bool operator==(const PublishDiagnosticsParams&, const PublishDiagnosticsParams&) = default;
};

// Severity must be an integer 1..4.
bool fromJSON(const json& j, DiagnosticSeverity& out, JsonPath path);
json toJSON(DiagnosticSeverity s);
bool fromJSON(const json& j, DiagnosticRelatedInformation& out, JsonPath path);
json toJSON(const DiagnosticRelatedInformation& r);
bool fromJSON(const json& j, Diagnostic& out, JsonPath path);
json toJSON(const Diagnostic& d);
bool fromJSON(const json& j, PublishDiagnosticsParams& out, JsonPath path);
json toJSON(const PublishDiagnosticsParams& p);

}  // namespace argus::protocol
