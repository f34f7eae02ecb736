// core/algorithms/kinduction/ — k-induction and kIkI. Papers: unifying-view, Sect. 4.2
// (k-induction with continuously refined auxiliary invariants, Algorithm 3);
// kiki-k-invariants-k-induction, Sect. 2 and 3 (kiki.h). The base case is bmc/'s
// unwinding. Read first: flat_program.h (the inlined program of the step case), then
// segment_encoding.h, this file, interval_invariants.h, affine_invariants.h, kiki.h.
//
// k-induction with continuously refined auxiliary invariants (unifying-view paper,
// Algorithm 3), for programs with several and nested loops and with (non-recursive)
// function calls.
//
// For k = 1, 2, ...:
//  - base case: the incremental BMC unwinding (bmc/unwinding.h) with bound k has no error
//    path — otherwise `false`, after the concrete replay, exactly as ibmc;
//  - forward condition: no path exceeds the bound — then `true`, as ibmc;
//  - inductive step: on the inlined program (flat_program.h), from an arbitrary state at
//    an arbitrary loop head (every register variable of every call instance, the whole
//    memory and the allocation pointer are fresh: nothing a loop can change survives),
//    k consecutive loop-free segments each reaching a loop head, and then a segment
//    reaching an error or an unsupported construct. If this is unsatisfiable under the
//    auxiliary invariants, and no unsupported construct is reachable within bound k
//    either (checked on the base case's unwinding), `true`.
// Why this is sound: an error path visiting loop heads m times is checked by the base
// case when m <= k (every loop count along it stays below m); when m > k its last k+1
// loop-head states are reachable, so they satisfy the invariants, and they form a
// satisfying assignment of the step case.
//
// The step case has one solver for the whole deepening: segment i is asserted once,
// "segment i reaches a loop head" becomes permanent when k passes i, and the error of
// the last segment is an assumption. Each invariant from the generator thread
// (interval_invariants.h) is asserted under a fresh activation literal, for the
// states present and every later one, without restarting the solver.
//
// Time: the step case may use about as much wall time as the rest of the run (plus one
// second); when its share is used up it skips that k (stats.step_skipped), so the base
// case keeps finding deep bugs nearly as fast as ibmc.
//
// When the inlined program cannot be built (recursion, too large), k-induction falls back to ibmc and says so (stats.extra["step_case_disabled"]
// and the reason). The engine never passes it a recursive program: it inlines the
// recursion up to a depth first (core/cfa/recursion.h, runSingle in core/engine/verify.cpp).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/algorithms/kinduction/flat_program.h"
#include "core/algorithms/kinduction/interval_invariants.h"
#include "core/cfa/cfa.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::algorithms {

struct KInductionOptions {
  smt::SolverKind solver = smt::SolverKind::Z3;
  double timeoutS = 0;
  bool stopAtUnsupported = false;  // BmcOptions::stopAtUnsupported for the base case
  uint32_t maxBound = 1u << 20;
  size_t maxNodes = 2'000'000;  // the base case's unwinding budget (BmcOptions::maxNodes)
  bool invariants = true;  // run the concurrent interval invariant generator
  std::function<void(const std::string&)> progress;
  // BmcOptions::checkpoint for the base case: each bound it verifies (the result reads
  // as this algorithm's, unknown with the bound condition so far).
  std::function<void(const result::VerificationResult&)> checkpoint;
  bool corruptReplayForTest = false;
  // Test hooks: invariants are injected only once the step case has failed at this k
  // (0: as soon as they are available); wait for the generator before each step check.
  uint32_t holdInvariantsUntilK = 0;
  bool waitForGenerator = false;
};

result::VerificationResult runKInduction(const cfa::Program& prog, cfa::FuncId entry, const KInductionOptions& opts);

// Abstract interpretation only (the generator's interval analysis, levels 0..2, no
// solver): `true` when some level finds every error and unsupported construct
// unreachable, otherwise `unknown`; never `false`. Uses timeoutS and progress.
result::VerificationResult runIntervalAnalysis(const cfa::Program& prog, cfa::FuncId entry,
                                               const KInductionOptions& opts);

// The inductive-step case on its own incremental solver (exposed for tests).
class StepCase {
public:
  StepCase(const FlatProgram& fp, smt::SolverKind solver);
  ~StepCase();
  // Is an error reachable after k segments from an arbitrary loop-head state, under the
  // injected invariants? Unsat means the step case holds. timeoutMs 0 = no limit.
  smt::CheckResult check(uint32_t k, unsigned timeoutMs = 0);
  // Asserts an invariant (true at the loop heads of every reachable state) under a fresh
  // activation literal, for all present and future states.
  void inject(const IntervalInvariant& inv);
  // The same for affine equalities (affine_invariants.h).
  void injectAffine(const AffineInvariant& inv);
  size_t injected() const;  // interval and affine invariants
  uint64_t queries() const;
  double solverSeconds() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace argus::algorithms
