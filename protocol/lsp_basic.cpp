#include "protocol/lsp_basic.h"

namespace argus::protocol {

bool fromJSON(const json& j, Position& out, JsonPath path) {
  ObjectReader o(j, path);
  if (!(o.ok() && o.required("line", out.line) && o.required("character", out.character))) return false;
  if (out.line < 0) return path.field("line").fail("must not be negative");
  if (out.character < 0) return path.field("character").fail("must not be negative");
  return true;
}

json toJSON(const Position& p) { return json{{"line", p.line}, {"character", p.character}}; }

bool fromJSON(const json& j, Range& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("start", out.start) && o.required("end", out.end);
}

json toJSON(const Range& r) { return json{{"start", toJSON(r.start)}, {"end", toJSON(r.end)}}; }

bool fromJSON(const json& j, Location& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("uri", out.uri) && o.required("range", out.range);
}

json toJSON(const Location& l) { return json{{"uri", l.uri}, {"range", toJSON(l.range)}}; }

bool fromJSON(const json& j, TextDocumentIdentifier& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("uri", out.uri);
}

json toJSON(const TextDocumentIdentifier& t) { return json{{"uri", t.uri}}; }

bool fromJSON(const json& j, VersionedTextDocumentIdentifier& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("uri", out.uri) && o.required("version", out.version);
}

json toJSON(const VersionedTextDocumentIdentifier& t) { return json{{"uri", t.uri}, {"version", t.version}}; }

bool fromJSON(const json& j, TextDocumentItem& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("uri", out.uri) && o.required("languageId", out.languageId) &&
         o.required("version", out.version) && o.required("text", out.text);
}

json toJSON(const TextDocumentItem& t) {
  return json{{"uri", t.uri}, {"languageId", t.languageId}, {"version", t.version}, {"text", t.text}};
}

}  // namespace argus::protocol
