#include "core/algorithms/predicate/newton_refiner.h"

#include <algorithm>
#include <unordered_set>

namespace argus::algorithms {

using smt::Kind;
using smt::Term;

namespace {

constexpr size_t kMaxCoreMinimisation = 64;
constexpr size_t kMaxRelationalVars = 6;
constexpr unsigned kMinimisationQueryMs = 300;

bool mentions(smt::TermManager& tm, Term t, Term v) {
  for (Term x : tm.freeVars(t))
    if (x == v) return true;
  return false;
}

}  // namespace


std::vector<Term> eliminateVariables(encoding::PathFormulaManager& pfm, const std::vector<Term>& k,
                                     const std::function<bool(Term)>& eliminate, int disjunctionDepth) {
  smt::TermManager& tm = pfm.tm();
  auto isStale = [&](Term v) { return v->kind == Kind::Var && eliminate(v); };
  auto hasStale = [&](Term t) {
    for (Term v : tm.freeVars(t))
      if (isStale(v)) return true;
    return false;
  };
  std::vector<Term> rest(k.begin(), k.end());
  // A definition v = t for a stale variable v extracted from conjunct `c`, or null.
  auto definition = [&](Term c) -> std::pair<Term, Term> {
    if (c->kind != Kind::Eq || c->children.size() != 2) return {nullptr, nullptr};
    for (int side = 0; side < 2; ++side) {
      Term a = c->children[side], b = c->children[1 - side];
      if (isStale(a) && !mentions(tm, b, a)) return {a, b};
    }
    // inversion of a bijective definition: a = f(v) with v stale, a without v
    for (int side = 0; side < 2; ++side) {
      Term a = c->children[side], b = c->children[1 - side];
      if (!b->sort->isBV()) continue;
      auto tryVar = [&](Term v, Term other) { return isStale(v) && !mentions(tm, other, v) && !mentions(tm, a, v); };
      switch (b->kind) {
        case Kind::BVAdd:
          if (b->children.size() == 2) {
            if (tryVar(b->children[0], b->children[1])) return {b->children[0], tm.bvSub(a, b->children[1])};
            if (tryVar(b->children[1], b->children[0])) return {b->children[1], tm.bvSub(a, b->children[0])};
          }
          break;
        case Kind::BVSub:
          if (tryVar(b->children[0], b->children[1])) return {b->children[0], tm.bvAdd(a, b->children[1])};
          if (tryVar(b->children[1], b->children[0])) return {b->children[1], tm.bvSub(b->children[0], a)};
          break;
        case Kind::BVXor:
          if (b->children.size() == 2) {
            if (tryVar(b->children[0], b->children[1])) return {b->children[0], tm.bvXor(a, b->children[1])};
            if (tryVar(b->children[1], b->children[0])) return {b->children[1], tm.bvXor(a, b->children[0])};
          }
          break;
        case Kind::BVNot:
          if (tryVar(b->children[0], a)) return {b->children[0], tm.bvNot(a)};
          break;
        case Kind::BVNeg:
          if (tryVar(b->children[0], a)) return {b->children[0], tm.bvNeg(a)};
          break;
        default:
          break;
      }
    }
    return {nullptr, nullptr};
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < rest.size(); ++i) {
      auto [v, t] = definition(rest[i]);
      if (!v) continue;
      rest.erase(rest.begin() + static_cast<long>(i));
      std::unordered_map<Term, Term> m{{v, t}};
      for (Term& c : rest) c = tm.substitute(c, m);
      progress = true;
      break;
    }
  }
  // M = store(…store(R, a1, v1)…, an, vn) with a stale base R: ∃R gives exactly
  // "M agrees with the stores", i.e. select(M, ai) = vi unless a later store to the
  // same address overrides it (an ite chain over the later stores).
  std::vector<Term> expanded;
  for (Term c : rest) {
    if (c->kind == Kind::Eq && c->children[0]->sort->isArray()) {
      for (int side = 0; side < 2; ++side) {
        Term m = c->children[side], st = c->children[1 - side];
        std::vector<std::pair<Term, Term>> stores;  // outermost first
        Term base = st;
        while (base->kind == Kind::Store) {
          stores.push_back({base->children[1], base->children[2]});
          base = base->children[0];
        }
        if (stores.empty() || !isStale(base) || hasStale(m)) continue;
        for (size_t i = 0; i < stores.size(); ++i) {
          Term val = stores[i].second;
          for (size_t j = i; j-- > 0;)
            val = tm.mkIte(tm.mkEq(stores[i].first, stores[j].first), stores[j].second, val);
          expanded.push_back(tm.mkEq(tm.select(m, stores[i].first), val));
        }
        c = nullptr;
        break;
      }
    }
    if (c) expanded.push_back(c);
  }
  // ∃v. (D1 ∨ … ∨ Dk) = (∃v. D1) ∨ … ∨ (∃v. Dk): a disjunction (ABE merges of
  // branches) that still mentions eliminated variables is projected disjunct by
  // disjunct (each disjunct's remaining conjuncts with eliminated variables dropped).
  for (Term& c : expanded) {
    if (c->kind != Kind::Or || !hasStale(c) || disjunctionDepth <= 0) continue;
    std::vector<Term> ds;
    for (Term d : c->children) {
      std::vector<Term> kept;
      for (Term x : eliminateVariables(pfm, encoding::conjuncts(d), eliminate, disjunctionDepth - 1))
        if (!hasStale(x)) kept.push_back(x);
      ds.push_back(tm.mkAnd(kept));
    }
    c = tm.mkOr(ds);
  }
  return expanded;
}

Term NewtonRefiner::project(const std::vector<Term>& k, const encoding::SsaMap& ssa, bool keepStale) {
  smt::TermManager& tm = pfm_.tm();
  auto isStale = [&](Term v) {
    if (v->kind != Kind::Var) return false;
    const auto* vi = pfm_.info(v);
    return vi && vi->indexed && vi->index != ssa.index(vi->key);
  };
  auto hasStale = [&](Term t) {
    for (Term v : tm.freeVars(t))
      if (isStale(v)) return true;
    return false;
  };
  auto hasCurrent = [&](Term t) {
    for (Term v : tm.freeVars(t)) {
      const auto* vi = pfm_.info(v);
      if (vi && vi->indexed && vi->index == ssa.index(vi->key)) return true;
    }
    return false;
  };
  std::vector<Term> expanded = eliminateVariables(pfm_, k, isStale, 0);
  std::vector<Term> kept;
  for (Term c : expanded)
    if (!hasStale(c) || (keepStale && hasCurrent(c))) kept.push_back(c);
  return tm.mkAnd(kept);
}

RefinementOutput NewtonRefiner::refine(const RefinementInput& in, bool keepStale) {
  RefinementOutput out;
  smt::TermManager& tm = pfm_.tm();
  size_t n = in.blocks.size();
  // 1. conjuncts with assumption literals
  std::vector<std::vector<Term>> conj(n);
  std::vector<Term> lits;
  std::unordered_map<Term, std::pair<size_t, size_t>> litOf;
  smt::SolverOptions so;
  so.models = false;
  so.unsatCores = true;
  auto solver = smt::makeSolver(solverKind_, tm, so);
  for (size_t i = 0; i < n; ++i) {
    conj[i] = encoding::conjuncts(in.blocks[i]);
    for (size_t j = 0; j < conj[i].size(); ++j) {
      Term l = tm.freshVar("core", tm.boolSort());
      solver->add(tm.mkImplies(l, conj[i][j]));
      lits.push_back(l);
      litOf[l] = {i, j};
    }
  }
  out.conjunctCount = lits.size();
  // 2. unsat core
  if (deadline_.expired()) {
    out.reason = "timeout";
    return out;
  }
  solver->setTimeoutMs(deadline_.remainingMs());
  smt::CheckResult r = solver->check(lits);
  ++queries_;
  if (r != smt::CheckResult::Unsat) {
    solverTimeS_ += solver->stats().checkTimeS;
    out.reason = r == smt::CheckResult::Sat ? "refinement: the counterexample is feasible"
                                            : "refinement: solver " + solver->reasonUnknown();
    return out;
  }
  std::vector<Term> core = solver->unsatCore();
  // Backends return cores that are not minimal (cvc5 returns all assumptions): shrink
  // by deletion, a bounded number of queries, dropping each literal that is not needed.
  // With Z3 each trial has a short budget (a trial can be much harder than the original
  // query). With cvc5 only the run's deadline limits a trial: a per-check limit that
  // fires inside cvc5 1.0.3's CaDiCaL makes it abort, which the backend survives only
  // by rebuilding its instance with a much slower bit-blaster, so short limits are
  // not used with it.
  // Deletion starts from all conjuncts when there are few (else from the solver's
  // core) and tries assumptions before assignments: a core that keeps the assignments
  // (x@2 = x@1 + 1) lets the projection eliminate stale variables by substitution,
  // where one that keeps only bounds (x@1 < n) leaves relations that need real
  // quantifier elimination and are dropped.
  if (core.size() > 1 && core.size() <= kMaxCoreMinimisation) {
    auto isAssignment = [&](Term l) {
      Term c = conj[litOf[l].first][litOf[l].second];
      if (c->kind != Kind::Eq) return false;
      for (Term x : c->children)
        if (const auto* vi = pfm_.info(x); vi && vi->indexed) return true;
      return false;
    };
    std::vector<Term> keep = lits.size() <= kMaxCoreMinimisation ? lits : core;
    std::stable_partition(keep.begin(), keep.end(), [&](Term l) { return !isAssignment(l); });
    for (size_t i = 0; i < keep.size() && keep.size() > 1;) {
      std::vector<Term> trial;
      for (size_t j = 0; j < keep.size(); ++j)
        if (j != i) trial.push_back(keep[j]);
      if (deadline_.expired()) break;
      unsigned budget = solverKind_ == smt::SolverKind::Z3 ? kMinimisationQueryMs : 0;
      if (!deadline_.isNever()) budget = budget ? std::min(budget, deadline_.remainingMs()) : deadline_.remainingMs();
      ++queries_;
      solver->setTimeoutMs(budget);
      smt::CheckResult tr = solver->check(trial);
      if (tr == smt::CheckResult::Unsat) keep = std::move(trial);
      else if (tr == smt::CheckResult::Sat || solverKind_ == smt::SolverKind::Z3) ++i;  // needed (or undecided): keep it
      else break;
    }
    core = std::move(keep);
  }
  solverTimeS_ += solver->stats().checkTimeS;
  std::vector<std::vector<bool>> inCore(n);
  for (size_t i = 0; i < n; ++i) inCore[i].assign(conj[i].size(), false);
  for (Term l : core) {
    auto it = litOf.find(l);
    if (it != litOf.end()) {
      inCore[it->second.first][it->second.second] = true;
      ++out.coreSize;
    }
  }
  // 3. strongest post over the infeasible core, block by block
  std::vector<Term> k;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < conj[i].size(); ++j)
      if (inCore[i][j]) k.push_back(conj[i][j]);
    Term tau = i + 1 == n ? tm.falseTerm() : project(k, *in.ssaAfter[i]);
    out.sequence.push_back(tau);
    // 4. predicates: atoms, unindexed
    std::vector<Term> preds;
    Term source = i + 1 == n || keepStale ? project(k, *in.ssaAfter[i], keepStale) : tau;
    for (Term a : encoding::atoms(source)) {
      Term u = pfm_.uninstantiate(a);
      if (u->kind == Kind::BoolConst) continue;
      if (std::find(preds.begin(), preds.end(), u) == preds.end()) preds.push_back(u);
    }
    // Relational hint: current variables with constant values (x = 1 ∧ y = 1 after a
    // loop unrolling) also give x - y = c, which lets the abstraction generalise
    // across iterations (Newton's point-wise predicates alone make it unroll).
    std::vector<std::pair<Term, Term>> constVars;
    for (Term c : encoding::conjuncts(source)) {
      if (c->kind != Kind::Eq || !c->children[0]->sort->isBV()) continue;
      Term a = c->children[0], b = c->children[1];
      if (a->kind == Kind::BVConst) std::swap(a, b);
      if (a->kind != Kind::Var || b->kind != Kind::BVConst || b->width() > 64) continue;
      // program variables only (temporaries would multiply the predicates)
      const auto* vi = pfm_.info(a);
      if (!vi || vi->key >= pfm_.program().vars.size()) continue;
      cfa::VarKind vk = pfm_.program().vars[vi->key].kind;
      if (vk == cfa::VarKind::Local || vk == cfa::VarKind::Global || vk == cfa::VarKind::Param) constVars.push_back({a, b});
    }
    if (constVars.size() <= kMaxRelationalVars)
      for (size_t x = 0; x < constVars.size(); ++x)
        for (size_t y = x + 1; y < constVars.size(); ++y) {
          auto [vx, cx] = constVars[x];
          auto [vy, cy] = constVars[y];
          if (vx->width() != vy->width() || vx == vy) continue;
          Term rel = cx == cy ? tm.mkEq(vx, vy) : tm.mkEq(tm.bvSub(vx, vy), tm.bvSub(cx, cy));
          Term u = pfm_.uninstantiate(rel);
          if (u->kind != Kind::BoolConst && std::find(preds.begin(), preds.end(), u) == preds.end()) preds.push_back(u);
        }
    if (i + 1 == n) preds.push_back(tm.falseTerm());
    out.predicates.push_back(std::move(preds));
  }
  out.ok = true;
  return out;
}

}  // namespace argus::algorithms
