// The loop-bound CPA (unifying-view paper, Sect. 4.1: BMC as a configuration of the
// CPA algorithm, "a CPA that tracks how often each loop head was visited on a path
// and stops the exploration beyond the bound").
//
// State: for each loop the path is inside, the back edges taken since it entered the
// loop (sorted by loop head; counted as the BMC unwinding counts them, see
// loop_bound_cpa.cpp), and whether the path was cut. A successor that would take a
// loop's back edge more than `bound` times (the loop body unrolled more than `bound`
// times) is kept as a cut state with no successors: the BMC driver checks the path formulas of the cut
// states (the forward condition) to tell "no error at all" from "no error within the
// bound". Domain flat (e ⊑ e' iff equal), so ABE merges happen only between states of
// the same unrolling; merge-sep, stop-sep, static precision.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cpa/location_cpa.h"

namespace argus::cpa {

class LoopBoundState final : public AbstractState {
public:
  std::shared_ptr<const std::vector<std::pair<uint64_t, uint32_t>>> visits;  // (func << 32 | head) -> back edges taken
  bool cut = false;
  cfa::FuncId cutFunc = cfa::kNoFunc;
  cfa::LocId cutLoc = 0;
  bool equals(const AbstractState& o) const override;
  std::string str() const override;
};

class LoopBoundCpa final : public FlatCpa {
public:
  LoopBoundCpa(const ControlFlow& cf, uint32_t bound);
  StatePtr initialState() override;
  uint32_t bound() const { return bound_; }

private:
  uint32_t bound_;
};

}  // namespace argus::cpa
