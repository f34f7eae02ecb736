#include "core/cpa/arg_cpa.h"

#include <algorithm>
#include <deque>

namespace argus::cpa {

namespace {
const ArgState& as(const AbstractState& s) { return static_cast<const ArgState&>(s); }
ArgState* mut(const ArgState& s) { return const_cast<ArgState*>(&s); }
void eraseOne(std::vector<ArgState*>& v, ArgState* x) {
  v.erase(std::remove(v.begin(), v.end(), x), v.end());
}
void dedupeParents(ArgState* k) {
  auto& ps = k->parents;
  std::vector<std::pair<ArgState*, cfa::Step>> out;
  for (auto& p : ps)
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  ps = std::move(out);
}
}  // namespace

struct ArgCpa::Ops final : AbstractDomain, TransferRelation, MergeOperator, StopOperator, PrecisionAdjustment {
  ArgCpa& a;
  explicit Ops(ArgCpa& a) : a(a) {}

  bool isLessOrEqual(const AbstractState& x, const AbstractState& y) const override {
    return a.wrapped_.domain().isLessOrEqual(*as(x).wrapped, *as(y).wrapped);
  }
  StatePtr join(const StatePtr& x, const StatePtr& y) const override {
    auto parents = as(*y).parents;
    for (auto& p : as(*x).parents) parents.push_back(p);
    return a.make(a.wrapped_.domain().join(as(*x).wrapped, as(*y).wrapped), std::move(parents));
  }

  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr& p, const cfa::Step& step) override {
    std::vector<StatePtr> out;
    for (auto& w : a.wrapped_.transfer().successorsForStep(as(*s).wrapped, p, step))
      out.push_back(a.make(w, {{mut(as(*s)), step}}));
    return out;
  }
  std::vector<Successor> successors(const StatePtr& s, const PrecisionPtr& p) override {
    std::vector<Successor> out;
    for (auto& [w, step] : a.wrapped_.transfer().successors(as(*s).wrapped, p))
      out.push_back({a.make(w, {{mut(as(*s)), step}}), step});
    return out;
  }

  StatePtr merge(const StatePtr& e, const StatePtr& r, const PrecisionPtr& p) override {
    StatePtr m = a.wrapped_.merge().merge(as(*e).wrapped, as(*r).wrapped, p);
    if (m == as(*r).wrapped) return r;
    auto parents = as(*r).parents;
    for (auto& pe : as(*e).parents)
      if (std::find(parents.begin(), parents.end(), pe) == parents.end()) parents.push_back(pe);
    return a.make(m, std::move(parents));
  }

  bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr& p) override {
    for (const StatePtr& r : reached) {
      StatePtr one[] = {as(*r).wrapped};
      if (as(*r).removed) continue;
      // a target whose error path was left undecided (cut) stands for its own path only:
      // it covers no other target, whose path may be feasible
      if (!as(*r).cut.empty() && a.isTarget(*r)) continue;
      if (!a.wrapped_.stop().stop(as(*e).wrapped, one, p)) continue;
      ArgState* x = mut(as(*e));
      ArgState* c = mut(as(*r));
      x->coveredBy = c;
      c->covers.push_back(x);
      for (auto& [par, st] : x->parents) par->children.push_back(x);
      return true;
    }
    return false;
  }

  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet& reached,
                                 const AbstractState&) override {
    auto r = a.wrapped_.precisionAdjustment().adjust(as(*e).wrapped, p, reached, *as(*e).wrapped);
    if (!r) return std::nullopt;
    if (r->state == as(*e).wrapped) return Adjusted{e, r->precision};
    return Adjusted{a.make(r->state, as(*e).parents), r->precision};
  }
};

ArgCpa::ArgCpa(ConfigurableProgramAnalysis& wrapped) : wrapped_(wrapped), ops_(std::make_unique<Ops>(*this)) {}
ArgCpa::~ArgCpa() = default;
AbstractDomain& ArgCpa::domain() { return *ops_; }
TransferRelation& ArgCpa::transfer() { return *ops_; }
MergeOperator& ArgCpa::merge() { return *ops_; }
StopOperator& ArgCpa::stop() { return *ops_; }
PrecisionAdjustment& ArgCpa::precisionAdjustment() { return *ops_; }

std::shared_ptr<ArgState> ArgCpa::make(StatePtr wrapped, std::vector<std::pair<ArgState*, cfa::Step>> parents) {
  auto s = std::make_shared<ArgState>(std::move(wrapped), arena_.size(), std::move(parents));
  arena_.push_back(s);
  return s;
}

StatePtr ArgCpa::initialState() { return make(wrapped_.initialState(), {}); }

bool ArgCpa::isTarget(const AbstractState& e) const { return wrapped_.isTarget(*as(e).wrapped); }

void ArgCpa::onAdded(const StatePtr& s) {
  ArgState* x = mut(as(*s));
  for (auto& [p, st] : x->parents)
    if (std::find(p->children.begin(), p->children.end(), x) == p->children.end()) p->children.push_back(x);
}

void ArgCpa::onReplaced(ReachedSet& reached, const StatePtr& old, const StatePtr& merged) {
  ArgState* o = mut(as(*old));
  ArgState* m = mut(as(*merged));
  // the merged state takes over the coverings of the old one (old ⊑ merged)
  for (ArgState* c : o->covers) {
    c->coveredBy = m;
    m->covers.push_back(c);
  }
  o->covers.clear();
  // The old state's children now hang below the merged state (old ⊑ merged, so their
  // states stay sound); when the merged state is expanded its successors merge with
  // or are covered by them. Keeping the links keeps every path of a block formula
  // represented in the ARG, which counterexample extraction relies on.
  for (ArgState* k : o->children) {
    if (k->removed) continue;
    for (auto& pr : k->parents)
      if (pr.first == o) pr.first = m;
    dedupeParents(k);
    if (std::find(m->children.begin(), m->children.end(), k) == m->children.end()) m->children.push_back(k);
  }
  o->children.clear();
  for (auto& [p, st] : o->parents) eraseOne(p->children, o);
  o->removed = true;
  onAdded(merged);
}

std::vector<ArgState*> ArgCpa::removeSubtree(ReachedSet& reached, ArgState* root, const PrecisionPtr& newPrecision) {
  std::unordered_set<ArgState*> sub;
  std::deque<ArgState*> work{root};
  sub.insert(root);
  while (!work.empty()) {
    ArgState* x = work.front();
    work.pop_front();
    for (ArgState* c : x->children)
      if (sub.insert(c).second) work.push_back(c);
  }
  std::vector<ArgState*> readd;
  auto addParent = [&](ArgState* p) {
    if (!sub.count(p) && std::find(readd.begin(), readd.end(), p) == readd.end()) readd.push_back(p);
  };
  for (ArgState* x : sub) {
    for (ArgState* c : x->covers) {
      if (sub.count(c)) continue;
      c->coveredBy = nullptr;
      for (auto& [p, st] : c->parents) {
        eraseOne(p->children, c);
        addParent(p);
      }
      c->removed = true;
    }
    x->covers.clear();
    for (auto& [p, st] : x->parents)
      if (!sub.count(p)) {
        eraseOne(p->children, x);
        addParent(p);
      }
    if (x->coveredBy && !sub.count(x->coveredBy)) eraseOne(x->coveredBy->covers, x);
    x->coveredBy = nullptr;
    x->removed = true;
    reached.remove(x->shared_from_this());
  }
  std::vector<ArgState*> out;
  for (ArgState* p : readd) {
    if (p->removed) continue;
    StatePtr ps = p->shared_from_this();
    if (!reached.contains(ps)) continue;
    if (newPrecision) reached.setPrecision(ps, newPrecision);
    reached.reAddToWaitlist(ps);
    out.push_back(p);
  }
  return out;
}

std::vector<ArgState*> ArgCpa::removeUnreachableSubtree(ReachedSet& reached, ArgState* root) {
  std::unordered_set<ArgState*> sub{root};
  std::deque<ArgState*> work{root};
  while (!work.empty()) {
    ArgState* x = work.front();
    work.pop_front();
    for (ArgState* c : x->children)
      if (sub.insert(c).second) work.push_back(c);
  }
  std::vector<ArgState*> uncovered;
  for (ArgState* x : sub) {
    for (ArgState* c : x->covers) {
      if (sub.count(c)) continue;
      c->coveredBy = nullptr;
      if (std::find(uncovered.begin(), uncovered.end(), c) == uncovered.end()) uncovered.push_back(c);
    }
    x->covers.clear();
    for (auto& [p, st] : x->parents)
      if (!sub.count(p)) eraseOne(p->children, x);
    if (x->coveredBy && !sub.count(x->coveredBy)) eraseOne(x->coveredBy->covers, x);
    x->coveredBy = nullptr;
    x->removed = true;
    reached.remove(x->shared_from_this());
  }
  return uncovered;
}

}  // namespace argus::cpa
