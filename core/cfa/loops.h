// The loop structure of one function's CFA: back edges (to a location on the DFS stack
// from the entry) and the natural loop of each loop head. Shared by the BMC unwinding
// (core/algorithms/bmc/unwinding.cpp) and the loop-bound CPA (core/cpa/loop_bound_cpa.h),
// so both count "iterations of a loop" the same way.
#pragma once

#include <vector>

#include "core/cfa/cfa.h"

namespace argus::cfa {

struct LoopStructure {
  std::vector<bool> backEdge;                 // per edge index
  std::vector<std::vector<LocId>> loopsOf;    // per location: heads of the loops containing it (sorted)
};

LoopStructure computeLoopStructure(const Function& f);

}  // namespace argus::cfa
