// Shared helpers for the CPA tests: a toy CPA with a powerset domain and steps of
// hand-made CFAs.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "core/cfa/step.h"
#include "core/cpa/cpa.h"
#include "core/cpa/operators.h"

namespace argus::cpa::test {

// A set of integers; ⊑ is ⊆, join is ∪.
class SetState final : public AbstractState {
public:
  explicit SetState(std::set<int> v) : values(std::move(v)) {}
  std::set<int> values;
  bool equals(const AbstractState& o) const override {
    auto* s = dynamic_cast<const SetState*>(&o);
    return s && s->values == values;
  }
  std::string str() const override {
    std::string s = "{";
    for (int v : values) s += std::to_string(v) + ",";
    return s + "}";
  }
};

inline StatePtr set(std::set<int> v) { return std::make_shared<SetState>(std::move(v)); }
inline const std::set<int>& vals(const StatePtr& s) { return static_cast<const SetState&>(*s).values; }

class SetDomain final : public AbstractDomain {
public:
  bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const override {
    const auto& x = static_cast<const SetState&>(a).values;
    const auto& y = static_cast<const SetState&>(b).values;
    return std::includes(y.begin(), y.end(), x.begin(), x.end());
  }
  StatePtr join(const StatePtr& a, const StatePtr& b) const override {
    auto v = vals(a);
    v.insert(vals(b).begin(), vals(b).end());
    return set(v);
  }
};

inline cfa::Step edgeStep(const cfa::Program& p, cfa::FuncId f, uint32_t e) {
  cfa::Step s;
  s.kind = cfa::StepKind::Edge;
  s.func = f;
  s.edge = e;
  s.toFunc = f;
  s.toLoc = p.functions[f].edges[e].to;
  return s;
}

}  // namespace argus::cpa::test
