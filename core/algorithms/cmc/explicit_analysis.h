// core/algorithms/cmc/ — conditional model checking. Paper: conditional-model-checking,
// Sect. III (conditions as limits in, assumptions out; III-C, the assumption formula and
// automaton from the ARG: assumptions.h) and Sect. IV (the explicit-value analysis with
// its monitors: this file). The stage chains that feed one run's condition to the next
// are in core/engine/verify.cpp. Read first: assumptions.h, then this file.
//
// Explicit-value analysis over CPA++ with condition monitors (conditional-model-checking
// paper): ARG(Composite(Location, Callstack, ExplicitValue, PathMonitor,
// AssumptionStorage [, AssumptionAutomaton])) with merge-sep, stop-sep and a
// depth-first waitlist.
//
// Limits (the paper's conditions, Fig. 7): total time and number of abstract states
// end the run, and every state still waiting becomes an excluding assumption; path
// length, assume edges and repeating loop heads on a path, and states per location,
// cut that path only (an excluding assumption on the state) and the rest goes on. CPA++ stops at each target:
//  - error location: the ARG path to it is encoded and solved; a model is replayed by
//    the concrete interpreter and only a replayed path is reported `false`. An
//    infeasible path cannot be refined by this analysis: the target is recorded as an
//    open part and the analysis goes on;
//  - unsupported construct or recursion: recorded as an open part; the analysis goes on.
// Verdict `true` only when the ARG is complete with no open part. Every run ends with
// the output condition (result::Condition: summary, formula, automaton).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/cfa/cfa.h"
#include "core/cpa/monitor_cpa.h"
#include "core/result/assumption_automaton.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::algorithms {

struct ExplicitAnalysisOptions {
  smt::SolverKind solver = smt::SolverKind::Z3;  // for checking error paths
  double timeoutS = 0;                            // total time; 0 = none
  uint64_t maxStates = 0;                         // abstract states; 0 = none
  cpa::PathLimits pathLimits;
  // More monitors (common/cpa_algorithm.h; 0 = off): total memory ends the run like the time
  // limit; busy edge and time per post cut one part. monitorArithmetic: the overflow
  // monitoring of explicit_cpa.h (signed overflow, non-linear arithmetic it cannot
  // evaluate).
  uint64_t maxMemoryMb = 0;
  uint32_t maxEdgePosts = 0;
  unsigned maxTimePerPostMs = 0;
  bool monitorArithmetic = false;
  const result::AssumptionAutomaton* condition = nullptr;  // input condition (borrowed)
  std::function<void(const std::string&)> progress;
  bool corruptReplayForTest = false;
};

result::VerificationResult runExplicitAnalysis(const cfa::Program& prog, cfa::FuncId entry,
                                               const ExplicitAnalysisOptions& opts);

}  // namespace argus::algorithms
