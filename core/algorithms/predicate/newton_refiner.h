// Newton refinement (Dietsch et al., "Craig vs. Newton in software model checking"):
// the strongest-post variant over an infeasible core obtained from an unsat core.
//
// Input: the block formulas φ_1..φ_n of a spurious abstract counterexample (SSA
// path formulas whose conjunction is unsatisfiable) and the SSA map at the end of
// each block. Steps:
//  1. split each φ_i into its top-level conjuncts (for a block without ABE merges:
//     one conjunct per assumption/assignment, as in the paper's trace formula);
//  2. one unsat-core query over all conjuncts (each guarded by an assumption literal);
//     a core of up to 64 literals is shrunk further by deletion (one query per
//     literal, at most 300 ms with Z3; see newton_refiner.cpp for cvc5); conjuncts outside the core are dropped — for an assignment this is the
//     paper's abstraction to havoc, for an assumption to `assume true`;
//  3. τ_0 = true, τ_i = SP of the core prefix up to block i, i.e. ∃(stale SSA
//     variables) K_i, made quantifier-free by destructive equality resolution
//     (stale x@k = t substitutes t), by inverting bijective definitions
//     (cur = v + t gives v = cur - t) and, where neither applies, by dropping the
//     conjuncts that still mention stale variables (an over-approximation: τ stays
//     a valid post-condition, only inductiveness may weaken); τ_n is false.
//  4. the predicates for block end i are the atoms of τ_i, unindexed; `false` is
//     always a predicate at the last block end. A heuristic addition: when τ_i fixes
//     several current variables to constants (x = 1 ∧ y = 1), the differences
//     (x = y, x - y = c) are predicates too, so loops need not be unrolled.
// Without quantifier elimination in core/smt (Z3 4.8.12 has no interpolation either),
// this is the sound, theory-independent choice; predicates never affect soundness.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/encoding/path_formula.h"
#include "core/smt/solver.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

struct RefinementInput {
  std::vector<smt::Term> blocks;                    // φ_1..φ_n over indexed variables
  std::vector<const encoding::SsaMap*> ssaAfter;    // indices at the end of each block
  const encoding::SsaMap* ssaBefore = nullptr;      // indices at the start (null: all 0)
};

// Partial quantifier elimination for a conjunction K: ∃ {v | eliminate(v)}. K,
// returned as conjuncts still possibly mentioning eliminated variables (the caller
// drops those — an over-approximation — or keeps them). Destructive equality
// resolution (v = t substitutes t), inversion of bijective definitions (a = v + t
// gives v = a - t; also -, xor, not, neg), array stores over an eliminated base
// (M = store(R, a, x) gives select(M, a) = x), and disjunctions projected disjunct by
// disjunct, nested up to `disjunctionDepth` levels (0: a disjunction that still
// mentions an eliminated variable is left as it is, so callers that drop such
// conjuncts drop the whole disjunction).
std::vector<smt::Term> eliminateVariables(encoding::PathFormulaManager& pfm, const std::vector<smt::Term>& k,
                                          const std::function<bool(smt::Term)>& eliminate, int disjunctionDepth);

struct RefinementOutput {
  bool ok = false;
  std::string reason;                               // when !ok
  std::vector<smt::Term> sequence;                  // τ_1..τ_n (indexed at ssaAfter[i])
  std::vector<std::vector<smt::Term>> predicates;   // per block end: unindexed atoms
  uint64_t coreSize = 0, conjunctCount = 0;
};

class NewtonRefiner {
public:
  NewtonRefiner(encoding::PathFormulaManager& pfm, smt::SolverKind solver, support::Deadline deadline)
      : pfm_(pfm), solverKind_(solver), deadline_(deadline) {}
  // keepStale: the fallback when the predicates of a normal refinement do not grow the
  // precision — conjuncts with stale variables are kept if they also mention a current
  // variable (τ is then not a formula over the current state) and their atoms,
  // unindexed, become predicates too.
  RefinementOutput refine(const RefinementInput& in, bool keepStale = false);
  // τ = ∃ stale. K, quantifier-free as described above (exposed for tests).
  smt::Term project(const std::vector<smt::Term>& k, const encoding::SsaMap& ssa, bool keepStale = false);
  double solverTimeS() const { return solverTimeS_; }
  uint64_t solverQueries() const { return queries_; }
  void setDeadline(support::Deadline d) { deadline_ = d; }

private:
  encoding::PathFormulaManager& pfm_;
  smt::SolverKind solverKind_;
  support::Deadline deadline_;
  double solverTimeS_ = 0;
  uint64_t queries_ = 0;
};

}  // namespace argus::algorithms
