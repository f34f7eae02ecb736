// core/algorithms/bmc/ — bounded model checking. Papers: unifying-view, Sect. 4.1 (BMC
// and its forward condition); incremental-bmc, Sect. 2 (one solver for the whole
// deepening: activation and proxy variables, merge nodes); conditional-model-checking,
// Sect. III (the bound as a condition: bound_condition.h). Read first: unwinding.h (the
// unrolled program and its encoding), then this file. BMC over the CPA core
// (`bmc-cpa`) is a Predicate CPA configuration and lives in predicate/.
//
// Bounded model checking with iterative deepening (unifying-view paper, BMC; the
// forward condition proves safety when no path exceeds the bound), in two flavours:
//  - bmc:  for k = 1, 2, ... a fresh unwinding and a fresh solver (the classic scheme);
//  - ibmc: one unwinding and one solver for the whole deepening; raising the bound only
//          adds constraints (activation variables, proxies at merge nodes, dangling
//          proxies retracted as assumptions), after each unwinding a check.
// Every error path found is replayed by the concrete interpreter before it is reported.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/cfa/cfa.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::algorithms {

struct BmcOptions {
  bool incremental = false;
  smt::SolverKind solver = smt::SolverKind::Z3;
  double timeoutS = 0;           // wall-clock limit for the whole run; 0 = none
  uint32_t maxBound = 1u << 20;  // stop deepening here (answer unknown with the bound)
  uint32_t startBound = 1;
  // Node budget of the unwinding (issue 29 item 6): when the unwinding for bound k would
  // exceed it, calls nested deeper than the largest depth d that fits are not expanded
  // (depth cuts, unwinding.h) and the condition says "calls nested <= d deep". Within
  // the first such bound, d is raised step by step (each step about four times the
  // previous size), so that a condition comes early; then k is raised. So is the first
  // bound of a closure that fits but is large (over maxNodes / 40 nodes, its calls at
  // least three quarters of it): d from 0 up to no limit.
  size_t maxNodes = 2'000'000;
  // A disjunction of error locations (or of loop cuts) over a formula of more terms than
  // this is not checked as a whole first: each location is checked alone at once
  // (bmc.cpp, checkAnySplit). Not for `incremental`, whose solver has no one-shot path.
  size_t splitAtOnceTerms = 100'000;
  // Progress callback: "bound k: ..." lines.
  std::function<void(const std::string&)> progress;
  // Called each time the run verifies a bound (at a call depth): the result it would end
  // with if it were stopped there (unknown, reason "timeout", the condition so far). A
  // caller that stops the run from outside (a chain stage's deadline, argus's watchdog)
  // reports that instead of "nothing verified" when a later query ignores its limit.
  std::function<void(const result::VerificationResult&)> checkpoint;
  // Test hook: perturbs the nondeterministic values before replay, to check that a path
  // that does not replay is never reported as `false`.
  bool corruptReplayForTest = false;
  // k-induction (kinduction/kinduction.h): called after the base case for bound k found no error
  // and longer paths exist; returns true when the inductive step for k holds, which
  // proves the program safe. Needs `incremental`.
  std::function<bool(uint32_t k)> inductiveStep;
  // Stop with unknown ("unsupported: ...") as soon as a recursion-depth edge (an
  // Unsupported edge of core/cfa/recursion.h) is reachable within the bound (and no error
  // is): k-induction on a program whose recursion is inlined up to a depth can prove
  // nothing once the depth edge is reachable, and the engine then tries a larger depth
  // instead. Other unsupported constructs do not stop it.
  bool stopAtUnsupported = false;
};

// Incremental BMC as the base case of an algorithm built on it (k-induction, kIkI),
// with that algorithm's solver, time, bound, progress, checkpoint and test settings; a
// checkpoint reads as `algorithm`'s.
template <class Options>
BmcOptions incrementalBmcOptions(const Options& o, const std::string& algorithm) {
  BmcOptions bo;
  bo.incremental = true;
  bo.solver = o.solver;
  bo.timeoutS = o.timeoutS;
  bo.maxBound = o.maxBound;
  bo.maxNodes = o.maxNodes;
  bo.progress = o.progress;
  if (o.checkpoint)
    bo.checkpoint = [cp = o.checkpoint, algorithm](const result::VerificationResult& r) {
      result::VerificationResult c = r;
      c.algorithm = algorithm;
      cp(c);
    };
  bo.corruptReplayForTest = o.corruptReplayForTest;
  bo.stopAtUnsupported = o.stopAtUnsupported;
  return bo;
}

result::VerificationResult runBmc(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts);

// The reason of a run whose entry no execution gets through.
inline constexpr const char* kNoExecutionGetsThrough =
    "no execution gets through the entry's assumptions (its precondition, the entry model): nothing verified";

// Whether some execution of the function entry `entry` gets through the entry's
// assumptions (its entry model, its precondition): at bound 1 (opts.maxBound is not
// read), with calls nested as deep as opts.maxNodes allows, is any error, loop or call
// cut, unsupported construct or path end (a return, an abort, a dead end) reachable,
// within opts.timeoutS? Unsat: no execution gets anywhere, so a `true` holds of no input
// (runBmc answers such a run `unknown` itself; the other algorithms do not ask, and
// the engine asks for them, engine::verify). Sat: some execution gets through.
// Unknown: out of time, budget or memory.
smt::CheckResult someExecutionGetsThrough(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts);

class BmcRun;
// An incremental deepening that outlives one request: deepen(k1) then deepen(k2 > k1)
// continues with the same unwinding and solver (ibmc) instead of starting again, as
// the daemon does between its shallow and deep stages. `prog` must outlive it.
class BmcSession {
public:
  BmcSession(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts);
  ~BmcSession();
  result::VerificationResult deepen(uint32_t maxBound, double timeoutS);
  // The last deepen stopped at its bound limit with its state intact (ibmc only).
  bool resumable() const;
  size_t termCount() const;  // size of its term DAG, for memory accounting

private:
  std::unique_ptr<BmcRun> run_;
};

}  // namespace argus::algorithms
