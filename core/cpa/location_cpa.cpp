#include "core/cpa/location_cpa.h"

#include <algorithm>
#include <stdexcept>

namespace argus::cpa {

const char* propertyName(Property p) {
  switch (p) {
    case Property::None: return "none";
    case Property::Error: return "error";
    case Property::Unsupported: return "unsupported";
    case Property::Recursion: return "recursion";
  }
  return "?";
}

ControlFlow::ControlFlow(const cfa::Program& prog, cfa::FuncId entry) : prog_(prog), entry_(entry) {
  bool isMain = prog.functions[entry].name == "main";
  start_ = isMain ? prog.initFunc : prog.initNondetFunc;
  if (start_ == cfa::kNoFunc) start_ = entry;
  size_t nf = prog.functions.size();
  out_.resize(nf);
  rpo_.resize(nf);
  std::vector<std::vector<std::pair<cfa::FuncId, uint32_t>>> callSites(nf);
  for (const cfa::Function& f : prog.functions)
    for (uint32_t ei = 0; ei < f.edges.size(); ++ei)
      if (f.edges[ei].kind == cfa::EdgeKind::Call && f.edges[ei].callee < nf) callSites[f.edges[ei].callee].push_back({f.id, ei});
  for (const cfa::Function& f : prog.functions) {
    out_[f.id].resize(f.locs.size());
    for (uint32_t ei = 0; ei < f.edges.size(); ++ei) {
      const cfa::Edge& e = f.edges[ei];
      cfa::Step s;
      s.func = f.id;
      s.edge = ei;
      if (e.kind == cfa::EdgeKind::Call && e.callee < nf) {
        s.kind = cfa::StepKind::CallEnter;
        s.toFunc = e.callee;
        s.toLoc = prog.functions[e.callee].entry;
      } else {
        s.kind = cfa::StepKind::Edge;
        s.toFunc = f.id;
        s.toLoc = e.to;
      }
      out_[f.id][e.from].push_back(s);
    }
    if (f.exit < f.locs.size()) {
      for (auto [caller, ei] : callSites[f.id]) {
        cfa::Step s;
        s.kind = cfa::StepKind::Return;
        s.func = f.id;
        s.caller = caller;
        s.edge = ei;
        s.toFunc = caller;
        s.toLoc = prog.functions[caller].edges[ei].to;
        out_[f.id][f.exit].push_back(s);
      }
      if (f.id == start_ && start_ != entry_) {
        cfa::Step s;
        s.kind = cfa::StepKind::Start;
        s.func = f.id;
        s.toFunc = entry_;
        s.toLoc = prog.functions[entry_].entry;
        out_[f.id][f.exit].push_back(s);
      }
    }
    // reverse postorder of the intra-procedural graph (Call edges go to their return site)
    std::vector<uint32_t> post;
    std::vector<uint8_t> seen(f.locs.size(), 0);
    rpo_[f.id].assign(f.locs.size(), 0);
    if (!f.locs.empty() && f.entry < f.locs.size()) {
      std::vector<std::pair<cfa::LocId, size_t>> stack{{f.entry, 0}};
      seen[f.entry] = 1;
      while (!stack.empty()) {
        auto& [l, i] = stack.back();
        if (i < f.locs[l].out.size()) {
          cfa::LocId t = f.edges[f.locs[l].out[i++]].to;
          if (!seen[t]) {
            seen[t] = 1;
            stack.push_back({t, 0});
          }
        } else {
          post.push_back(l);
          stack.pop_back();
        }
      }
    }
    uint32_t n = static_cast<uint32_t>(post.size());
    for (uint32_t i = 0; i < n; ++i) rpo_[f.id][post[i]] = n - 1 - i;
  }
}

bool LocationState::equals(const AbstractState& o) const {
  auto* l = dynamic_cast<const LocationState*>(&o);
  return l && l->func == func && l->loc == loc && l->property == property;
}

std::string LocationState::str() const {
  std::string s = "L" + std::to_string(func) + ":" + std::to_string(loc);
  if (property != Property::None) s += std::string("[") + propertyName(property) + "]";
  return s;
}

namespace {

class LocationTransfer final : public TransferRelation {
public:
  explicit LocationTransfer(const ControlFlow& cf) : cf_(cf) {}

  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step& step) override {
    const auto& l = static_cast<const LocationState&>(*s);
    if (l.property != Property::None) return {};
    if (step.kind == cfa::StepKind::Start || step.kind == cfa::StepKind::Return) {
      if (l.loc != cf_.program().functions[l.func].exit || step.func != l.func) return {};
    } else if (step.func != l.func || cf_.program().functions[l.func].edges[step.edge].from != l.loc) {
      return {};
    }
    return {make(step)};
  }

  std::vector<Successor> successors(const StatePtr& s, const PrecisionPtr&) override {
    const auto& l = static_cast<const LocationState&>(*s);
    std::vector<Successor> out;
    if (l.property != Property::None) return out;
    for (const cfa::Step& step : cf_.outgoing(l.func, l.loc)) out.push_back({make(step), step});
    return out;
  }

private:
  StatePtr make(const cfa::Step& step) const {
    Property p = Property::None;
    const cfa::Edge* via = nullptr;
    if (step.kind == cfa::StepKind::Edge) {
      const cfa::Edge& e = cf_.program().functions[step.func].edges[step.edge];
      if (e.kind == cfa::EdgeKind::Error) p = Property::Error;
      if (e.kind == cfa::EdgeKind::Unsupported) p = Property::Unsupported;
      if (p != Property::None) via = &e;
    }
    return std::make_shared<LocationState>(step.toFunc, step.toLoc, p, via);
  }
  const ControlFlow& cf_;
};

}  // namespace

LocationCpa::LocationCpa(const ControlFlow& cf) : FlatCpa(std::make_unique<LocationTransfer>(cf)), cf_(cf) {}

StatePtr LocationCpa::initialState() {
  const cfa::Function& f = cf_.program().functions[cf_.startFunc()];
  return std::make_shared<LocationState>(f.id, f.entry);
}

bool LocationCpa::isTarget(const AbstractState& e) const {
  auto* l = extract<LocationState>(e);
  return l && l->property != Property::None;
}

std::vector<Successor> TransferRelation::successors(const StatePtr&, const PrecisionPtr&) {
  throw std::logic_error("this transfer relation cannot enumerate steps (compose it with the location CPA)");
}

}  // namespace argus::cpa
