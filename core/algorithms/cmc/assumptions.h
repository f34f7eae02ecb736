// Post-processing of a CPA++ run into its output condition (conditional-model-checking
// paper, Sect. III-C "Assumptions Post-Processing"): the assumption formula
// (pc = l ⇒ ψ) and the assumption automaton built from the ARG.
//
// A node of the ARG is *open* (its part was not verified) when it is still waiting,
// when its assumption is `false` or ArgState::cut is set (a monitor cut it), or when
// the caller says so (a
// target whose error path could not be decided, an unsupported construct). Every other
// expanded node has all its successors in the ARG (or covered). Nodes from which no
// open node can be reached (through children and coverage) collapse into the verified
// sink; open nodes, and nodes at loop heads from which a cut can be reached (see
// buildCondition), become the open state; the remaining nodes are automaton states
// with one transition per ARG edge (a covered child stands for its covering node).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cpa/arg_cpa.h"
#include "core/cpa/reached_set.h"
#include "core/result/assumption_automaton.h"
#include "core/result/result.h"

namespace argus::algorithms {

// The reason of open parts that were still waiting.
inline constexpr const char* kWaitingReason = "not yet explored when the analysis stopped";

struct OpenPart {
  const cpa::ArgState* node = nullptr;
  std::string reason;
};

struct BuiltCondition {
  result::AssumptionAutomaton automaton;
  std::vector<std::string> formula;  // one clause (pc = l ⇒ ψ) per open node, deduplicated
  std::vector<OpenPart> open;        // every open node with its reason
  size_t argNodes = 0;
};

// `openReason(n)`: a reason if n is open for the caller (in addition to waiting nodes
// and nodes whose AssumptionState is excluded). `describe(n)`: the data part ψ of the
// clause for an open node, e.g. "¬(x = 1 ∧ y = 2)"; "false" if empty.
BuiltCondition buildCondition(const cfa::Program& prog, const std::string& entry, const cpa::ReachedSet& reached,
                              const cpa::ArgState* root,
                              const std::function<std::optional<std::string>(const cpa::ArgState&)>& openReason,
                              const std::function<std::string(const cpa::ArgState&)>& describe);

// Human summary items for the open parts: waiting states grouped into one item
// ("N states not explored when the <stoppedBy> stopped the analysis (first at f.c:L)"),
// every other reason once with its location.
std::vector<std::string> summarizeOpen(const cfa::Program& prog, const BuiltCondition& b, const std::string& stoppedBy);
// "verified except: item; item; ..." (at most a few items), or "" for none.
std::string exceptSummary(const std::vector<std::string>& items);

// "main.c:12" for a location of the program (its source range, else the function's).
std::string locationWhere(const cfa::Program& prog, cfa::FuncId f, cfa::LocId l);

// The automaton that restricts nothing (initial state open) / that says everything
// was verified (initial state the sink).
result::AssumptionAutomaton trivialAutomaton(const cfa::Program& prog, const std::string& entry, bool verified);

}  // namespace argus::algorithms
