#include "core/cpa/bdd_regions.h"

#include <bdd.h>

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace argus::cpa {

using smt::Term;

namespace {

std::mutex& bddLock() {
  static std::mutex m;
  return m;
}

// BuDDy's default error handler exits the process and its garbage collector prints
// to stdout; the daemon needs neither. Errors are counted and the operation that hit
// one is abandoned by the caller.
std::atomic<unsigned> gErrors{0};
void onError(int) { gErrors.fetch_add(1); }
void onGc(int, bddGbcStat*) {}
void onResize(int, int) {}

// Under bddLock().
void ensureRunning(int vars) {
  if (!bdd_isrunning()) {
    bdd_init(1 << 16, 1 << 14);
    bdd_error_hook(onError);
    bdd_gbc_hook(onGc);
    bdd_resize_hook(onResize);
    bdd_setcacheratio(16);
    bdd_setvarnum(std::max(vars, 16));
  }
  if (bdd_varnum() < vars) bdd_extvarnum(std::max(vars - bdd_varnum(), 16));
}

}  // namespace

struct BddRegions::Impl {
  smt::TermManager& tm;
  std::unordered_map<Term, int> varOf;       // predicate -> BDD variable
  std::vector<Term> predOf;                  // BDD variable -> predicate
  std::unordered_map<Term, bdd> regionOf;    // region formula -> its BDD (holds a reference)
  std::unordered_map<int, Term> formulaOf;   // BDD node -> formula (nodes of held BDDs only)

  explicit Impl(smt::TermManager& t) : tm(t) {}

  int var(Term p) {
    auto [it, fresh] = varOf.emplace(p, static_cast<int>(predOf.size()));
    if (fresh) predOf.push_back(p);
    return it->second;
  }

  // The formula of a node reachable from a held BDD (so it is not collected while
  // cached): p ∧ hi ∨ ¬p ∧ lo, simplified when a branch is constant.
  Term formula(const bdd& n) {
    if (n == bddtrue) return tm.trueTerm();
    if (n == bddfalse) return tm.falseTerm();
    if (auto it = formulaOf.find(n.id()); it != formulaOf.end()) return it->second;
    Term p = predOf.at(static_cast<size_t>(bdd_var(n)));
    bdd lo = bdd_low(n), hi = bdd_high(n);
    Term f;
    if (lo == bddfalse) f = tm.mkAnd(p, formula(hi));
    else if (hi == bddfalse) f = tm.mkAnd(tm.mkNot(p), formula(lo));
    else if (hi == bddtrue) f = tm.mkOr(p, formula(lo));
    else if (lo == bddtrue) f = tm.mkOr(tm.mkNot(p), formula(hi));
    else f = tm.mkOr(tm.mkAnd(p, formula(hi)), tm.mkAnd(tm.mkNot(p), formula(lo)));
    formulaOf.emplace(n.id(), f);
    return f;
  }
};

BddRegions::BddRegions(smt::TermManager& tm) : impl_(std::make_unique<Impl>(tm)) {}

BddRegions::~BddRegions() {
  std::lock_guard<std::mutex> g(bddLock());
  impl_->regionOf.clear();  // drops the references under the lock
}

Term BddRegions::fromCubes(const std::vector<std::vector<Literal>>& cubes) {
  std::lock_guard<std::mutex> g(bddLock());
  Impl& m = *impl_;
  for (const auto& c : cubes)
    for (const auto& [p, pos] : c) m.var(p);
  ensureRunning(static_cast<int>(m.predOf.size()));
  unsigned errors0 = gErrors.load();
  bdd r = bddfalse;
  for (const auto& c : cubes) {
    bdd cube = bddtrue;
    for (const auto& [p, pos] : c) cube &= pos ? bdd_ithvar(m.varOf.at(p)) : bdd_nithvar(m.varOf.at(p));
    r |= cube;
  }
  if (gErrors.load() != errors0 || r.id() < 0) return nullptr;
  Term f = m.formula(r);
  m.regionOf.emplace(f, r);
  return f;
}

std::optional<bool> BddRegions::implies(Term a, Term b) {
  if (a->isFalse() || b->isTrue()) return true;
  std::lock_guard<std::mutex> g(bddLock());
  Impl& m = *impl_;
  auto region = [&](Term t) -> std::optional<bdd> {
    if (t->isTrue()) return bddtrue;
    if (t->isFalse()) return bddfalse;
    auto it = m.regionOf.find(t);
    if (it == m.regionOf.end()) return std::nullopt;
    return it->second;
  };
  std::optional<bdd> x = region(a), y = region(b);
  if (!x || !y) return std::nullopt;
  unsigned errors0 = gErrors.load();
  bdd imp = bdd_imp(*x, *y);
  if (gErrors.load() != errors0 || imp.id() < 0) return std::nullopt;
  return imp == bddtrue;
}

size_t BddRegions::regions() const {
  std::lock_guard<std::mutex> g(bddLock());
  return impl_->regionOf.size();
}

size_t BddRegions::variables() const {
  std::lock_guard<std::mutex> g(bddLock());
  return impl_->predOf.size();
}

}  // namespace argus::cpa
