// Text document synchronisation notifications (textDocument/did*).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/lsp_basic.h"

namespace argus::protocol {

// LSP TextDocumentSyncKind.
enum class TextDocumentSyncKind { None = 0, Full = 1, Incremental = 2 };

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
  friend bool operator==(const DidOpenTextDocumentParams&, const DidOpenTextDocumentParams&) = default;
};

// With `range`: replace that range (UTF-16 positions) by `text`.
// Without: `text` is the whole new document. `rangeLength` is deprecated and
// ignored by applyContentChange, kept only for round-tripping.
struct TextDocumentContentChangeEvent {
  std::optional<Range> range;
  std::optional<int> rangeLength;
  std::string text;
  friend bool operator==(const TextDocumentContentChangeEvent&, const TextDocumentContentChangeEvent&) = default;
};

// Changes apply in order, each to the result of the previous one.
struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
  friend bool operator==(const DidChangeTextDocumentParams&, const DidChangeTextDocumentParams&) = default;
};

struct DidSaveTextDocumentParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> text;  // only if the server asked for it
  friend bool operator==(const DidSaveTextDocumentParams&, const DidSaveTextDocumentParams&) = default;
};

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
  friend bool operator==(const DidCloseTextDocumentParams&, const DidCloseTextDocumentParams&) = default;
};

bool fromJSON(const json& j, DidOpenTextDocumentParams& out, JsonPath path);
json toJSON(const DidOpenTextDocumentParams& p);
bool fromJSON(const json& j, TextDocumentContentChangeEvent& out, JsonPath path);
json toJSON(const TextDocumentContentChangeEvent& c);
bool fromJSON(const json& j, DidChangeTextDocumentParams& out, JsonPath path);
json toJSON(const DidChangeTextDocumentParams& p);
bool fromJSON(const json& j, DidSaveTextDocumentParams& out, JsonPath path);
json toJSON(const DidSaveTextDocumentParams& p);
bool fromJSON(const json& j, DidCloseTextDocumentParams& out, JsonPath path);
json toJSON(const DidCloseTextDocumentParams& p);

}  // namespace argus::protocol
