#include "core/result/sarif.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <map>

#include "core/cfa/cfa_hash.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION "0.0.0"
#endif

namespace argus::result {

using nlohmann::json;

namespace {

// One rule per property (issue 26), in this order (ruleIndex): SV-COMP's names, the
// memory-safety subproperties as their own rules (a `false` names the one violated).
struct Rule {
  const char* id;
  const char* name;
  const char* shortText;
  const char* fullText;
  const char* tag;
};
constexpr Rule kRules[] = {
    {"unreach-call", "UnreachCall", "An error call or a failing assertion is reachable.",
     "reach_error(), __VERIFIER_error(), a failing assert() or __VERIFIER_assert() can be reached on some execution "
     "(SV-COMP's unreach-call property). Argus shows the path, replayed on its concrete interpreter.",
     "correctness"},
    {"valid-deref", "ValidDeref", "A memory access is invalid.",
     "A load or store through a null or dangling pointer (freed heap, a stack object after its function returned), "
     "or outside the object it points into (SV-COMP's valid-deref, part of valid-memsafety).",
     "security"},
    {"valid-free", "ValidFree", "free() is called with an invalid pointer.",
     "free() or realloc() of a pointer that is not the start of a live heap block: a double free, a stack or global "
     "object, or a pointer into a block (SV-COMP's valid-free, part of valid-memsafety).",
     "security"},
    {"valid-memtrack", "ValidMemtrack", "Heap memory becomes unreachable (a leak).",
     "A heap block is still allocated when no pointer to it is left: lost when its last pointer is overwritten or "
     "goes out of scope, or unreachable when main returns (SV-COMP's valid-memtrack, part of valid-memsafety).",
     "reliability"},
    {"valid-memcleanup", "ValidMemcleanup", "Heap memory is not freed when the program ends.",
     "A heap block is still allocated at a termination of the program: main's return, exit(), abort() "
     "(SV-COMP's valid-memcleanup).",
     "reliability"},
    {"no-overflow", "NoOverflow", "Signed integer arithmetic overflows.",
     "A signed + - * / or unary - whose mathematical result is outside its type's range: undefined behaviour in C "
     "(SV-COMP's no-overflow).",
     "correctness"},
    {"div-by-zero", "DivByZero", "An integer division or remainder by zero.",
     "The divisor of / or % can be zero: undefined behaviour in C.", "correctness"},
    {"shift", "InvalidShift", "A shift by a negative amount or by the type's width or more.",
     "The right operand of << or >> is negative or at least the width of the promoted left operand: undefined "
     "behaviour in C.",
     "correctness"},
    {"valid-memsafety", "ValidMemsafety", "Memory safety (valid-deref, valid-free, valid-memtrack).",
     "SV-COMP's valid-memsafety: the run that checked it did not decide it (a `false` names the subproperty's rule).",
     "security"},
};

json ruleDescriptor(const Rule& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"shortDescription", {{"text", r.shortText}}},
          {"fullDescription", {{"text", r.fullText}}},
          {"defaultConfiguration", {{"level", "error"}}},
          {"properties", {{"tags", {r.tag, "sv-comp"}}}}};
}

// The rule of a `false` (the property its counterexample violates) or of an `unknown`
// (the first property the run checked); unreach-call when none is named.
int ruleIndex(const std::string& property) {
  for (size_t i = 0; i < std::size(kRules); ++i)
    if (property == kRules[i].id) return static_cast<int>(i);
  return 0;
}

int ruleOfResult(const json& r) {
  if (r.contains("counterexample") && r["counterexample"].is_object())
    return ruleIndex(r["counterexample"].value("property", std::string()));
  std::string checked = r.value("property", std::string());
  return ruleIndex(checked.substr(0, checked.find(',')));
}

json physicalLocation(const std::string& file, uint32_t line, uint32_t column) {
  json p = {{"artifactLocation", {{"uri", pathToUri(file)}}}};
  if (line > 0) {
    json region = {{"startLine", line}};
    if (column > 0) region["startColumn"] = column;
    p["region"] = region;
  }
  return p;
}

std::string fingerprint(const json& r, const std::string& entry, const std::string& kind) {
  cfa::Hasher h;
  h.add(r.value("closure_hash", std::string()));
  h.add(entry);
  h.add(kRules[ruleOfResult(r)].id);
  h.add(kind);
  return h.hex();
}

std::string algorithmOf(const json& r) {
  std::string alg = r.value("algorithm", std::string());
  if (r.contains("stages") && r["stages"].is_array() && !r["stages"].empty()) {
    const json& last = r["stages"].back();
    std::string by = last.value("decided_by", std::string());
    if (!by.empty() && by != alg) alg += " (" + by + ")";
  }
  return alg;
}

// The result of a `false`: the error call and the path to it.
json violation(const SarifTask& t, const json& r) {
  const json& cex = r["counterexample"];
  const json& steps = cex["steps"];
  std::string entry = cex.value("entry", std::string("main"));
  const json& last = steps.empty() ? json::object() : steps.back();
  std::string call = last.value("statement", std::string("the error call"));
  json tfl = json::array();
  int order = 0;
  for (const json& s : steps) {
    json loc = {{"physicalLocation", physicalLocation(s.value("file", t.file), s.value("line", 0u), s.value("column", 0u))},
                {"message", {{"text", s.value("statement", std::string())}}}};
    json e = {{"location", loc}, {"executionOrder", ++order}};
    if (s.contains("values") && s["values"].is_object() && !s["values"].empty()) {
      json state = json::object();
      for (const auto& [k, v] : s["values"].items()) state[k] = {{"text", v.is_string() ? v.get<std::string>() : v.dump()}};
      e["state"] = state;
    }
    if (s.value("nondet", false)) e["properties"] = {{"nondet", true}};  // a value chosen by the environment
    tfl.push_back(e);
  }
  const int rule = ruleOfResult(r);
  const std::string property = cex.value("property", std::string());
  const std::string violation = cex.value("violation", std::string());
  // a latent finding (issue 29 item 4): a warning with its precondition, not an error
  const bool latent = cex.value("finding", std::string("manifest")) == "latent";
  std::string pre = latent && cex.contains("precondition") && cex["precondition"].is_object()
                        ? cex["precondition"].value("text", std::string())
                        : std::string();
  std::string what = property.empty() ? call + " is reachable from " + entry
                                      : property + " violated at " + call + (violation.empty() ? "" : " (" + violation + ")") +
                                            ", reachable from " + entry;
  if (latent) what = "latent: " + what + " when it " + pre;
  std::string text = what + " (" + std::to_string(steps.size()) + " steps; verdict " + (latent ? "unknown" : "false") +
                     " by " + algorithmOf(r) +
                     (cex.value("replayed", false) ? ", the path replayed by the concrete interpreter" : "") + ")";
  json res = {{"ruleId", kRules[rule].id},
              {"ruleIndex", rule},
              {"level", latent ? "warning" : "error"},
              {"message", {{"text", text}}},
              {"locations",
               json::array({{{"physicalLocation", physicalLocation(last.value("file", t.file), last.value("line", 0u),
                                                                   last.value("column", 0u))}}})},
              {"codeFlows",
               json::array({{{"message", {{"text", "counterexample from " + entry}}},
                             {"threadFlows", json::array({{{"locations", tfl}}})}}})},
              {"partialFingerprints", {{"argus/closure/v1", fingerprint(r, entry, latent ? "latent" : "false")}}},
              {"properties", {{"verdict", latent ? "unknown" : "false"}, {"entry", entry}, {"algorithm", r.value("algorithm", "")},
                              {"finding", latent ? "latent" : "manifest"}}}};
  if (latent) res["properties"]["precondition"] = cex.value("precondition", json::object());
  if (r.contains("confirmed_by")) res["properties"]["confirmed_by"] = r["confirmed_by"];
  return res;
}

// The note of an `unknown`: what was verified and why the run stopped.
json note(const SarifTask& t, const json& r) {
  const json f = r.contains("function") && r["function"].is_object() ? r["function"] : json::object();
  std::string entry = f.value("name", std::string("main"));
  const json& c = r.contains("condition") && r["condition"].is_object() ? r["condition"] : json::object();
  std::string summary = c.value("summary", std::string());
  std::string reason = r.value("reason", std::string());
  std::string text = entry + ": unknown";
  if (!summary.empty()) text += "; " + summary;
  if (!reason.empty()) text += " (stopped: " + reason + ")";
  json loc = {{"physicalLocation", physicalLocation(f.value("file", t.file), f.value("line", 0u), f.value("column", 0u))}};
  const int rule = ruleOfResult(r);
  json res = {{"ruleId", kRules[rule].id},
              {"ruleIndex", rule},
              {"level", "note"},
              {"message", {{"text", text}}},
              {"locations", json::array({loc})},
              {"partialFingerprints", {{"argus/closure/v1", fingerprint(r, entry, "unknown")}}},
              {"properties", {{"verdict", "unknown"}, {"entry", entry}, {"algorithm", r.value("algorithm", "")}}}};
  if (c.contains("bound")) res["properties"]["bound"] = c["bound"];
  if (c.contains("excluded") && !c["excluded"].empty()) res["properties"]["notVerified"] = c["excluded"];
  return res;
}

}  // namespace

std::string utcNow() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::string pathToUri(const std::string& path) {
  auto encode = [](const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                   c == '.' || c == '_' || c == '~' || c == '/';
      if (plain) {
        out += static_cast<char>(c);
      } else {
        char b[4];
        std::snprintf(b, sizeof b, "%%%02X", c);
        out += b;
      }
    }
    return out;
  };
  if (!path.empty() && path[0] == '/') return "file://" + encode(path);
  return encode(path);
}

json toSarif(const std::vector<SarifTask>& tasks, const SarifInvocation& inv) {
  json results = json::array();
  std::map<std::string, int> counts;
  std::vector<std::string> artifacts;
  for (const SarifTask& t : tasks) {
    const json& r = t.result;
    std::string v = r.value("verdict", std::string("unknown"));
    counts[v]++;
    if (std::find(artifacts.begin(), artifacts.end(), t.file) == artifacts.end()) artifacts.push_back(t.file);
    if (v == "false" && r.contains("counterexample") && r["counterexample"].is_object()) results.push_back(violation(t, r));
    else if (v == "unknown" && r.contains("counterexample") && r["counterexample"].is_object() &&
             r["counterexample"].value("finding", std::string()) == "latent")
      results.push_back(violation(t, r));
    else if (v == "unknown") results.push_back(note(t, r));
  }
  std::string commandLine;
  for (const std::string& a : inv.arguments) {
    bool quote = a.empty() || a.find_first_of(" \t\"'|&;<>()$`\\*?") != std::string::npos;
    std::string q = a;
    if (quote) {
      q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    commandLine += (commandLine.empty() ? "" : " ") + q;
  }
  json invocation = {{"executionSuccessful", inv.success}, {"commandLine", commandLine}, {"arguments", inv.arguments}};
  if (!inv.startTimeUtc.empty()) invocation["startTimeUtc"] = inv.startTimeUtc;
  if (!inv.endTimeUtc.empty()) invocation["endTimeUtc"] = inv.endTimeUtc;
  json rules = json::array();
  for (const Rule& r : kRules) rules.push_back(ruleDescriptor(r));
  json arts = json::array();
  for (const std::string& a : artifacts) arts.push_back({{"location", {{"uri", pathToUri(a)}}}});
  json run = {{"tool",
               {{"driver",
                 {{"name", "Argus"},
                  {"version", ARGUS_VERSION},
                  {"semanticVersion", ARGUS_VERSION},
                  {"rules", rules}}}}},
              {"invocations", json::array({invocation})},
              {"artifacts", arts},
              {"results", results},
              {"properties",
               {{"verified", counts["true"]}, {"counterexamples", counts["false"]}, {"unknown", counts["unknown"]}}}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

}  // namespace argus::result
