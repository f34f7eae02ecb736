#include "core/cpa/callstack_cpa.h"

#include <functional>

namespace argus::cpa {

CallstackState::CallstackState(std::shared_ptr<const CallstackState> b, cfa::FuncId f, cfa::FuncId c, uint32_t e,
                               bool rec)
    : below(std::move(b)), func(f), caller(c), callEdge(e), depth(below ? below->depth + 1 : 0), recursion(rec) {
  size_t h = below ? below->hash : 0x9e3779b97f4a7c15ull;
  auto mix = [&](size_t v) { h ^= std::hash<size_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(f);
  mix(c);
  mix(e);
  mix(rec);
  hash = h;
}

std::shared_ptr<const CallstackState> CallstackState::root(cfa::FuncId func) {
  return std::make_shared<CallstackState>(nullptr, func, cfa::kNoFunc, 0);
}

bool CallstackState::onStack(cfa::FuncId f) const {
  for (const CallstackState* s = this; s; s = s->below.get())
    if (s->func == f) return true;
  return false;
}

bool CallstackState::equals(const AbstractState& o) const {
  auto* c = dynamic_cast<const CallstackState*>(&o);
  if (!c || c->hash != hash || c->depth != depth) return false;
  const CallstackState *a = this, *b = c;
  while (a && b) {
    if (a == b) return true;
    if (a->func != b->func || a->caller != b->caller || a->callEdge != b->callEdge || a->recursion != b->recursion)
      return false;
    a = a->below.get();
    b = b->below.get();
  }
  return a == b;
}

std::string CallstackState::str() const {
  std::string s;
  for (const CallstackState* x = this; x; x = x->below.get())
    s = std::to_string(x->func) + (s.empty() ? "" : ">" + s);
  return "[" + s + (recursion ? " (recursion)" : "") + "]";
}

namespace {

class CallstackTransfer final : public TransferRelation {
public:
  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step& step) override {
    auto cs = std::static_pointer_cast<const CallstackState>(s);
    if (cs->recursion) return {};
    switch (step.kind) {
      case cfa::StepKind::Edge: return {s};
      case cfa::StepKind::Start: return {CallstackState::root(step.toFunc)};
      case cfa::StepKind::CallEnter: {
        bool rec = cs->onStack(step.toFunc);
        return {std::make_shared<CallstackState>(cs, step.toFunc, step.func, step.edge, rec)};
      }
      case cfa::StepKind::Return:
        if (cs->below && cs->caller == step.caller && cs->callEdge == step.edge) return {cs->below};
        return {};
    }
    return {};
  }
};

}  // namespace

CallstackCpa::CallstackCpa(const ControlFlow& cf) : FlatCpa(std::make_unique<CallstackTransfer>()), cf_(cf) {}

StatePtr CallstackCpa::initialState() { return CallstackState::root(cf_.startFunc()); }

bool CallstackCpa::isTarget(const AbstractState& e) const {
  auto* c = extract<CallstackState>(e);
  return c && c->recursion;
}

}  // namespace argus::cpa
