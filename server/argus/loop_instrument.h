// Source instrumentation at loops for SV-COMP loop invariants (argus validate, and the
// scope check of the invariants `argus verify --witness-out` writes): an expression made
// from each invariant is put into its loop's condition, so it is evaluated at every test
// of the condition (the loop head, where a loop invariant holds). Loops are found at the
// invariant's location: the first character of a `while` or `for` keyword (1-based line
// and column); `do` loops and anything else are refused with a note.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/frontend/frontend.h"
#include "core/result/witness.h"

namespace argus::cli {

struct LoopInv {
  uint32_t line = 0, column = 0;
  std::string value;  // C expression
};

// The program with wrap(k, invariants[k].value) evaluated (as a comma-operator operand)
// before each test of loop k's condition; "" and `note` set when a location is not a
// while or for loop. Lines are unchanged (the inserted text has no newline).
std::string instrumentLoops(const std::string& src, const std::vector<LoopInv>& invs,
                            const std::function<std::string(size_t, const std::string&)>& wrap, std::string& note);

// Offset of (line, column) (both 1-based) in src; npos past the end.
size_t offsetOf(const std::string& src, uint32_t line, uint32_t column);

// The invariants a correctness witness may state at their loops, conjunct by conjunct
// (what remains is weaker, so still an invariant): a conjunct naming a C identifier that
// the loop's function shares with another of its variables or a global (the proof's
// formulas name variables by C name, which is then ambiguous: two `for (int i ...)`
// loops) is dropped, and so is one that does not compile at the loop (a variable out of
// scope there), found by parsing the program with the invariants in the loop conditions
// (once for all; per invariant and conjunct only when that fails). An invariant left
// with nothing becomes "1". A program that does not parse keeps no invariant.
std::vector<result::WitnessInvariant> inScopeInvariants(const std::vector<result::WitnessInvariant>& invs,
                                                        const std::string& file, const std::string& source,
                                                        const frontend::FrontendOptions& fo);

}  // namespace argus::cli
