#include "core/encoding/expr_encoder.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::encoding {

using cfa::BinOp;
using cfa::ExprKind;
using smt::Term;

ExprEncoder::ExprEncoder(smt::TermManager& tm, uint32_t ptrWidth, uint64_t zeroPageEnd, bool symbolicZeroPage)
    : zeroPageEnd_(zeroPageEnd), symbolicZeroPage_(symbolicZeroPage), tm_(tm), ptrWidth_(ptrWidth) {
  memSort_ = tm_.arraySort(tm_.bvSort(ptrWidth), tm_.bvSort(8));
}

Term ExprEncoder::nonZero(Term bv) { return tm_.mkNot(tm_.mkEq(bv, tm_.bvVal(0, bv->width()))); }

static Term boolToBV(smt::TermManager& tm, Term b, uint32_t width) {
  return tm.mkIte(b, tm.bvVal(1, width), tm.bvVal(0, width));
}

Term ExprEncoder::readByte(Term mem, Term addr) {
  const smt::Ranges& r = ranges_.of(addr);
  if (zeroPageEnd_) {
    // every value the address can take is in the zero page: 0 (for predicate analysis
    // too: as exact as a constant address there)
    if (smt::ValueRanges::within(r, 0, zeroPageEnd_ - 1)) return tm_.bvVal(0, 8);
    const smt::Ranges page{{0, zeroPageEnd_ - 1}};
    // constants (and if-then-elses of constants) fold below; another address reads zero
    // when it is in the page, and the stores it is compared with are those above the page
    if (symbolicZeroPage_ && addr->kind != smt::Kind::BVConst && !smt::isConstTree(addr) &&
        smt::ValueRanges::meet(r, page)) {
      smt::Ranges above = smt::ValueRanges::intersect(r, {{zeroPageEnd_, ~uint64_t(0)}});
      return tm_.mkIte(tm_.bvUlt(addr, tm_.bvVal(zeroPageEnd_, ptrWidth_)), tm_.bvVal(0, 8),
                       readByte(mem, addr, 0, above));
    }
  }
  return readByte(mem, addr, 0, r);
}

const ExprEncoder::ConstSegment& ExprEncoder::constSegment(Term m) {
  auto hit = segments_.find(m);
  if (hit != segments_.end()) return hit->second;
  // the stores at constant indices from m down, then their segments from the bottom up
  std::vector<Term> chain;
  Term cur = m;
  while (cur->kind == smt::Kind::Store && cur->children[1]->kind == smt::Kind::BVConst && !segments_.count(cur)) {
    chain.push_back(cur);
    cur = cur->children[0];
  }
  ConstSegment below;
  if (auto it = segments_.find(cur); it != segments_.end()) below = it->second;
  else below = {cur, 1, 0};  // empty: lo > hi
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    uint64_t j = (*it)->children[1]->value;
    ConstSegment s = below;
    if (s.lo > s.hi) {
      s.lo = s.hi = j;
    } else {
      s.lo = std::min(s.lo, j);
      s.hi = std::max(s.hi, j);
    }
    below = segments_.emplace(*it, s).first->second;
  }
  return segments_.at(m);
}

Term ExprEncoder::readByte(Term mem, Term addr, unsigned depth, const smt::Ranges& where) {
  if (zeroPageEnd_ && addr->kind == smt::Kind::BVConst && addr->value < zeroPageEnd_) return tm_.bvVal(0, 8);
  auto key = std::make_pair(mem, addr);
  auto hit = reads_.find(key);
  if (hit != reads_.end()) return hit->second;
  // an address that is one of a few constants (smt::isConstTree): one read per constant,
  // each resolved against the stores at constant addresses
  if (addr->kind == smt::Kind::Ite && smt::isConstTree(addr) && depth < 64) {
    Term r = tm_.mkIte(addr->children[0], readByte(mem, addr->children[1], depth + 1, ranges_.of(addr->children[1])),
                       readByte(mem, addr->children[2], depth + 1, ranges_.of(addr->children[2])));
    reads_.emplace(key, r);
    return r;
  }
  std::vector<std::pair<Term, Term>> cases;  // (addr = j, value), outermost first
  std::unordered_set<Term> shadowed;        // indices a store above writes (its case came first)
  struct Run {
    Term base;  // nullptr: constant indices
    uint64_t lo, hi;
  };
  std::vector<Run> shadowedRuns;  // base + [lo, hi] a run above covers
  auto isShadowed = [&](const Term& j) {
    if (shadowed.count(j)) return true;
    if (shadowedRuns.empty()) return false;
    Term b;
    uint64_t o;
    smt::splitOffset(j, b, o);
    for (auto& r : shadowedRuns)
      if (r.base == b && r.lo <= o && o <= r.hi) return true;
    return false;
  };
  Term m = mem, below = nullptr;
  for (size_t steps = 0; !below; ++steps) {
    if (steps >= kWalkSteps) {
      below = tm_.select(m, addr);
    } else if (m->kind == smt::Kind::Store) {
      Term j = m->children[1];
      Term run = nullptr;  // the end of a run of equal stores at consecutive indices
      Term base = nullptr;
      uint64_t lo = 0, hi = 0;
      if (j == addr) {
        below = m->children[2];
      } else if (j->kind == smt::Kind::BVConst && !segmentMeets(m, where)) {
        m = constSegment(m).bottom;  // a run of stores at constant indices the read cannot see
      } else if (smt::provablyDistinct(j, addr) || isShadowed(j) || !smt::ValueRanges::meet(ranges_.of(j), where)) {
        m = m->children[0];
      } else if (cases.size() >= kExpandStores || expanded_ >= kExpandBudget) {
        below = tm_.select(m, addr);
      } else if ((run = storeRun(m, base, lo, hi))) {
        // One case for the whole run: every store of it writes the same value, and the
        // stores above that could shadow part of it come first in the if-then-else.
        // On a base b: addr in b+lo .. b+hi iff addr - (b+lo) <= hi - lo (modulo 2^w,
        // the run does not wrap its offsets).
        if (!base && !smt::ValueRanges::meet(where, {{lo, hi}})) {
          m = run;
          continue;
        }
        Term inRun = base ? tm_.bvUle(tm_.bvSub(addr, tm_.bvAdd(base, tm_.bvVal(lo, ptrWidth_))),
                                      tm_.bvVal(hi - lo, ptrWidth_))
                          : tm_.mkAnd(tm_.bvUle(tm_.bvVal(lo, ptrWidth_), addr),
                                      tm_.bvUle(addr, tm_.bvVal(hi, ptrWidth_)));
        cases.emplace_back(inRun, m->children[2]);
        ++expanded_;
        shadowedRuns.push_back({base, lo, hi});
        m = run;
      } else {
        cases.emplace_back(tm_.mkEq(addr, j), m->children[2]);
        ++expanded_;
        shadowed.insert(j);
        m = m->children[0];
      }
    } else if (m->kind == smt::Kind::Ite && depth < 64) {
      below = tm_.mkIte(m->children[0], readByte(m->children[1], addr, depth + 1, where),
                        readByte(m->children[2], addr, depth + 1, where));
    } else {
      below = tm_.select(m, addr);  // an array variable, a constant array, or too deep
    }
  }
  for (auto it = cases.rbegin(); it != cases.rend(); ++it) below = tm_.mkIte(it->first, it->second, below);
  reads_.emplace(key, below);
  return below;
}

Term ExprEncoder::storeRun(Term m, Term& base, uint64_t& lo, uint64_t& hi) const {
  Term v = m->children[2];
  smt::splitOffset(m->children[1], base, lo);
  hi = lo;
  const uint64_t top = ptrWidth_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << ptrWidth_) - 1;
  int dir = 0;  // -1: offsets fall going down the chain, +1: they rise
  size_t n = 1;
  Term below = m->children[0];
  while (below->kind == smt::Kind::Store && below->children[2] == v) {
    Term b;
    uint64_t k;
    smt::splitOffset(below->children[1], b, k);
    if (b != base) break;
    if (dir <= 0 && lo > 0 && k == lo - 1) {
      dir = -1;
      lo = k;
    } else if (dir >= 0 && hi < top && k == hi + 1) {
      dir = 1;
      hi = k;
    } else {
      break;
    }
    ++n;
    below = below->children[0];
  }
  return n >= (base ? kMinSymbolicRun : kMinRun) ? below : nullptr;
}

Term ExprEncoder::load(Term mem, Term addr, uint32_t bytes) {
  Term r = nullptr;
  for (uint32_t i = 0; i < bytes; ++i) {
    Term a = i == 0 ? addr : tm_.bvAdd(addr, tm_.bvVal(i, ptrWidth_));
    Term b = readByte(mem, a);
    r = r ? tm_.concat(b, r) : b;  // higher addresses are more significant
  }
  return r;
}

Term ExprEncoder::store(Term mem, Term addr, Term value, uint32_t bytes) {
  for (uint32_t i = 0; i < bytes; ++i) {
    Term a = i == 0 ? addr : tm_.bvAdd(addr, tm_.bvVal(i, ptrWidth_));
    mem = tm_.store(mem, a, tm_.extract(value, 8 * i + 7, 8 * i));
  }
  return mem;
}

Term ExprEncoder::allocStep(Term size) {
  Term one = tm_.bvVal(1, ptrWidth_);
  Term s = tm_.mkIte(tm_.bvUlt(size, one), one, size);
  Term seven = tm_.bvVal(7, ptrWidth_);
  return tm_.bvAnd(tm_.bvAdd(s, seven), tm_.bvNot(seven));
}

ExprEncoder::Allocation ExprEncoder::allocate(Term brk, Term size) {
  Allocation a;
  a.base = brk;
  a.next = tm_.bvAdd(brk, allocStep(size));
  if (!size->isConst() || size->value >= (uint64_t(1) << (ptrWidth_ - 2))) a.noWrap = tm_.bvUlt(a.base, a.next);
  return a;
}

// A block beyond 1 MiB (calloc(n, size) with a huge constant n, often on a path that is
// infeasible) is not filled store by store.
bool ExprEncoder::canZeroFill(const Term& size) { return size->isConst() && size->value <= (uint64_t(1) << 20); }

Term ExprEncoder::zeroFill(Term mem, Term base, Term size) {
  if (!canZeroFill(size)) return nullptr;
  cfa::forEachChunk(size->value, [&](uint64_t off, uint32_t chunk) {
    Term a = off ? tm_.bvAdd(base, tm_.bvVal(off, ptrWidth_)) : base;
    mem = store(mem, a, tm_.bvVal(0, chunk * 8), chunk);
  });
  return mem;
}

ExprEncoder::BoundedFill ExprEncoder::zeroFillBounded(Term mem, Term base, Term size) {
  BoundedFill f;
  f.fits = tm_.bvUle(size, tm_.bvVal(kSymbolicZeroFill, size->width()));
  for (uint64_t i = 0; i < kSymbolicZeroFill; ++i) {
    Term a = i ? tm_.bvAdd(base, tm_.bvVal(i, ptrWidth_)) : base;
    Term inside = tm_.bvUlt(tm_.bvVal(i, size->width()), size);
    mem = store(mem, a, tm_.mkIte(inside, tm_.bvVal(0, 8), load(mem, a, 1)), 1);
  }
  f.mem = mem;
  return f;
}

// Floating point: CFA values are IEEE bit images (core/cfa/expr.h); an operation reads
// its operands as FP terms and gives back the bits of its result.
Term ExprEncoder::fp(Term bits) { return tm_.fpFromBits(bits, tm_.fpSortOfWidth(bits->width())); }

Term ExprEncoder::encode(const cfa::ExprPtr& e, const Env& env) {
  switch (e->kind) {
    case ExprKind::Const:
      return tm_.bvVal(e->value, e->width);
    case ExprKind::Var:
      return env.var(e->var);
    case ExprKind::Load:
      return load(env.mem, encode(e->ops[0], env), e->width / 8);
    case ExprKind::Unary: {
      Term a = encode(e->ops[0], env);
      switch (e->unop) {
        case cfa::UnOp::Neg: return tm_.bvNeg(a);
        case cfa::UnOp::BitNot: return tm_.bvNot(a);
        case cfa::UnOp::LogNot: return boolToBV(tm_, tm_.mkEq(a, tm_.bvVal(0, a->width())), e->width);
        case cfa::UnOp::FSqrt: return tm_.fpToBits(tm_.fpSqrt(fp(a)));
        case cfa::UnOp::FRint: return tm_.fpToBits(tm_.fpRoundToIntegral(fp(a), smt::RoundingMode::RNE));
        case cfa::UnOp::FFloor: return tm_.fpToBits(tm_.fpRoundToIntegral(fp(a), smt::RoundingMode::RTN));
        case cfa::UnOp::FCeil: return tm_.fpToBits(tm_.fpRoundToIntegral(fp(a), smt::RoundingMode::RTP));
        case cfa::UnOp::FTrunc: return tm_.fpToBits(tm_.fpRoundToIntegral(fp(a), smt::RoundingMode::RTZ));
        case cfa::UnOp::FRound: return tm_.fpToBits(tm_.fpRoundToIntegral(fp(a), smt::RoundingMode::RNA));
      }
      break;
    }
    case ExprKind::Cast: {
      Term a = encode(e->ops[0], env);
      uint32_t from = a->width();
      switch (e->cast) {
        case cfa::CastKind::ZExt: return e->width > from ? tm_.zeroExt(a, e->width - from) : a;
        case cfa::CastKind::SExt: return e->width > from ? tm_.signExt(a, e->width - from) : a;
        case cfa::CastKind::Trunc: return e->width < from ? tm_.extract(a, e->width - 1, 0) : a;
        case cfa::CastKind::ToBool: return boolToBV(tm_, nonZero(a), e->width);
        case cfa::CastKind::FToF: return tm_.fpToBits(tm_.fpToFP(fp(a), tm_.fpSortOfWidth(e->width)));
        case cfa::CastKind::SToF: return tm_.fpToBits(tm_.sbvToFP(a, tm_.fpSortOfWidth(e->width)));
        case cfa::CastKind::UToF: return tm_.fpToBits(tm_.ubvToFP(a, tm_.fpSortOfWidth(e->width)));
        case cfa::CastKind::FToS: return tm_.fpToSBV(fp(a), e->width);
        case cfa::CastKind::FToU: return tm_.fpToUBV(fp(a), e->width);
      }
      break;
    }
    case ExprKind::Ite: {
      Term c = encode(e->ops[0], env);
      return tm_.mkIte(nonZero(c), encode(e->ops[1], env), encode(e->ops[2], env));
    }
    case ExprKind::Binary: {
      Term a = encode(e->ops[0], env);
      Term b = encode(e->ops[1], env);
      uint32_t w = e->width;
      switch (e->binop) {
        case BinOp::Add: return tm_.bvAdd(a, b);
        case BinOp::Sub: return tm_.bvSub(a, b);
        case BinOp::Mul: return tm_.bvMul(a, b);
        case BinOp::SDiv: return tm_.bvSDiv(a, b);
        case BinOp::UDiv: return tm_.bvUDiv(a, b);
        case BinOp::SRem: return tm_.bvSRem(a, b);
        case BinOp::URem: return tm_.bvURem(a, b);
        case BinOp::Shl: return tm_.bvShl(a, b);
        case BinOp::LShr: return tm_.bvLShr(a, b);
        case BinOp::AShr: return tm_.bvAShr(a, b);
        case BinOp::And: return tm_.bvAnd(a, b);
        case BinOp::Or: return tm_.bvOr(a, b);
        case BinOp::Xor: return tm_.bvXor(a, b);
        case BinOp::Eq: return boolToBV(tm_, tm_.mkEq(a, b), w);
        case BinOp::Ne: return boolToBV(tm_, tm_.mkNot(tm_.mkEq(a, b)), w);
        case BinOp::SLt: return boolToBV(tm_, tm_.bvSlt(a, b), w);
        case BinOp::SLe: return boolToBV(tm_, tm_.bvSle(a, b), w);
        case BinOp::ULt: return boolToBV(tm_, tm_.bvUlt(a, b), w);
        case BinOp::ULe: return boolToBV(tm_, tm_.bvUle(a, b), w);
        case BinOp::LAnd: return boolToBV(tm_, tm_.mkAnd(nonZero(a), nonZero(b)), w);
        case BinOp::LOr: return boolToBV(tm_, tm_.mkOr(nonZero(a), nonZero(b)), w);
        case BinOp::FAdd: return tm_.fpToBits(tm_.fpAdd(fp(a), fp(b)));
        case BinOp::FSub: return tm_.fpToBits(tm_.fpSub(fp(a), fp(b)));
        case BinOp::FMul: return tm_.fpToBits(tm_.fpMul(fp(a), fp(b)));
        case BinOp::FDiv: return tm_.fpToBits(tm_.fpDiv(fp(a), fp(b)));
        case BinOp::FEq: return boolToBV(tm_, tm_.fpEq(fp(a), fp(b)), w);
        case BinOp::FLt: return boolToBV(tm_, tm_.fpLt(fp(a), fp(b)), w);
        case BinOp::FLe: return boolToBV(tm_, tm_.fpLe(fp(a), fp(b)), w);
        case BinOp::FRem: return tm_.fpToBits(tm_.fpRem(fp(a), fp(b)));
      }
      break;
    }
  }
  throw std::logic_error("ExprEncoder: unknown expression kind");
}

}  // namespace argus::encoding
