#include "core/cpa/predicate_cpa.h"

#include <algorithm>
#include <unordered_set>

#include "core/cpa/callstack_cpa.h"
#include "core/support/stopwatch.h"

namespace argus::cpa {

using smt::CheckResult;
using smt::Term;

const std::vector<Term>& PredicatePrecision::at(LocKey l) const {
  static const std::vector<Term> none;
  auto it = preds.find(l);
  return it == preds.end() ? none : it->second;
}

std::shared_ptr<const PredicatePrecision> PredicatePrecision::join(const std::map<LocKey, std::vector<Term>>& more) const {
  auto p = std::make_shared<PredicatePrecision>(*this);
  for (auto& [l, ts] : more) {
    auto& v = p->preds[l];
    for (Term t : ts)
      if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
    std::sort(v.begin(), v.end(), [](Term a, Term b) { return a->id < b->id; });
  }
  return p;
}

size_t PredicatePrecision::total() const {
  size_t n = 0;
  for (auto& [l, v] : preds) n += v.size();
  return n;
}

bool PredicateState::contains(const encoding::PathFormula& other) const {
  if (pf == other) return true;
  if (!mergedFrom) return false;
  for (auto& [f, h] : *mergedFrom)
    if (f == other.formula && h == other.ssa->hash()) return true;
  return false;
}

std::string PredicateState::str() const {
  std::string s = isAbstraction ? "abs" : "int";
  return s + "#" + std::to_string(id) + "[blk " + std::to_string(block) + "] " + abstraction->str();
}

namespace {
const PredicateState& ps(const AbstractState& s) { return static_cast<const PredicateState&>(s); }
}  // namespace

struct PredicateCpa::Ops final : AbstractDomain, TransferRelation, MergeOperator, StopOperator, PrecisionAdjustment {
  PredicateCpa& c;
  explicit Ops(PredicateCpa& c) : c(c) {}

  std::shared_ptr<PredicateState> fresh(const PredicateState& like) {
    auto s = std::make_shared<PredicateState>(like);
    s->id = c.nextId_++;
    s->mergedFrom = nullptr;
    return s;
  }

  bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const override {
    const auto& x = ps(a);
    const auto& y = ps(b);
    if (x.isAbstraction && y.isAbstraction) return c.implies(x.abstraction, y.abstraction);
    if (!x.isAbstraction && !y.isAbstraction) return x.block == y.block && y.contains(x.pf);
    return false;
  }
  StatePtr join(const StatePtr&, const StatePtr& b) const override { return b; }

  std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step& step) override {
    const auto& x = ps(*s);
    auto n = fresh(x);
    n->isAbstraction = false;
    n->blockFormula = nullptr;
    n->pf = c.pfm_.extend(x.pf, step);
    if (n->pf.formula->isFalse()) return {};
    return {n};
  }

  StatePtr merge(const StatePtr& e, const StatePtr& r, const PrecisionPtr&) override {
    if (!c.opts_.mergeBlocks) return r;
    const auto& x = ps(*e);
    const auto& y = ps(*r);
    if (x.isAbstraction || y.isAbstraction || x.block != y.block) return r;
    if (y.contains(x.pf)) return r;
    auto m = fresh(y);
    m->pf = c.pfm_.makeOr(x.pf, y.pf);
    auto from = std::make_shared<std::vector<std::pair<Term, size_t>>>();
    if (y.mergedFrom) *from = *y.mergedFrom;
    if (x.mergedFrom) from->insert(from->end(), x.mergedFrom->begin(), x.mergedFrom->end());
    from->push_back({x.pf.formula, x.pf.ssa->hash()});
    from->push_back({y.pf.formula, y.pf.ssa->hash()});
    m->mergedFrom = from;
    return m;
  }

  bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr&) override {
    Stopwatch sw;
    bool r = false;
    for (const StatePtr& o : reached)
      if (isLessOrEqual(*e, *o)) {
        r = true;
        break;
      }
    c.stats_.coverageTimeS += sw.elapsedS();
    return r;
  }

  bool blockEnds(const AbstractState& full) const {
    auto* loc = extract<LocationState>(full);
    if (!loc) throw std::logic_error("predicate CPA: no location in the composite state");
    if (loc->property != Property::None) return true;
    if (auto* cs = extract<CallstackState>(full); cs && cs->recursion) return true;
    if (c.opts_.block == BlockOperator::Never) return false;
    if (c.cf_.isLoopHead(loc->func, loc->loc)) return true;
    if (c.opts_.block == BlockOperator::LoopHeadsAndFunctions) {
      const cfa::Function& f = c.cf_.program().functions[loc->func];
      if (loc->loc == f.entry || loc->loc == f.exit) return true;
    }
    return false;
  }

  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet&,
                                 const AbstractState& full) override {
    const auto& x = ps(*e);
    if (x.isAbstraction || !blockEnds(full)) return Adjusted{e, p};
    auto* loc = extract<LocationState>(full);
    auto prec = std::dynamic_pointer_cast<const PredicatePrecision>(p);
    std::vector<Term> preds = prec ? prec->at(locKey(loc->func, loc->loc)) : std::vector<Term>{};
    // A target has no successors: its abstraction only matters as the satisfiability
    // check that `false` in the precision asks for, the other predicates are useless.
    auto* cs = extract<CallstackState>(full);
    if (loc->property != Property::None || (cs && cs->recursion)) {
      bool hasFalse = std::find_if(preds.begin(), preds.end(), [](Term t) { return t->isFalse(); }) != preds.end();
      preds.clear();
      if (hasFalse) preds.push_back(c.pfm_.tm().falseTerm());
    }
    // ψ ∧ φ with ψ instantiated at the indices the block started from
    Term f = c.pfm_.tm().mkAnd(x.abstractionInstantiated, x.pf.formula);
    Term a = preds.empty() ? c.pfm_.tm().trueTerm() : c.abstract(f, preds, *x.pf.ssa);
    if (a->isFalse()) return std::nullopt;
    auto n = fresh(x);
    n->isAbstraction = true;
    n->abstraction = a;
    n->block = n->id;
    n->blockFormula = x.pf.formula;
    n->pf = c.pfm_.emptyWithSsa(x.pf);
    n->abstractionInstantiated = c.pfm_.instantiate(a, *x.pf.ssa);
    return Adjusted{n, p};
  }
};

PredicateCpa::PredicateCpa(const ControlFlow& cf, encoding::PathFormulaManager& pfm, smt::Solver& solver,
                           const PredicateCpaOptions& opts, const support::Deadline& deadline)
    : cf_(cf), pfm_(pfm), solver_(solver), opts_(opts), deadline_(deadline), ops_(std::make_unique<Ops>(*this)) {
  if (opts_.bddAbstractions) regions_ = std::make_unique<BddRegions>(pfm_.tm());
}
PredicateCpa::~PredicateCpa() = default;
AbstractDomain& PredicateCpa::domain() { return *ops_; }
TransferRelation& PredicateCpa::transfer() { return *ops_; }
MergeOperator& PredicateCpa::merge() { return *ops_; }
StopOperator& PredicateCpa::stop() { return *ops_; }
PrecisionAdjustment& PredicateCpa::precisionAdjustment() { return *ops_; }

StatePtr PredicateCpa::initialState() {
  auto s = std::make_shared<PredicateState>();
  s->id = nextId_++;
  s->block = s->id;
  s->isAbstraction = true;
  s->abstraction = pfm_.initialCondition();
  s->pf = pfm_.empty();
  s->abstractionInstantiated = pfm_.instantiate(s->abstraction, *s->pf.ssa);
  return s;
}

PrecisionPtr PredicateCpa::initialPrecision() { return std::make_shared<PredicatePrecision>(); }

CheckResult PredicateCpa::check(std::span<const Term> assumptions) {
  if (deadline_.expired()) throw SolverUnknown("timeout");
  // With cvc5 1.0.3 a per-check limit that fires inside CaDiCaL makes it abort; the
  // backend survives that only by rebuilding its instance with a much slower
  // bit-blaster (core/smt/cvc5/cvc5_solver.cpp), so the budget applies to Z3 only;
  // with cvc5 only the run's deadline limits a query.
  unsigned budget = solver_.kind() == smt::SolverKind::Z3 ? opts_.queryTimeoutMs : 0;
  if (!deadline_.isNever()) budget = budget ? std::min(budget, deadline_.remainingMs()) : deadline_.remainingMs();
  support::OperationBudget* post = opts_.postBudget && opts_.postBudget->armed() ? opts_.postBudget : nullptr;
  if (post) {
    if (post->expired()) throw support::BudgetExceeded();
    if (solver_.kind() == smt::SolverKind::Z3) budget = budget ? std::min(budget, post->remainingMs()) : post->remainingMs();
  }
  solver_.setTimeoutMs(budget);
  if (solver_.kind() == smt::SolverKind::Z3) solver_.setResourceLimit(opts_.queryResourceLimit);
  CheckResult r = solver_.check(assumptions);
  if (post && post->expired()) throw support::BudgetExceeded();
  if (r == CheckResult::Unknown) {
    if (deadline_.expired()) throw SolverUnknown("timeout");
    ++stats_.queryGiveUps;  // the caller answers conservatively
  }
  return r;
}

Term PredicateCpa::abstract(Term f, const std::vector<Term>& allPreds, const encoding::SsaMap& ssa) {
  Stopwatch sw;
  smt::TermManager& tm = pfm_.tm();
  // Predicates over variables f does not mention are unconstrained: every combination
  // of their values is possible, so they only multiply the all-SAT models without
  // changing the abstraction modulo the theory. They are left out.
  std::unordered_set<Term> fvars;
  for (Term v : tm.freeVars(f)) fvars.insert(v);
  std::vector<Term> inst, preds;
  for (Term p : allPreds) {
    Term ip = pfm_.instantiate(p, ssa);
    bool relevant = ip->isFalse();
    for (Term v : tm.freeVars(ip))
      if (fvars.count(v)) relevant = true;
    if (!relevant) continue;
    inst.push_back(ip);
    preds.push_back(p);
  }
  auto key = std::make_pair(f, inst);
  if (auto it = abstractionCache_.find(key); it != abstractionCache_.end()) {
    ++stats_.abstractionCacheHits;
    return it->second;
  }
  ++stats_.abstractions;
  Term result = tm.falseTerm();
  // With BDDs the result is the region of the cubes (canonical); else their disjunction.
  auto region = [&](const std::vector<std::vector<BddRegions::Literal>>& cubes) {
    if (regions_)
      if (Term r = regions_->fromCubes(cubes)) return r;
    std::vector<Term> ds;
    for (const auto& c : cubes) {
      std::vector<Term> lits;
      for (const auto& [p, pos] : c) lits.push_back(pos ? p : tm.mkNot(p));
      ds.push_back(tm.mkAnd(lits));
    }
    return tm.mkOr(ds);
  };
  auto cartesian = [&]() {
    if (check() == CheckResult::Unsat) return tm.falseTerm();  // unknown: go on (weaker)
    std::vector<BddRegions::Literal> cube;
    for (size_t i = 0; i < preds.size(); ++i) {
      Term neg[] = {tm.mkNot(inst[i])};
      Term pos[] = {inst[i]};
      if (check(neg) == CheckResult::Unsat) cube.push_back({preds[i], true});
      else if (check(pos) == CheckResult::Unsat) cube.push_back({preds[i], false});
    }
    return region({cube});
  };
  const unsigned depth0 = solver_.depth();
  solver_.push();
  try {
    solver_.add(f);
    if (opts_.cartesian) {
      result = cartesian();
    } else {
      solver_.push();
      std::vector<Term> lits;
      for (size_t i = 0; i < preds.size(); ++i) {
        Term v = tm.freshVar("pred", tm.boolSort());
        lits.push_back(v);
        solver_.add(tm.mkEq(v, inst[i]));
      }
      std::vector<std::vector<BddRegions::Literal>> cubes;
      bool tooMany = false;
      CheckResult cr;
      while ((cr = check()) == CheckResult::Sat) {
        if (opts_.maxAllSatModels && cubes.size() >= opts_.maxAllSatModels) {
          tooMany = true;
          break;
        }
        ++stats_.allSatModels;
        std::vector<BddRegions::Literal> cube;
        std::vector<Term> block;
        for (size_t i = 0; i < preds.size(); ++i) {
          bool val = solver_.modelValue(lits[i])->isTrue();
          cube.push_back({preds[i], val});
          block.push_back(val ? tm.mkNot(lits[i]) : lits[i]);
        }
        cubes.push_back(std::move(cube));
        solver_.add(tm.mkOr(block));
        if (preds.empty()) break;
      }
      solver_.pop();
      if (cr == CheckResult::Unknown) tooMany = true;
      if (tooMany) {
        ++stats_.cartesianFallbacks;
        result = cartesian();
      } else {
        result = region(cubes);
      }
    }
  } catch (...) {
    solver_.pop(solver_.depth() - depth0);  // the all-SAT loop may have pushed once more
    stats_.abstractionTimeS += sw.elapsedS();
    throw;
  }
  solver_.pop();
  abstractionCache_[key] = result;
  stats_.abstractionTimeS += sw.elapsedS();
  return result;
}

bool PredicateCpa::implies(Term a, Term b) {
  if (a == b || b->isTrue() || a->isFalse()) return true;
  if (regions_)
    if (std::optional<bool> r = regions_->implies(a, b)) {
      ++stats_.bddImplications;
      return *r;
    }
  auto key = std::make_pair(a, b);
  if (auto it = implicationCache_.find(key); it != implicationCache_.end()) {
    ++stats_.implicationCacheHits;
    return it->second;
  }
  ++stats_.implicationChecks;
  solver_.push();
  bool r;
  try {
    solver_.add(pfm_.tm().mkAnd(a, pfm_.tm().mkNot(b)));
    r = check() == CheckResult::Unsat;  // undecided: not covered (sound)
  } catch (...) {
    solver_.pop();
    throw;
  }
  solver_.pop();
  implicationCache_[key] = r;
  return r;
}

}  // namespace argus::cpa
