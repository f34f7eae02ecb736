// Abstraction formulas as BDDs over the predicates (BuDDy, Debian libbdd-dev): the
// "regions" of CPAchecker's predicate analysis. A region is a boolean function of the
// predicates, canonical as a BDD, so equal abstractions are one formula and coverage
// between two abstraction states (ψ ⇒ ψ') is a BDD operation instead of a solver query.
// The check is propositional (predicates as independent booleans): it can miss an
// implication that holds only modulo the theory (fewer coverings, never a wrong one).
//
// BuDDy keeps one global node table; every call goes through one process-wide lock,
// so analyses in different threads (argusd sessions) can use regions side by side.
// Each BddRegions numbers its own predicates from 0 (BDD variables are shared by
// index, their meaning is per instance) and holds its regions until it is destroyed.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/smt/term.h"

namespace argus::cpa {

class BddRegions {
public:
  explicit BddRegions(smt::TermManager& tm);
  ~BddRegions();
  BddRegions(const BddRegions&) = delete;
  BddRegions& operator=(const BddRegions&) = delete;

  // A literal of a cube: the predicate (a Bool term) and its polarity.
  using Literal = std::pair<smt::Term, bool>;
  // The region of the disjunction of the cubes (conjunctions of literals), as a formula
  // over the predicates: the same term for the same boolean function. Null when BuDDy
  // reports an error (out of memory): the caller keeps its own formula then.
  smt::Term fromCubes(const std::vector<std::vector<Literal>>& cubes);
  // a ⇒ b decided on the BDDs when both are regions this instance made (or constants);
  // nullopt otherwise (the caller asks the solver).
  std::optional<bool> implies(smt::Term a, smt::Term b);
  // How many distinct regions and BDD variables (predicates) this instance has.
  size_t regions() const;
  size_t variables() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace argus::cpa
