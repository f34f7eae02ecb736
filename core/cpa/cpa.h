// The operators of a configurable program analysis (unifying-view paper, Sect. 3),
// one small interface each, and the CPA that bundles them.
//
//  - AbstractDomain: the partial order ⊑ (isLessOrEqual) and join ⊔ of the semilattice.
//  - TransferRelation: e ⇝ e' for one step (successorsForStep) or all steps
//    (successors). Returns no state for an infeasible/blocked step.
//  - MergeOperator: merge(e, e'', π) returns e'' itself when nothing is merged (the
//    algorithm compares pointers), else a new state with e'' ⊑ result ("widens e''").
//  - StopOperator: stop(e, R, π) is true iff e is covered by the states R.
//  - PrecisionAdjustment: prec(e, π, R) returns the adjusted state and precision, or
//    nothing if the state is to be dropped (e.g. an abstraction that is `false`).
//    CPA++ calls it on every new state, before merge and stop.
//  - Strengthen: strengthen(e, siblings, step) lets a component of a composite refine
//    its successor by the siblings' successors; identity by default; null = bottom.
//
// Defaults (operators.h): merge-sep, merge-join, stop-sep, static precision.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/cfa/step.h"
#include "core/cpa/state.h"

namespace argus::cpa {

class ReachedSet;

class AbstractDomain {
public:
  virtual ~AbstractDomain() = default;
  virtual bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const = 0;
  virtual StatePtr join(const StatePtr& a, const StatePtr& b) const = 0;
};

struct Successor {
  StatePtr state;
  cfa::Step step;
};

class TransferRelation {
public:
  virtual ~TransferRelation() = default;
  // Successors along one given step (the composite CPA asks its components this way).
  virtual std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr& p, const cfa::Step& step) = 0;
  // All successors. Only CPAs that know the control flow (location CPA, and wrappers
  // containing it) can enumerate steps; the default throws.
  virtual std::vector<Successor> successors(const StatePtr& s, const PrecisionPtr& p);
};

class MergeOperator {
public:
  virtual ~MergeOperator() = default;
  virtual StatePtr merge(const StatePtr& e, const StatePtr& reached, const PrecisionPtr& p) = 0;
};

class StopOperator {
public:
  virtual ~StopOperator() = default;
  virtual bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr& p) = 0;
};

struct Adjusted {
  StatePtr state;
  PrecisionPtr precision;
};

class PrecisionAdjustment {
public:
  virtual ~PrecisionAdjustment() = default;
  // `full` is the whole (composite/ARG) state the component `e` belongs to, so a
  // component can read its siblings (e.g. the location) with extract<T>(full).
  virtual std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet& reached,
                                         const AbstractState& full) = 0;
};

class Strengthen {
public:
  virtual ~Strengthen() = default;
  virtual StatePtr strengthen(const StatePtr& e, std::span<const StatePtr> siblings, const cfa::Step& step) {
    (void)siblings;
    (void)step;
    return e;
  }
};

// A CPA: the operators plus the initial state and precision for a start location.
// Components are owned by the CPA; accessors return references valid for its lifetime.
class ConfigurableProgramAnalysis {
public:
  virtual ~ConfigurableProgramAnalysis() = default;
  virtual AbstractDomain& domain() = 0;
  virtual TransferRelation& transfer() = 0;
  virtual MergeOperator& merge() = 0;
  virtual StopOperator& stop() = 0;
  virtual PrecisionAdjustment& precisionAdjustment() = 0;
  virtual Strengthen& strengthen() {
    static Strengthen identity;
    return identity;
  }
  virtual StatePtr initialState() = 0;
  virtual PrecisionPtr initialPrecision() = 0;
  // Called by CPA++ after `merged` replaced `old` in the reached set (merge result),
  // so wrappers with graph structure (ARG) can fix their links. Default: nothing.
  virtual void onReplaced(ReachedSet& reached, const StatePtr& old, const StatePtr& merged) {
    (void)reached;
    (void)old;
    (void)merged;
  }
  // Called by CPA++ after `e` was added to the reached set. Default: nothing.
  virtual void onAdded(const StatePtr& e) { (void)e; }
  // A state is a target (abort/CEGAR stop there): default never.
  virtual bool isTarget(const AbstractState& e) const {
    (void)e;
    return false;
  }
};

}  // namespace argus::cpa
