#include "core/cpa/monitor_cpa.h"

#include <algorithm>

#include "core/cpa/reached_set.h"

namespace argus::cpa {

bool PathMonitorState::equals(const AbstractState& o) const {
  auto* m = dynamic_cast<const PathMonitorState*>(&o);
  return m && m->length == length && m->assumes == assumes && m->exceeded == exceeded &&
         (m->visits == visits || *m->visits == *visits);
}

std::string PathMonitorState::str() const {
  std::string s = "len " + std::to_string(length) + ", assumes " + std::to_string(assumes);
  if (!exceeded.empty()) s += ", exceeded: " + exceeded;
  return s;
}

struct PathMonitorCpa::Ops final : AbstractDomain, TransferRelation, StopOperator, PrecisionAdjustment {
  const ControlFlow& cf;
  PathLimits limits;
  Ops(const ControlFlow& cf, PathLimits l) : cf(cf), limits(l) {}

  bool isLessOrEqual(const AbstractState&, const AbstractState&) const override { return true; }
  StatePtr join(const StatePtr&, const StatePtr& b) const override { return b; }
  bool stop(const StatePtr&, std::span<const StatePtr> reached, const PrecisionPtr&) override { return !reached.empty(); }

  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet& reached,
                                 const AbstractState& full) override {
    const auto& s = static_cast<const PathMonitorState&>(*e);
    if (!limits.maxStatesPerLocation || !s.exceeded.empty()) return Adjusted{e, p};
    size_t n = reached.partitionSize(full);
    if (n < limits.maxStatesPerLocation) return Adjusted{e, p};
    auto c = std::make_shared<PathMonitorState>(s);
    c->limit = PathLimit::StatesPerLocation;
    c->exceeded = "states per location: " + std::to_string(n) + " states already at this location (limit " +
                  std::to_string(limits.maxStatesPerLocation) + ")";
    if (auto* l = extract<LocationState>(full)) {
      c->exceededFunc = l->func;
      c->exceededLoc = l->loc;
    }
    return Adjusted{c, p};
  }

  std::vector<StatePtr> successorsForStep(const StatePtr& sp, const PrecisionPtr&, const cfa::Step& step) override {
    const auto& s = static_cast<const PathMonitorState&>(*sp);
    if (!s.exceeded.empty()) return {};
    auto n = std::make_shared<PathMonitorState>();
    n->length = s.length + 1;
    n->assumes = s.assumes;
    n->visits = s.visits;
    if (step.kind == cfa::StepKind::Edge && cf.program().functions[step.func].edges[step.edge].kind == cfa::EdgeKind::Assume)
      ++n->assumes;
    uint32_t visits = 0;
    if (cf.isLoopHead(step.toFunc, step.toLoc)) {
      uint64_t key = (static_cast<uint64_t>(step.toFunc) << 32) | step.toLoc;
      auto v = std::make_shared<std::vector<std::pair<uint64_t, uint32_t>>>(*s.visits);
      auto it = std::lower_bound(v->begin(), v->end(), key, [](const auto& p, uint64_t k) { return p.first < k; });
      if (it != v->end() && it->first == key) visits = ++it->second;
      else {
        v->insert(it, {key, 1});
        visits = 1;
      }
      n->visits = v;
    }
    auto cut = [&](PathLimit which, std::string why) {
      n->limit = which;
      n->exceeded = std::move(why);
      n->exceededFunc = step.toFunc;
      n->exceededLoc = step.toLoc;
    };
    if (limits.maxRepeats && visits > limits.maxRepeats)
      cut(PathLimit::Repeats, "repeating locations: a loop head visited " + std::to_string(visits) + " times on a path (limit " +
          std::to_string(limits.maxRepeats) + ")");
    else if (limits.maxPathLength && n->length > limits.maxPathLength)
      cut(PathLimit::PathLength, "path length: more than " + std::to_string(limits.maxPathLength) + " steps");
    else if (limits.maxAssumeEdges && n->assumes > limits.maxAssumeEdges)
      cut(PathLimit::AssumeEdges, "assume edges: more than " + std::to_string(limits.maxAssumeEdges) + " on a path");
    return {n};
  }
};

PathMonitorCpa::PathMonitorCpa(const ControlFlow& cf, PathLimits limits) : ops_(std::make_unique<Ops>(cf, limits)) {}
PathMonitorCpa::~PathMonitorCpa() = default;
PrecisionAdjustment& PathMonitorCpa::precisionAdjustment() { return *ops_; }
AbstractDomain& PathMonitorCpa::domain() { return *ops_; }
TransferRelation& PathMonitorCpa::transfer() { return *ops_; }
StopOperator& PathMonitorCpa::stop() { return *ops_; }
StatePtr PathMonitorCpa::initialState() {
  auto s = std::make_shared<PathMonitorState>();
  s->visits = std::make_shared<std::vector<std::pair<uint64_t, uint32_t>>>();
  return s;
}

bool AssumptionState::equals(const AbstractState& o) const {
  auto* a = dynamic_cast<const AssumptionState*>(&o);
  return a && a->excluded == excluded && a->reason == reason;
}

struct AssumptionStorageCpa::Ops final : AbstractDomain, TransferRelation, StopOperator, Strengthen, PrecisionAdjustment {
  StatePtr top = std::make_shared<AssumptionState>();

  bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const override {
    return !static_cast<const AssumptionState&>(b).excluded || static_cast<const AssumptionState&>(a).excluded;
  }
  StatePtr join(const StatePtr& a, const StatePtr& b) const override {
    return static_cast<const AssumptionState&>(*a).excluded ? b : a;
  }
  bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr&) override {
    for (const StatePtr& r : reached)
      if (isLessOrEqual(*e, *r)) return true;
    return false;
  }
  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step&) override {
    if (static_cast<const AssumptionState&>(*s).excluded) return {};
    return {top};
  }
  // a monitor that cut the state in its own precision adjustment (it runs before this one)
  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet&,
                                 const AbstractState& full) override {
    if (static_cast<const AssumptionState&>(*e).excluded) return Adjusted{e, p};
    if (auto* m = extract<PathMonitorState>(full); m && !m->exceeded.empty())
      return Adjusted{std::make_shared<AssumptionState>(true, m->exceeded, m->limit), p};
    return Adjusted{e, p};
  }

  StatePtr strengthen(const StatePtr& e, std::span<const StatePtr> siblings, const cfa::Step&) override {
    for (const StatePtr& s : siblings)
      if (auto* m = dynamic_cast<const PathMonitorState*>(s.get()); m && !m->exceeded.empty())
        return std::make_shared<AssumptionState>(true, m->exceeded, m->limit);
    for (const StatePtr& s : siblings)
      if (auto* a = dynamic_cast<const AssumptionSource*>(s.get()); a && !a->excludingAssumption().empty())
        return std::make_shared<AssumptionState>(true, a->excludingAssumption(), a->excludingKind());
    return e;
  }
};

AssumptionStorageCpa::AssumptionStorageCpa() : ops_(std::make_unique<Ops>()) {}
AssumptionStorageCpa::~AssumptionStorageCpa() = default;
PrecisionAdjustment& AssumptionStorageCpa::precisionAdjustment() { return *ops_; }
AbstractDomain& AssumptionStorageCpa::domain() { return *ops_; }
TransferRelation& AssumptionStorageCpa::transfer() { return *ops_; }
StopOperator& AssumptionStorageCpa::stop() { return *ops_; }
Strengthen& AssumptionStorageCpa::strengthen() { return *ops_; }
StatePtr AssumptionStorageCpa::initialState() { return ops_->top; }

}  // namespace argus::cpa
