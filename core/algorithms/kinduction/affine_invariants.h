// Affine equalities among register variables at the loop heads (cut points) of the
// inlined program (Karr 1976; Müller-Olm and Seidl 2004): a forward fixpoint over the
// flat graph in the domain of affine subspaces, stored as equality constraints over the
// rationals. Exact affine assignments (+, -, * by a constant, << by a constant, ~, unary
// -) map the subspace; any other assignment, a havoc, a load or a call's locals forget the
// assigned variable; joins are the affine hull (intersection of the constraint spaces,
// Zassenhaus); guards are ignored. The ascending chain is bounded by the number of
// variables (each change lowers the rank), so no widening is needed.
//
// Machine integers. The analysis runs once per width class W (the variables of exactly
// W bits); an expression contributes only if every step of it is a ring operation on
// values of at least W bits (extensions and truncations to at least W bits keep the low
// W bits). Because guards are ignored, every bit-vector execution is the reduction
// modulo 2^W of an execution over the mathematical integers along the same path, whose
// states satisfy the rational equalities exactly; scaled to integer coefficients they
// therefore hold modulo 2^W for the bit-vector values. So each result is an equality
//   c_1*x_1 + ... + c_n*x_n == c_0   in W-bit wrap-around arithmetic,
// sound for signed and unsigned variables alike (signed overflow being undefined does
// not matter: the wrap-around value is what the encoder computes). Equality guards are
// deliberately not used: meeting with 2*x == 0 would give x == 0 over the rationals,
// which is false modulo 2^W.
//
// The results hold at every reachable loop-head state, so k-induction (kinduction.h) and
// kIkI (kiki.h) assume them in every state of their step case, as the interval invariants.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithms/kinduction/flat_program.h"

namespace argus::algorithms {

// sum(coeffs[i].second * vars[coeffs[i].first]) == rhs, modulo 2^width.
struct AffineEq {
  uint32_t width = 0;
  std::vector<std::pair<FlatVar, int64_t>> terms;  // sorted by variable, nonzero coefficients
  int64_t rhs = 0;
  bool operator==(const AffineEq&) const = default;
};

struct AffineInvariant {
  std::vector<std::vector<AffineEq>> atCut;  // per FlatProgram::cuts index (a conjunction)
  size_t count() const;                     // equalities over all cut points
  size_t relational() const;                // of those, the ones with two or more variables
};

struct AffineOptions {
  double maxSeconds = 5;        // per analysis (all width classes); then nullopt
  size_t maxNodes = 200000;     // flat program size limit
  bool singleVariable = false;  // also report x == c (the interval analysis finds those)
};

// nullopt when stopped, over its limits, or a rational overflowed (no result is better
// than a guess).
std::optional<AffineInvariant> computeAffine(const FlatProgram& fp, const std::atomic<bool>* stop = nullptr,
                                             const AffineOptions& opts = {});

// "j - 2*i == 0" (C names; the arithmetic is W-bit wrap-around).
std::string affineString(const FlatProgram& fp, const AffineEq& eq);
// The conjunction at one cut point ("" when there is none).
std::string affineString(const FlatProgram& fp, const std::vector<AffineEq>& eqs);

}  // namespace argus::algorithms
