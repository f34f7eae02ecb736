// The ARG CPA A: wraps a CPA and records the abstract reachability graph —
// predecessor/successor links (with the step taken) and coverage — which refinement
// and counterexample construction need (unifying-view paper, Sect. 3).
//
// Graph links are the one mutable part of abstract states. They are updated only by
// the ARG's own operators and hooks, all called by the single analysis thread:
//  - a new state records its parents when it is created (transfer, merge, prec) and
//    is linked into its parents' children when it is added to the reached set
//    (onAdded) or covered (stop, which also records the covering state);
//  - a merge result takes over the replaced state's parents, children and coverings
//    (the replaced state is ⊑ the merge result, so everything below it stays sound).
// States are kept alive by the CPA's arena until it is destroyed, so raw links never
// dangle (a removed state is marked `removed`).
#pragma once

#include <memory>
#include <unordered_set>
#include <vector>

#include "core/cpa/cpa.h"
#include "core/cpa/reached_set.h"

namespace argus::cpa {

class ArgState final : public AbstractState, public std::enable_shared_from_this<ArgState> {
public:
  ArgState(StatePtr wrapped, uint64_t id, std::vector<std::pair<ArgState*, cfa::Step>> parents)
      : wrapped(std::move(wrapped)), id(id), parents(std::move(parents)) {}
  StatePtr wrapped;
  uint64_t id;
  // graph links (mutable, see above)
  mutable std::vector<std::pair<ArgState*, cfa::Step>> parents;
  mutable std::vector<ArgState*> children;
  mutable ArgState* coveredBy = nullptr;
  mutable std::vector<ArgState*> covers;
  mutable bool removed = false;
  // Conditional model checking: non-empty when a monitor of the CPA++ run (busy edge,
  // time per post, path-formula size, time per refinement) cut the exploration at
  // this state — its successors were not (all) explored; the text says why. Such a
  // state is never expanded again, and it is an open part of the output condition.
  mutable std::string cut;

  std::span<const StatePtr> components() const override { return {&wrapped, 1}; }
  bool equals(const AbstractState& o) const override { return this == &o; }
  std::string str() const override { return "#" + std::to_string(id) + " " + wrapped->str(); }
};

class ArgCpa final : public ConfigurableProgramAnalysis {
public:
  explicit ArgCpa(ConfigurableProgramAnalysis& wrapped);
  ~ArgCpa() override;
  AbstractDomain& domain() override;
  TransferRelation& transfer() override;
  MergeOperator& merge() override;
  StopOperator& stop() override;
  PrecisionAdjustment& precisionAdjustment() override;
  StatePtr initialState() override;
  PrecisionPtr initialPrecision() override { return wrapped_.initialPrecision(); }
  bool isTarget(const AbstractState& e) const override;
  void onReplaced(ReachedSet& reached, const StatePtr& old, const StatePtr& merged) override;
  void onAdded(const StatePtr& s) override;
  size_t created() const { return arena_.size(); }

  // Removes `root` and all its descendants from the ARG and the reached set, uncovers
  // the states they covered, and puts the remaining parents of removed and uncovered
  // states back on the waitlist (with precision `newPrecision` if given). Returns
  // those parents.
  std::vector<ArgState*> removeSubtree(ReachedSet& reached, ArgState* root, const PrecisionPtr& newPrecision = nullptr);
  // Impact's removal of states that became false: removes `root` and its descendants
  // from the ARG and the reached set without re-adding any parent (the removed states
  // are unreachable); the states they covered are uncovered and returned (the caller
  // puts them back into the reached set).
  std::vector<ArgState*> removeUnreachableSubtree(ReachedSet& reached, ArgState* root);

private:
  struct Ops;
  friend struct Ops;
  std::shared_ptr<ArgState> make(StatePtr wrapped, std::vector<std::pair<ArgState*, cfa::Step>> parents);
  ConfigurableProgramAnalysis& wrapped_;
  std::unique_ptr<Ops> ops_;
  std::vector<std::shared_ptr<ArgState>> arena_;
};

}  // namespace argus::cpa
