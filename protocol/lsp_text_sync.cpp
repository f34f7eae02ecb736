#include "protocol/lsp_text_sync.h"

namespace argus::protocol {

bool fromJSON(const json& j, DidOpenTextDocumentParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("textDocument", out.textDocument);
}

json toJSON(const DidOpenTextDocumentParams& p) { return json{{"textDocument", toJSON(p.textDocument)}}; }

bool fromJSON(const json& j, TextDocumentContentChangeEvent& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.optional("range", out.range) && o.optional("rangeLength", out.rangeLength) &&
         o.required("text", out.text);
}

json toJSON(const TextDocumentContentChangeEvent& c) {
  json j = {{"text", c.text}};
  if (c.range) j["range"] = toJSON(*c.range);
  if (c.rangeLength) j["rangeLength"] = *c.rangeLength;
  return j;
}

bool fromJSON(const json& j, DidChangeTextDocumentParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("textDocument", out.textDocument) && o.required("contentChanges", out.contentChanges);
}

json toJSON(const DidChangeTextDocumentParams& p) {
  return json{{"textDocument", toJSON(p.textDocument)}, {"contentChanges", toJSON(p.contentChanges)}};
}

bool fromJSON(const json& j, DidSaveTextDocumentParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("textDocument", out.textDocument) && o.optional("text", out.text);
}

json toJSON(const DidSaveTextDocumentParams& p) {
  json j = {{"textDocument", toJSON(p.textDocument)}};
  if (p.text) j["text"] = *p.text;
  return j;
}

bool fromJSON(const json& j, DidCloseTextDocumentParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("textDocument", out.textDocument);
}

json toJSON(const DidCloseTextDocumentParams& p) { return json{{"textDocument", toJSON(p.textDocument)}}; }

}  // namespace argus::protocol
