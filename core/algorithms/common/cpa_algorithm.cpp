#include "core/algorithms/common/cpa_algorithm.h"

#include <map>

#include "core/support/stopwatch.h"

namespace argus::algorithms {

using cpa::StatePtr;

namespace {
constexpr uint64_t kMemoryCheckInterval = 64;  // expansions between two memory checks

// Arms a post budget for one successor; disarms it however the scope is left (an
// exception other than BudgetExceeded ends the run, and the budget must not stay armed
// for the solver queries the caller makes afterwards).
class ArmedBudget {
public:
  ArmedBudget(support::OperationBudget* b, unsigned ms) : b_(b) {
    if (b_) b_->arm(ms);
  }
  ~ArmedBudget() { disarm(); }
  void disarm() {
    if (b_) b_->disarm();
  }
  ArmedBudget(const ArmedBudget&) = delete;
  ArmedBudget& operator=(const ArmedBudget&) = delete;

private:
  support::OperationBudget* b_;
};
}  // namespace

CpaRunResult runCpaAlgorithm(cpa::ConfigurableProgramAnalysis& c, cpa::ReachedSet& reached,
                             const CpaAlgorithmOptions& opts) {
  CpaRunResult res;
  auto abort = [&](const cpa::AbstractState& e) { return opts.abort ? opts.abort(e) : c.isTarget(e); };
  const bool cutting = static_cast<bool>(opts.onCut);
  const uint32_t maxEdgePosts = cutting ? opts.maxEdgePosts : 0;
  const unsigned maxPostMs = cutting ? opts.maxTimePerPostMs : 0;
  support::OperationBudget* budget = maxPostMs ? opts.postBudget : nullptr;
  auto where = [&](const cfa::Step& st) { return opts.describeStep ? " " + opts.describeStep(st) : std::string(); };
  EdgePostCounts localPosts;
  EdgePostCounts& edgePosts = opts.edgePosts ? *opts.edgePosts : localPosts;
  // a cut successor: reached (so it is part of the ARG and the condition) but never expanded
  auto addCut = [&](const StatePtr& s, const cpa::PrecisionPtr& p, const std::string& why) {
    if (c.stop().stop(s, reached.partition(*s), p)) return;  // covered: explored elsewhere
    reached.add(s, p);
    c.onAdded(s);
    reached.unwait(s);
    opts.onCut(s, why);
    ++res.cuts;
  };
  uint64_t sinceMemoryCheck = kMemoryCheckInterval - 1;  // the first expansion is checked
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
    if (opts.maxMemoryMb && ++sinceMemoryCheck >= kMemoryCheckInterval) {
      sinceMemoryCheck = 0;
      if (uint64_t mb = support::residentMemoryMb(); mb > opts.maxMemoryMb) {
        res.status = CpaStatus::Interrupted;
        res.reason = "memory limit " + std::to_string(opts.maxMemoryMb) + " MB reached";
        return res;
      }
    }
    auto [e, prec] = reached.pop();
    // An exception out of the expansion (a solver timeout in a precision adjustment,
    // say) ends the run; e goes back on the waitlist first, so that the reached set
    // stays consistent: e's successors may be incomplete, and a condition built from
    // the reached set must treat e as not yet explored.
    try {
      if (opts.forcedCovering && opts.forcedCovering(reached, e, prec)) continue;
      ++res.expanded;
      auto succs = c.transfer().successors(e, prec);
      for (size_t si = 0; si < succs.size(); ++si) {
        auto& succ = succs[si];
        if (maxEdgePosts) {
          const cfa::Step& st = succ.step;
          uint32_t n = ++edgePosts[{static_cast<uint8_t>(st.kind), st.func, st.edge, st.toFunc, st.toLoc}];
          if (n > maxEdgePosts) {
            addCut(succ.state, prec,
                   "busy edge: the edge" + where(st) + " was used in more than " + std::to_string(maxEdgePosts) + " posts");
            continue;
          }
        }
        Stopwatch postTime;
        ArmedBudget armed(budget, maxPostMs);
        std::optional<cpa::Adjusted> adj;
        StatePtr ehat;
        cpa::PrecisionPtr phat;
        bool stopped = false;
        try {
          adj = c.precisionAdjustment().adjust(succ.state, prec, reached, *succ.state);
          if (adj) {
            ehat = adj->state;
            phat = adj->precision;
            std::optional<std::string> tooBig = opts.cutCheck && cutting ? opts.cutCheck(*ehat) : std::nullopt;
            if (tooBig) {
              armed.disarm();
              addCut(ehat, phat, *tooBig);
              continue;
            }
            for (const StatePtr& other : reached.partition(*ehat)) {
              if (!reached.contains(other)) continue;  // removed by an earlier replacement
              StatePtr merged = c.merge().merge(ehat, other, phat);
              if (merged != other) {
                reached.replace(other, merged, phat);
                c.onReplaced(reached, other, merged);
              }
            }
            auto part = reached.partition(*ehat);
            stopped = c.stop().stop(ehat, part, phat);
          }
        } catch (const support::BudgetExceeded&) {
          armed.disarm();
          // the successor could not be computed in time: the expanded state is cut (the
          // successors already added stay; the remaining ones are still computed)
          opts.onCut(e, "time per post: computing the successor along the edge" + where(succ.step) +
                            " took longer than " + std::to_string(maxPostMs) + " ms");
          ++res.cuts;
          continue;
        }
        armed.disarm();
        if (!adj || stopped) continue;
        if (maxPostMs && postTime.elapsedS() * 1000.0 > maxPostMs) {
          addCut(ehat, phat, "time per post: computing the successor along the edge" + where(succ.step) +
                                 " took longer than " + std::to_string(maxPostMs) + " ms");
          continue;
        }
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
    } catch (...) {
      if (reached.contains(e) && !reached.isWaiting(e)) reached.reAddToWaitlist(e);
      throw;
    }
  }
  return res;
}

}  // namespace argus::algorithms
