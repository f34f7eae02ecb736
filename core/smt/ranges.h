// The values a bit-vector term can take, over-approximated as a few unsigned intervals
// (issue 29: which stores a read through a pointer can see).
//
// ValueRanges::of(t) is a set of at most kMaxIntervals disjoint, sorted, non-wrapping
// intervals [lo, hi] of unsigned values (modulo 2^width) that contains the value of `t`
// in every model. It is computed from the term's structure alone (constants, if-then-else,
// addition with wrap-around, multiplication and shifts by constants, extensions,
// masks, concatenation, low extracts); anything else is the full range. The encoder
// of the flat memory (core/encoding/expr_encoder.h) skips a store whose index ranges
// do not meet the read's: the two addresses differ in every model, so the read never
// sees that store — an equivalence of the array theory, as the other read-over-write
// steps are.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/smt/term.h"

namespace argus::smt {

struct Interval {
  uint64_t lo = 0, hi = 0;  // inclusive, lo <= hi
  bool operator==(const Interval&) const = default;
};

// Sorted, disjoint, non-adjacent intervals; empty = no value (only after an
// intersection that leaves nothing).
using Ranges = std::vector<Interval>;

class ValueRanges {
public:
  static constexpr size_t kMaxIntervals = 4;
  static constexpr unsigned kMaxDepth = 64;

  const Ranges& of(Term t);
  // Whether some value lies in both.
  static bool meet(const Ranges& a, const Ranges& b);
  static Ranges full(uint32_t width);
  static Ranges intersect(const Ranges& a, const Ranges& b);
  // Every value of `a` is in [lo, hi].
  static bool within(const Ranges& a, uint64_t lo, uint64_t hi);
  // The interval's union with the set, at most kMaxIntervals kept (the closest merged).
  static Ranges normalise(Ranges r);

private:
  Ranges compute(Term t, unsigned depth);
  const Ranges& of(Term t, unsigned depth);
  std::unordered_map<Term, Ranges> memo_;
};

}  // namespace argus::smt
