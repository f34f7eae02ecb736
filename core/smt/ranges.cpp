#include "core/smt/ranges.h"

#include <algorithm>

namespace argus::smt {

namespace {

using u128 = unsigned __int128;
using i128 = __int128;

uint64_t maxOf(uint32_t w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }

// The values of the integers lo..hi modulo 2^w (lo <= hi; |lo|, |hi| < 2^127).
Ranges wrap(i128 lo, i128 hi, uint32_t w) {
  const i128 mod = i128(1) << w;
  if (hi - lo >= mod - 1) return ValueRanges::full(w);
  i128 m = lo % mod;
  if (m < 0) m += mod;
  i128 top = m + (hi - lo);
  if (top < mod) return {{uint64_t(m), uint64_t(top)}};
  return ValueRanges::normalise({{0, uint64_t(top - mod)}, {uint64_t(m), uint64_t(mod - 1)}});
}

Interval hull(const Ranges& r) { return {r.front().lo, r.back().hi}; }

bool isSingle(const Ranges& r, uint64_t& v) {
  if (r.size() == 1 && r[0].lo == r[0].hi) {
    v = r[0].lo;
    return true;
  }
  return false;
}

}  // namespace

Ranges ValueRanges::full(uint32_t width) { return {{0, maxOf(width)}}; }

Ranges ValueRanges::normalise(Ranges r) {
  if (r.empty()) return r;
  std::sort(r.begin(), r.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  Ranges out;
  for (const Interval& i : r) {
    if (!out.empty() && (out.back().hi == ~uint64_t(0) || i.lo <= out.back().hi + 1)) {
      out.back().hi = std::max(out.back().hi, i.hi);
    } else {
      out.push_back(i);
    }
  }
  while (out.size() > kMaxIntervals) {  // merge across the smallest gap
    size_t best = 0;
    uint64_t gap = ~uint64_t(0);
    for (size_t k = 0; k + 1 < out.size(); ++k)
      if (out[k + 1].lo - out[k].hi < gap) {
        gap = out[k + 1].lo - out[k].hi;
        best = k;
      }
    out[best].hi = out[best + 1].hi;
    out.erase(out.begin() + static_cast<long>(best) + 1);
  }
  return out;
}

bool ValueRanges::meet(const Ranges& a, const Ranges& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].hi < b[j].lo) {
      ++i;
    } else if (b[j].hi < a[i].lo) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

Ranges ValueRanges::intersect(const Ranges& a, const Ranges& b) {
  Ranges out;
  for (const Interval& x : a)
    for (const Interval& y : b) {
      uint64_t lo = std::max(x.lo, y.lo), hi = std::min(x.hi, y.hi);
      if (lo <= hi) out.push_back({lo, hi});
    }
  return normalise(out);
}

bool ValueRanges::within(const Ranges& a, uint64_t lo, uint64_t hi) {
  for (const Interval& i : a)
    if (i.lo < lo || i.hi > hi) return false;
  return true;
}

const Ranges& ValueRanges::of(Term t) { return of(t, 0); }

const Ranges& ValueRanges::of(Term t, unsigned depth) {
  auto it = memo_.find(t);
  if (it != memo_.end()) return it->second;
  Ranges r = compute(t, depth);
  return memo_.emplace(t, std::move(r)).first->second;
}

Ranges ValueRanges::compute(Term t, unsigned depth) {
  if (!t->sort->isBV()) return full(64);
  const uint32_t w = t->width();
  if (w > 64) return full(64);  // never combined: every operand width below is checked
  if (t->kind == Kind::BVConst) return {{t->value, t->value}};
  if (depth >= kMaxDepth) return full(w);
  const auto& ch = t->children;
  auto sub = [&](Term c) -> const Ranges& { return of(c, depth + 1); };
  auto constOf = [](Term c, uint64_t& v) {
    if (c->kind != Kind::BVConst) return false;
    v = c->value;
    return true;
  };
  uint64_t k = 0;
  switch (t->kind) {
    case Kind::Ite: {
      // the else-chain iteratively (the byte reads' if-then-else chains are long)
      Ranges r;
      Term cur = t;
      for (int steps = 0; cur->kind == Kind::Ite && steps < 4096; ++steps) {
        const Ranges& a = sub(cur->children[1]);
        // `x <u k ? x : e` (`x <=u k`): x is below k where it is the value (an in-bounds
        // array index, core/frontend/lower_expr.cpp)
        const Term& c = cur->children[0];
        if ((c->kind == Kind::BVUlt || c->kind == Kind::BVUle) && c->children[0] == cur->children[1] &&
            constOf(c->children[1], k) && (k > 0 || c->kind == Kind::BVUle)) {
          Ranges in = intersect(a, {{0, c->kind == Kind::BVUlt ? k - 1 : k}});
          r.insert(r.end(), in.begin(), in.end());
        } else {
          r.insert(r.end(), a.begin(), a.end());
        }
        r = normalise(std::move(r));
        if (r.size() == 1 && r[0].lo == 0 && r[0].hi == maxOf(w)) return r;
        cur = cur->children[2];
      }
      const Ranges& b = cur->kind == Kind::Ite ? full(w) : sub(cur);
      r.insert(r.end(), b.begin(), b.end());
      return normalise(std::move(r));
    }
    case Kind::BVAdd:
    case Kind::BVSub: {
      if (ch.size() != 2) return full(w);
      const Ranges &a = sub(ch[0]), &b = sub(ch[1]);
      Ranges r;
      for (const Interval& x : a)
        for (const Interval& y : b) {
          Ranges p = t->kind == Kind::BVAdd ? wrap(i128(x.lo) + y.lo, i128(x.hi) + y.hi, w)
                                            : wrap(i128(x.lo) - y.hi, i128(x.hi) - y.lo, w);
          r.insert(r.end(), p.begin(), p.end());
        }
      return normalise(std::move(r));
    }
    case Kind::BVMul:
    case Kind::BVShl: {
      if (ch.size() != 2) return full(w);
      Term x = ch[0];
      if (t->kind == Kind::BVShl) {
        if (!constOf(ch[1], k) || k >= w) return full(w);
        k = uint64_t(1) << k;
      } else if (!constOf(ch[1], k)) {
        if (!constOf(ch[0], k)) return full(w);
        x = ch[1];
      }
      if (k > (uint64_t(1) << 62)) return full(w);  // keeps the products below 2^127
      const i128 half = i128(1) << (w - 1), mod = i128(1) << w;
      Ranges r;
      for (const Interval& i : sub(x)) {
        // the interval as signed numbers when it lies in the upper half (a negative index)
        i128 lo = i.lo, hi = i.hi;
        if (lo >= half) {
          lo -= mod;
          hi -= mod;
        }
        Ranges p = wrap(lo * i128(k), hi * i128(k), w);
        r.insert(r.end(), p.begin(), p.end());
      }
      return normalise(std::move(r));
    }
    case Kind::ZeroExt:
      return sub(ch[0]);
    case Kind::SignExt: {
      const uint32_t wa = ch[0]->width();
      const uint64_t halfA = uint64_t(1) << (wa - 1);
      const u128 shift = (u128(1) << w) - (u128(1) << wa);
      Ranges r;
      for (const Interval& i : sub(ch[0])) {
        if (i.lo < halfA) r.push_back({i.lo, std::min(i.hi, halfA - 1)});
        if (i.hi >= halfA) r.push_back({uint64_t(std::max(i.lo, halfA) + shift), uint64_t(i.hi + shift)});
      }
      return normalise(std::move(r));
    }
    case Kind::BVAnd: {
      uint64_t top = maxOf(w);
      for (Term c : ch) top = std::min(top, hull(sub(c)).hi);
      return {{0, top}};
    }
    case Kind::BVLShr:
    case Kind::BVUDiv: {
      if (ch.size() != 2 || !constOf(ch[1], k)) return full(w);
      if (t->kind == Kind::BVLShr && k >= w) return {{0, 0}};
      if (t->kind == Kind::BVUDiv && k == 0) return full(w);  // x / 0 is all ones
      Ranges r;
      for (const Interval& i : sub(ch[0]))
        r.push_back(t->kind == Kind::BVLShr ? Interval{i.lo >> k, i.hi >> k} : Interval{i.lo / k, i.hi / k});
      return normalise(std::move(r));
    }
    case Kind::BVURem: {
      if (ch.size() != 2 || !constOf(ch[1], k) || k == 0) return full(w);  // x % 0 is x
      return {{0, std::min(k - 1, hull(sub(ch[0])).hi)}};
    }
    case Kind::Concat: {
      const uint32_t wl = ch[1]->width();
      if (wl >= 64) return full(w);
      const Ranges &h = sub(ch[0]), &l = sub(ch[1]);
      uint64_t hv = 0;
      Ranges r;
      if (isSingle(h, hv)) {
        for (const Interval& i : l) r.push_back({(hv << wl) | i.lo, (hv << wl) | i.hi});
        return normalise(std::move(r));
      }
      return {{(hull(h).lo << wl) | hull(l).lo, (hull(h).hi << wl) | hull(l).hi}};
    }
    case Kind::Extract: {
      const uint32_t hiBit = t->p0, loBit = t->p1;
      const Ranges& a = sub(ch[0]);
      if (ch[0]->width() > 64) return full(w);
      if ((hull(a).hi >> loBit) > maxOf(hiBit - loBit + 1)) return full(w);
      Ranges r;
      for (const Interval& i : a) r.push_back({i.lo >> loBit, i.hi >> loBit});
      return normalise(std::move(r));
    }
    default:
      return full(w);
  }
}

}  // namespace argus::smt
