#include "core/cpa/automaton_cpa.h"

namespace argus::cpa {

using result::AssumptionAutomaton;

bool AutomatonState::equals(const AbstractState& o) const {
  auto* a = dynamic_cast<const AutomatonState*>(&o);
  return a && a->q == q;
}

namespace {

bool matches(const result::AutomatonTransition& t, const cfa::Step& s) {
  if (t.kind != static_cast<uint8_t>(s.kind) || t.toFunc != s.toFunc || t.toLoc != s.toLoc) return false;
  switch (s.kind) {
    case cfa::StepKind::Edge:
    case cfa::StepKind::CallEnter: return t.func == s.func && t.edge == s.edge;
    case cfa::StepKind::Return: return t.func == s.func && t.edge == s.edge && t.caller == s.caller;
    case cfa::StepKind::Start: return t.func == s.func;
  }
  return false;
}

class AutomatonTransfer final : public TransferRelation {
public:
  explicit AutomatonTransfer(const AssumptionAutomaton& a) : a_(a), open_(std::make_shared<AutomatonState>(AssumptionAutomaton::kOpen)) {}
  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step& step) override {
    uint32_t q = static_cast<const AutomatonState&>(*s).q;
    if (q == AssumptionAutomaton::kOpen) return {open_};
    if (q == AssumptionAutomaton::kVerified || q >= a_.states.size()) return {};
    std::vector<StatePtr> out;
    for (const auto& t : a_.states[q].out)
      if (matches(t, step) && t.target != AssumptionAutomaton::kVerified)
        out.push_back(t.target == AssumptionAutomaton::kOpen ? open_ : std::make_shared<AutomatonState>(t.target));
    return out;
  }

private:
  const AssumptionAutomaton& a_;
  StatePtr open_;
};

}  // namespace

AutomatonCpa::AutomatonCpa(const AssumptionAutomaton& a) : FlatCpa(std::make_unique<AutomatonTransfer>(a)), a_(a) {}

StatePtr AutomatonCpa::initialState() { return std::make_shared<AutomatonState>(a_.initial); }

}  // namespace argus::cpa
