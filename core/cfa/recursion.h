// Recursion inlined up to a depth: a recursion-free program for the proof engines.
//
// k-induction's flat program (core/algorithms/kinduction/flat_program.h) inlines every
// call, and the predicate CPA keeps its variables per function, not per frame; neither
// can follow a recursive call. inlineRecursion(p, entry, D) returns a copy of `p` in
// which every function of a recursive cycle of the call graph (a strongly connected
// component with a cycle) exists D times: the original function is level 1, and the
// copies `f#2` .. `f#D` (appended after the original functions, each with its own copies
// of the function's register variables, `f::x#2`) are levels 2..D. A call from level l
// of f to a function g of the same component goes to level l+1 of g; at level D it is
// replaced by an Unsupported edge "recursion deeper than D (call of g)" (the algorithms
// treat a reachable Unsupported edge as "not verified": never `true`, and never a
// counterexample). A call to a function outside the component goes to its level 1 (it
// cannot call back into the component, so each component's nesting is bounded by D on
// its own). Calls between functions of no cycle are kept as they are.
//
// Why it is exact up to the bound: a level-l copy is the original function with its
// variables renamed, so an execution of the result that takes no "recursion deeper"
// edge is, frame for frame, an execution of the original (same edges in the same order,
// the same Havoc and Alloc sequence, so the same nondeterministic values and addresses);
// and every execution of the original whose recursion stays within depth D is one of
// the result. Hence:
//  * no Error and no Unsupported edge reachable in the result (a proof) → no error is
//    reachable in the original: every original execution stays within depth D (a deeper
//    one would take the Unsupported edge in the result) and is mirrored exactly;
//  * an Error edge reachable in the result → the same path is an error path of the
//    original. The counterexample is confirmed on the original all the same: the
//    algorithms replay on original(p) (same function and
//    edge indices for the original functions, same variable ids for the original
//    variables, so the trace is built on the original CFA);
//  * only the Unsupported "recursion deeper" edges reachable → nothing is decided beyond
//    depth D; the engine (core/engine/verify.cpp, runSingle) doubles D and tries again,
//    and answers unknown with the depth it verified when it runs out of time or depth.
// Recursion that is unbounded (the depth depends on an unbounded input) is never proved
// this way; function summaries (block abstraction memoization) would be the next step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/cfa/cfa.h"

namespace argus::cfa {

// Whether a function reachable from `entry` (or from the init functions) lies on a
// cycle of the call graph.
bool hasRecursion(const Program& p, FuncId entry);

struct InlinedRecursion {
  // The program; cfa::original(*program) is the original while it lives (registered
  // when it is made, unregistered when the last owner drops it).
  std::shared_ptr<const Program> program;
  uint32_t depth = 0;
  uint32_t recursiveFunctions = 0;   // functions on a cycle
  uint32_t copies = 0;               // functions added
};

// See above. nullopt when nothing reachable from `entry` recurses, or when the result
// would have more than maxEdges edges in the copies. The result keeps `orig` alive.
std::optional<InlinedRecursion> inlineRecursion(std::shared_ptr<const Program> orig, FuncId entry, uint32_t depth,
                                                size_t maxEdges = 400'000);

// The program a counterexample of `p` is replayed on: the original for a program made by
// inlineRecursion (a copy of such a program is not one: it replays as itself, which is
// exact too), else `p` itself. Thread-safe (a registry under a mutex, so that the CFA
// model itself needs no field for it).
const Program& original(const Program& p);

// Whether a reason text names a "recursion deeper than D" edge of inlineRecursion.
bool mentionsRecursionBound(const std::string& reason);

}  // namespace argus::cfa
