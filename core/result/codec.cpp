#include "core/result/codec.h"

#include "core/result/assumption_automaton.h"

namespace argus::result {

using nlohmann::json;

json encodeResult(const VerificationResult& r) {
  json j = toJson(r);  // public fields, plus what it leaves out:
  j["verdict_code"] = static_cast<int>(r.verdict);
  json extra = json::object();
  for (const auto& [k, v] : r.stats.extra) extra[k] = v;
  j["stats_extra"] = extra;
  auto ordered = [](const Counterexample& cex) {
    json vals = json::array();
    for (const auto& s : cex.steps) {
      json pairs = json::array();
      for (const auto& [k, v] : s.values) pairs.push_back({k, v});
      vals.push_back(pairs);
    }
    return vals;
  };
  if (r.counterexample) j["ordered_values"] = ordered(*r.counterexample);  // toJson's object loses the assignment order
  for (size_t i = 0; i < r.moreLatent.size() && j.contains("more_latent"); ++i)
    j["more_latent"][i]["ordered_values"] = ordered(r.moreLatent[i]);
  if (!r.condition.assumptions.empty()) j["assumptions_all"] = r.condition.assumptions;  // toJson keeps 50
  if (r.condition.automaton) j["automaton"] = toJson(*r.condition.automaton);
  return j;
}

// One counterexample: `c` its object, `top` the object holding "confirmed_by",
// "native_check" and "ordered_values" (the result's, or `c` itself for "more_latent").
static Counterexample decodeCounterexample(const json& c, const json& top) {
  Counterexample cex;
  cex.entry = c.value("entry", "");
  cex.replayed = c.value("replayed", false);
  cex.property = c.value("property", "");
  cex.violation = c.value("violation", "");
  cex.finding = c.value("finding", "manifest");
  cex.manifestGiven = c.value("manifest_given", "");
  if (c.contains("precondition") && c["precondition"].is_object()) {
    const json& pc = c["precondition"];
    cex.preconditionOmitted = pc.value("omitted", size_t(0));
    if (pc.contains("conditions"))
      for (const json& x : pc["conditions"]) {
        PreconditionPart p;
        p.condition = x.value("condition", "");
        p.function = x.value("function", "");
        p.file = x.value("file", "");
        p.line = x.value("line", 0u);
        cex.precondition.push_back(std::move(p));
      }
  }
  if (c.contains("assumptions")) cex.assumptions = c["assumptions"].get<std::vector<std::string>>();
  // what a native run needs (concrete playback): a counterexample found in another
  // process (a parallel stage's member, a daemon worker) is confirmed by this one
  if (c.contains("inputs"))
    for (const json& in : c["inputs"]) {
      PathInput p;
      p.function = in.value("function", "");
      if (in.contains("value") && in["value"].is_string())
        p.value = cfa::parseValue(in["value"].get<std::string>()).value_or(0);
      else
        p.value = in.value("value", uint64_t(0));
      p.width = in.value("width", 0u);
      p.isSigned = in.value("signed", false);
      p.file = in.value("file", "");
      p.line = in.value("line", 0u);
      cex.inputs.push_back(std::move(p));
    }
  if (c.contains("uncontrolled")) cex.uncontrolled = c["uncontrolled"].get<std::vector<std::string>>();
  if (top.contains("confirmed_by") && top["confirmed_by"].is_array())
    cex.confirmedBy = top["confirmed_by"].get<std::vector<std::string>>();
  cex.nativeNote = top.value("native_check", "");
  const json* ordered = top.contains("ordered_values") ? &top["ordered_values"] : nullptr;
  size_t i = 0;
  for (const json& s : c.at("steps")) {
    TraceStep t;
    t.file = s.value("file", "");
    t.line = s.value("line", 0u);
    t.column = s.value("column", 0u);
    t.function = s.value("function", "");
    t.statement = s.value("statement", "");
    t.nondet = s.value("nondet", false);
    if (ordered && i < ordered->size())
      for (const json& kv : (*ordered)[i]) t.values.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    cex.steps.push_back(std::move(t));
    ++i;
  }
  return cex;
}

VerificationResult decodeResult(const json& j) {
  VerificationResult r;
  r.verdict = static_cast<Verdict>(j.at("verdict_code").get<int>());
  r.algorithm = j.value("algorithm", "");
  r.solver = j.value("solver", "");
  r.reason = j.value("reason", "");
  r.closureHash = j.value("closure_hash", "");
  r.property = j.value("property", "");
  if (j.contains("warnings") && j["warnings"].is_array())
    for (const json& w : j["warnings"])
      if (w.is_string()) r.warnings.push_back(w.get<std::string>());
  if (j.contains("assumed_precondition") && j["assumed_precondition"].is_array())
    for (const json& w : j["assumed_precondition"])
      if (w.is_string()) r.assumedPrecondition.push_back(w.get<std::string>());
  if (j.contains("function") && j["function"].is_object()) {
    const json& f = j["function"];
    r.entryName = f.value("name", "");
    r.entryFile = f.value("file", "");
    r.entryLine = f.value("line", 0u);
    r.entryColumn = f.value("column", 0u);
  }
  if (j.contains("counterexample") && j["counterexample"].is_object())
    r.counterexample = decodeCounterexample(j["counterexample"], j);
  if (j.contains("more_latent") && j["more_latent"].is_array())
    for (const json& m : j["more_latent"])
      if (m.is_object()) r.moreLatent.push_back(decodeCounterexample(m, m));
  const json& c = j.at("condition");
  r.condition.kind = c.value("kind", "");
  r.condition.summary = c.value("summary", "");
  if (c.contains("bound")) r.condition.bound = c["bound"].get<uint32_t>();
  if (c.contains("call_depth")) r.condition.callDepth = c["call_depth"].get<uint32_t>();
  r.condition.complete = c.value("complete", false);
  r.condition.vacuous = c.value("vacuous", false);
  if (c.contains("excluded")) r.condition.excluded = c["excluded"].get<std::vector<std::string>>();
  if (j.contains("assumptions_all")) r.condition.assumptions = j["assumptions_all"].get<std::vector<std::string>>();
  else if (c.contains("assumption_formula")) r.condition.assumptions = c["assumption_formula"].get<std::vector<std::string>>();
  if (j.contains("automaton"))
    r.condition.automaton = std::make_shared<AssumptionAutomaton>(automatonFromJson(j["automaton"]));
  else if (c.contains("automaton_initial")) {  // dropped (dropAutomaton): its summary
    r.condition.automatonStates = c.value("automaton_states", uint64_t(0));
    r.condition.automatonInitial = c["automaton_initial"].get<std::string>();
  }
  if (j.contains("invariant"))
    for (const auto& [loc, f] : j["invariant"].items()) r.invariant[loc] = f.get<std::string>();
  if (j.contains("stages"))
    for (const json& x : j["stages"]) {
      StageRecord s;
      s.spec = x.value("stage", "");
      s.decidedBy = x.value("decided_by", "");
      std::string v = x.value("verdict", "unknown");
      s.verdict = v == "true" ? Verdict::True : v == "false" ? Verdict::False : Verdict::Unknown;
      s.wallTimeS = x.value("wall_time_s", 0.0);
      s.cpuTimeS = x.value("cpu_time_s", 0.0);
      s.reason = x.value("reason", "");
      r.stages.push_back(std::move(s));
    }
  const json& st = j.at("stats");
  r.stats.cpuTimeS = st.value("cpu_time_s", 0.0);
  r.stats.wallTimeS = st.value("wall_time_s", 0.0);
  r.stats.solverQueries = st.value("solver_queries", uint64_t(0));
  r.stats.solverTimeS = st.value("solver_time_s", 0.0);
  r.stats.bound = st.value("bound", 0u);
  r.stats.unrollNodes = st.value("unroll_nodes", uint64_t(0));
  r.stats.formulaTerms = st.value("formula_terms", uint64_t(0));
  if (j.contains("stats_extra"))
    for (const auto& [k, v] : j["stats_extra"].items()) r.stats.extra[k] = v.get<double>();
  return r;
}

}  // namespace argus::result
