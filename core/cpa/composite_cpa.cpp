#include "core/cpa/composite_cpa.h"

#include <stdexcept>

namespace argus::cpa {

bool CompositeState::equals(const AbstractState& o) const {
  auto* c = dynamic_cast<const CompositeState*>(&o);
  if (!c || c->parts.size() != parts.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i] != c->parts[i] && !parts[i]->equals(*c->parts[i])) return false;
  return true;
}

std::string CompositeState::str() const {
  std::string s = "(";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i]->str();
  return s + ")";
}

std::shared_ptr<const CompositePrecision> CompositePrecision::with(size_t i, PrecisionPtr p) const {
  auto parts2 = parts;
  parts2.at(i) = std::move(p);
  return std::make_shared<CompositePrecision>(std::move(parts2));
}

namespace {

const CompositeState& cs(const AbstractState& s) { return static_cast<const CompositeState&>(s); }
PrecisionPtr partPrec(const PrecisionPtr& p, size_t i) {
  auto* cp = dynamic_cast<const CompositePrecision*>(p.get());
  if (!cp) throw std::logic_error("composite CPA: composite precision expected");
  return cp->parts.at(i);
}

}  // namespace

struct CompositeCpa::Ops final : AbstractDomain, TransferRelation, MergeOperator, StopOperator, PrecisionAdjustment {
  std::vector<ConfigurableProgramAnalysis*>& c;
  explicit Ops(std::vector<ConfigurableProgramAnalysis*>& c) : c(c) {}

  bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const override {
    for (size_t i = 0; i < c.size(); ++i)
      if (!c[i]->domain().isLessOrEqual(*cs(a).parts[i], *cs(b).parts[i])) return false;
    return true;
  }
  StatePtr join(const StatePtr& a, const StatePtr& b) const override {
    std::vector<StatePtr> parts;
    for (size_t i = 0; i < c.size(); ++i) parts.push_back(c[i]->domain().join(cs(*a).parts[i], cs(*b).parts[i]));
    return std::make_shared<CompositeState>(std::move(parts));
  }

  // The other components' successors along `step`, strengthened; appended to `out`.
  void complete(const CompositeState& s, const PrecisionPtr& p, const cfa::Step& step, StatePtr first,
                std::vector<StatePtr>& out) {
    std::vector<std::vector<StatePtr>> per(c.size());
    per[0] = {std::move(first)};
    for (size_t i = 1; i < c.size(); ++i) {
      per[i] = c[i]->transfer().successorsForStep(s.parts[i], partPrec(p, i), step);
      if (per[i].empty()) return;
    }
    // cartesian product (usually one successor per component)
    std::vector<size_t> idx(c.size(), 0);
    while (true) {
      std::vector<StatePtr> parts;
      for (size_t i = 0; i < c.size(); ++i) parts.push_back(per[i][idx[i]]);
      bool bottom = false;
      for (size_t i = 0; i < c.size() && !bottom; ++i) {
        std::vector<StatePtr> sib;
        for (size_t j = 0; j < c.size(); ++j)
          if (j != i) sib.push_back(parts[j]);
        StatePtr st = c[i]->strengthen().strengthen(parts[i], sib, step);
        if (!st) bottom = true;
        else parts[i] = st;
      }
      if (!bottom) out.push_back(std::make_shared<CompositeState>(std::move(parts)));
      size_t k = 0;
      while (k < c.size() && ++idx[k] == per[k].size()) idx[k++] = 0;
      if (k == c.size()) break;
    }
  }

  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr& p, const cfa::Step& step) override {
    std::vector<StatePtr> out;
    for (StatePtr f : c[0]->transfer().successorsForStep(cs(*s).parts[0], partPrec(p, 0), step))
      complete(cs(*s), p, step, f, out);
    return out;
  }
  std::vector<Successor> successors(const StatePtr& s, const PrecisionPtr& p) override {
    std::vector<Successor> out;
    for (auto& [f, step] : c[0]->transfer().successors(cs(*s).parts[0], partPrec(p, 0))) {
      std::vector<StatePtr> states;
      complete(cs(*s), p, step, f, states);
      for (auto& st : states) out.push_back({st, step});
    }
    return out;
  }

  StatePtr merge(const StatePtr& e, const StatePtr& r, const PrecisionPtr& p) override {
    const auto& ec = cs(*e);
    const auto& rc = cs(*r);
    std::vector<StatePtr> parts;
    bool changed = false;
    for (size_t i = 0; i < c.size(); ++i) {
      StatePtr m = c[i]->merge().merge(ec.parts[i], rc.parts[i], partPrec(p, i));
      if (m == rc.parts[i]) {
        if (ec.parts[i] != rc.parts[i] && !c[i]->domain().isLessOrEqual(*ec.parts[i], *rc.parts[i])) return r;
      } else {
        changed = true;
      }
      parts.push_back(std::move(m));
    }
    if (!changed) return r;
    return std::make_shared<CompositeState>(std::move(parts));
  }

  bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr& p) override {
    const auto& ec = cs(*e);
    for (const StatePtr& r : reached) {
      bool all = true;
      for (size_t i = 0; i < c.size() && all; ++i) {
        StatePtr one[] = {cs(*r).parts[i]};
        all = c[i]->stop().stop(ec.parts[i], one, partPrec(p, i));
      }
      if (all) return true;
    }
    return false;
  }

  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet& reached,
                                 const AbstractState&) override {
    std::vector<StatePtr> parts = cs(*e).parts;
    auto* cp = dynamic_cast<const CompositePrecision*>(p.get());
    std::vector<PrecisionPtr> precs = cp->parts;
    bool changed = false, precChanged = false;
    for (size_t i = 0; i < c.size(); ++i) {
      CompositeState full(parts);
      auto a = c[i]->precisionAdjustment().adjust(parts[i], precs[i], reached, full);
      if (!a) return std::nullopt;
      if (a->state != parts[i]) changed = true;
      if (a->precision != precs[i]) precChanged = true;
      parts[i] = a->state;
      precs[i] = a->precision;
    }
    Adjusted out{changed ? std::make_shared<CompositeState>(std::move(parts)) : e,
                 precChanged ? std::make_shared<CompositePrecision>(std::move(precs)) : p};
    return out;
  }
};

CompositeCpa::CompositeCpa(std::vector<ConfigurableProgramAnalysis*> components)
    : cs_(std::move(components)), ops_(std::make_unique<Ops>(cs_)) {
  if (cs_.empty()) throw std::invalid_argument("CompositeCpa: no components");
}
CompositeCpa::~CompositeCpa() = default;
AbstractDomain& CompositeCpa::domain() { return *ops_; }
TransferRelation& CompositeCpa::transfer() { return *ops_; }
MergeOperator& CompositeCpa::merge() { return *ops_; }
StopOperator& CompositeCpa::stop() { return *ops_; }
PrecisionAdjustment& CompositeCpa::precisionAdjustment() { return *ops_; }

StatePtr CompositeCpa::initialState() {
  std::vector<StatePtr> parts;
  for (auto* c : cs_) parts.push_back(c->initialState());
  return std::make_shared<CompositeState>(std::move(parts));
}

PrecisionPtr CompositeCpa::initialPrecision() {
  std::vector<PrecisionPtr> parts;
  for (auto* c : cs_) parts.push_back(c->initialPrecision());
  return std::make_shared<CompositePrecision>(std::move(parts));
}

bool CompositeCpa::isTarget(const AbstractState& e) const {
  for (size_t i = 0; i < cs_.size(); ++i)
    if (cs_[i]->isTarget(*cs(e).parts[i])) return true;
  return false;
}

}  // namespace argus::cpa
