#include "core/result/result.h"

#include "core/cfa/entry_harness.h"
#include "core/result/assumption_automaton.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <iomanip>
#include <sstream>

namespace argus::result {

static const char* automatonInitialName(const AssumptionAutomaton& a) {
  return a.initial == AssumptionAutomaton::kVerified ? "verified"
         : a.initial == AssumptionAutomaton::kOpen   ? "open"
                                                     : "restricted";
}

void dropAutomaton(Condition& c) {
  if (!c.automaton) return;
  c.automatonStates = c.automaton->ordinaryStates();
  c.automatonInitial = automatonInitialName(*c.automaton);
  c.automaton.reset();
}

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::True: return "true";
    case Verdict::False: return "false";
    default: return "unknown";
  }
}

std::string preconditionText(const Counterexample& cex) {
  if (cex.finding != "latent") return "";
  std::string s = "fails if on entry: ";
  for (size_t i = 0; i < cex.precondition.size(); ++i) {
    const PreconditionPart& p = cex.precondition[i];
    // a condition a callee evaluates names that callee: its variables are the callee's
    // (sqlite3_bind_double's `p->eVdbeState` and sqlite3_mutex_enter's `!(p)` are two p's)
    std::string where = p.function.empty() || p.function == cex.entry ? "" : "in " + p.function + ", ";
    s += (i ? ", " : "") + p.condition + " (" + where + p.file + ":" + std::to_string(p.line) + ")";
  }
  if (cex.precondition.empty()) s += "(a condition on the entry's inputs)";
  if (cex.preconditionOmitted) s += ", and " + std::to_string(cex.preconditionOmitted) + " more";
  return s;
}

bool isLatent(const VerificationResult& r) {
  return r.verdict == Verdict::Unknown && r.counterexample && r.counterexample->finding == "latent";
}

std::string latentReason(const VerificationResult& r) {
  if (!r.counterexample || r.counterexample->finding != "latent") return r.reason;
  std::string s = "latent finding: " + preconditionText(*r.counterexample);
  for (const Counterexample& m : r.moreLatent) {
    s += "; latent finding";
    if (!m.steps.empty()) s += " at " + m.steps.back().file + ":" + std::to_string(m.steps.back().line);
    s += ": " + preconditionText(m);
  }
  size_t rest = r.condition.summary.find("; ");
  if (rest != std::string::npos) s += r.condition.summary.substr(rest);
  return s;
}

bool reachesSameError(const Counterexample& caller, const Counterexample& latent) {
  if (caller.finding != "manifest" || !caller.replayed || caller.steps.empty() || latent.steps.empty()) return false;
  if (caller.entry == latent.entry) return false;
  const TraceStep& a = caller.steps.back();
  const TraceStep& b = latent.steps.back();
  if (a.function != b.function || a.file != b.file || a.line != b.line || a.column != b.column) return false;
  if (caller.property != latent.property) return false;
  for (const TraceStep& s : caller.steps)
    if (s.function == latent.entry) return true;
  return false;
}

std::string verdictText(const VerificationResult& r) {
  if (r.verdict == Verdict::False && r.counterexample && !r.counterexample->property.empty())
    return "false(" + r.counterexample->property + ")";
  return verdictName(r.verdict);
}

// The JSON of one counterexample (toJson's "counterexample", and each of "more_latent").
static nlohmann::json counterexampleJson(const Counterexample& cex) {
  nlohmann::json steps = nlohmann::json::array();
  for (const TraceStep& s : cex.steps) {
    nlohmann::json js;
    js["file"] = s.file;
    js["line"] = s.line;
    js["column"] = s.column;
    js["function"] = s.function;
    js["statement"] = s.statement;
    nlohmann::json vals = nlohmann::json::object();
    for (const auto& [k, v] : s.values) vals[k] = v;
    js["values"] = vals;
    if (s.nondet) js["nondet"] = true;
    steps.push_back(js);
  }
  nlohmann::json c = {{"entry", cex.entry}, {"replayed", cex.replayed}, {"assumptions", cex.assumptions}, {"steps", steps}};
  nlohmann::json inputs = nlohmann::json::array();
  for (const PathInput& in : cex.inputs)
    inputs.push_back({{"function", in.function},
                      {"value", in.width > 64 ? nlohmann::json(cfa::valueToString(in.value, in.width, false))
                                              : nlohmann::json(static_cast<uint64_t>(in.value))},
                      {"width", in.width},
                      {"signed", in.isSigned}, {"file", in.file}, {"line", in.line}});
  c["inputs"] = inputs;
  if (!cex.uncontrolled.empty()) c["uncontrolled"] = cex.uncontrolled;
  if (!cex.property.empty()) {
    c["property"] = cex.property;
    if (!cex.violation.empty()) c["violation"] = cex.violation;
  }
  c["finding"] = cex.finding;
  if (!cex.manifestGiven.empty()) c["manifest_given"] = cex.manifestGiven;
  if (cex.finding == "latent") {
    nlohmann::json parts = nlohmann::json::array();
    for (const PreconditionPart& p : cex.precondition)
      parts.push_back({{"condition", p.condition}, {"function", p.function}, {"file", p.file}, {"line", p.line}});
    c["precondition"] = {{"text", preconditionText(cex)}, {"conditions", parts}, {"omitted", cex.preconditionOmitted}};
  }
  return c;
}

nlohmann::json toJson(const VerificationResult& r) {
  nlohmann::json j;
  j["verdict"] = verdictName(r.verdict);
  if (!r.property.empty()) j["property"] = r.property;
  j["algorithm"] = r.algorithm;
  if (!r.closureHash.empty()) j["closure_hash"] = r.closureHash;
  if (!r.entryName.empty())
    j["function"] = {{"name", r.entryName}, {"file", r.entryFile}, {"line", r.entryLine}, {"column", r.entryColumn}};
  j["solver"] = r.solver;
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  if (!r.assumedPrecondition.empty()) j["assumed_precondition"] = r.assumedPrecondition;
  if (r.counterexample) {
    const Counterexample& cex = *r.counterexample;
    j["counterexample"] = counterexampleJson(cex);
    if (!cex.property.empty() && r.verdict == Verdict::False) j["violated_property"] = cex.property;
    j["confirmed_by"] = cex.confirmedBy;
    if (!cex.nativeNote.empty()) j["native_check"] = cex.nativeNote;
  } else {
    j["counterexample"] = nullptr;
  }
  if (!r.moreLatent.empty()) {
    nlohmann::json more = nlohmann::json::array();
    for (const Counterexample& m : r.moreLatent) {
      nlohmann::json c = counterexampleJson(m);
      c["confirmed_by"] = m.confirmedBy;
      more.push_back(std::move(c));
    }
    j["more_latent"] = std::move(more);
  }
  nlohmann::json c;
  c["kind"] = r.condition.kind;
  c["summary"] = r.condition.summary;
  if (r.condition.bound) c["bound"] = *r.condition.bound;
  if (r.condition.callDepth) c["call_depth"] = *r.condition.callDepth;
  if (r.condition.complete) c["complete"] = true;
  if (r.condition.vacuous) c["vacuous"] = true;
  c["excluded"] = r.condition.excluded;
  if (!r.condition.assumptions.empty()) {
    // the formula can be long: the first clauses here, all of them in --condition-out
    constexpr size_t kMaxClauses = 50;
    nlohmann::json f = nlohmann::json::array();
    for (size_t i = 0; i < r.condition.assumptions.size() && i < kMaxClauses; ++i) f.push_back(r.condition.assumptions[i]);
    c["assumption_formula"] = f;
    c["assumption_clauses"] = r.condition.assumptions.size();
  }
  if (r.condition.automaton) {
    const AssumptionAutomaton& a = *r.condition.automaton;
    c["automaton_states"] = a.ordinaryStates();
    c["automaton_initial"] = automatonInitialName(a);
  } else if (!r.condition.automatonInitial.empty()) {
    c["automaton_states"] = r.condition.automatonStates;
    c["automaton_initial"] = r.condition.automatonInitial;
  }
  j["condition"] = c;
  if (!r.invariant.empty()) {
    nlohmann::json inv = nlohmann::json::object();
    for (const auto& [loc, f] : r.invariant) inv[loc] = f;
    j["invariant"] = inv;
  }
  if (!r.stages.empty()) {
    nlohmann::json sj = nlohmann::json::array();
    for (const StageRecord& x : r.stages) {
      nlohmann::json e{{"stage", x.spec}, {"decided_by", x.decidedBy}, {"verdict", verdictName(x.verdict)},
                       {"wall_time_s", x.wallTimeS}, {"cpu_time_s", x.cpuTimeS}};
      if (!x.reason.empty()) e["reason"] = x.reason;
      sj.push_back(e);
    }
    j["stages"] = sj;
  }
  nlohmann::json st;
  st["cpu_time_s"] = r.stats.cpuTimeS;
  st["wall_time_s"] = r.stats.wallTimeS;
  st["solver_queries"] = r.stats.solverQueries;
  st["solver_time_s"] = r.stats.solverTimeS;
  st["bound"] = r.stats.bound;
  st["unroll_nodes"] = r.stats.unrollNodes;
  st["formula_terms"] = r.stats.formulaTerms;
  for (const auto& [k, v] : r.stats.extra) st[k] = v;
  j["stats"] = st;
  return j;
}

std::string toText(const VerificationResult& r) {
  std::ostringstream o;
  for (const std::string& w : r.warnings)
    o << (w.find("warning:") == std::string::npos ? "warning: " : "") << w << "\n";
  o << "algorithm: " << r.algorithm << " (" << r.solver << ")\n";
  if (!r.assumedPrecondition.empty()) {
    o << "assuming its precondition:";
    for (size_t i = 0; i < r.assumedPrecondition.size(); ++i) o << (i ? ", " : " ") << r.assumedPrecondition[i];
    o << "\n";
  }
  if (r.counterexample) {
    const Counterexample& cex = *r.counterexample;
    o << "counterexample (" << cex.steps.size() << " steps, from " << cex.entry
      << (cex.replayed ? ", replayed" : "") << "):\n";
    if (!cex.property.empty())
      o << "violates: " << cex.property << (cex.violation.empty() ? "" : ": " + cex.violation) << "\n";
    else if (!cex.violation.empty())
      o << "violates: " << cex.violation << "\n";
    if (cex.finding == "latent")
      o << "latent: " << preconditionText(cex) << "\n";
    else if (!cex.manifestGiven.empty())
      o << "manifest: " << cex.manifestGiven << "\n";
    else if (!r.entryName.empty() && cex.entry != r.entryName)
      o << "manifest: the path comes from the caller '" << cex.entry << "' and passes through '" << r.entryName
        << "'\n";
    // Runs of three or more of the entry model's steps of one kind, each run on one line
    // (JSON keeps each step): pointer choices that chose an object ("entry model: X may be
    // null" not followed by "X is null"; on SQLite 35 of a path's first 45 steps), nulls at
    // the model's depth bound, and function pointers' choices ("X holds function F").
    const std::string kModel(cfa::kEntryModelText), kMay(cfa::kMayBeNullText), kIsNull(cfa::kIsNullText);
    const std::string kFn(cfa::kFunctionChoiceText), kFnNull(cfa::kFunctionNullText);
    const std::string kDepthNull = " = null (depth bound)";
    auto objectChoice = [&](size_t k) {
      const TraceStep& s = cex.steps[k];
      if (!s.values.empty() || s.statement.size() <= kModel.size() + kMay.size() || !s.statement.starts_with(kModel) ||
          !s.statement.ends_with(kMay))
        return false;
      std::string what = s.statement.substr(kModel.size(), s.statement.size() - kModel.size() - kMay.size());
      return k + 1 == cex.steps.size() || cex.steps[k + 1].statement != what + kIsNull;
    };
    auto depthNull = [&](size_t k) {
      const std::string& t = cex.steps[k].statement;
      return t.starts_with(kModel) && t.ends_with(kDepthNull);
    };
    auto functionChoice = [&](size_t k) {
      const TraceStep& s = cex.steps[k];
      return s.values.empty() && s.statement.starts_with(kModel) &&
             (s.statement.find(kFn, kModel.size()) != std::string::npos || s.statement.ends_with(kFnNull));
    };
    auto rootOf = [&](const std::string& t) {
      return t.substr(kModel.size(), t.find_first_of("[ ", kModel.size()) - kModel.size());
    };
    size_t i = 0;
    // the run of `is` steps from k, if three or more: one line "entry model: N <what> in
    // ROOTS <tail>", where `tail` sees the run's steps
    auto compressed = [&](size_t& k, const std::function<bool(size_t)>& is, const std::string& what,
                          const std::function<std::string(size_t, size_t)>& tail) {
      size_t run = 0;
      while (k + run < cex.steps.size() && is(k + run)) ++run;
      if (run < 3) return false;
      std::vector<std::string> roots;  // the objects the pointers hang from, in order
      for (size_t m = k; m < k + run; ++m)
        if (std::string root = rootOf(cex.steps[m].statement); std::find(roots.begin(), roots.end(), root) == roots.end())
          roots.push_back(root);
      std::ostringstream span;
      span << i + 1 << "-" << i + run;
      // the span reaches into the indent, so that the columns stay those of the others
      o << std::setw(5) << span.str() << "  " << cex.steps[k].file << ":" << cex.steps[k].line << "  entry model: " << run
        << " " << what << " in ";
      for (size_t m = 0; m < roots.size(); ++m) o << (m ? ", " : "") << roots[m];
      o << " " << tail(k, run) << "\n";
      i += run;
      k += run - 1;
      return true;
    };
    auto functionNames = [&](size_t k, size_t run) {
      constexpr size_t kNamed = 4;
      std::string names = "hold ";
      for (size_t m = k; m < k + run && m < k + kNamed; ++m) {
        const std::string& t = cex.steps[m].statement;
        size_t at = t.find(kFn, kModel.size());
        names += (m > k ? ", " : "") + (at == std::string::npos ? std::string("null") : t.substr(at + kFn.size()));
      }
      return run > kNamed ? names + ", …" : names;
    };
    for (size_t k = 0; k < cex.steps.size(); ++k) {
      if (compressed(k, functionChoice, "function pointers", functionNames) ||
          compressed(k, depthNull, "pointers", [](size_t, size_t) { return std::string("are null (the model's depth bound)"); }) ||
          compressed(k, objectChoice, "pointers", [](size_t, size_t) { return std::string("point to fresh objects (not null)"); }))
        continue;
      const TraceStep& s = cex.steps[k];
      o << "  " << std::setw(3) << ++i << "  " << s.file << ":" << s.line << "  " << std::left
        << std::setw(40) << s.statement << std::right;
      bool first = true;
      for (const auto& [k, v] : s.values) {
        o << (first ? "  " : ", ") << k << " = " << v;
        first = false;
      }
      if (s.nondet) o << "  (nondet)";
      o << "\n";
    }
    for (const std::string& a : cex.assumptions) o << "assuming " << a << "\n";
    o << "confirmed by: ";
    for (size_t k = 0; k < cex.confirmedBy.size(); ++k) o << (k ? ", " : "") << cex.confirmedBy[k];
    if (cex.confirmedBy.empty()) o << "nothing";
    if (!cex.nativeNote.empty()) o << " (native run: " << cex.nativeNote << ")";
    o << "\n";
  }
  // further latent findings: where, when, and the path's length (JSON "more_latent" has the paths)
  for (const Counterexample& m : r.moreLatent) {
    o << "latent finding";
    if (!m.steps.empty())
      o << " at " << m.steps.back().file << ":" << m.steps.back().line << " (" << m.steps.back().statement << ")";
    o << ": " << preconditionText(m) << " (" << m.steps.size() << " steps" << (m.replayed ? ", replayed" : "") << ")\n";
  }
  if (!r.condition.summary.empty()) o << "condition: " << r.condition.summary << "\n";
  if (!r.reason.empty()) o << "reason: " << r.reason << "\n";
  for (const auto& [loc, f] : r.invariant) o << "invariant at " << loc << ": " << f << "\n";
  // a chain: the stage that decided (every stage's time: --stats, JSON "stages")
  if (!r.stages.empty() && r.stages.back().verdict != Verdict::Unknown) {
    const StageRecord& x = r.stages.back();
    o << "decided by: stage " << r.stages.size() << " " << x.spec;
    if (!x.decidedBy.empty() && x.decidedBy != x.spec) o << " (" << x.decidedBy << ")";
    o << std::fixed << std::setprecision(2) << ", " << x.wallTimeS << " s wall, " << x.cpuTimeS << " s CPU\n";
  }
  o << std::fixed << std::setprecision(2) << "time: " << r.stats.cpuTimeS << " s CPU, "
    << r.stats.wallTimeS << " s wall, " << r.stats.solverQueries << " solver queries, bound "
    << r.stats.bound << "\n";
  if (!r.property.empty()) o << "property: " << r.property << "\n";
  o << "VERDICT: " << verdictText(r) << "\n";
  return o.str();
}

}  // namespace argus::result
