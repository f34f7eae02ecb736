#include "core/algorithms/kinduction/interval_invariants.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <deque>
#include <set>
#include <sstream>

namespace argus::algorithms {

using cfa::BinOp;
using cfa::CastKind;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprKind;
using cfa::ExprPtr;
using cfa::UnOp;
using i128 = __int128;

namespace {

i128 smin(uint32_t w) { return -(static_cast<i128>(1) << (w - 1)); }
i128 smax(uint32_t w) { return (static_cast<i128>(1) << (w - 1)) - 1; }
i128 pow2(uint32_t w) { return static_cast<i128>(1) << w; }
Itv top(uint32_t w) { return {static_cast<int64_t>(smin(w)), static_cast<int64_t>(smax(w))}; }
bool isTop(const Itv& a, uint32_t w) { return a == top(w); }

// x modulo 2^w, in the signed range
i128 wrapS(i128 x, uint32_t w) {
  i128 m = pow2(w);
  i128 r = x % m;
  if (r < 0) r += m;
  if (r > smax(w)) r -= m;
  return r;
}

// The values {lo..hi} (exact integers) taken modulo 2^w.
Itv fromExact(i128 lo, i128 hi, uint32_t w) {
  if (hi - lo >= pow2(w)) return top(w);
  i128 a = wrapS(lo, w), b = wrapS(hi, w);
  if (a > b) return top(w);
  return {static_cast<int64_t>(a), static_cast<int64_t>(b)};
}

// Unsigned view of a signed-view interval: the hull of the unsigned values.
std::pair<i128, i128> uview(const Itv& a, uint32_t w) {
  if (a.lo >= 0) return {a.lo, a.hi};
  if (a.hi < 0) return {a.lo + pow2(w), a.hi + pow2(w)};
  return {0, pow2(w) - 1};
}

int64_t constSigned(uint64_t v, uint32_t w) {
  if (w >= 64) return static_cast<int64_t>(v);
  uint64_t m = (uint64_t(1) << w) - 1;
  v &= m;
  if (v >> (w - 1)) return static_cast<int64_t>(v) - static_cast<int64_t>(uint64_t(1) << w);
  return static_cast<int64_t>(v);
}

Itv join(const Itv& a, const Itv& b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
bool contains(const Itv& a, int64_t x) { return a.lo <= x && x <= a.hi; }
Itv bool01(bool canTrue, bool canFalse) { return {canFalse ? 0 : 1, canTrue ? 1 : 0}; }

// A memory cell of the object table (the memory-safety layout): `bytes` bytes at addr.
struct MemCell {
  uint64_t addr;
  uint32_t bytes;
  Itv v;  // of the cell's 8 * bytes bits
};

struct AbsState {
  bool bottom = true;
  std::vector<Itv> v;  // per flat var, plus brk last
  std::vector<MemCell> mem;  // known cells (any other byte: any value); may overlap after a meet
};

class Analysis {
public:
  Analysis(const FlatProgram& fp, int level, const std::atomic<bool>* stop)
      : fp_(fp), prog_(*fp.prog), level_(level), stop_(stop) {
    nv_ = fp.vars.size() + 1;
    widths_.resize(nv_);
    for (size_t i = 0; i < fp.vars.size(); ++i) widths_[i] = fp.vars[i].width;
    widths_[nv_ - 1] = prog_.ptrWidth;
    for (uint32_t w : widths_)
      if (w < 2 || w > 64) supported_ = false;
    if (prog_.objectBits) tableEnd_ = uint64_t(1) << prog_.objectBits;
    collectThresholds();
  }

  std::optional<IntervalInvariant> run() {
    if (!supported_) return std::nullopt;  // 1-bit or wider-than-64-bit values: not modelled
    size_t nn = fp_.nodes.size();
    if (nn * nv_ > 10'000'000) return std::nullopt;  // too large to keep a state per node (16 bytes a fact)
    X_.assign(nn, AbsState{});
    visits_.assign(nn, 0);
    AbsState init;
    init.bottom = false;
    init.v.resize(nv_);
    for (size_t i = 0; i < nv_; ++i) init.v[i] = top(widths_[i]);
    init.v[nv_ - 1] = fromExact(prog_.heapBase, prog_.heapBase, prog_.ptrWidth);
    X_[fp_.root] = init;
    // ascending iteration with widening at the cut points, until every edge is stable
    std::deque<uint32_t> work{fp_.root};
    std::vector<bool> queued(nn, false);
    queued[fp_.root] = true;
    size_t steps = 0;
    while (!work.empty()) {
      if ((++steps & 255) == 0 && stop_ && stop_->load()) return std::nullopt;
      uint32_t n = work.front();
      work.pop_front();
      queued[n] = false;
      if (X_[n].bottom) continue;
      for (uint32_t ei : fp_.nodes[n].out) {
        const FlatEdge& e = fp_.edges[ei];
        AbsState post = transfer(X_[n], e);
        if (post.bottom) continue;
        if (update(e.to, post)) {
          if (!queued[e.to]) {
            queued[e.to] = true;
            work.push_back(e.to);
          }
        }
      }
    }
    // descending iterations: X := X ⊓ F(X) (F sound, X a post-fixpoint)
    for (int round = 0; round < 3; ++round) {
      if (stop_ && stop_->load()) return std::nullopt;
      std::vector<AbsState> next(nn);
      next[fp_.root] = init;
      for (uint32_t n = 0; n < nn; ++n) {
        if (X_[n].bottom) continue;
        for (uint32_t ei : fp_.nodes[n].out) {
          const FlatEdge& e = fp_.edges[ei];
          AbsState post = transfer(X_[n], e);
          if (post.bottom) continue;
          joinInto(next[e.to], post);
        }
      }
      for (uint32_t n = 0; n < nn; ++n) {
        if (next[n].bottom || X_[n].bottom) {
          X_[n].bottom = true;
          X_[n].v.clear();
          continue;
        }
        for (size_t i = 0; i < nv_; ++i) {
          X_[n].v[i].lo = std::max(X_[n].v[i].lo, next[n].v[i].lo);
          X_[n].v[i].hi = std::min(X_[n].v[i].hi, next[n].v[i].hi);
          if (X_[n].v[i].lo > X_[n].v[i].hi) {  // cannot happen for sound F; be safe: keep F's value
            X_[n].v[i] = next[n].v[i];
          }
        }
        // cells: both are sound, so each cell either knows holds (same cell: the meet)
        for (const MemCell& c : next[n].mem) {
          auto it = std::find_if(X_[n].mem.begin(), X_[n].mem.end(),
                                 [&](const MemCell& x) { return x.addr == c.addr && x.bytes == c.bytes; });
          if (it == X_[n].mem.end()) {
            if (X_[n].mem.size() < kMaxCells) X_[n].mem.push_back(c);
            continue;
          }
          Itv m{std::max(it->v.lo, c.v.lo), std::min(it->v.hi, c.v.hi)};
          it->v = m.lo > m.hi ? c.v : m;
        }
      }
    }
    IntervalInvariant out;
    out.level = level_;
    out.errorUnreachable = true;
    for (const FlatEdge& e : fp_.edges)
      if (e.kind == FlatEdge::Kind::Cfa && (e.edge->kind == EdgeKind::Error || e.edge->kind == EdgeKind::Unsupported) &&
          !X_[e.from].bottom)
        out.errorUnreachable = false;
    out.atCut.resize(fp_.cuts.size());
    for (size_t c = 0; c < fp_.cuts.size(); ++c) {
      const AbsState& s = X_[fp_.cuts[c]];
      CutInvariant& ci = out.atCut[c];
      if (s.bottom) {
        ci.unreachable = true;
        continue;
      }
      std::vector<IntervalFact> facts;
      for (size_t i = 0; i < nv_; ++i)
        if (!isTop(s.v[i], widths_[i])) facts.push_back({static_cast<FlatVar>(i), widths_[i], s.v[i]});
      for (const MemCell& m : s.mem)
        if (!isTop(m.v, 8 * m.bytes)) facts.push_back({IntervalFact::kMemCell, 8 * m.bytes, m.v, m.addr});
      ci.alternatives.push_back(std::move(facts));
    }
    return out;
  }

private:
  const FlatProgram& fp_;
  const cfa::Program& prog_;
  int level_;
  const std::atomic<bool>* stop_;
  size_t nv_;
  std::vector<uint32_t> widths_;
  std::vector<AbsState> X_;
  std::vector<uint32_t> visits_;
  std::vector<int64_t> thresholds_;  // sorted
  bool supported_ = true;
  // The memory-safety layout's object table: addresses below tableEnd_ (0: not tracked).
  uint64_t tableEnd_ = 0;
  static constexpr size_t kMaxCells = 256;  // per state; more cells are forgotten (any value)

  // Forgets the cells that overlap the addresses [lo, hi).
  static void forget(AbsState& s, i128 lo, i128 hi) {
    std::erase_if(s.mem, [&](const MemCell& c) {
      return static_cast<i128>(c.addr) < hi && lo < static_cast<i128>(c.addr) + c.bytes;
    });
  }
  // A store of `bytes` bytes at an address in [lo, hi] (unsigned) with value v.
  void storeAt(AbsState& s, i128 lo, i128 hi, uint32_t bytes, Itv v) {
    i128 end = hi + bytes, space = pow2(prog_.ptrWidth);
    if (end > space) forget(s, 0, end - space);  // wraps around to address 0
    if (lo >= static_cast<i128>(tableEnd_)) return;
    forget(s, lo, end);
    if (lo != hi || end > static_cast<i128>(tableEnd_) || bytes == 0 || bytes > 8 || isTop(v, 8 * bytes) ||
        s.mem.size() >= kMaxCells)
      return;
    s.mem.push_back({static_cast<uint64_t>(lo), bytes, v});
  }
  // The value of the `bytes` bytes at address a, if a known cell holds them.
  std::optional<Itv> loadAt(const AbsState& s, uint64_t a, uint32_t bytes) const {
    for (const MemCell& c : s.mem) {
      if (a < c.addr || static_cast<i128>(a) + bytes > static_cast<i128>(c.addr) + c.bytes) continue;
      if (c.addr == a && c.bytes == bytes) return c.v;
      if (c.v.lo != c.v.hi) continue;  // a part of a cell: only of a known constant
      uint64_t val = static_cast<uint64_t>(c.v.lo) >> (8 * (a - c.addr));
      return Itv{constSigned(val, 8 * bytes), constSigned(val, 8 * bytes)};
    }
    return std::nullopt;
  }

  void collectThresholds() {
    std::set<int64_t> t;
    std::vector<const Expr*> stack;
    auto addExpr = [&](const ExprPtr& e) {
      if (e) stack.push_back(e.get());
    };
    for (const cfa::Function& f : prog_.functions)
      for (const cfa::Edge& e : f.edges) {
        addExpr(e.cond);
        addExpr(e.rhs);
        addExpr(e.value);
        addExpr(e.size);
        for (auto& a : e.args) addExpr(a);
      }
    while (!stack.empty()) {
      const Expr* e = stack.back();
      stack.pop_back();
      if (e->width < 1 || e->width > 64) supported_ = false;  // 1-bit: conditions (eval)
      if (e->kind == ExprKind::Const && level_ >= 1 && t.size() <= 2000) {
        int64_t c = constSigned(e->value, e->width);
        for (int64_t d = -1; d <= 1; ++d)
          if ((d < 0 && c > INT64_MIN) || (d > 0 && c < INT64_MAX) || d == 0) t.insert(c + d);
      }
      for (auto& o : e->ops) stack.push_back(o.get());
    }
    thresholds_.assign(t.begin(), t.end());
  }

  // join (or widen at cut points) post into X[t]; true if X[t] changed
  bool update(uint32_t t, const AbsState& post) {
    AbsState& x = X_[t];
    if (x.bottom) {
      x = post;
      return true;
    }
    bool changed = false;
    bool cut = fp_.nodes[t].cut >= 0;
    bool widen = false;
    if (cut) {
      ++visits_[t];
      uint32_t delay = level_ >= 2 ? 4 : 0;
      widen = visits_[t] > delay;
    }
    for (size_t i = 0; i < nv_; ++i) {
      Itv& a = x.v[i];
      const Itv& b = post.v[i];
      uint32_t w = widths_[i];
      if (b.lo < a.lo) {
        changed = true;
        a.lo = widen ? lowerThreshold(b.lo, w) : b.lo;
      }
      if (b.hi > a.hi) {
        changed = true;
        a.hi = widen ? upperThreshold(b.hi, w) : b.hi;
      }
    }
    // a cell stays known only if post knows it too
    std::vector<MemCell> keep;
    for (MemCell& c : x.mem) {
      auto it = std::find_if(post.mem.begin(), post.mem.end(),
                             [&](const MemCell& p) { return p.addr == c.addr && p.bytes == c.bytes; });
      if (it == post.mem.end()) {
        changed = true;
        continue;
      }
      uint32_t w = 8 * c.bytes;
      if (it->v.lo < c.v.lo) {
        changed = true;
        c.v.lo = widen ? lowerThreshold(it->v.lo, w) : it->v.lo;
      }
      if (it->v.hi > c.v.hi) {
        changed = true;
        c.v.hi = widen ? upperThreshold(it->v.hi, w) : it->v.hi;
      }
      keep.push_back(c);
    }
    x.mem = std::move(keep);
    return changed;
  }

  int64_t upperThreshold(int64_t x, uint32_t w) {
    int64_t mx = static_cast<int64_t>(smax(w));
    if (level_ >= 1) {
      auto it = std::lower_bound(thresholds_.begin(), thresholds_.end(), x);
      if (it != thresholds_.end() && *it <= mx) return *it;
    }
    return mx;
  }
  int64_t lowerThreshold(int64_t x, uint32_t w) {
    int64_t mn = static_cast<int64_t>(smin(w));
    if (level_ >= 1) {
      auto it = std::upper_bound(thresholds_.begin(), thresholds_.end(), x);
      if (it != thresholds_.begin() && *std::prev(it) >= mn) return *std::prev(it);
    }
    return mn;
  }

  void joinInto(AbsState& a, const AbsState& b) {
    if (b.bottom) return;
    if (a.bottom) {
      a = b;
      return;
    }
    for (size_t i = 0; i < nv_; ++i) a.v[i] = join(a.v[i], b.v[i]);
    std::vector<MemCell> both;
    for (const MemCell& c : a.mem)
      for (const MemCell& d : b.mem)
        if (c.addr == d.addr && c.bytes == d.bytes) both.push_back({c.addr, c.bytes, join(c.v, d.v)});
    a.mem = std::move(both);
  }

  FlatVar fv(uint32_t inst, cfa::VarId v) const { return fp_.varOf(inst, v); }

  // 1-bit values are the conditions of the program (comparisons, && and ||, the checks of
  // the properties: no-overflow, div-by-zero, shift, memory safety) and hold {0, 1} as
  // unsigned numbers, the convention of bool01; what is not a condition is any of the two.
  Itv eval(const ExprPtr& e, const AbsState& s, uint32_t inst) {
    if (e->width != 1) return evalValue(e, s, inst);
    switch (e->kind) {
      case ExprKind::Const:
        return {static_cast<int64_t>(e->value & 1), static_cast<int64_t>(e->value & 1)};
      case ExprKind::Unary:
        return e->unop == UnOp::LogNot ? evalValue(e, s, inst) : Itv{0, 1};
      case ExprKind::Cast:
        return e->cast == CastKind::ToBool ? evalValue(e, s, inst) : Itv{0, 1};
      case ExprKind::Ite:
        return evalValue(e, s, inst);
      case ExprKind::Binary:
        switch (e->binop) {
          case BinOp::Eq: case BinOp::Ne: case BinOp::ULt: case BinOp::ULe: case BinOp::LAnd: case BinOp::LOr:
          case BinOp::FEq: case BinOp::FLt: case BinOp::FLe:
            return evalValue(e, s, inst);
          case BinOp::SLt: case BinOp::SLe:
            return e->ops[0]->width > 1 ? evalValue(e, s, inst) : Itv{0, 1};
          default:
            return {0, 1};
        }
      default:
        return {0, 1};
    }
  }

  Itv evalValue(const ExprPtr& e, const AbsState& s, uint32_t inst) {
    uint32_t w = e->width;
    switch (e->kind) {
      case ExprKind::Const:
        if (w > 64) return top(64);
        return {constSigned(e->value, w), constSigned(e->value, w)};
      case ExprKind::Var: {
        FlatVar x = fv(inst, e->var);
        if (x == UINT32_MAX) return top(w);
        return s.v[x];
      }
      case ExprKind::Load:
        if (tableEnd_ && !s.mem.empty()) {
          auto [lo, hi] = uview(eval(e->ops[0], s, inst), prog_.ptrWidth);
          if (lo == hi && lo < static_cast<i128>(tableEnd_))
            if (std::optional<Itv> c = loadAt(s, static_cast<uint64_t>(lo), w / 8)) return *c;
        }
        return top(w);
      case ExprKind::Unary: {
        Itv a = eval(e->ops[0], s, inst);
        switch (e->unop) {
          case UnOp::Neg: return fromExact(-static_cast<i128>(a.hi), -static_cast<i128>(a.lo), w);
          case UnOp::BitNot: return fromExact(-static_cast<i128>(a.hi) - 1, -static_cast<i128>(a.lo) - 1, w);
          case UnOp::LogNot: return bool01(contains(a, 0), !(a.lo == 0 && a.hi == 0));
          // floating point on bit images: any value
          case UnOp::FSqrt: case UnOp::FRint: case UnOp::FFloor: case UnOp::FCeil: case UnOp::FTrunc:
          case UnOp::FRound:
            return top(w);
        }
        return top(w);
      }
      case ExprKind::Cast: {
        const ExprPtr& o = e->ops[0];
        Itv a = eval(o, s, inst);
        uint32_t ow = o->width;
        switch (e->cast) {
          case CastKind::SExt:
            if (w < ow) return top(w);
            if (ow == 1) return {a.hi == 1 ? -1 : 0, a.lo == 1 ? -1 : 0};  // true is all ones
            return a;
          case CastKind::ZExt: {
            if (w < ow) return top(w);
            auto [ulo, uhi] = uview(a, ow);
            return fromExact(ulo, uhi, w);
          }
          case CastKind::Trunc: return fromExact(a.lo, a.hi, w);
          case CastKind::ToBool: return bool01(!(a.lo == 0 && a.hi == 0), contains(a, 0));
          case CastKind::FToF: case CastKind::SToF: case CastKind::UToF: case CastKind::FToS: case CastKind::FToU:
            return top(w);  // floating point: any value
        }
        return top(w);
      }
      case ExprKind::Ite: {
        Itv c = eval(e->ops[0], s, inst);
        bool canTrue = !(c.lo == 0 && c.hi == 0), canFalse = contains(c, 0);
        if (!canFalse) return eval(e->ops[1], s, inst);
        if (!canTrue) return eval(e->ops[2], s, inst);
        // each branch under its condition (the condition is pure)
        AbsState st = s, se = s;
        refine(e->ops[0], true, st, inst);
        refine(e->ops[0], false, se, inst);
        if (st.bottom && se.bottom) return join(eval(e->ops[1], s, inst), eval(e->ops[2], s, inst));
        if (st.bottom) return eval(e->ops[2], se, inst);
        if (se.bottom) return eval(e->ops[1], st, inst);
        return join(eval(e->ops[1], st, inst), eval(e->ops[2], se, inst));
      }
      case ExprKind::Binary:
        return evalBinary(e, s, inst);
    }
    return top(w);
  }

  Itv evalBinary(const ExprPtr& e, const AbsState& s, uint32_t inst) {
    uint32_t w = e->width;
    uint32_t ow = e->ops[0]->width;
    Itv a = eval(e->ops[0], s, inst), b = eval(e->ops[1], s, inst);
    i128 alo = a.lo, ahi = a.hi, blo = b.lo, bhi = b.hi;
    switch (e->binop) {
      case BinOp::Add: return fromExact(alo + blo, ahi + bhi, w);
      case BinOp::Sub: return fromExact(alo - bhi, ahi - blo, w);
      case BinOp::Mul: {
        // operands have at most 64 bits, so the products fit 128 bits
        i128 p[4] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
        return fromExact(*std::min_element(p, p + 4), *std::max_element(p, p + 4), w);
      }
      case BinOp::SDiv:
        if (a.lo >= 0 && b.lo >= 1) return fromExact(alo / bhi, ahi / blo, w);
        return top(w);
      case BinOp::UDiv: {
        auto [ulo, uhi] = uview(a, w);
        auto [vlo, vhi] = uview(b, w);
        if (vlo < 1) return top(w);
        return fromExact(ulo / vhi, uhi / vlo, w);
      }
      case BinOp::SRem:
        if (a.lo >= 0 && b.lo >= 1) return fromExact(0, std::min(ahi, bhi - 1), w);
        if (b.lo >= 1) return fromExact(-(bhi - 1), bhi - 1, w);
        return top(w);
      case BinOp::URem: {
        auto [ulo, uhi] = uview(a, w);
        auto [vlo, vhi] = uview(b, w);
        if (vlo < 1) return top(w);
        return fromExact(0, std::min(uhi, vhi - 1), w);
      }
      case BinOp::And: {
        if (a.lo >= 0 && b.lo >= 0) return {0, std::min(a.hi, b.hi)};
        if (a.lo >= 0) return {0, a.hi};
        if (b.lo >= 0) return {0, b.hi};
        return top(w);
      }
      case BinOp::Or:
      case BinOp::Xor: {
        if (a.lo >= 0 && b.lo >= 0) {
          int64_t m = std::max(a.hi, b.hi);
          int64_t p = 1;
          while (p <= m && p < (INT64_MAX >> 1)) p <<= 1;
          return fromExact(0, static_cast<i128>(p) * 2 - 1 > smax(w) ? smax(w) : static_cast<i128>(p) * 2 - 1, w);
        }
        return top(w);
      }
      case BinOp::LShr:
        if (a.lo >= 0 && b.lo >= 0 && b.hi < static_cast<int64_t>(w)) return {a.lo >> b.hi, a.hi >> b.lo};
        return top(w);
      case BinOp::AShr:
        if (b.lo >= 0 && b.hi < static_cast<int64_t>(w))
          return {std::min(a.lo >> b.lo, a.lo >> b.hi), std::max(a.hi >> b.lo, a.hi >> b.hi)};
        return top(w);
      case BinOp::Shl:
        if (b.lo == b.hi && b.lo >= 0 && b.lo < static_cast<int64_t>(w) && b.lo < 60)
          return fromExact(alo * (static_cast<i128>(1) << b.lo), ahi * (static_cast<i128>(1) << b.lo), w);
        return top(w);
      case BinOp::Eq:
        if (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo) return {1, 1};
        if (a.hi < b.lo || b.hi < a.lo) return {0, 0};
        return {0, 1};
      case BinOp::Ne:
        if (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo) return {0, 0};
        if (a.hi < b.lo || b.hi < a.lo) return {1, 1};
        return {0, 1};
      case BinOp::SLt: return bool01(a.lo < b.hi, a.hi >= b.lo);
      case BinOp::SLe: return bool01(a.lo <= b.hi, a.hi > b.lo);
      case BinOp::ULt: {
        auto [ulo, uhi] = uview(a, ow);
        auto [vlo, vhi] = uview(b, ow);
        return bool01(ulo < vhi, uhi >= vlo);
      }
      case BinOp::ULe: {
        auto [ulo, uhi] = uview(a, ow);
        auto [vlo, vhi] = uview(b, ow);
        return bool01(ulo <= vhi, uhi > vlo);
      }
      case BinOp::LAnd: {
        bool aT = !(a.lo == 0 && a.hi == 0), aF = contains(a, 0);
        bool bT = !(b.lo == 0 && b.hi == 0), bF = contains(b, 0);
        return bool01(aT && bT, aF || bF);
      }
      case BinOp::LOr: {
        bool aT = !(a.lo == 0 && a.hi == 0), aF = contains(a, 0);
        bool bT = !(b.lo == 0 && b.hi == 0), bF = contains(b, 0);
        return bool01(aT || bT, aF && bF);
      }
      case BinOp::FEq: case BinOp::FLt: case BinOp::FLe:
        return bool01(true, true);  // floating-point comparison: 0 or 1
      case BinOp::FAdd: case BinOp::FSub: case BinOp::FMul: case BinOp::FDiv: case BinOp::FRem:
        return top(w);  // floating point on bit images: any value
    }
    return top(w);
  }

  // Restricts s so that (e != 0) == positive may hold; bottom when it cannot.
  void refine(const ExprPtr& e, bool positive, AbsState& s, uint32_t inst, int depth = 0) {
    if (s.bottom || depth > 8) return;
    Itv c = eval(e, s, inst);
    bool canTrue = !(c.lo == 0 && c.hi == 0), canFalse = contains(c, 0);
    if ((positive && !canTrue) || (!positive && !canFalse)) {
      s.bottom = true;
      return;
    }
    if (e->kind == ExprKind::Cast && e->cast == CastKind::ToBool) return refine(e->ops[0], positive, s, inst, depth + 1);
    if (e->kind == ExprKind::Cast && (e->cast == CastKind::ZExt || e->cast == CastKind::SExt))
      return refine(e->ops[0], positive, s, inst, depth + 1);  // nonzero-ness is preserved by extension
    if (e->kind == ExprKind::Unary && e->unop == UnOp::LogNot) return refine(e->ops[0], !positive, s, inst, depth + 1);
    if (e->kind == ExprKind::Var) {
      if (!positive) restrictVar(e, {0, 0}, s, inst);
      return;
    }
    if (e->kind != ExprKind::Binary) return;
    BinOp op = e->binop;
    if ((op == BinOp::LAnd && positive) || (op == BinOp::LOr && !positive)) {
      refine(e->ops[0], positive, s, inst, depth + 1);
      refine(e->ops[1], positive, s, inst, depth + 1);
      return;
    }
    if (e->ops[0]->width == 1 && (op == BinOp::SLt || op == BinOp::SLe)) return;  // 1-bit signed order: not modelled
    // comparisons: normalise to a relation that holds
    bool unsignedCmp = op == BinOp::ULt || op == BinOp::ULe;
    if (unsignedCmp) {
      // only when both operands are non-negative in the signed view (then the orders agree)
      Itv a = eval(e->ops[0], s, inst), b = eval(e->ops[1], s, inst);
      if (a.lo < 0 || b.lo < 0) return;
      op = op == BinOp::ULt ? BinOp::SLt : BinOp::SLe;
    }
    const ExprPtr& l = e->ops[0];
    const ExprPtr& r = e->ops[1];
    switch (op) {
      case BinOp::Eq:
      case BinOp::Ne: {
        bool eq = (op == BinOp::Eq) == positive;
        Itv a = eval(l, s, inst), b = eval(r, s, inst);
        if (eq) {
          Itv m{std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
          if (m.lo > m.hi) {
            s.bottom = true;
            return;
          }
          restrictVar(l, m, s, inst);
          restrictVar(r, m, s, inst);
        } else {
          if (b.lo == b.hi) excludeValue(l, b.lo, s, inst);
          if (a.lo == a.hi) excludeValue(r, a.lo, s, inst);
        }
        return;
      }
      case BinOp::SLt:
      case BinOp::SLe: {
        bool strict = op == BinOp::SLt;
        // positive: l < r (or <=); negative: l >= r (or >) i.e. r <= l (or <)
        const ExprPtr& lo = positive ? l : r;
        const ExprPtr& hi = positive ? r : l;
        bool st = positive ? strict : !strict;
        Itv a = eval(lo, s, inst), b = eval(hi, s, inst);
        // lo <= hi - st  and  hi >= lo + st
        i128 maxLo = static_cast<i128>(b.hi) - (st ? 1 : 0);
        i128 minHi = static_cast<i128>(a.lo) + (st ? 1 : 0);
        restrictVar(lo, {a.lo, static_cast<int64_t>(std::min<i128>(a.hi, maxLo))}, s, inst, maxLo < a.lo);
        if (s.bottom) return;
        restrictVar(hi, {static_cast<int64_t>(std::max<i128>(b.lo, minHi)), b.hi}, s, inst, minHi > b.hi);
        return;
      }
      default:
        return;
    }
  }

  // Meets the variable under e (a Var, possibly sign-extended) with m.
  void restrictVar(const ExprPtr& e, Itv m, AbsState& s, uint32_t inst, bool empty = false) {
    if (empty || m.lo > m.hi) {
      s.bottom = true;
      return;
    }
    const Expr* x = e.get();
    if (x->kind == ExprKind::Cast && x->cast == CastKind::SExt) {
      x = x->ops[0].get();
      uint32_t w = x->width;
      m.lo = static_cast<int64_t>(std::max<i128>(m.lo, smin(w)));
      m.hi = static_cast<int64_t>(std::min<i128>(m.hi, smax(w)));
      if (m.lo > m.hi) {
        s.bottom = true;
        return;
      }
    }
    if (x->kind != ExprKind::Var) return;
    FlatVar v = fv(inst, x->var);
    if (v == UINT32_MAX) return;
    Itv& cur = s.v[v];
    Itv n{std::max(cur.lo, m.lo), std::min(cur.hi, m.hi)};
    if (n.lo > n.hi) {
      s.bottom = true;
      return;
    }
    cur = n;
  }

  void excludeValue(const ExprPtr& e, int64_t val, AbsState& s, uint32_t inst) {
    const Expr* x = e.get();
    if (x->kind != ExprKind::Var) return;
    FlatVar v = fv(inst, x->var);
    if (v == UINT32_MAX) return;
    Itv& cur = s.v[v];
    if (cur.lo == val && cur.hi == val) {
      s.bottom = true;
      return;
    }
    if (cur.lo == val) ++cur.lo;
    else if (cur.hi == val) --cur.hi;
  }

  void setVar(AbsState& s, uint32_t inst, cfa::VarId v, Itv val) {
    FlatVar x = fv(inst, v);
    if (x != UINT32_MAX) s.v[x] = val;
  }

  AbsState transfer(const AbsState& in, const FlatEdge& fe) {
    AbsState s = in;
    switch (fe.kind) {
      case FlatEdge::Kind::Start: {
        const cfa::Function& ef = prog_.functions[fp_.entry];
        for (cfa::VarId p : ef.params) setVar(s, fe.calleeInst, p, top(prog_.vars[p].width));
        return s;
      }
      case FlatEdge::Kind::CallEnter: {
        const cfa::Function& callee = prog_.functions[fe.edge->callee];
        std::vector<Itv> args;
        for (size_t i = 0; i < callee.params.size() && i < fe.edge->args.size(); ++i)
          args.push_back(eval(fe.edge->args[i], in, fe.inst));
        for (FlatVar x : fp_.instLocals[fe.calleeInst]) s.v[x] = top(widths_[x]);
        for (size_t i = 0; i < callee.params.size(); ++i)
          setVar(s, fe.calleeInst, callee.params[i], i < args.size() ? args[i] : top(prog_.vars[callee.params[i]].width));
        return s;
      }
      case FlatEdge::Kind::Return: {
        const cfa::Function& callee = prog_.functions[fp_.instances[fe.calleeInst].func];
        if (fe.edge->lhs) {
          uint32_t w = prog_.vars[*fe.edge->lhs].width;
          Itv rv = callee.retVar ? s.v[fv(fe.calleeInst, *callee.retVar)] : top(w);
          setVar(s, fe.inst, *fe.edge->lhs, rv);
        }
        return s;
      }
      case FlatEdge::Kind::Cfa:
        break;
    }
    const cfa::Edge& e = *fe.edge;
    switch (e.kind) {
      case EdgeKind::Assume:
        refine(e.cond, e.positive, s, fe.inst);
        return s;
      case EdgeKind::Assign:
        setVar(s, fe.inst, *e.lhs, eval(e.rhs, in, fe.inst));
        return s;
      case EdgeKind::Havoc:
        setVar(s, fe.inst, *e.lhs, top(prog_.vars[*e.lhs].width));
        return s;
      case EdgeKind::Alloc: {
        uint32_t pw = prog_.ptrWidth;
        Itv brk = in.v[nv_ - 1];
        Itv size = eval(e.size, in, fe.inst);
        auto [slo, shi] = uview(size, pw);
        auto step = [](i128 x) { return ((std::max<i128>(x, 1) + 7) / 8) * 8; };
        auto [blo, bhi] = uview(brk, pw);
        setVar(s, fe.inst, *e.lhs, brk);
        s.v[nv_ - 1] = fromExact(blo + step(slo), bhi + step(shi), pw);
        if (tableEnd_ && e.zeroInit && blo < static_cast<i128>(tableEnd_)) forget(s, blo, bhi + step(shi));
        return s;
      }
      case EdgeKind::Store: {
        if (!tableEnd_) return s;
        auto [lo, hi] = uview(eval(e.addr, in, fe.inst), prog_.ptrWidth);
        storeAt(s, lo, hi, e.bytes, e.bytes <= 8 ? eval(e.value, in, fe.inst) : Itv{0, 0});
        return s;
      }
      default:
        return s;  // Blank, Free, Return, Error, Abort: no register effect
    }
  }
};

}  // namespace

std::optional<IntervalInvariant> computeIntervals(const FlatProgram& fp, int level, const std::atomic<bool>* stop) {
  if (!fp.unusable.empty()) return std::nullopt;
  Analysis a(fp, level, stop);
  return a.run();
}

bool adds(const IntervalInvariant& a, const IntervalInvariant& b) {
  if (a.atCut.size() != b.atCut.size()) return true;
  for (size_t c = 0; c < a.atCut.size(); ++c) {
    const CutInvariant& x = a.atCut[c];
    const CutInvariant& y = b.atCut[c];
    if (x.unreachable) continue;
    if (y.unreachable) return true;
    if (x.alternatives.size() != 1 || y.alternatives.size() != 1) {
      if (x.alternatives.size() != y.alternatives.size()) return true;
      continue;
    }
    // y adds something if some fact of y is not implied by x's fact on that variable
    for (const IntervalFact& fy : y.alternatives[0]) {
      bool implied = false;
      for (const IntervalFact& fx : x.alternatives[0])
        if (fx.var == fy.var && fx.addr == fy.addr && fx.width == fy.width && fx.itv.lo >= fy.itv.lo &&
            fx.itv.hi <= fy.itv.hi)
          implied = true;
      if (!implied) return true;
    }
  }
  return false;
}

static std::string factString(const FlatProgram& fp, const IntervalFact& f) {
  std::string name = f.var < fp.vars.size() ? fp.varName(f.var) : std::string("__brk");
  bool isSigned = f.var < fp.vars.size() && fp.vars[f.var].isSigned;
  std::ostringstream o;
  if (f.itv.lo == f.itv.hi && (isSigned || f.itv.lo >= 0)) {
    o << name << " == " << f.itv.lo;
    return o.str();
  }
  i128 mn = smin(f.width), mx = smax(f.width);
  if (!isSigned) {
    auto [ulo, uhi] = uview(f.itv, f.width);
    if (f.itv.lo < 0 && f.itv.hi >= 0) {
      o << "(" << name << " <= " << static_cast<uint64_t>(f.itv.hi) << " || " << name
        << " >= " << static_cast<uint64_t>(f.itv.lo + pow2(f.width)) << ")";
      return o.str();
    }
    if (ulo == uhi) {
      o << name << " == " << static_cast<uint64_t>(ulo);
      return o.str();
    }
    bool hasLo = ulo > 0, hasHi = uhi < pow2(f.width) - 1;
    if (hasLo) o << static_cast<uint64_t>(ulo) << " <= " << name;
    if (hasLo && hasHi) o << " && ";
    if (hasHi) o << name << " <= " << static_cast<uint64_t>(uhi);
    return o.str();
  }
  bool hasLo = f.itv.lo > mn, hasHi = f.itv.hi < mx;
  if (hasLo) o << f.itv.lo << " <= " << name;
  if (hasLo && hasHi) o << " && ";
  if (hasHi) o << name << " <= " << f.itv.hi;
  return o.str();
}

std::string formulaString(const FlatProgram& fp, const CutInvariant& inv) {
  if (inv.unreachable) return "false";
  std::vector<std::string> alts;
  for (const auto& conj : inv.alternatives) {
    std::string s;
    for (const IntervalFact& f : conj) {
      if (f.isMem()) continue;  // the object table: internal, not a C expression
      if (!s.empty()) s += " && ";
      s += factString(fp, f);
    }
    alts.push_back(s.empty() ? "true" : s);
  }
  if (alts.empty()) return "false";
  if (alts.size() == 1) return alts[0];
  std::string s;
  for (auto& a : alts) s += (s.empty() ? "(" : " || (") + a + ")";
  return s;
}

IntervalGenerator::IntervalGenerator(std::shared_ptr<const FlatProgram> fp, int maxLevel)
    : fp_(std::move(fp)), maxLevel_(maxLevel) {}

IntervalGenerator::~IntervalGenerator() { stop(); }

void IntervalGenerator::start() {
  thread_ = std::thread([this] {
    auto a0 = std::chrono::steady_clock::now();
    try {
      std::optional<AffineInvariant> aff = computeAffine(*fp_, &stop_);
      affineSeconds_.store(std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count());
      if (aff && aff->count() > 0) {
        {
          std::lock_guard<std::mutex> lk(mu_);
          affine_ = std::move(aff);
        }
        cv_.notify_all();
      }
    } catch (...) {  // out of memory, or a defect: no equalities rather than a dead process
    }
    std::optional<IntervalInvariant> best;
    for (int level = 0; level <= maxLevel_ && !stop_.load(); ++level) {
      std::optional<IntervalInvariant> r;
      try {
        r = computeIntervals(*fp_, level, &stop_);
      } catch (...) {  // out of memory, or a defect: no invariant rather than a dead process
        break;
      }
      if (!r) continue;
      if (best && !adds(*best, *r)) continue;
      best = r;
      {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.push_back(std::move(*r));
      }
      cv_.notify_all();
    }
    finished_.store(true);
    cv_.notify_all();
  });
}

void IntervalGenerator::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

std::vector<IntervalInvariant> IntervalGenerator::take() {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<IntervalInvariant> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

std::optional<AffineInvariant> IntervalGenerator::takeAffine() {
  std::lock_guard<std::mutex> lk(mu_);
  std::optional<AffineInvariant> out = std::move(affine_);
  affine_.reset();
  return out;
}

void IntervalGenerator::waitForResult(unsigned timeoutMs) {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait_for(lk, std::chrono::milliseconds(timeoutMs),
               [&] { return !queue_.empty() || affine_.has_value() || finished_.load(); });
}

}  // namespace argus::algorithms
