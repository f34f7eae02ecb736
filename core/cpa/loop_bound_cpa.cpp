#include "core/cpa/loop_bound_cpa.h"

#include <algorithm>

#include "core/cfa/loops.h"
#include "core/cfa/step.h"

namespace argus::cpa {

bool LoopBoundState::equals(const AbstractState& o) const {
  auto* b = dynamic_cast<const LoopBoundState*>(&o);
  if (!b || b->cut != cut) return false;
  return visits == b->visits || *visits == *b->visits;
}

std::string LoopBoundState::str() const {
  std::string s = "visits";
  for (auto& [k, n] : *visits) s += " " + std::to_string(k >> 32) + ":" + std::to_string(k & 0xffffffffu) + "=" + std::to_string(n);
  if (cut) s += " (cut)";
  return s;
}

namespace {

using Counts = std::vector<std::pair<uint64_t, uint32_t>>;

uint64_t keyOf(cfa::FuncId f, cfa::LocId l) { return (static_cast<uint64_t>(f) << 32) | l; }

// The same counting as the BMC unwinding (core/algorithms/bmc/unwinding.cpp): per loop head,
// the back edges taken since the loop was entered; a count is dropped when the path
// leaves the loop (the target location is outside it), when the loop is entered
// again from outside, and when its function is called or returns (calls are inlined
// and recursion ends the path in the callstack CPA, so a function has at most one
// activation on a path).
struct LoopBoundTransfer final : TransferRelation {
  const ControlFlow& cf;
  uint32_t bound;
  std::vector<cfa::LoopStructure> loops;  // per function
  LoopBoundTransfer(const ControlFlow& cf, uint32_t bound) : cf(cf), bound(bound) {
    for (const cfa::Function& f : cf.program().functions) loops.push_back(cfa::computeLoopStructure(f));
  }

  std::vector<StatePtr> successorsForStep(const StatePtr& sp, const PrecisionPtr&, const cfa::Step& step) override {
    const auto& s = static_cast<const LoopBoundState&>(*sp);
    if (s.cut) return {};
    Counts v = *s.visits;
    auto dropFunction = [&](cfa::FuncId f) {
      v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& p) { return (p.first >> 32) == f; }), v.end());
    };
    bool cut = false;
    switch (step.kind) {
      case cfa::StepKind::CallEnter: dropFunction(step.toFunc); break;
      case cfa::StepKind::Return: dropFunction(step.func); break;
      case cfa::StepKind::Edge: {
        const cfa::LoopStructure& ls = loops[step.func];
        const auto& inLoops = ls.loopsOf[step.toLoc];
        v.erase(std::remove_if(v.begin(), v.end(),
                               [&](const auto& p) {
                                 return (p.first >> 32) == step.func &&
                                        !std::binary_search(inLoops.begin(), inLoops.end(),
                                                            static_cast<cfa::LocId>(p.first & 0xffffffffu));
                               }),
                v.end());
        uint64_t key = keyOf(step.func, step.toLoc);
        auto it = std::lower_bound(v.begin(), v.end(), key, [](const auto& p, uint64_t k) { return p.first < k; });
        bool present = it != v.end() && it->first == key;
        if (ls.backEdge[step.edge]) {
          uint32_t c = (present ? it->second : 0) + 1;
          if (c > bound) cut = true;
          else if (present) it->second = c;
          else v.insert(it, {key, c});
        } else if (present) {
          v.erase(it);  // entering the loop from outside: its count starts again
        }
        break;
      }
      case cfa::StepKind::Start: break;
    }
    if (!cut && v == *s.visits) return {sp};  // unchanged: shares the state
    auto n = std::make_shared<LoopBoundState>();
    n->visits = std::make_shared<const Counts>(std::move(v));
    if (cut) {
      n->cut = true;
      n->cutFunc = step.toFunc;
      n->cutLoc = step.toLoc;
    }
    return {n};
  }
};

}  // namespace

LoopBoundCpa::LoopBoundCpa(const ControlFlow& cf, uint32_t bound)
    : FlatCpa(std::make_unique<LoopBoundTransfer>(cf, bound)), bound_(bound) {}

StatePtr LoopBoundCpa::initialState() {
  auto s = std::make_shared<LoopBoundState>();
  s->visits = std::make_shared<std::vector<std::pair<uint64_t, uint32_t>>>();
  return s;
}

}  // namespace argus::cpa
