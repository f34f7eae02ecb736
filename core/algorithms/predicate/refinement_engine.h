// Refinement engines: an inductive sequence of interpolants for an infeasible path.
//
// Input (RefinementInput, see newton_refiner.h): the blocks φ_1..φ_n of an infeasible
// path in SSA form (their conjunction is unsatisfiable; the first block contains the
// initial abstraction ψ_0), the SSA map at the end of each block and, optionally, the
// one at its start (null = all indices 0, the program start). Output: τ_1..τ_n, τ_i
// over the variables current at the end of block i (indexed at ssaAfter[i]), with
//   τ_0 = true,  τ_{i-1} ∧ φ_i ⇒ τ_i  (1 ≤ i ≤ n),  τ_n = false.
// An engine that cannot produce such a sequence says so (ok = false, reason); it
// never returns a sequence it did not derive (checkSequence() verifies one with a
// solver; tests and Impact use it).
//
// Engines (`--refiner`):
//  craig            cvc5's interpolation (Solver::interpolant, SyGuS-based), chained:
//                   τ_i = Itp(τ_{i-1} ∧ φ_i, φ_{i+1} ∧ … ∧ φ_n), which makes the
//                   sequence inductive by construction. Z3 has no interpolation, so
//                   with --solver z3 Craig uses a separate cvc5 instance.
//  newton-<sp|wp>-<core|all>-<live|all>
//                   the eight Newton variants of Dietsch et al. ("Craig vs. Newton"):
//   core / all      infeasible core from an unsat core (conjuncts outside it are
//                   dropped: havoc for an assignment, assume true for an assumption)
//                   or the whole trace;
//   sp / wp         strongest post forward (τ_i = ∃ stale. τ_{i-1} ∧ φ_i) or weakest
//                   precondition backward (τ_{i-1} = ¬∃ new. φ_i ∧ ¬τ_i);
//   live / all      projection to the future-live (sp) / past-live (wp) variables:
//                   a current variable is future live at i if a later block reads it
//                   (its current SSA instance occurs in φ_{i+1..n}), past live if an
//                   earlier block wrote or read it (occurs in φ_1..i); the others are
//                   quantified (∃ for sp, ∀ for wp), as in the paper.
//                   Quantifier elimination over bit-vectors: destructive equality
//                   resolution (x = t substitutes t), inversion of bijective
//                   definitions, array stores with a quantified base, and — where none
//                   applies — dropping the conjuncts that still mention a quantified
//                   variable. For sp this over-approximates ∃, for wp it
//                   over-approximates the ∃ inside ¬∃ (so τ is strengthened); either
//                   way each step stays inductive (τ_i ⊇ post(τ_{i-1}) resp.
//                   τ_{i-1} ⊆ wp(τ_i)). Only the end can be lost: sp checks that
//                   τ_{n-1} ∧ φ_n is unsatisfiable (then τ_n = false), wp that
//                   ¬τ_0 is unsatisfiable (then τ_0 = true); otherwise the engine
//                   reports failure.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/algorithms/predicate/newton_refiner.h"
#include "core/encoding/path_formula.h"
#include "core/smt/solver.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

struct RefinerConfig {
  enum class Kind { Craig, Newton } kind = Kind::Newton;
  bool core = true;   // Newton: infeasible core from unsat cores
  bool wp = false;    // Newton: weakest precondition instead of strongest post
  bool live = true;   // Newton: live-variable projection
  // Newton: how deep the projection splits a disjunction (an ABE merge of branches)
  // that mentions an eliminated variable and projects it disjunct by disjunct; 0
  // drops such a disjunction. Not part of the name: a property of the caller
  // (Impact conjoins τ to its states and gains from the stronger τ; predicate
  // abstraction takes τ's atoms, and split disjunctions give it many ite atoms).
  int disjunctionDepth = 4;
  std::string name() const;
  // "craig" or "newton-{sp,wp}-{core,all}-{live,all}"; throws std::invalid_argument.
  static RefinerConfig parse(const std::string& s);
  static std::vector<std::string> allNames();
};

struct InterpolationSequence {
  bool ok = false;
  std::string reason;            // when !ok
  std::vector<smt::Term> seq;    // τ_1..τ_n (τ_n = false), τ_i indexed at ssaAfter[i]
  uint64_t coreSize = 0, conjunctCount = 0;
};

class RefinementEngine {
public:
  virtual ~RefinementEngine() = default;
  virtual InterpolationSequence interpolate(const RefinementInput& in) = 0;
  // Replaces the deadline given at construction (a refinement with its own time limit).
  virtual void setDeadline(support::Deadline d) = 0;
  double solverTimeS() const { return solverTimeS_; }
  uint64_t solverQueries() const { return queries_; }

protected:
  double solverTimeS_ = 0;
  uint64_t queries_ = 0;
};

std::unique_ptr<RefinementEngine> makeRefinementEngine(const RefinerConfig& cfg, encoding::PathFormulaManager& pfm,
                                                       smt::SolverKind solver, support::Deadline deadline);

// Checks the sequence properties with a fresh solver: every τ_i mentions only
// variables current at ssaAfter[i] (or unindexed ones), τ_0 = true ∧ φ_1 ⇒ τ_1,
// τ_{i-1} ∧ φ_i ⇒ τ_i and τ_n is false. Returns "" when they hold, else what fails
// (or that the solver could not decide).
std::string checkSequence(encoding::PathFormulaManager& pfm, smt::SolverKind solver, const RefinementInput& in,
                          const std::vector<smt::Term>& seq, unsigned timeoutMs = 0);

// Predicates from a sequence: the atoms of each τ_i, unindexed, plus (a heuristic,
// see newton_refiner.h) the differences of program variables τ_i fixes to constants.
std::vector<std::vector<smt::Term>> sequencePredicates(encoding::PathFormulaManager& pfm,
                                                       const std::vector<smt::Term>& seq);

}  // namespace argus::algorithms
