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

#include "core/cpa/cpa.h"
#include "core/cpa/reached_set.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

struct CpaAlgorithmOptions {
  // abort(e): stop after adding e (default: the CPA's isTarget).
  std::function<bool(const cpa::AbstractState&)> abort;
  // fcover(reached, e, π): true if e is now covered and need not be expanded.
  std::function<bool(cpa::ReachedSet&, const cpa::StatePtr&, const cpa::PrecisionPtr&)> forcedCovering;
  support::Deadline deadline = support::Deadline::never();
  uint64_t maxStates = 0;  // 0 = unlimited; when exceeded the run ends as Interrupted
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
};

CpaRunResult runCpaAlgorithm(cpa::ConfigurableProgramAnalysis& cpa, cpa::ReachedSet& reached,
                             const CpaAlgorithmOptions& opts = {});

}  // namespace argus::algorithms
