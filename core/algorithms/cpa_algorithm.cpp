#include "core/algorithms/cpa_algorithm.h"

namespace argus::algorithms {

using cpa::StatePtr;

CpaRunResult runCpaAlgorithm(cpa::ConfigurableProgramAnalysis& c, cpa::ReachedSet& reached,
                             const CpaAlgorithmOptions& opts) {
  CpaRunResult res;
  auto abort = [&](const cpa::AbstractState& e) { return opts.abort ? opts.abort(e) : c.isTarget(e); };
  while (!reached.waitlistEmpty()) {
    if (opts.deadline.expired()) {
      res.status = CpaStatus::Interrupted;
      res.reason = "timeout";
      return res;
    }
    if (opts.maxStates && reached.size() > opts.maxStates) {
      res.status = CpaStatus::Interrupted;
      res.reason = "state limit " + std::to_string(opts.maxStates) + " reached";
      return res;
    }
    auto [e, prec] = reached.pop();
    if (opts.forcedCovering && opts.forcedCovering(reached, e, prec)) continue;
    ++res.expanded;
    auto succs = c.transfer().successors(e, prec);
    for (size_t si = 0; si < succs.size(); ++si) {
      auto& succ = succs[si];
      auto adj = c.precisionAdjustment().adjust(succ.state, prec, reached, *succ.state);
      if (!adj) continue;
      StatePtr ehat = adj->state;
      cpa::PrecisionPtr phat = adj->precision;
      for (const StatePtr& other : reached.partition(*ehat)) {
        if (!reached.contains(other)) continue;  // removed by an earlier replacement
        StatePtr merged = c.merge().merge(ehat, other, phat);
        if (merged != other) {
          reached.replace(other, merged, phat);
          c.onReplaced(reached, other, merged);
        }
      }
      auto part = reached.partition(*ehat);
      if (c.stop().stop(ehat, part, phat)) continue;
      reached.add(ehat, phat);
      c.onAdded(ehat);
      if (abort(*ehat)) {
        // the remaining successors of e are produced when e is expanded again
        if (si + 1 < succs.size() && reached.contains(e)) reached.reAddToWaitlist(e);
        res.status = CpaStatus::Aborted;
        res.target = ehat;
        return res;
      }
    }
  }
  return res;
}

}  // namespace argus::algorithms
