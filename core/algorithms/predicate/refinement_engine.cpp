#include "core/algorithms/predicate/refinement_engine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unordered_set>

#include "core/support/stopwatch.h"

namespace argus::algorithms {

using smt::CheckResult;
using smt::Kind;
using smt::Term;

namespace {

constexpr size_t kMaxCoreMinimisation = 64;
constexpr unsigned kMinimisationQueryMs = 300;
constexpr size_t kMaxRelationalVars = 6;
// cvc5's interpolation is a SyGuS search: it finds small interpolants over its default
// grammar quickly or not at all (e.g. it does not find x >= 5 from x = y - 1 ∧ 10 < y
// against x < 5, constants outside {0, 1, …} being hard to enumerate), so each query
// gets at most this long.
constexpr unsigned kCraigQueryMs = 10000;

const encoding::SsaMap& emptySsa() {
  static const encoding::SsaMap e;
  return e;
}

// The SSA map at position i (0 = before the first block).
const encoding::SsaMap& ssaAt(const RefinementInput& in, size_t i) {
  if (i == 0) return in.ssaBefore ? *in.ssaBefore : emptySsa();
  return *in.ssaAfter[i - 1];
}

unsigned budget(const support::Deadline& d) { return d.isNever() ? 0 : std::max(1u, d.remainingMs()); }

class NewtonEngine final : public RefinementEngine {
public:
  NewtonEngine(const RefinerConfig& cfg, encoding::PathFormulaManager& pfm, smt::SolverKind kind,
               support::Deadline deadline)
      : cfg_(cfg), pfm_(pfm), kind_(kind), deadline_(deadline) {}

  void setDeadline(support::Deadline d) override { deadline_ = d; }
  InterpolationSequence interpolate(const RefinementInput& in) override {
    InterpolationSequence out;
    smt::TermManager& tm = pfm_.tm();
    const size_t n = in.blocks.size();
    if (n == 0) {
      out.reason = "refinement: empty path";
      return out;
    }
    Stopwatch sw;
    // 1. trace formula as conjuncts, optionally reduced to an infeasible core
    std::vector<std::vector<Term>> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = encoding::conjuncts(in.blocks[i]);
    for (auto& b : k) out.conjunctCount += b.size();
    std::string why;
    if (cfg_.core && !reduceToCore(k, why)) {
      out.reason = why;
      solverTimeS_ += sw.elapsedS();
      return out;
    }
    for (auto& b : k) out.coreSize += b.size();
    // variables occurring in each block (for liveness)
    std::vector<std::unordered_set<Term>> occurs(n);
    for (size_t i = 0; i < n; ++i)
      for (Term c : k[i])
        for (Term v : tm.freeVars(c)) occurs[i].insert(v);
    auto indexedInfo = [&](Term v) -> const encoding::PathFormulaManager::VarInfo* {
      const auto* vi = pfm_.info(v);
      return vi && vi->indexed ? vi : nullptr;
    };
    // live-variable sets: future live at pos = occurs in blocks pos+1..n (1-based);
    // past live at pos = occurs in blocks 1..pos
    auto occursIn = [&](Term v, size_t from, size_t to) {  // blocks [from, to), 0-based
      for (size_t j = from; j < to; ++j)
        if (occurs[j].count(v)) return true;
      return false;
    };
    std::vector<Term> seq;
    if (!cfg_.wp) {
      std::vector<Term> tau;  // conjuncts of τ_{i-1}
      for (size_t i = 1; i < n; ++i) {
        std::vector<Term> items = tau;
        items.insert(items.end(), k[i - 1].begin(), k[i - 1].end());
        auto elim = [&](Term v) {
          const auto* vi = indexedInfo(v);
          if (!vi) return false;
          if (vi->index != ssaAt(in, i).index(vi->key)) return true;       // stale
          return cfg_.live && !occursIn(v, i, n);                          // dead from here on
        };
        tau = keepFree(eliminateVariables(pfm_, items, elim, cfg_.disjunctionDepth), elim);
        seq.push_back(tm.mkAnd(tau));
      }
      // the end: τ_{n-1} ∧ φ_n must be unsatisfiable
      std::vector<Term> last = tau;
      last.insert(last.end(), k[n - 1].begin(), k[n - 1].end());
      CheckResult r = decide(tm.mkAnd(last));
      if (r != CheckResult::Unsat) {
        out.reason = r == CheckResult::Sat ? "newton: the projection lost the infeasibility (τ_{n-1} ∧ φ_n is satisfiable)"
                                           : "newton: solver " + lastReason_;
        solverTimeS_ += sw.elapsedS();
        return out;
      }
      seq.push_back(tm.falseTerm());
    } else {
      std::vector<Term> rho;  // conjuncts of ρ_i = ¬τ_i, ρ_n = true
      std::vector<Term> rev;
      for (size_t i = n; i-- > 0;) {
        std::vector<Term> items = rho;
        items.insert(items.end(), k[i].begin(), k[i].end());
        if (i == 0) {  // ρ_0 is only checked for unsatisfiability: no projection needed
          rho = std::move(items);
          break;
        }
        auto elim = [&](Term v) {
          const auto* vi = indexedInfo(v);
          if (!vi) return false;
          if (vi->index != ssaAt(in, i).index(vi->key)) return true;       // written later
          return cfg_.live && i > 0 && !occursIn(v, 0, i);                 // not past live
        };
        rho = keepFree(eliminateVariables(pfm_, items, elim, cfg_.disjunctionDepth), elim);
        if (i > 0) rev.push_back(tm.mkNot(tm.mkAnd(rho)));
      }
      // the start: ρ_0 must be unsatisfiable (τ_0 = ¬ρ_0 = true)
      CheckResult r = decide(tm.mkAnd(rho));
      if (r != CheckResult::Unsat) {
        out.reason = r == CheckResult::Sat ? "newton: the projection lost the infeasibility (¬τ_0 is satisfiable)"
                                           : "newton: solver " + lastReason_;
        solverTimeS_ += sw.elapsedS();
        return out;
      }
      seq.assign(rev.rbegin(), rev.rend());
      seq.push_back(tm.falseTerm());
    }
    solverTimeS_ += sw.elapsedS();
    out.seq = std::move(seq);
    out.ok = true;
    return out;
  }

private:
  RefinerConfig cfg_;
  encoding::PathFormulaManager& pfm_;
  smt::SolverKind kind_;
  support::Deadline deadline_;
  std::string lastReason_;

  std::vector<Term> keepFree(const std::vector<Term>& cs, const std::function<bool(Term)>& elim) {
    std::vector<Term> out;
    for (Term c : cs) {
      bool bad = false;
      for (Term v : pfm_.tm().freeVars(c))
        if (elim(v)) {
          bad = true;
          break;
        }
      if (!bad && !c->isTrue()) out.push_back(c);
    }
    return out;
  }

  CheckResult decide(Term f) {
    if (f->isFalse()) return CheckResult::Unsat;
    if (deadline_.expired()) {
      lastReason_ = "timeout";
      return CheckResult::Unknown;
    }
    smt::SolverOptions so;
    so.models = false;
    auto s = smt::makeSolver(kind_, pfm_.tm(), so);
    s->setTimeoutMs(budget(deadline_));
    s->add(f);
    ++queries_;
    CheckResult r = s->check();
    if (r == CheckResult::Unknown) lastReason_ = deadline_.expired() ? "timeout" : s->reasonUnknown();
    return r;
  }

  // Keeps only the conjuncts of an unsat core (assumption literals, one per conjunct),
  // shrunk by deletion when small (assumptions tried before assignments, as in
  // newton_refiner.cpp: keeping assignments lets the projection substitute).
  bool reduceToCore(std::vector<std::vector<Term>>& k, std::string& why) {
    smt::TermManager& tm = pfm_.tm();
    smt::SolverOptions so;
    so.models = false;
    so.unsatCores = true;
    auto solver = smt::makeSolver(kind_, tm, so);
    std::vector<Term> lits;
    std::unordered_map<Term, std::pair<size_t, size_t>> litOf;
    for (size_t i = 0; i < k.size(); ++i)
      for (size_t j = 0; j < k[i].size(); ++j) {
        Term l = tm.freshVar("core", tm.boolSort());
        solver->add(tm.mkImplies(l, k[i][j]));
        lits.push_back(l);
        litOf[l] = {i, j};
      }
    if (deadline_.expired()) {
      why = "timeout";
      return false;
    }
    solver->setTimeoutMs(budget(deadline_));
    ++queries_;
    CheckResult r = solver->check(lits);
    if (r != CheckResult::Unsat) {
      why = r == CheckResult::Sat ? "refinement: the counterexample is feasible"
                                  : "refinement: solver " + solver->reasonUnknown();
      return false;
    }
    std::vector<Term> core = solver->unsatCore();
    if (core.size() > 1 && core.size() <= kMaxCoreMinimisation) {
      auto isAssignment = [&](Term l) {
        Term c = k[litOf[l].first][litOf[l].second];
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
        // cvc5 1.0.3 must not hit a short per-check limit (see newton_refiner.cpp)
        unsigned b = kind_ == smt::SolverKind::Z3 ? kMinimisationQueryMs : 0;
        if (!deadline_.isNever()) b = b ? std::min(b, budget(deadline_)) : budget(deadline_);
        ++queries_;
        solver->setTimeoutMs(b);
        CheckResult tr = solver->check(trial);
        if (tr == CheckResult::Unsat) keep = std::move(trial);
        else if (tr == CheckResult::Sat || kind_ == smt::SolverKind::Z3) ++i;
        else break;
      }
      core = std::move(keep);
    }
    std::vector<std::vector<Term>> reduced(k.size());
    std::vector<std::vector<bool>> in(k.size());
    for (size_t i = 0; i < k.size(); ++i) in[i].assign(k[i].size(), false);
    for (Term l : core)
      if (auto it = litOf.find(l); it != litOf.end()) in[it->second.first][it->second.second] = true;
    for (size_t i = 0; i < k.size(); ++i)
      for (size_t j = 0; j < k[i].size(); ++j)
        if (in[i][j]) reduced[i].push_back(k[i][j]);
    k = std::move(reduced);
    return true;
  }
};

class CraigEngine final : public RefinementEngine {
public:
  CraigEngine(encoding::PathFormulaManager& pfm, support::Deadline deadline) : pfm_(pfm), deadline_(deadline) {
    smt::SolverOptions so;
    so.models = false;
    so.interpolants = true;
    solver_ = smt::makeSolver(smt::SolverKind::CVC5, pfm.tm(), so);
  }

  void setDeadline(support::Deadline d) override { deadline_ = d; }
  InterpolationSequence interpolate(const RefinementInput& in) override {
    InterpolationSequence out;
    smt::TermManager& tm = pfm_.tm();
    const size_t n = in.blocks.size();
    Stopwatch sw;
    for (Term b : in.blocks) out.conjunctCount += encoding::conjuncts(b).size();
    out.coreSize = out.conjunctCount;
    // SyGuS searches forever for an interpolant that does not exist: decide first
    {
      smt::SolverOptions so;
      so.models = false;
      auto s = smt::makeSolver(smt::SolverKind::CVC5, tm, so);
      s->setTimeoutMs(budget(deadline_));
      s->add(tm.mkAnd(in.blocks));
      ++queries_;
      CheckResult r = s->check();
      if (r != CheckResult::Unsat) {
        out.reason = r == CheckResult::Sat ? "refinement: the counterexample is feasible"
                                           : "craig: solver " + s->reasonUnknown();
        solverTimeS_ += sw.elapsedS();
        return out;
      }
    }
    Term prev = tm.trueTerm();
    for (size_t i = 1; i < n; ++i) {
      if (deadline_.expired()) {
        out.reason = "timeout";
        break;
      }
      std::vector<Term> rest(in.blocks.begin() + static_cast<long>(i), in.blocks.end());
      unsigned b = budget(deadline_);
      solver_->setTimeoutMs(b ? std::min(b, kCraigQueryMs) : kCraigQueryMs);
      ++queries_;
      if (getenv("ARGUS_DEBUG_CRAIG"))
        fprintf(stderr, "craig %zu/%zu: A = %s\n  B = %s\n", i, n, tm.mkAnd(prev, in.blocks[i - 1])->str().c_str(),
                tm.mkAnd(rest)->str().c_str());
      Term itp = solver_->interpolant(tm.mkAnd(prev, in.blocks[i - 1]), tm.mkAnd(rest));
      if (getenv("ARGUS_DEBUG_CRAIG")) fprintf(stderr, "  I = %s\n", itp ? itp->str().c_str() : "(none)");
      if (!itp) {
        out.reason = "craig: no interpolant for position " + std::to_string(i) + " of " + std::to_string(n) + ": " +
                     solver_->reasonUnknown();
        break;
      }
      // the interpolant must be a state formula at position i
      for (Term v : tm.freeVars(itp)) {
        const auto* vi = pfm_.info(v);
        if (vi && vi->indexed && vi->index != in.ssaAfter[i - 1]->index(vi->key)) {
          out.reason = "craig: interpolant mentions " + v->name + ", which is not current at position " + std::to_string(i);
          break;
        }
      }
      if (!out.reason.empty()) break;
      out.seq.push_back(itp);
      prev = itp;
    }
    solverTimeS_ += sw.elapsedS();
    if (!out.reason.empty()) {
      out.seq.clear();
      return out;
    }
    out.seq.push_back(tm.falseTerm());
    out.ok = true;
    return out;
  }

private:
  encoding::PathFormulaManager& pfm_;
  support::Deadline deadline_;
  std::unique_ptr<smt::Solver> solver_;
};

}  // namespace

std::string RefinerConfig::name() const {
  if (kind == Kind::Craig) return "craig";
  return std::string("newton-") + (wp ? "wp" : "sp") + (core ? "-core" : "-all") + (live ? "-live" : "-all");
}

RefinerConfig RefinerConfig::parse(const std::string& s) {
  for (const std::string& n : allNames()) {
    RefinerConfig c;
    if (n == "craig") c.kind = Kind::Craig;
    else {
      c.wp = n.find("-wp-") != std::string::npos;
      c.core = n.find("-core-") != std::string::npos;
      c.live = n.size() >= 5 && n.compare(n.size() - 5, 5, "-live") == 0;
    }
    if (c.name() == s) return c;
  }
  std::string all;
  for (const std::string& n : allNames()) all += (all.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown refiner '" + s + "' (expected one of: " + all + ")");
}

std::vector<std::string> RefinerConfig::allNames() {
  std::vector<std::string> out{"craig"};
  for (const char* d : {"sp", "wp"})
    for (const char* c : {"core", "all"})
      for (const char* l : {"live", "all"}) out.push_back(std::string("newton-") + d + "-" + c + "-" + l);
  return out;
}

std::unique_ptr<RefinementEngine> makeRefinementEngine(const RefinerConfig& cfg, encoding::PathFormulaManager& pfm,
                                                       smt::SolverKind solver, support::Deadline deadline) {
  if (cfg.kind == RefinerConfig::Kind::Craig) return std::make_unique<CraigEngine>(pfm, deadline);
  return std::make_unique<NewtonEngine>(cfg, pfm, solver, deadline);
}

std::string checkSequence(encoding::PathFormulaManager& pfm, smt::SolverKind kind, const RefinementInput& in,
                          const std::vector<Term>& seq, unsigned timeoutMs) {
  smt::TermManager& tm = pfm.tm();
  const size_t n = in.blocks.size();
  if (seq.size() != n) return "sequence has " + std::to_string(seq.size()) + " elements for " + std::to_string(n) + " blocks";
  if (n == 0) return "";
  for (size_t i = 0; i < n; ++i)
    for (Term v : tm.freeVars(seq[i])) {
      const auto* vi = pfm.info(v);
      if (vi && vi->indexed && vi->index != in.ssaAfter[i]->index(vi->key))
        return "τ_" + std::to_string(i + 1) + " mentions " + v->name + ", not current there";
    }
  smt::SolverOptions so;
  so.models = false;
  so.timeoutMs = timeoutMs;
  auto s = smt::makeSolver(kind, tm, so);
  auto unsat = [&](Term f) -> std::string {
    s->push();
    s->add(f);
    CheckResult r = s->check();
    s->pop();
    if (r == CheckResult::Unsat) return "";
    return r == CheckResult::Sat ? "sat" : "unknown (" + s->reasonUnknown() + ")";
  };
  if (std::string r = unsat(seq[n - 1]); !r.empty()) return "τ_n is not false (" + r + ")";
  for (size_t i = 0; i < n; ++i) {
    Term prev = i == 0 ? tm.trueTerm() : seq[i - 1];
    if (std::string r = unsat(tm.mkAnd(tm.mkAnd(prev, in.blocks[i]), tm.mkNot(seq[i]))); !r.empty())
      return "τ_" + std::to_string(i) + " ∧ φ_" + std::to_string(i + 1) + " ⇒ τ_" + std::to_string(i + 1) +
             " does not hold: " + r;
  }
  return "";
}

std::vector<std::vector<Term>> sequencePredicates(encoding::PathFormulaManager& pfm, const std::vector<Term>& seq) {
  smt::TermManager& tm = pfm.tm();
  std::vector<std::vector<Term>> out;
  for (size_t i = 0; i < seq.size(); ++i) {
    std::vector<Term> preds;
    auto addPred = [&](Term u) {
      if (u->kind != Kind::BoolConst && std::find(preds.begin(), preds.end(), u) == preds.end()) preds.push_back(u);
    };
    for (Term a : encoding::atoms(seq[i])) addPred(pfm.uninstantiate(a));
    // relational hint (see newton_refiner.h): program variables fixed to constants
    std::vector<std::pair<Term, Term>> constVars;
    for (Term c : encoding::conjuncts(seq[i])) {
      if (c->kind != Kind::Eq || !c->children[0]->sort->isBV()) continue;
      Term a = c->children[0], b = c->children[1];
      if (a->kind == Kind::BVConst) std::swap(a, b);
      if (a->kind != Kind::Var || b->kind != Kind::BVConst || b->width() > 64) continue;
      const auto* vi = pfm.info(a);
      if (!vi || vi->key >= pfm.program().vars.size()) continue;
      cfa::VarKind vk = pfm.program().vars[vi->key].kind;
      if (vk == cfa::VarKind::Local || vk == cfa::VarKind::Global || vk == cfa::VarKind::Param) constVars.push_back({a, b});
    }
    if (constVars.size() <= kMaxRelationalVars)
      for (size_t x = 0; x < constVars.size(); ++x)
        for (size_t y = x + 1; y < constVars.size(); ++y) {
          auto [vx, cx] = constVars[x];
          auto [vy, cy] = constVars[y];
          if (vx->width() != vy->width() || vx == vy) continue;
          addPred(pfm.uninstantiate(cx == cy ? tm.mkEq(vx, vy) : tm.mkEq(tm.bvSub(vx, vy), tm.bvSub(cx, cy))));
        }
    if (i + 1 == seq.size()) preds.push_back(tm.falseTerm());
    out.push_back(std::move(preds));
  }
  return out;
}

}  // namespace argus::algorithms
