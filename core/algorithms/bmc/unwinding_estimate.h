// The size of an unwinding (unwinding.h) before it is built, so that BMC can keep it
// within its node budget by not expanding calls nested too deep (issue 29 item 6).
//
// The unwinding's exploration is structural (no edge is pruned by its guard), so its
// node count follows from the CFAs alone: an instance of f contributes the (location,
// loop counts) pairs reachable in f under the unwinding's rules for bound k (a back edge
// past k is cut, a loop head entered from outside restarts its count, error, abort and
// unsupported edges end a path and so does an edge into a dead end, a call edge leads to
// its return site), and each node
// holding a Call edge creates one callee instance — unless the callee is already k deep
// on the stack (recursion cut), the call would be nested deeper than d (depth cut), or
// the call has no result and cannot influence a check (passed over).
// nodes(k, d) sums that over the tree of instances; it is an upper bound (a return site
// is counted even when the callee never reaches its exit) and saturates at limit + 1,
// so that a closure far over the budget is rejected in time proportional to the budget.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/cfa/dead_ends.h"
#include "core/cfa/loops.h"

namespace argus::algorithms {

class UnwindingEstimate {
public:
  static constexpr uint32_t kNoDepthLimit = UINT32_MAX;

  UnwindingEstimate(const cfa::Program& prog, cfa::FuncId entry, uint64_t limit);

  // Upper bound on Unwinding::nodeCount() after unwindTo(k) with setMaxCallDepth(d);
  // limit + 1 when larger than the limit.
  uint64_t nodes(uint32_t k, uint32_t d);

  // The largest call depth d whose unwinding at bound k fits the limit: kNoDepthLimit
  // when the whole unwinding fits (no call is cut for depth), nullopt when not even the
  // entry function alone (d = 0) fits.
  std::optional<uint32_t> maxDepth(uint32_t k);

  // The entry's own part of nodes(k, d): without the initialisation's instance, which an
  // unwinding with a depth limit mostly drops (unwinding.h, "Globals beyond the call depth").
  uint64_t entryNodes(uint32_t k, uint32_t d);

  // The largest d <= maxD whose estimate (entryOnly: entryNodes) is at most `target`
  // (at least minD).
  uint32_t depthFor(uint32_t k, uint64_t target, uint32_t minD, uint32_t maxD, bool entryOnly = false);

  uint64_t limit() const { return limit_; }

private:
  struct Local {
    uint64_t nodes = 0;  // (location, counts) pairs of one instance, saturated
    std::vector<std::pair<cfa::FuncId, uint64_t>> calls;  // callee, instances per instance of f
  };
  const Local& local(cfa::FuncId f, uint32_t k);
  uint64_t count(cfa::FuncId f, uint32_t k, uint32_t remaining, std::map<cfa::FuncId, uint32_t>& depthOf);

  const cfa::Program& prog_;
  cfa::FuncId entry_;
  uint64_t limit_;
  std::vector<std::unique_ptr<cfa::LoopStructure>> loops_;
  std::vector<bool> recursive_;           // per function: on a call-graph cycle
  std::vector<bool> reachesRecursive_;    // per function: a recursive function is in its closure
  std::vector<bool> noEffect_;            // per function: calls of it may be passed over (unwinding.h)
  std::shared_ptr<const cfa::DeadEnds> dead_;  // locations the unwinding does not enter (core/cfa/dead_ends.h)
  std::map<std::pair<cfa::FuncId, uint32_t>, Local> locals_;                 // (f, k or 0 when loop-free)
  std::map<std::tuple<cfa::FuncId, uint32_t, uint32_t>, uint64_t> counts_;   // (f, k, remaining)
};

}  // namespace argus::algorithms
