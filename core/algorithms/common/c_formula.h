// An SMT formula over a program's unindexed register variables as a C expression (for
// loop invariants in correctness witnesses, core/result/witness.h).
//
// The C text means what the formula means under C's semantics: bit-vector values are
// written as unsigned values of their width (`(unsigned int)x`), arithmetic in
// unsigned types that wrap exactly as the bit-vectors do (8- and 16-bit operations
// computed in `unsigned int` and cast back), signed comparisons through a cast to the
// signed type of the width (modular, as GCC and Clang define it). Only widths 8, 16,
// 32 and 64 are written.
//
// What cannot be written that way — an operation without a C counterpart here (division,
// shifts, memory, floating point, if-then-else), a variable of another function, a
// variable whose C name is ambiguous or a temporary — is replaced by a weaker formula:
// an atom under an even number of negations by 1, under an odd number by 0. The result
// is therefore implied by the formula (the invariant only gets weaker, so it stays an
// invariant); "1" when nothing remains.
#pragma once

#include <string>

#include "core/cfa/cfa.h"
#include "core/smt/term.h"

namespace argus::algorithms {

// `f`'s C text at a location of function `func` (variables: `func`'s and globals).
std::string cFormula(const cfa::Program& prog, cfa::FuncId func, smt::Term f);

}  // namespace argus::algorithms
