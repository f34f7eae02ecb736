// Dead ends: the locations from which no check can be reached (issue 21).
//
// A *check* is what an analysis asks to be reachable or not: an Error edge (the
// property's error calls, failed assertions and the checks of core/frontend/
// lower_checks.cpp, among them the memory-safety leak checks at every termination), an
// Unsupported edge (a path through it forbids `true`), and a zero-initialised Alloc
// (the encoding reports one whose size it cannot fill as unsupported). A location is
// *live* when an execution from it may take a check:
//  - within its function, directly or in a call: a Call edge to a function whose entry
//    may take a check before that function returns (its callees' too);
//  - after its function returns: its exit is reachable and the return site of some call
//    of the function is live (the initialisation functions start the entry at their
//    exit, so their exits count as live).
// Every other location is a *dead end*: no execution through it ever takes a check, so
// an analysis that decides whether a check is reachable may end a path there, as at an
// Abort edge. A loop in dead ends (`void exit(int s) { _EXIT: goto _EXIT; }`, written by a
// program that defines its own exit) then needs no unrolling, and the forward condition
// of BMC need not see it.
//
// The analysis over-approximates liveness (every call is assumed to return, every
// Assume may pass), so a location it calls dead is dead in every execution. Reachability
// from the program's start is not asked: a dead end that no execution reaches is harmless.
#pragma once

#include <vector>

#include "core/cfa/cfa.h"

namespace argus::cfa {

struct DeadEnds {
  std::vector<std::vector<bool>> live;  // [function][location]
  // How many locations are dead ends (of functions with a body).
  size_t deadCount = 0;
  bool dead(FuncId f, LocId l) const { return f < live.size() && l < live[f].size() && !live[f][l]; }
};

DeadEnds computeDeadEnds(const Program& p);

// Whether an Error edge can be taken from the start of `entry` along a path that takes no
// Unsupported edge. Over-approximate, like the above: every Assume may pass; a call
// returns when its callee's exit can be reached that way, and a check in the callee counts.
// False: every path to every check of the entry passes through an unsupported construct,
// so "verified on every path except through it" verifies nothing (bmc's complete
// condition says so instead: SQLite's sqlite3OsShmBarrier, all of whose checks follow a
// call through an unknown pointer).
bool checkReachableAvoidingUnsupported(const Program& p, FuncId entry);

}  // namespace argus::cfa
