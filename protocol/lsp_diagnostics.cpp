#include "protocol/lsp_diagnostics.h"

namespace argus::protocol {

bool fromJSON(const json& j, DiagnosticSeverity& out, JsonPath path) {
  int v = 0;
  if (!fromJSON(j, v, path)) return false;
  if (v < 1 || v > 4) return path.fail("severity must be 1..4");
  out = static_cast<DiagnosticSeverity>(v);
  return true;
}

json toJSON(DiagnosticSeverity s) { return static_cast<int>(s); }

bool fromJSON(const json& j, DiagnosticRelatedInformation& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("location", out.location) && o.required("message", out.message);
}

json toJSON(const DiagnosticRelatedInformation& r) {
  return json{{"location", toJSON(r.location)}, {"message", r.message}};
}

bool fromJSON(const json& j, Diagnostic& out, JsonPath path) {
  ObjectReader o(j, path);
  if (!(o.ok() && o.required("range", out.range) && o.optional("severity", out.severity) &&
        o.optional("source", out.source) && o.required("message", out.message) &&
        o.optional("relatedInformation", out.relatedInformation)))
    return false;
  out.code.reset();
  if (auto it = j.find("code"); it != j.end() && !it->is_null()) {
    if (it->is_string()) {
      out.code = it->get<std::string>();
    } else {
      std::int64_t n = 0;
      if (!fromJSON(*it, n, path.field("code"))) return false;
      out.code = std::to_string(n);
    }
  }
  out.data.reset();
  if (auto it = j.find("data"); it != j.end()) out.data = *it;
  return true;
}

json toJSON(const Diagnostic& d) {
  json j = {{"range", toJSON(d.range)}, {"message", d.message}};
  if (d.severity) j["severity"] = toJSON(*d.severity);
  if (d.code) j["code"] = *d.code;
  if (d.source) j["source"] = *d.source;
  if (d.relatedInformation) j["relatedInformation"] = toJSON(*d.relatedInformation);
  if (d.data) j["data"] = *d.data;
  return j;
}

bool fromJSON(const json& j, PublishDiagnosticsParams& out, JsonPath path) {
  ObjectReader o(j, path);
  return o.ok() && o.required("uri", out.uri) && o.optional("version", out.version) &&
         o.required("diagnostics", out.diagnostics);
}

json toJSON(const PublishDiagnosticsParams& p) {
  json j = {{"uri", p.uri}, {"diagnostics", toJSON(p.diagnostics)}};
  if (p.version) j["version"] = *p.version;
  return j;
}

}  // namespace argus::protocol
