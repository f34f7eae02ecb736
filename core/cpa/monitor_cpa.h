// Condition monitors and assumption storage (conditional-model-checking paper,
// Sect. III: Fig. 7's path conditions, the CPA for repeating-locations monitoring and
// the assumption-storage CPA A).
//
// PathMonitorCpa tracks, along the path to a state, its length (steps), the number of
// assume edges, and how often each loop head was visited. A location can repeat on a
// path without bound only through a cycle of the CFA, and every cycle passes a loop
// head, so counting loop heads bounds the same paths as counting every location while
// keeping the state small. Its precision adjustment also counts the reached states in
// the successor's partition (location and call stack: the paper's "states per
// location"); a successor beyond that limit is cut. When a successor exceeds a limit, its state records which
// limit and where (`exceeded`), and it has no successors. The monitor takes no part in
// coverage: e ⊑ e' for any two monitor states (a state covered by one whose path was
// cut is re-explored by a later run, because the cut is recorded as an assumption).
//
// AssumptionStorageCpa carries the assumption of a state: `true` (nothing excluded)
// or `false` with a reason ("this part was not explored"; the paper's excluding
// assumption). Its strengthen (and, for the per-location limit, its precision
// adjustment) turns the assumption to `false` when a sibling monitor exceeded a limit; a state whose assumption is false has no successors. Domain:
// e ⊑ e' iff e' assumes true or e assumes false (a state is only covered by one whose
// part was explored, or by another excluded one). merge-sep, stop-sep.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cpa/location_cpa.h"

namespace argus::cpa {

struct PathLimits {
  uint32_t maxPathLength = 0;    // steps on a path; 0 = no limit
  uint32_t maxAssumeEdges = 0;   // assume edges on a path; 0 = no limit
  uint32_t maxRepeats = 0;       // visits of one loop head on a path; 0 = no limit
  uint32_t maxStatesPerLocation = 0;  // reached states in one partition (location and call stack); 0 = no limit
  bool any() const { return maxPathLength || maxAssumeEdges || maxRepeats || maxStatesPerLocation; }
};

enum class PathLimit : uint8_t { None, Repeats, PathLength, AssumeEdges, StatesPerLocation, Overflow, NonLinear };

// A component state that asks for an excluding assumption on its own (the explicit-value
// CPA's overflow monitoring: a value it cannot track soundly or precisely). The
// assumption storage's strengthen turns it into `false` with this reason, like a
// monitor's exceeded limit (the paper's Overflow Monitoring CPA feeding A).
class AssumptionSource {
public:
  virtual ~AssumptionSource() = default;
  // The reason ("" = nothing to assume) and which kind of limit it is.
  virtual const std::string& excludingAssumption() const = 0;
  virtual PathLimit excludingKind() const = 0;
};

class PathMonitorState final : public AbstractState {
public:
  uint32_t length = 0;
  uint32_t assumes = 0;
  // (func << 32 | loc) -> visits, sorted by key; loop heads only
  std::shared_ptr<const std::vector<std::pair<uint64_t, uint32_t>>> visits;
  std::string exceeded;  // "" or e.g. "repeating locations: loop head visited 4 times"
  PathLimit limit = PathLimit::None;  // which limit was exceeded
  cfa::FuncId exceededFunc = cfa::kNoFunc;
  cfa::LocId exceededLoc = 0;
  bool equals(const AbstractState& o) const override;
  std::string str() const override;
};

class PathMonitorCpa final : public ConfigurableProgramAnalysis {
public:
  PathMonitorCpa(const ControlFlow& cf, PathLimits limits);
  ~PathMonitorCpa() override;
  AbstractDomain& domain() override;
  TransferRelation& transfer() override;
  MergeOperator& merge() override { return merge_; }
  StopOperator& stop() override;
  PrecisionAdjustment& precisionAdjustment() override;
  StatePtr initialState() override;
  PrecisionPtr initialPrecision() override { return NoPrecision::get(); }

private:
  struct Ops;
  std::unique_ptr<Ops> ops_;
  MergeSep merge_;
};

class AssumptionState final : public AbstractState {
public:
  explicit AssumptionState(bool excluded = false, std::string reason = "", PathLimit limit = PathLimit::None)
      : excluded(excluded), reason(std::move(reason)), limit(limit) {}
  bool excluded;       // the assumption is `false`: this part was not explored
  std::string reason;  // why (the monitor's message)
  PathLimit limit;     // the monitor's limit that excluded it
  bool equals(const AbstractState& o) const override;
  std::string str() const override { return excluded ? "assume false (" + reason + ")" : "assume true"; }
};

class AssumptionStorageCpa final : public ConfigurableProgramAnalysis {
public:
  AssumptionStorageCpa();
  ~AssumptionStorageCpa() override;
  AbstractDomain& domain() override;
  TransferRelation& transfer() override;
  MergeOperator& merge() override { return merge_; }
  StopOperator& stop() override;
  PrecisionAdjustment& precisionAdjustment() override;
  Strengthen& strengthen() override;
  StatePtr initialState() override;
  PrecisionPtr initialPrecision() override { return NoPrecision::get(); }

private:
  struct Ops;
  std::unique_ptr<Ops> ops_;
  MergeSep merge_;
};

}  // namespace argus::cpa
