// BMC's bound as a condition (conditional-model-checking paper, Sect. III: "if the
// condition of unwinding every loop up to a certain bound is stated explicitly, then
// it would be a sound conditional model-checking technique").
//
// boundAutomaton(prog, entry, k) is the assumption automaton of "no error on any path
// whose loops and recursion are unrolled <= k times", in exactly the unwinding's terms
// (unwinding.h): its states are the unwinding's nodes — call stack (with the caller's
// loop counts and the recursion depths), location, and the iteration counts of the
// loops containing the location (DFS back edges of loopStructure(); a count rises on a
// back edge and restarts when the head is entered from outside). Along the program's
// steps (step.h):
//  - a back edge whose count would exceed k, a call whose callee is already k deep
//    on the stack, and a call nested deeper than callDepth below the entry, lead to
//    the open state (the part BMC cut);
//  - an Unsupported edge (and a Call edge without a body, and any edge leaving a
//    function's exit, which the unwinding does not follow) leads to the open state;
//  - an Error edge has no transition (BMC found no error within the bound: verified),
//    as has an Abort edge (the path ends);
//  - a return goes only to the call site on top of the automaton's stack.
// States from which the open state cannot be reached are replaced by the verified
// sink. Sound only for a bound whose base case was checked completely (BMC's
// VerificationResult::condition.bound). Returns nullopt when the automaton would have
// more than maxStates states (then the caller keeps the trivial condition).
#pragma once

#include <optional>

#include "core/cfa/cfa.h"
#include "core/result/assumption_automaton.h"

namespace argus::algorithms {

// callDepth: a call nested deeper than this below the entry (BMC's depth cut,
// unwinding.h) leads to the open state as well; UINT32_MAX: no limit.
std::optional<result::AssumptionAutomaton> boundAutomaton(const cfa::Program& prog, cfa::FuncId entry, uint32_t k,
                                                          size_t maxStates = 100000,
                                                          uint32_t callDepth = UINT32_MAX,
                                                          const std::string* programHash = nullptr);

}  // namespace argus::algorithms
