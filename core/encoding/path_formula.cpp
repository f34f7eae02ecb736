#include "core/encoding/path_formula.h"

#include <functional>
#include <stdexcept>
#include <unordered_set>


namespace argus::encoding {

using cfa::EdgeKind;
using smt::Term;

namespace {

size_t entryHash(SsaKey k, uint32_t idx) {  // splitmix64 of the pair
  uint64_t z = (static_cast<uint64_t>(k) << 32 | idx) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<size_t>(z ^ (z >> 31));
}

}  // namespace

void SsaMap::set(SsaKey k, uint32_t idx) {
  auto d = delta_.find(k);
  if (d != delta_.end()) {
    hash_ ^= entryHash(k, d->second) ^ entryHash(k, idx);
    d->second = idx;
    return;
  }
  if (base_)
    if (auto b = base_->find(k); b != base_->end()) hash_ ^= entryHash(k, b->second);
  hash_ ^= entryHash(k, idx);
  delta_.emplace(k, idx);
  const size_t n = base_ ? base_->size() : 0, m = delta_.size();
  if (m >= 16 && m * m >= n) {  // merge: amortised O(sqrt(size)) per entry set
    auto merged = base_ ? std::make_shared<std::map<SsaKey, uint32_t>>(*base_)
                        : std::make_shared<std::map<SsaKey, uint32_t>>();
    for (const auto& [key, i] : delta_) (*merged)[key] = i;
    base_ = std::move(merged);
    delta_.clear();
  }
}

std::map<SsaKey, uint32_t> SsaMap::entries() const {
  std::map<SsaKey, uint32_t> out = base_ ? *base_ : std::map<SsaKey, uint32_t>{};
  for (const auto& [k, i] : delta_) out[k] = i;
  return out;
}

bool SsaMap::operator==(const SsaMap& o) const {
  if (hash_ != o.hash_) return false;
  if (base_ == o.base_ && delta_ == o.delta_) return true;
  return entries() == o.entries();
}

PathFormulaManager::PathFormulaManager(const cfa::Program& prog, smt::TermManager& tm)
    : prog_(prog), tm_(tm), enc_(tm, prog.ptrWidth, cfa::zeroPageEnd(prog), false) {
  localsOf_.resize(prog.functions.size());
  for (cfa::VarId v = 0; v < prog.vars.size(); ++v)
    if (prog.vars[v].func != cfa::kNoFunc && prog.vars[v].func < localsOf_.size()) localsOf_[prog.vars[v].func].push_back(v);
  emptySsa_ = std::make_shared<SsaMap>();
}

std::string PathFormulaManager::keyName(SsaKey k) const {
  if (k == kMemKey) return "$mem";
  if (k == kBrkKey) return "$brk";
  return prog_.vars.at(k).name;
}

smt::Sort PathFormulaManager::keySort(SsaKey k) {
  if (k == kMemKey) return enc_.memSort();
  if (k == kBrkKey) return tm_.bvSort(prog_.ptrWidth);
  return tm_.bvSort(prog_.vars.at(k).width);
}

Term PathFormulaManager::indexed(SsaKey k, uint32_t idx) {
  uint64_t ck = (static_cast<uint64_t>(k) << 32) | idx;
  auto it = indexedCache_.find(ck);
  if (it != indexedCache_.end()) return it->second;
  Term t = tm_.var(keyName(k) + "@" + std::to_string(idx), keySort(k));
  indexedCache_[ck] = t;
  info_[t] = {k, idx, true};
  return t;
}

Term PathFormulaManager::unindexed(SsaKey k) {
  auto it = unindexedCache_.find(k);
  if (it != unindexedCache_.end()) return it->second;
  Term t = tm_.var(keyName(k), keySort(k));
  unindexedCache_[k] = t;
  info_[t] = {k, 0, false};
  return t;
}

const PathFormulaManager::VarInfo* PathFormulaManager::info(Term var) const {
  auto it = info_.find(var);
  return it == info_.end() ? nullptr : &it->second;
}

Term PathFormulaManager::instantiate(Term f, const SsaMap& ssa) {
  std::unordered_map<Term, Term> m;
  for (Term v : tm_.freeVars(f)) {
    const VarInfo* vi = info(v);
    if (vi && !vi->indexed) m[v] = current(vi->key, ssa);
  }
  return m.empty() ? f : tm_.substitute(f, m);
}

Term PathFormulaManager::uninstantiate(Term f) {
  std::unordered_map<Term, Term> m;
  for (Term v : tm_.freeVars(f)) {
    const VarInfo* vi = info(v);
    if (vi && vi->indexed) m[v] = unindexed(vi->key);
  }
  return m.empty() ? f : tm_.substitute(f, m);
}

Term PathFormulaManager::initialCondition() {
  return tm_.mkEq(unindexed(kBrkKey), tm_.bvVal(prog_.heapBase, prog_.ptrWidth));
}

PathFormula PathFormulaManager::empty() const { return {tm_.trueTerm(), emptySsa_}; }
PathFormula PathFormulaManager::emptyWithSsa(const PathFormula& pf) const { return {tm_.trueTerm(), pf.ssa}; }
PathFormula PathFormulaManager::conjoin(const PathFormula& pf, Term f) const { return {tm_.mkAnd(pf.formula, f), pf.ssa}; }

uint32_t PathFormulaManager::bump(SsaMap& ssa, SsaKey k) {
  uint32_t i = ssa.index(k) + 1;
  ssa.set(k, i);
  return i;
}

PathFormula PathFormulaManager::extend(const PathFormula& pf, const cfa::Step& step) {
  SsaMap ssa = *pf.ssa;
  const SsaMap& old = *pf.ssa;
  std::vector<Term> cs;
  Env env{[&](cfa::VarId v) { return current(v, old); }, current(kMemKey, old)};
  auto assign = [&](SsaKey k, Term value) { cs.push_back(tm_.mkEq(indexed(k, bump(ssa, k)), value)); };
  switch (step.kind) {
    case cfa::StepKind::CallEnter: {
      const cfa::Edge& e = prog_.functions[step.func].edges[step.edge];
      const cfa::Function& callee = prog_.functions[e.callee];
      std::vector<Term> args;
      for (size_t i = 0; i < callee.params.size() && i < e.args.size(); ++i) args.push_back(enc_.encode(e.args[i], env));
      for (cfa::VarId v : localsOf_[e.callee]) bump(ssa, v);  // a new frame: fresh values
      for (size_t i = 0; i < args.size(); ++i) cs.push_back(tm_.mkEq(current(callee.params[i], ssa), args[i]));
      break;
    }
    case cfa::StepKind::Return: {
      const cfa::Edge& call = prog_.functions[step.caller].edges[step.edge];
      const cfa::Function& callee = prog_.functions[step.func];
      if (call.lhs) {
        if (callee.retVar) assign(*call.lhs, current(*callee.retVar, old));
        else bump(ssa, *call.lhs);  // no return value: nondeterministic
      }
      break;
    }
    case cfa::StepKind::Start: {
      for (cfa::VarId p : prog_.functions[step.toFunc].params) bump(ssa, p);  // nondeterministic parameters
      break;
    }
    case cfa::StepKind::Edge: {
      const cfa::Edge& e = prog_.functions[step.func].edges[step.edge];
      switch (e.kind) {
        case EdgeKind::Assume: {
          Term c = enc_.nonZero(enc_.encode(e.cond, env));
          cs.push_back(e.positive ? c : tm_.mkNot(c));
          break;
        }
        case EdgeKind::Assign:
          assign(*e.lhs, enc_.encode(e.rhs, env));
          break;
        case EdgeKind::Havoc:
          bump(ssa, *e.lhs);
          break;
        case EdgeKind::Store: {
          Term m = enc_.store(current(kMemKey, old), enc_.encode(e.addr, env), enc_.encode(e.value, env), e.bytes);
          assign(kMemKey, m);
          break;
        }
        case EdgeKind::Alloc: {
          Term size = enc_.encode(e.size, env);
          encoding::ExprEncoder::Allocation a = enc_.allocate(current(kBrkKey, old), size);
          if (a.noWrap) cs.push_back(a.noWrap);
          assign(*e.lhs, a.base);
          assign(kBrkKey, a.next);
          if (e.zeroInit) {
            if (Term m = enc_.zeroFill(current(kMemKey, old), a.base, size)) {
              assign(kMemKey, m);
            } else {
              // A size that is not a constant: exact up to kSymbolicZeroFill bytes, above
              // that any memory contents (an over-approximation; a path through it that
              // the interpreter does not replay ends as unknown).
              encoding::ExprEncoder::BoundedFill z = enc_.zeroFillBounded(current(kMemKey, old), a.base, size);
              Term filled = indexed(kMemKey, bump(ssa, kMemKey));
              cs.push_back(tm_.mkOr(tm_.mkNot(z.fits), tm_.mkEq(filled, z.mem)));
            }
          }
          break;
        }
        case EdgeKind::Blank:
        case EdgeKind::Free:
        case EdgeKind::Return:
        case EdgeKind::Error:
        case EdgeKind::Abort:
        case EdgeKind::Unsupported:
          break;
        case EdgeKind::Call:
          throw std::logic_error("PathFormulaManager: a Call edge is a CallEnter step");
      }
      break;
    }
  }
  Term f = pf.formula;
  for (Term c : cs) f = tm_.mkAnd(f, c);
  return {f, ssa == old ? pf.ssa : std::make_shared<SsaMap>(std::move(ssa))};
}

PathFormula PathFormulaManager::makeOr(const PathFormula& a, const PathFormula& b) {
  SsaMap ssa = *a.ssa;
  std::vector<Term> ea, eb;
  std::unordered_set<SsaKey> keys;
  for (auto& [k, i] : a.ssa->entries()) keys.insert(k);
  for (auto& [k, i] : b.ssa->entries()) keys.insert(k);  // (merged copies)
  for (SsaKey k : keys) {
    uint32_t ia = a.ssa->index(k), ib = b.ssa->index(k);
    if (ia == ib) continue;
    uint32_t hi = std::max(ia, ib);
    ssa.set(k, hi);
    if (ia < hi) ea.push_back(tm_.mkEq(indexed(k, hi), indexed(k, ia)));
    else eb.push_back(tm_.mkEq(indexed(k, hi), indexed(k, ib)));
  }
  Term fa = a.formula, fb = b.formula;
  if (factorMerges_) {
    std::vector<Term> ca = conjuncts(fa), cb = conjuncts(fb);
    std::unordered_set<Term> inB(cb.begin(), cb.end());
    std::unordered_set<Term> common;
    std::vector<Term> shared, restA, restB;
    for (Term t : ca) {
      if (inB.count(t)) {
        shared.push_back(t);
        common.insert(t);
      } else {
        restA.push_back(t);
      }
    }
    for (Term t : cb)
      if (!common.count(t)) restB.push_back(t);
    restA.insert(restA.end(), ea.begin(), ea.end());
    restB.insert(restB.end(), eb.begin(), eb.end());
    shared.push_back(tm_.mkOr(tm_.mkAnd(restA), tm_.mkAnd(restB)));
    return {tm_.mkAnd(shared), std::make_shared<SsaMap>(std::move(ssa))};
  }
  for (Term t : ea) fa = tm_.mkAnd(fa, t);
  for (Term t : eb) fb = tm_.mkAnd(fb, t);
  return {tm_.mkOr(fa, fb), std::make_shared<SsaMap>(std::move(ssa))};
}

std::vector<Term> conjuncts(Term f) {
  std::vector<Term> out;
  std::vector<Term> work{f};
  std::unordered_set<Term> seen;
  while (!work.empty()) {
    Term t = work.back();
    work.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind == smt::Kind::And) {
      for (auto it = t->children.rbegin(); it != t->children.rend(); ++it) work.push_back(*it);
    } else if (!t->isTrue()) {
      out.push_back(t);
    }
  }
  return out;
}

std::vector<Term> atoms(Term f) {
  std::vector<Term> out;
  std::unordered_set<Term> seen;
  std::function<void(Term)> go = [&](Term t) {
    if (!seen.insert(t).second) return;
    switch (t->kind) {
      case smt::Kind::And:
      case smt::Kind::Or:
      case smt::Kind::Not:
      case smt::Kind::Implies:
      case smt::Kind::Xor:
        for (Term c : t->children) go(c);
        return;
      case smt::Kind::Ite:
        if (t->sort->isBool()) {
          for (Term c : t->children) go(c);
          return;
        }
        break;
      case smt::Kind::Eq:
        if (t->children[0]->sort->isBool()) {
          for (Term c : t->children) go(c);
          return;
        }
        break;
      case smt::Kind::BoolConst:
      case smt::Kind::Var:
        return;
      default:
        break;
    }
    if (t->sort->isBool()) out.push_back(t);
  };
  go(f);
  return out;
}

}  // namespace argus::encoding
