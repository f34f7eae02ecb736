// Assumption automata (conditional-model-checking paper, Sect. III-C, Fig. 6): the
// output condition of a run, built from its abstract reachability graph, and the input
// condition of a later run.
//
// States are ARG nodes; a transition is labelled with one interprocedural step of the
// program (step.h: an edge, a call, a return or the start of the entry function). Two
// special states:
//  - kVerified ("__TRUE", the paper's sink T): everything from here on was verified;
//    a later run stops exploring there;
//  - kOpen ("__OPEN"): nothing from here on was verified (a limit was hit, a target
//    could not be decided, or the state was still waiting); a later run explores every
//    continuation.
// From an ordinary state a step without a transition leads to kVerified: the earlier
// analysis expanded that state and found the step infeasible.
//
// The JSON form is our own (read back by --condition-in); toCpachecker() writes the
// same automaton in CPAchecker's automaton specification language (ASSUME {false}
// marks the parts that were not verified, as CPAchecker's assumption collector does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/cfa/cfa.h"

namespace argus::result {

struct AutomatonTransition {
  // the step (fields as in cfa::Step; kind: 0 edge, 1 call, 2 return, 3 start)
  uint8_t kind = 0;
  uint32_t func = 0, edge = 0, caller = UINT32_MAX, toFunc = 0, toLoc = 0;
  uint32_t target = 0;  // state index
};

struct AutomatonState {
  uint32_t func = 0, loc = 0;  // the program location of the ARG node
  std::vector<AutomatonTransition> out;
  std::string note;            // e.g. why the successor was excluded
};

struct AssumptionAutomaton {
  static constexpr uint32_t kVerified = 0;
  static constexpr uint32_t kOpen = 1;
  std::string programHash;   // the program the automaton was built for
  std::string entry;         // entry function
  uint32_t initial = kOpen;
  std::vector<AutomatonState> states;  // [0] = verified sink, [1] = open, then ARG nodes

  AssumptionAutomaton() : states(2) {}
  size_t ordinaryStates() const { return states.size() - 2; }
};

nlohmann::json toJson(const AssumptionAutomaton& a);
// Throws std::runtime_error for malformed input.
AssumptionAutomaton automatonFromJson(const nlohmann::json& j);
std::string toCpachecker(const AssumptionAutomaton& a, const cfa::Program& prog);

// A hash of everything the step identities of an automaton depend on.
std::string programHash(const cfa::Program& prog, const std::string& entry);
// The same from the entry's closure hash (cfa::closureHashes(prog)[entry]), for callers
// that have it: the closure hashes are the costly part on large slices.
std::string programHashFromClosure(const cfa::Program& prog, const std::string& closureHash);

}  // namespace argus::result
