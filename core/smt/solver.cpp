#include "core/smt/solver.h"

#include <atomic>

#include "core/smt/cvc5/cvc5_solver.h"
#include "core/smt/z3/z3_solver.h"

namespace argus::smt {

const char* solverName(SolverKind k) { return k == SolverKind::Z3 ? "z3" : "cvc5"; }

SolverKind parseSolverKind(const std::string& s) {
  if (s == "z3") return SolverKind::Z3;
  if (s == "cvc5") return SolverKind::CVC5;
  throw std::invalid_argument("unknown solver '" + s + "' (expected z3 or cvc5)");
}

const char* checkResultName(CheckResult r) {
  switch (r) {
    case CheckResult::Sat: return "sat";
    case CheckResult::Unsat: return "unsat";
    default: return "unknown";
  }
}

namespace {
std::atomic<uint64_t> gMemoryLimitMb{0};
}

void setSolverMemoryLimitMb(uint64_t mb) {
  gMemoryLimitMb = mb;
  setZ3MemoryLimitMb(mb);
}
uint64_t solverMemoryLimitMb() { return gMemoryLimitMb; }

std::unique_ptr<Solver> makeSolver(SolverKind kind, TermManager& tm, const SolverOptions& opts) {
  if (kind == SolverKind::Z3) return makeZ3Solver(tm, opts);
  return makeCvc5Solver(tm, opts);
}

}  // namespace argus::smt
