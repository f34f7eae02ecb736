// core/algorithms/predicate/ — predicate abstraction, Impact and their refinement.
// Papers: unifying-view, Sect. 3 (the Predicate CPA with adjustable-block encoding,
// CEGAR) and Sect. 4.1, 4.3, 4.4 (BMC, predicate abstraction and Impact as its
// configurations); craig-vs-newton (refinement_engine.h, newton_refiner.h). Read
// first: this file, then core/cpa/predicate_cpa.h and refinement_engine.h.
//
// Lazy predicate abstraction with CEGAR (unifying-view paper, Sect. 4.3) over CPA++:
// ARG(Composite(Location, Callstack, Predicate)) with adjustable-block encoding.
//
// Loop: run CPA++ until it aborts at a target (an abstraction state at an error
// location, after an Unsupported edge, or at a recursive call). Then one SMT query
// over the abstract counterexample — ψ_0 ∧ φ_1 ∧ … ∧ φ_n, the block formulas of the
// abstraction states on the ARG path (all paths inside blocks at once):
//  - sat, error target: a single concrete path is picked from the ARG (guided by the
//    model, each candidate checked by the solver), its nondeterministic values are
//    replayed by the concrete interpreter, and only a replayed path is reported false;
//  - sat, unsupported/recursion target: remembered (the answer can no longer be
//    true), the analysis continues elsewhere;
//  - unsat: Newton refinement gives predicates per abstraction state; the pivot is
//    the first abstraction state whose precision grows; its subtree is removed and the
//    remaining parents are re-added with the new precision π'. No growth: unknown.
// Every solver unknown, timeout or limit gives unknown with the reason.
// Impact (options.impact) shares the CPA, the CEGAR loop and the counterexample
// check; see the option's comment.
// Debugging: ARGUS_DEBUG_PRED=1 prints each refinement's blocks, τ and predicates.
#pragma once

#include <functional>
#include <string>

#include "core/algorithms/predicate/refinement_engine.h"
#include "core/cfa/cfa.h"
#include "core/cpa/predicate_cpa.h"
#include "core/cpa/reached_set.h"
#include "core/result/assumption_automaton.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::algorithms {

enum class WaitlistKind { Bfs, Dfs, Callstack, ReversePostorder };

struct PredicateAnalysisOptions {
  smt::SolverKind solver = smt::SolverKind::Z3;
  // The refinement engine (refinement_engine.h). For pred, a Newton refiner whose
  // predicates do not grow the precision falls back to newton_refiner.h's
  // stale-keeping predicates; Craig has no fallback (it fails: unknown).
  RefinerConfig refiner;
  // Impact (unifying-view paper, Sect. 4.4) instead of predicate abstraction: the
  // precision stays empty, refinement conjoins the interpolants to the abstraction
  // states of the path (coverage rechecked, uncovered states re-added, states that
  // became false removed), and fcover^Impact runs before each abstraction state is
  // expanded (unless forcedCovering is false). Every interpolation sequence is checked
  // with the solver before it strengthens a state (soundness depends on it).
  // Not done (an optimisation of the paper's refinement, soundness does not need it):
  // after a refinement, strengthened states are not checked for being covered by
  // other states; their subtrees stay in the reached set and are explored.
  // fcover^Impact tries at most 8 candidates (the most recent first) per state.
  bool impact = false;
  bool forcedCovering = true;
  // BMC as a configuration of this analysis (unifying-view paper, Sect. 4.1, Table 1):
  // with bmcBound = k > 0, the composite adds the loop-bound CPA (loop_bound_cpa.h)
  // with bound k, the precision stays empty, and a spurious target is dropped instead
  // of refined. The caller sets cpa.block = BlockOperator::Never (runCpaBmc does).
  // When the reached set is complete the path formulas of the cut states are checked
  // (forward condition): none satisfiable gives `true`; else unknown with condition
  // kind "bound" (runCpaBmc then deepens).
  uint32_t bmcBound = 0;
  // pred: check every sequence too (debugging; Impact always checks).
  bool checkSequences = false;
  double timeoutS = 0;  // wall clock for the whole run; 0 = none
  cpa::PredicateCpaOptions cpa;
  WaitlistKind waitlist = WaitlistKind::ReversePostorder;
  uint32_t maxRefinements = 100000;
  uint64_t maxStates = 2'000'000;
  std::function<void(const std::string&)> progress;
  bool corruptReplayForTest = false;
  // The first this many refinements fail (tests of the target cut a failed refinement
  // makes).
  uint32_t failRefinementsForTest = 0;
  // Input condition (conditional model checking): an assumption automaton run in the
  // composite, so only what it leaves open is explored (borrowed; may be null).
  const result::AssumptionAutomaton* condition = nullptr;
  // Condition monitors (conditional-model-checking paper, Sect. III-A; 0 = off). Each
  // cuts one part (ArgState::cut: an open part of the output condition; the answer
  // can then no longer be `true`) and the analysis goes on:
  //  - maxEdgePosts: busy edge (common/cpa_algorithm.h);
  //  - maxTimePerPostMs: time per post — the abstraction and coverage queries of one
  //    successor together (Z3: each query bounded by what is left; cvc5: checked
  //    between queries);
  //  - maxPathFormulaSize: a state whose block path formula has more term nodes is
  //    cut before it is abstracted; a counterexample formula above it is not given to
  //    the solver (its target is cut);
  //  - maxTimePerRefinementMs: a refinement (the engine's interpolation and the
  //    sequence check) that runs out of this time cuts the error target of its path
  //    (without a refinement the pivot is unknown) instead of failing the run.
  // maxMemoryMb (total memory) ends the run like the time limit: the waiting states
  // are the open parts.
  uint32_t maxEdgePosts = 0;
  unsigned maxTimePerPostMs = 0;
  uint64_t maxPathFormulaSize = 0;
  unsigned maxTimePerRefinementMs = 0;
  uint64_t maxMemoryMb = 0;
};

result::VerificationResult runPredicateAnalysis(const cfa::Program& prog, cfa::FuncId entry,
                                                const PredicateAnalysisOptions& opts);

// `--algorithm bmc-cpa`: BMC re-expressed over the CPA core — blk^never, the
// loop-bound CPA and no refinement — with iterative deepening k = 1, 2, ... up to
// `maxBound` (0 = until the time limit), each bound a fresh CPA++ run. Counterexamples
// are replayed like pred's; `true` only from the forward condition.
result::VerificationResult runCpaBmc(const cfa::Program& prog, cfa::FuncId entry, PredicateAnalysisOptions opts,
                                     uint32_t maxBound = 0);

}  // namespace argus::algorithms
