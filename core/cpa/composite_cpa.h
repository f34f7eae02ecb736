// The composite CPA: the product of component CPAs (unifying-view paper, Sect. 3).
//
// Component 0 must enumerate the steps (the location CPA); the others compute their
// successor for each step, then strengthen() with the siblings' successors. A step is
// taken only if every component has a successor.
//  - merge (agree): merges only if every component either merges or already has
//    e_i ⊑ e''_i, so a component with merge-sep (location, callstack) forbids merging
//    states that differ in it.
//  - stop: e is covered by one reached e'' component-wise.
//  - prec: each component in turn, seeing the whole state; a dropped component drops
//    the state.
#pragma once

#include <memory>
#include <vector>

#include "core/cpa/cpa.h"

namespace argus::cpa {

class CompositeState final : public AbstractState {
public:
  explicit CompositeState(std::vector<StatePtr> parts) : parts(std::move(parts)) {}
  std::vector<StatePtr> parts;
  std::span<const StatePtr> components() const override { return parts; }
  bool equals(const AbstractState& o) const override;
  std::string str() const override;
};

class CompositePrecision final : public Precision {
public:
  explicit CompositePrecision(std::vector<PrecisionPtr> parts) : parts(std::move(parts)) {}
  std::vector<PrecisionPtr> parts;
  std::span<const PrecisionPtr> components() const override { return parts; }
  // A copy with part i replaced.
  std::shared_ptr<const CompositePrecision> with(size_t i, PrecisionPtr p) const;
};

class CompositeCpa final : public ConfigurableProgramAnalysis {
public:
  // The components are borrowed; they must outlive this CPA.
  explicit CompositeCpa(std::vector<ConfigurableProgramAnalysis*> components);
  ~CompositeCpa() override;
  AbstractDomain& domain() override;
  TransferRelation& transfer() override;
  MergeOperator& merge() override;
  StopOperator& stop() override;
  PrecisionAdjustment& precisionAdjustment() override;
  StatePtr initialState() override;
  PrecisionPtr initialPrecision() override;
  bool isTarget(const AbstractState& e) const override;
  const std::vector<ConfigurableProgramAnalysis*>& components() const { return cs_; }

private:
  struct Ops;
  std::vector<ConfigurableProgramAnalysis*> cs_;
  std::unique_ptr<Ops> ops_;
};

}  // namespace argus::cpa
