// Default operators (unifying-view paper, Sect. 3): merge-sep, merge-join, stop-sep,
// static precision, and a flat-lattice domain for CPAs whose states are only equal or
// incomparable (location, callstack).
#pragma once

#include <memory>

#include "core/cpa/cpa.h"

namespace argus::cpa {

// merge^sep(e, e'', π) = e''
class MergeSep final : public MergeOperator {
public:
  StatePtr merge(const StatePtr&, const StatePtr& reached, const PrecisionPtr&) override { return reached; }
};

// merge^join(e, e'', π) = e ⊔ e'' (returns e'' itself when e ⊑ e'', so nothing changes)
class MergeJoin final : public MergeOperator {
public:
  explicit MergeJoin(const AbstractDomain& d) : d_(d) {}
  StatePtr merge(const StatePtr& e, const StatePtr& reached, const PrecisionPtr&) override {
    if (d_.isLessOrEqual(*e, *reached)) return reached;
    return d_.join(e, reached);
  }

private:
  const AbstractDomain& d_;
};

// stop^sep(e, R, π) = ∃ e' ∈ R: e ⊑ e'
class StopSep final : public StopOperator {
public:
  explicit StopSep(const AbstractDomain& d) : d_(d) {}
  bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr&) override {
    for (const StatePtr& r : reached)
      if (d_.isLessOrEqual(*e, *r)) return true;
    return false;
  }

private:
  const AbstractDomain& d_;
};

// stop^never: never covered (for analyses that must explore every state)
class StopNever final : public StopOperator {
public:
  bool stop(const StatePtr&, std::span<const StatePtr>, const PrecisionPtr&) override { return false; }
};

// prec^id: the state and precision unchanged
class StaticPrecision final : public PrecisionAdjustment {
public:
  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet&,
                                 const AbstractState&) override {
    return Adjusted{e, p};
  }
};

// Flat lattice: e ⊑ e' iff e equals e'; the join of different states is not defined
// (merge-sep is the only sensible merge), so join() returns the second argument.
class FlatDomain final : public AbstractDomain {
public:
  bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const override { return a.equals(b); }
  StatePtr join(const StatePtr&, const StatePtr& b) const override { return b; }
};

// A CPA over a flat domain with merge-sep, stop-sep and static precision (location,
// callstack): subclasses supply the transfer relation, the initial state and isTarget.
class FlatCpa : public ConfigurableProgramAnalysis {
public:
  explicit FlatCpa(std::unique_ptr<TransferRelation> transfer) : transfer_(std::move(transfer)) {}
  AbstractDomain& domain() override { return domain_; }
  TransferRelation& transfer() override { return *transfer_; }
  MergeOperator& merge() override { return merge_; }
  StopOperator& stop() override { return stop_; }
  PrecisionAdjustment& precisionAdjustment() override { return prec_; }
  PrecisionPtr initialPrecision() override { return NoPrecision::get(); }

private:
  FlatDomain domain_;
  std::unique_ptr<TransferRelation> transfer_;
  MergeSep merge_;
  StopSep stop_{domain_};
  StaticPrecision prec_;
};

}  // namespace argus::cpa
