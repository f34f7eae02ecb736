// The predicate CPA P with adjustable-block encoding (unifying-view paper, Sect. 3).
//
// State (ψ, l^ψ, φ): the abstraction formula ψ (over unindexed variables, see
// core/encoding/path_formula.h), the block it starts (identified by the unique id of
// the abstraction state that computed ψ — stricter than the paper's "same location",
// it keeps the abstraction states a tree), and the path formula φ of the block so
// far. Abstraction states have φ = true and also keep the block formula that led to
// them (what CEGAR conjoins for the feasibility check).
//
//  - transfer: φ' = SP_op(φ) (PathFormulaManager::extend), no solving.
//  - merge: intermediate states of the same block: (ψ, l, φ1 ∨ φ2); else sep.
//    (mergeBlocks = false gives merge-sep everywhere.)
//  - stop: an abstraction state is covered by a reached abstraction state ψ' with
//    ψ ⇒ ψ' (SMT query, cached). An intermediate state is covered only by a state of
//    its block that already contains its path formula (equal, or merged into it; this
//    is CPAchecker's "merged into" rule — the paper's stop is false here, which would
//    keep a merged-away state as a duplicate).
//  - prec: at block ends (blk^l: loop heads and targets; blk^lf: also function entry
//    and exit) the boolean predicate abstraction of ψ ∧ φ over π(l) (all-SAT with
//    blocking clauses), or the cartesian abstraction; an abstraction equal to false
//    drops the state.
// Precision: predicates (over unindexed variables) per program location.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "core/cpa/bdd_regions.h"
#include "core/cpa/cpa.h"
#include "core/cpa/location_cpa.h"
#include "core/cpa/operators.h"
#include "core/encoding/path_formula.h"
#include "core/smt/solver.h"
#include "core/support/deadline.h"

namespace argus::cpa {

using LocKey = uint64_t;
inline LocKey locKey(cfa::FuncId f, cfa::LocId l) { return (static_cast<uint64_t>(f) << 32) | l; }

class PredicatePrecision final : public Precision {
public:
  // Predicates per location, each list sorted by term id (deterministic, no duplicates).
  std::map<LocKey, std::vector<smt::Term>> preds;
  const std::vector<smt::Term>& at(LocKey l) const;
  // This precision plus `more` (element-wise union).
  std::shared_ptr<const PredicatePrecision> join(const std::map<LocKey, std::vector<smt::Term>>& more) const;
  size_t total() const;
};

class PredicateState final : public AbstractState {
public:
  uint64_t id = 0;              // unique per state (for the merged-into rule)
  // ψ, over unindexed variables, and ψ at the indices the block starts with. Mutable
  // for one purpose: the Impact refinement and forced covering strengthen the
  // abstraction formulas of reached abstraction states in place (unifying-view paper,
  // Sect. 3.2/3.3); nothing else changes them after creation.
  mutable smt::Term abstraction;
  mutable smt::Term abstractionInstantiated;
  uint64_t block = 0;           // id of the abstraction state that starts this block
  encoding::PathFormula pf;     // φ (true with the block's start indices for abstraction states)
  bool isAbstraction = false;
  smt::Term blockFormula;       // abstraction states: the φ of the block ending here (null at the root)
  std::shared_ptr<const std::vector<std::pair<smt::Term, size_t>>> mergedFrom;  // (formula, ssa hash) of merged-in states

  bool contains(const encoding::PathFormula& other) const;
  std::string str() const override;
};

// blk^never: no block ends except targets (and recursive calls, which are targets
// of kind Recursion), so the whole program is one block and its path formula is the
// BMC formula (with the loop-bound CPA, see loop_bound_cpa.h).
enum class BlockOperator { LoopHeads /* blk^l */, LoopHeadsAndFunctions /* blk^lf */, Never /* blk^never */ };

struct PredicateCpaOptions {
  BlockOperator block = BlockOperator::LoopHeads;
  bool cartesian = false;      // cartesian instead of boolean predicate abstraction
  // Abstraction formulas as BDDs over the predicates (bdd_regions.h): canonical, and
  // coverage between abstraction states decided on the BDDs without the solver.
  // false: as SMT formulas (disjunctions of cubes), coverage by solver queries.
  bool bddAbstractions = false;
  bool mergeBlocks = true;     // ABE merge inside blocks; false = merge-sep
  // All-SAT enumeration stops after this many models and the (weaker, still sound)
  // cartesian abstraction is used instead; 0 = no limit.
  uint32_t maxAllSatModels = 64;
  // Per-query limits for abstraction and coverage queries with Z3 (0 = none; cvc5
  // cannot be used after a per-query limit hit, see predicate_cpa.cpp). An undecided
  // query is answered conservatively: all-SAT falls back to cartesian, a cartesian
  // literal is left out, a coverage check fails. The limit is in Z3's units of work
  // (rlimit), so which queries give up, and so the abstraction and the verdict, do not
  // depend on the machine's load (with a limit of 1 s they did: a run of 9 s alone took
  // 16 s in two of four copies run side by side on two cores and 45-48 s in the other
  // two; with this limit 20-24 s in each; session 35). 2.5 million units are about a
  // second of Z3's work on the queries measured (fewer seconds on some, more on others);
  // the time limit only backs the count up.
  unsigned queryResourceLimit = 2500000;
  unsigned queryTimeoutMs = 10000;
  // Time per post (conditional model checking; borrowed, may be null): while CPA++ has
  // it armed, every query is bounded by what is left of it (Z3; with cvc5 it is checked
  // between queries only) and support::BudgetExceeded is thrown when it is used up.
  support::OperationBudget* postBudget = nullptr;
};

struct PredicateStats {
  uint64_t abstractions = 0, abstractionCacheHits = 0, allSatModels = 0, cartesianFallbacks = 0;
  uint64_t implicationChecks = 0, implicationCacheHits = 0, queryGiveUps = 0;
  uint64_t bddImplications = 0;  // coverage checks decided on BDDs (no solver query)
  double abstractionTimeS = 0, coverageTimeS = 0;
};

// Thrown when a solver query of the analysis cannot be decided.
struct SolverUnknown : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PredicateCpa final : public ConfigurableProgramAnalysis {
public:
  // `solver` is used for abstraction and coverage queries (push/pop around each).
  PredicateCpa(const ControlFlow& cf, encoding::PathFormulaManager& pfm, smt::Solver& solver,
               const PredicateCpaOptions& opts, const support::Deadline& deadline);
  ~PredicateCpa() override;
  AbstractDomain& domain() override;
  TransferRelation& transfer() override;
  MergeOperator& merge() override;
  StopOperator& stop() override;
  PrecisionAdjustment& precisionAdjustment() override;
  StatePtr initialState() override;
  PrecisionPtr initialPrecision() override;

  // Boolean (or cartesian) predicate abstraction of `f` (over indexed variables at
  // `ssa`) with the given predicates; the result is over unindexed variables.
  smt::Term abstract(smt::Term f, const std::vector<smt::Term>& preds, const encoding::SsaMap& ssa);
  // ψ1 ⇒ ψ2 for formulas over unindexed variables (cached).
  bool implies(smt::Term a, smt::Term b);
  const PredicateStats& stats() const { return stats_; }
  // The BDD regions (null unless opts.bddAbstractions).
  const BddRegions* regions() const { return regions_.get(); }
  // Changes the all-SAT model limit (CEGAR raises it when the cartesian fallback was
  // too weak to exclude a spurious counterexample); clears the abstraction cache.
  void setMaxAllSatModels(uint32_t n) {
    opts_.maxAllSatModels = n;
    abstractionCache_.clear();
  }
  uint32_t maxAllSatModels() const { return opts_.maxAllSatModels; }

private:
  struct Ops;
  friend struct Ops;
  smt::CheckResult check(std::span<const smt::Term> assumptions = {});
  const ControlFlow& cf_;
  encoding::PathFormulaManager& pfm_;
  smt::Solver& solver_;
  PredicateCpaOptions opts_;
  support::Deadline deadline_;
  std::unique_ptr<Ops> ops_;
  std::unique_ptr<BddRegions> regions_;  // with opts_.bddAbstractions
  uint64_t nextId_ = 1;
  PredicateStats stats_;
  std::map<std::pair<smt::Term, std::vector<smt::Term>>, smt::Term> abstractionCache_;
  std::map<std::pair<smt::Term, smt::Term>, bool> implicationCache_;
};

}  // namespace argus::cpa
