// smt::ValueRanges (core/smt/ranges.h, issue 29): the intervals of a term must hold its
// value in every assignment (checked on random terms against a concrete evaluator that
// does not use the analysis), and must be tight enough for the shapes the memory
// encoding meets: a record array behind a nullable pointer, a negative index.
#include <functional>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/smt/ranges.h"
#include "core/smt/term.h"

namespace argus::smt {
namespace {

uint64_t maskOf(uint32_t w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }

// Bit-vector semantics of the kinds the analysis reads (widths <= 64).
struct Eval {
  std::map<std::string, uint64_t> env;
  std::map<Term, uint64_t> memo;
  uint64_t value(Term t) {
    if (auto it = memo.find(t); it != memo.end()) return it->second;
    const uint32_t w = t->sort->isBool() ? 1 : t->width();
    auto v = [&](int i) { return value(t->children[i]); };
    uint64_t r = 0;
    switch (t->kind) {
      case Kind::BVConst:
      case Kind::BoolConst: r = t->value; break;
      case Kind::Var:
        if (!env.count(t->name)) throw std::logic_error("Eval: no value for " + t->name);
        r = env.at(t->name) & maskOf(w);
        break;
      case Kind::Ite: r = v(0) ? v(1) : v(2); break;
      case Kind::Eq: r = v(0) == v(1); break;
      case Kind::BVUlt: r = v(0) < v(1); break;
      case Kind::BVUle: r = v(0) <= v(1); break;
      case Kind::BVAdd: r = v(0) + v(1); break;
      case Kind::BVSub: r = v(0) - v(1); break;
      case Kind::BVMul: r = v(0) * v(1); break;
      case Kind::BVShl: r = v(1) >= w ? 0 : v(0) << v(1); break;
      case Kind::BVLShr: r = v(1) >= w ? 0 : v(0) >> v(1); break;
      case Kind::BVUDiv: r = v(1) == 0 ? maskOf(w) : v(0) / v(1); break;
      case Kind::BVURem: r = v(1) == 0 ? v(0) : v(0) % v(1); break;
      case Kind::BVAnd: r = v(0) & v(1); break;
      case Kind::ZeroExt: r = v(0); break;
      case Kind::SignExt: {
        uint32_t wa = t->children[0]->width();
        uint64_t a = v(0);
        r = (a >> (wa - 1)) & 1 ? a | ~maskOf(wa) : a;
        break;
      }
      case Kind::Concat: r = (v(0) << t->children[1]->width()) | v(1); break;
      case Kind::Extract: r = v(0) >> t->p1; break;
      default: throw std::logic_error(std::string("Eval: ") + kindName(t->kind));
    }
    r &= maskOf(w);
    memo.emplace(t, r);
    return r;
  }
};

bool contains(const Ranges& r, uint64_t v) {
  for (const Interval& i : r)
    if (i.lo <= v && v <= i.hi) return true;
  return false;
}

// Random terms of width 8, 16, 32 or 64 over a few variables, with constants chosen near
// the edges (wrap-around, the sign bit) as often as anywhere.
struct Gen {
  TermManager& tm;
  std::mt19937_64 rng;
  uint64_t constant(uint32_t w) {
    switch (rng() % 4) {
      case 0: return rng() & maskOf(w);
      case 1: return (rng() % 100) & maskOf(w);
      case 2: return (maskOf(w) - rng() % 100) & maskOf(w);
      default: return ((uint64_t(1) << (w - 1)) + rng() % 200 - 100) & maskOf(w);
    }
  }
  Term term(uint32_t w, int depth) {
    if (depth == 0 || rng() % 6 == 0) {
      if (rng() % 2) return tm.bvVal(constant(w), w);
      return tm.var("v" + std::to_string(rng() % 3) + "_" + std::to_string(w), tm.bvSort(w));
    }
    const uint32_t widths[] = {8, 16, 32};
    switch (rng() % 13) {
      case 0: return tm.mkIte(tm.mkEq(term(w, depth - 1), term(w, depth - 1)), term(w, depth - 1), term(w, depth - 1));
      case 1: return tm.bvAdd(term(w, depth - 1), term(w, depth - 1));
      case 2: return tm.bvSub(term(w, depth - 1), term(w, depth - 1));
      case 3: return tm.bvMul(term(w, depth - 1), tm.bvVal(constant(w), w));
      case 4: return tm.bvShl(term(w, depth - 1), tm.bvVal(rng() % (w + 2), w));
      case 5: return tm.bvLShr(term(w, depth - 1), tm.bvVal(rng() % (w + 2), w));
      case 6: return tm.bvAnd(term(w, depth - 1), tm.bvVal(constant(w), w));
      case 7: return rng() % 2 ? tm.bvUDiv(term(w, depth - 1), tm.bvVal(rng() % 50, w))
                               : tm.bvURem(term(w, depth - 1), tm.bvVal(rng() % 50, w));
      case 8:
      case 9: {
        uint32_t n = widths[rng() % 3];
        if (n >= w) return term(w, depth - 1);
        Term a = term(n, depth - 1);
        return rng() % 2 ? tm.zeroExt(a, w - n) : tm.signExt(a, w - n);
      }
      case 10: {
        uint32_t n = widths[rng() % 3];
        if (n >= w) return term(w, depth - 1);
        return tm.concat(term(w - n, depth - 1), term(n, depth - 1));
      }
      case 11: {  // an in-bounds index: x <u k ? x : e (x <=u k)
        Term x = term(w, depth - 1);
        Term k = tm.bvVal(constant(w), w);
        return tm.mkIte(rng() % 2 ? tm.bvUlt(x, k) : tm.bvUle(x, k), x, term(w, depth - 1));
      }
      default: {
        uint32_t lo = rng() % 8;
        uint32_t wider = w + lo <= 64 ? w + lo : 64;
        if (wider - lo != w) return term(w, depth - 1);
        return tm.extract(term(wider, depth - 1), w + lo - 1, lo);
      }
    }
  }
};

TEST(ValueRanges, HoldEveryValueOfRandomTerms) {
  TermManager tm;
  Gen gen{tm, std::mt19937_64(29)};
  const uint32_t widths[] = {8, 16, 32, 64};
  size_t narrow = 0;
  for (int n = 0; n < 3000; ++n) {
    uint32_t w = widths[n % 4];
    Term t = gen.term(w, 1 + n % 5);
    ValueRanges vr;
    const Ranges& r = vr.of(t);
    ASSERT_FALSE(r.empty());
    ASSERT_LE(r.size(), ValueRanges::kMaxIntervals);
    for (size_t k = 1; k < r.size(); ++k) ASSERT_LT(r[k - 1].hi, r[k].lo) << t->str();
    if (!(r.size() == 1 && r[0].lo == 0 && r[0].hi == maskOf(w))) ++narrow;
    for (int a = 0; a < 20; ++a) {
      Eval ev;
      for (int i = 0; i < 3; ++i)
        for (uint32_t vw = 1; vw <= 64; ++vw) ev.env["v" + std::to_string(i) + "_" + std::to_string(vw)] = gen.constant(vw);
      uint64_t v = ev.value(t);
      ASSERT_TRUE(contains(r, v)) << t->str() << " = " << v;
    }
  }
  EXPECT_GT(narrow, 600u);  // the test would pass with "everything is full": it must not be
}

TEST(ValueRanges, ARecordArrayBehindANullablePointer) {
  TermManager tm;
  ValueRanges vr;
  const uint64_t K = (uint64_t(1) << 40) + 0x2a000;
  Term c = tm.var("c", tm.boolSort());
  Term i = tm.var("i", tm.bvSort(32));
  Term base = tm.mkIte(c, tm.bvVal(0, 64), tm.bvVal(K, 64));
  // p->a[i - 1].f: base + zext(i - 1) * 72 + 8
  Term addr = tm.bvAdd(tm.bvAdd(base, tm.bvMul(tm.zeroExt(tm.bvAdd(i, tm.bvVal(0xffffffff, 32)), 32), tm.bvVal(72, 64))),
                       tm.bvVal(8, 64));
  const uint64_t span = uint64_t(0xffffffff) * 72;
  Ranges r = vr.of(addr);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].lo, 8u);
  EXPECT_EQ(r[0].hi, 8 + span);
  EXPECT_EQ(r[1].lo, K + 8);
  EXPECT_EQ(r[1].hi, K + 8 + span);
  EXPECT_TRUE(ValueRanges::within({r[0]}, 0, (uint64_t(1) << 40) - 1));  // the null side: in the zero page
  EXPECT_FALSE(ValueRanges::meet(r, {{uint64_t(1) << 40, K + 7}}));      // nothing between the page and K
  // a negative int index: sext(i) * 72 lies within 2^31 * 72 of the base on either side
  Term neg = tm.bvAdd(tm.bvVal(K, 64), tm.bvMul(tm.signExt(i, 32), tm.bvVal(72, 64)));
  Ranges n = vr.of(neg);
  EXPECT_EQ(n, (Ranges{{K - (uint64_t(1) << 31) * 72, K - 72}, {K, K + ((uint64_t(1) << 31) - 1) * 72}}));
  // a pointer that is one of a few objects, read back byte by byte (constants and
  // concatenations), and a full-width unknown
  EXPECT_EQ(vr.of(tm.concat(tm.bvVal(0, 56), tm.mkIte(c, tm.bvVal(3, 8), tm.bvVal(9, 8)))), (Ranges{{3, 3}, {9, 9}}));
  EXPECT_EQ(vr.of(tm.var("p", tm.bvSort(64))), ValueRanges::full(64));
}

// An element of a declared array read at an in-bounds index (core/frontend/lower_expr.cpp
// writes the index `i <u N ? i : 0`): the array's own bytes, wherever i may be outside.
TEST(ValueRanges, AnInBoundsIndexStaysInItsArray) {
  TermManager tm;
  ValueRanges vr;
  const uint64_t K = (uint64_t(1) << 40) + 0x700;
  Term i = tm.signExt(tm.var("i", tm.bvSort(32)), 32);
  Term in = tm.mkIte(tm.bvUlt(i, tm.bvVal(148, 64)), i, tm.bvVal(0, 64));
  // aKWOffset[i]: u16 elements
  EXPECT_EQ(vr.of(tm.bvAdd(tm.bvVal(K, 64), tm.bvMul(in, tm.bvVal(2, 64)))), (Ranges{{K, K + 147 * 2}}));
  // `<=` and an else branch that is not 0
  Term le = tm.mkIte(tm.bvUle(i, tm.bvVal(9, 64)), i, tm.bvVal(100, 64));
  EXPECT_EQ(vr.of(le), (Ranges{{0, 9}, {100, 100}}));
  // the bound must be on the value itself: `j <u N ? i : 0` says nothing of i
  Term j = tm.signExt(tm.var("j", tm.bvSort(32)), 32);
  EXPECT_EQ(vr.of(tm.mkIte(tm.bvUlt(j, tm.bvVal(148, 64)), i, tm.bvVal(0, 64))), vr.of(i));
}

TEST(ValueRanges, MeetAndIntersect) {
  Ranges a{{0, 9}, {20, 29}}, b{{10, 19}}, c{{25, 40}};
  EXPECT_FALSE(ValueRanges::meet(a, b));
  EXPECT_TRUE(ValueRanges::meet(a, c));
  EXPECT_EQ(ValueRanges::intersect(a, c), (Ranges{{25, 29}}));
  EXPECT_TRUE(ValueRanges::within(a, 0, 29));
  EXPECT_FALSE(ValueRanges::within(a, 0, 28));
  // adjacent intervals join; beyond kMaxIntervals the two closest merge
  Ranges many = ValueRanges::normalise({{0, 0}, {10, 10}, {11, 11}, {100, 100}, {1000, 1000}, {5000, 5000}});
  EXPECT_EQ(many, (Ranges{{0, 11}, {100, 100}, {1000, 1000}, {5000, 5000}}));
}

}  // namespace
}  // namespace argus::smt
