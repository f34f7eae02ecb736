#include "core/algorithms/common/path_replay.h"

#include <map>

#include "core/algorithms/common/counterexample.h"
#include "core/cfa/accelerate.h"
#include "core/cfa/recursion.h"
#include "core/encoding/path_formula.h"
#include "core/result/replay.h"

namespace argus::algorithms {

using smt::CheckResult;
using smt::Term;

PathReplay checkAndReplayPath(const cfa::Program& prog, cfa::FuncId entry, const std::vector<cfa::Step>& steps,
                              smt::SolverKind kind, const support::Deadline& deadline, bool corruptReplayForTest) {
  PathReplay out;
  smt::TermManager tm;
  encoding::PathFormulaManager pfm(prog, tm);
  auto solver = smt::makeSolver(kind, tm, {});
  encoding::PathFormula pf = pfm.empty();
  Term f = pfm.instantiate(pfm.initialCondition(), *pf.ssa);
  std::vector<Term> havocs, params;
  for (const cfa::Step& st : steps) {
    pf = pfm.extend(pf, st);
    if (st.kind == cfa::StepKind::Edge) {
      const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
      if (e.kind == cfa::EdgeKind::Havoc && !cfa::isAccelerationCount(e)) havocs.push_back(pfm.current(*e.lhs, *pf.ssa));
    } else if (st.kind == cfa::StepKind::Start) {
      for (cfa::VarId p : prog.functions[st.toFunc].params) params.push_back(pfm.current(p, *pf.ssa));
    }
  }
  f = tm.mkAnd(f, pf.formula);
  solver->add(f);
  if (deadline.expired()) {
    out.reason = "timeout";
    return out;
  }
  solver->setTimeoutMs(deadline.remainingMs());
  CheckResult r = solver->check();
  out.solverQueries = solver->stats().checks;
  out.solverTimeS = solver->stats().checkTimeS;
  if (r == CheckResult::Unsat) {
    out.status = PathReplay::Status::Infeasible;
    return out;
  }
  if (r != CheckResult::Sat) {
    out.reason = deadline.expired() ? "timeout" : "solver: " + solver->reasonUnknown();
    return out;
  }
  result::ReplayInput in;
  for (Term p : params) in.nondets.push_back(smt::modelBits(*solver, p));
  for (Term h : havocs) in.nondets.push_back(smt::modelBits(*solver, h));
  if (corruptReplayForTest)
    for (cfa::Value& v : in.nondets) v ^= 0x5a5a5a5a;
  Term mem0 = pfm.indexed(encoding::kMemKey, 0);
  uint32_t pw = prog.ptrWidth;
  std::map<uint64_t, uint8_t> memCache;
  smt::Solver& s = *solver;
  in.initialMemory = [&](uint64_t addr) -> std::optional<uint8_t> {
    auto it = memCache.find(addr);
    if (it != memCache.end()) return it->second;
    uint8_t v = static_cast<uint8_t>(s.modelValue(tm.select(mem0, tm.bvVal(addr, pw)))->value);
    memCache[addr] = v;
    return v;
  };
  result::ReplayResult run = result::replay(cfa::original(prog), entry, in);
  if (run.outcome != result::ReplayOutcome::ReachedError) {
    out.reason = std::string("error path found did not replay (") + result::outcomeName(run.outcome) +
                 (run.message.empty() ? "" : ": " + run.message) + ")";
    return out;
  }
  out.status = PathReplay::Status::Replayed;
  run = withoutNeedlessNulls(cfa::original(prog), entry, in, std::move(run), 10'000'000);
  out.counterexample = counterexampleFromReplay(cfa::original(prog), entry, run);
  return out;
}

}  // namespace argus::algorithms
