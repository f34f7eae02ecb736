#include "core/algorithms/common/counterexample.h"

#include <algorithm>
#include <string>

namespace argus::algorithms {

static std::string valueText(const cfa::Variable& v, uint64_t x) {
  if (v.isSigned && v.width > 0 && v.width <= 64) {
    uint64_t sign = uint64_t(1) << (v.width - 1);
    if (x & sign) {
      int64_t s = v.width == 64 ? static_cast<int64_t>(x) : static_cast<int64_t>(x | ~((sign << 1) - 1));
      return std::to_string(s);
    }
  }
  if (v.kind == cfa::VarKind::Address || (!v.isSigned && v.width == 64 && x > 0xffffffffull)) {
    char buf[32];
    snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(x));
    return buf;
  }
  return std::to_string(x);
}

result::Counterexample counterexampleFromReplay(const cfa::Program& prog, cfa::FuncId entry,
                                                const result::ReplayResult& run) {
  result::Counterexample cex;
  cex.entry = prog.functions[entry].name;
  cex.replayed = run.outcome == result::ReplayOutcome::ReachedError;
  cex.confirmedBy.push_back("interpreter");
  if (cex.replayed && !run.steps.empty()) {  // the Error edge it ends with names the property
    const result::ReplayStep& last = run.steps.back();
    const cfa::Edge& e = prog.functions[last.func].edges[last.edge];
    if (e.kind == cfa::EdgeKind::Error) cex.property = e.property;
    cex.violation = run.violation;
  }
  // What a native run needs (concrete playback, core/result/harness.h).
  auto at = [](const cfa::Edge& e) {
    std::string file = e.range.file;
    if (auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(e.range.line);
  };
  for (auto& [vid, val] : run.entryArgs)
    cex.uncontrolled.push_back("parameter '" + prog.vars[vid].cName + "' of " + cex.entry);
  for (const result::ReplayStep& st : run.steps) {
    const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
    if (e.kind != cfa::EdgeKind::Havoc || st.assigned.empty()) continue;
    const cfa::Variable& v = prog.vars[st.assigned.front().first];
    if (!e.nondetFunction.empty()) {
      cex.inputs.push_back({e.nondetFunction, st.assigned.front().second, v.width, v.isSigned,
                            e.range.file, e.range.line});
    } else {
      std::string what = !e.text.empty() ? "'" + e.text + "'" : !v.cName.empty() ? "'" + v.cName + "'" : "a value";
      cex.uncontrolled.push_back("nondeterministic " + what + " at " + at(e));
    }
  }
  if (run.uninitialisedReads > 0)
    cex.uncontrolled.push_back(std::to_string(run.uninitialisedReads) + " read(s) of uninitialised memory");
  for (const result::ReplayStep& st : run.steps) {
    const cfa::Function& f = prog.functions[st.func];
    if (st.func == prog.initFunc || st.func == prog.initNondetFunc) {
      // the initialisation is shown only where it chose nondeterministic values
      if (st.assigned.empty() || f.edges[st.edge].kind != cfa::EdgeKind::Havoc) continue;
    }
    const cfa::Edge& e = f.edges[st.edge];
    if (e.kind == cfa::EdgeKind::Havoc && !e.externalCallee.empty()) {
      std::string a = e.externalCallee + "() may return any value";
      if (std::find(cex.assumptions.begin(), cex.assumptions.end(), a) == cex.assumptions.end())
        cex.assumptions.push_back(std::move(a));
    }
    if (e.kind == cfa::EdgeKind::Blank || e.kind == cfa::EdgeKind::Free) continue;
    if (e.kind == cfa::EdgeKind::Return && st.assigned.empty()) continue;
    result::TraceStep ts;
    ts.file = e.range.file;
    ts.line = e.range.line;
    ts.column = e.range.column;
    ts.function = f.name;
    ts.statement = e.text;
    ts.nondet = e.kind == cfa::EdgeKind::Havoc && e.isNondetCall;
    for (auto& [vid, val] : st.assigned) {
      const cfa::Variable& v = prog.vars[vid];
      std::string name = v.cName.empty() ? (ts.nondet ? "nondet" : "") : v.cName;
      if (name.empty()) continue;  // compiler temporaries
      ts.values.push_back({name, valueText(v, val)});
    }
    if (e.kind == cfa::EdgeKind::Store && st.stored && ts.values.empty()) {
      // show the stored value for memory writes
      ts.values.push_back({"*" + std::to_string(st.stored->first), std::to_string(st.stored->second)});
    }
    if (e.kind == cfa::EdgeKind::Assign && ts.values.empty() && e.text.empty()) continue;
    cex.steps.push_back(std::move(ts));
  }
  return cex;
}

std::string edgeWhere(const cfa::Edge* e) {
  if (!e) return "?";
  std::string file = e->range.file;
  auto slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(e->range.line);
}

}  // namespace argus::algorithms
