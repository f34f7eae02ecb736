// core/algorithms/common/ — what the approaches share: CPA++ (this file; unifying-view
// paper, Sect. 3, Algorithm 2), the run of predicate/, cmc/ and bmc-cpa over core/cpa;
// checking and replaying an error path (path_replay.h) and turning a replayed
// execution into the counterexample users see (counterexample.h). Read first: this
// file.
//
// CPA++ (unifying-view paper, Algorithm 2): the reachability algorithm over a CPA.
//
// Takes the reached set and the waitlist (one ReachedSet object) as input and leaves
// both updated, so CEGAR can call it again after a refinement. For each waiting state
// it first tries a forced covering (hook; fcover^id when unset), then for each
// successor: precision adjustment immediately (its result is what enters the reached
// set), merge with every reached state of the same partition (replacing merged ones),
// stop; a state that is added and satisfies abort() ends the run with that state.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <string>

#include "core/cpa/cpa.h"
#include "core/cpa/reached_set.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

// Busy edge: posts per CFA step, keyed by (kind, func, edge, toFunc, toLoc). A caller
// that runs CPA++ several times (CEGAR, explicit analysis after each target) keeps one
// for the whole run.
using EdgePostCounts = std::map<std::tuple<uint8_t, uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t>;

struct CpaAlgorithmOptions {
  // abort(e): stop after adding e (default: the CPA's isTarget).
  std::function<bool(const cpa::AbstractState&)> abort;
  // fcover(reached, e, π): true if e is now covered and need not be expanded.
  std::function<bool(cpa::ReachedSet&, const cpa::StatePtr&, const cpa::PrecisionPtr&)> forcedCovering;
  support::Deadline deadline = support::Deadline::never();
  uint64_t maxStates = 0;  // 0 = unlimited; when exceeded the run ends as Interrupted

  // Condition monitors (conditional-model-checking paper, Sect. III-A). The whole-run
  // limits end the run as Interrupted (every waiting state is then an open part of the
  // output condition); the others cut one part and the run goes on. A cut is reported
  // through onCut(state, reason): the caller records it (ArgState::cut) and must treat
  // the state as open. The cut state is in the reached set but off the waitlist. The
  // per-part monitors need onCut; without it they are off.
  uint64_t maxMemoryMb = 0;  // total memory (resident, whole process); 0 = none
  // Busy edge: at most this many successors are computed along one CFA edge (step);
  // a successor beyond it is cut before its precision adjustment. 0 = none.
  uint32_t maxEdgePosts = 0;
  EdgePostCounts* edgePosts = nullptr;  // the counts (borrowed); null = this call only
  // Time per post: the computation of one successor (precision adjustment, merge,
  // stop) may take this long. postBudget (shared with the CPAs that can take long) is
  // armed for it; a CPA that exceeds it throws support::BudgetExceeded, and then the
  // expanded state is cut (its other successors go on). A successor that finished but
  // took longer (a CPA that does not watch the budget) is added, cut. 0 = none.
  unsigned maxTimePerPostMs = 0;
  support::OperationBudget* postBudget = nullptr;
  // cutCheck(e): a reason if the new successor e (after precision adjustment) exceeds
  // a limit of the analysis (e.g. the predicate analysis' path-formula size).
  std::function<std::optional<std::string>(const cpa::AbstractState&)> cutCheck;
  std::function<void(const cpa::StatePtr&, const std::string&)> onCut;
  // optional: "at main.c:12" for a step, used in the cut reasons
  std::function<std::string(const cfa::Step&)> describeStep;
};

enum class CpaStatus {
  Completed,    // waitlist empty: every reachable abstract state is in the reached set
  Aborted,      // abort() held for `target`
  Interrupted,  // deadline or state limit; the reached set is consistent, the run can resume
};

struct CpaRunResult {
  CpaStatus status = CpaStatus::Completed;
  cpa::StatePtr target;
  std::string reason;  // for Interrupted
  uint64_t expanded = 0;
  uint64_t cuts = 0;  // parts cut by the per-part monitors in this call
};

CpaRunResult runCpaAlgorithm(cpa::ConfigurableProgramAnalysis& cpa, cpa::ReachedSet& reached,
                             const CpaAlgorithmOptions& opts = {});

}  // namespace argus::algorithms
