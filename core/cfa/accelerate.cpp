#include "core/cfa/accelerate.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace argus::cfa {

namespace {

uint64_t maskOf(uint32_t w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }

bool mentions(const Expr& e, const std::map<VarId, uint64_t>& vars) {
  if (e.kind == ExprKind::Var) return vars.count(e.var) != 0;
  for (const auto& o : e.ops)
    if (o && mentions(*o, vars)) return true;
  return false;
}

// e with every variable of `sub` replaced.
ExprPtr substitute(const ExprPtr& e, const std::map<VarId, ExprPtr>& sub) {
  switch (e->kind) {
    case ExprKind::Const: return e;
    case ExprKind::Var: {
      auto it = sub.find(e->var);
      return it == sub.end() ? e : it->second;
    }
    case ExprKind::Load: return Expr::mkLoad(substitute(e->ops[0], sub), e->width / 8);
    case ExprKind::Unary: return Expr::mkUnary(e->unop, substitute(e->ops[0], sub));
    case ExprKind::Binary:
      return Expr::mkBinary(e->binop, substitute(e->ops[0], sub), substitute(e->ops[1], sub), e->width);
    case ExprKind::Cast: return Expr::mkCast(e->cast, substitute(e->ops[0], sub), e->width);
    case ExprKind::Ite:
      return Expr::mkIte(substitute(e->ops[0], sub), substitute(e->ops[1], sub), substitute(e->ops[2], sub));
  }
  return e;
}

// A compiler temporary copied from a variable in the body (`i++`: t := i; i := t + 1):
// after an iteration it holds v's value at the copy, v_before + dv.
struct TempCopy {
  VarId t, v;
  uint64_t dv;
};

struct Cycle {
  std::map<VarId, uint64_t> delta;
  std::map<VarId, TempCopy> temps;
};

// The loop body from L: the deltas of the updated variables (and the temporaries), or
// nullopt if the cycle is not a single path of translations back to L.
std::optional<Cycle> translationCycle(const Program& p, const Function& f, LocId L, LocId first) {
  Cycle cy;
  std::map<VarId, uint64_t>& delta = cy.delta;
  LocId at = first;
  for (int steps = 0; at != L; ++steps) {
    if (steps > 64 || at >= f.locs.size()) return std::nullopt;
    const Location& loc = f.locs[at];
    if (loc.out.size() != 1) return std::nullopt;
    const Edge& e = f.edges[loc.out[0]];
    if (e.kind == EdgeKind::Assign) {
      if (!e.lhs || !e.rhs || *e.lhs >= p.vars.size()) return std::nullopt;
      VarId v = *e.lhs;
      uint32_t w = p.vars[v].width;
      const Expr* rp = e.rhs.get();
      if (rp->kind == ExprKind::Var && p.vars[v].kind == VarKind::Temp && rp->width == w && rp->var != v &&
          !cy.temps.count(rp->var)) {  // t := u
        cy.temps[v] = TempCopy{v, rp->var, delta.count(rp->var) ? delta[rp->var] : 0};
        at = e.to;
        continue;
      }
      if (cy.temps.count(v)) return std::nullopt;  // a temporary assigned otherwise
      // v itself, or a temporary holding v's value with nothing added to v since
      auto isV = [&](const Expr& x) {
        if (x.kind != ExprKind::Var) return false;
        if (x.var == v) return true;
        auto it = cy.temps.find(x.var);
        return it != cy.temps.end() && it->second.v == v && (delta.count(v) ? delta[v] : 0) == it->second.dv;
      };
      // trunc(ext(v) + c) of the integer promotions (char, short): v + trunc(c) mod 2^w
      bool promoted = false;
      if (rp->kind == ExprKind::Cast && rp->cast == CastKind::Trunc && rp->ops[0]->kind == ExprKind::Binary) {
        rp = rp->ops[0].get();
        promoted = true;
      }
      const Expr& r = *rp;
      if (promoted) {
        if (r.kind != ExprKind::Binary || (r.binop != BinOp::Add && r.binop != BinOp::Sub)) return std::nullopt;
        const Expr& a = *r.ops[0];
        const Expr& b = *r.ops[1];
        auto isExtOfV = [&](const Expr& x) {
          return x.kind == ExprKind::Cast && (x.cast == CastKind::ZExt || x.cast == CastKind::SExt) &&
                 isV(*x.ops[0]);
        };
        uint64_t c;
        if (isExtOfV(a) && b.kind == ExprKind::Const)
          c = r.binop == BinOp::Add ? b.value : (0 - b.value);
        else if (r.binop == BinOp::Add && isExtOfV(b) && a.kind == ExprKind::Const)
          c = a.value;
        else
          return std::nullopt;
        delta[v] = (delta[v] + c) & maskOf(w);
        at = e.to;
        continue;
      }
      if (r.kind != ExprKind::Binary || r.width != w || (r.binop != BinOp::Add && r.binop != BinOp::Sub))
        return std::nullopt;
      const Expr& a = *r.ops[0];
      const Expr& b = *r.ops[1];
      uint64_t c;
      if (isV(a) && b.kind == ExprKind::Const)
        c = r.binop == BinOp::Add ? b.value : (0 - b.value);
      else if (r.binop == BinOp::Add && isV(b) && a.kind == ExprKind::Const)
        c = a.value;
      else
        return std::nullopt;
      delta[v] = (delta[v] + c) & maskOf(w);
    } else if (e.kind != EdgeKind::Blank) {
      return std::nullopt;
    }
    at = e.to;
  }
  for (auto it = delta.begin(); it != delta.end();) it = it->second == 0 ? delta.erase(it) : std::next(it);
  if (delta.empty()) return std::nullopt;
  return cy;
}

bool isComparison(const ExprPtr& e) {
  return e->kind == ExprKind::Binary &&
         (e->binop == BinOp::ULt || e->binop == BinOp::ULe || e->binop == BinOp::SLt || e->binop == BinOp::SLe ||
          e->binop == BinOp::Eq || e->binop == BinOp::Ne);
}

void conjuncts(const ExprPtr& e, std::vector<ExprPtr>& out) {
  // LAnd, and & of two comparisons (each 0 or 1): nonzero iff both are
  if (e->kind == ExprKind::Binary &&
      (e->binop == BinOp::LAnd || (e->binop == BinOp::And && isComparison(e->ops[0]) && isComparison(e->ops[1])))) {
    conjuncts(e->ops[0], out);
    conjuncts(e->ops[1], out);
  } else if (e->kind == ExprKind::Cast && e->cast == CastKind::ToBool) {
    conjuncts(e->ops[0], out);
  } else if (e->kind == ExprKind::Binary && e->binop == BinOp::Ne && e->ops[1]->kind == ExprKind::Const &&
             e->ops[1]->value == 0 && e->ops[0]->kind == ExprKind::Binary &&
             (e->ops[0]->binop == BinOp::LAnd || e->ops[0]->binop == BinOp::And || e->ops[0]->binop == BinOp::ULt || e->ops[0]->binop == BinOp::ULe ||
              e->ops[0]->binop == BinOp::SLt || e->ops[0]->binop == BinOp::SLe || e->ops[0]->binop == BinOp::Eq ||
              e->ops[0]->binop == BinOp::Ne)) {
    conjuncts(e->ops[0], out);  // (a < b) != 0
  } else {
    out.push_back(e);
  }
}

class Builder {
 public:
  Builder(Program& p, Function& f, LocId L, const std::map<VarId, uint64_t>& delta,
          const std::map<VarId, TempCopy>& temps)
      : p_(p), f_(f), L_(L), delta_(delta), temps_(temps) {
    for (auto& [t, tc] : temps_) tempVars_[t] = 0;
    for (auto& [v, d] : delta_) W_ = std::max(W_, p_.vars[v].width);
    Variable nv;
    nv.name = f_.name + "::acc$n" + std::to_string(L_);
    nv.width = W_;
    nv.kind = VarKind::Temp;
    nv.func = f_.id;
    n_ = p_.addVar(nv);
    nE_ = Expr::mkVar(n_, W_);
    nm1_ = Expr::mkBinary(BinOp::Sub, nE_, Expr::mkConst(1, W_));
    for (auto& [v, d] : delta_) {
      uint32_t w = p_.vars[v].width;
      ExprPtr x = Expr::mkVar(v, w);
      ExprPtr k = Expr::convert(nm1_, w, false);
      last_[v] = Expr::mkBinary(BinOp::Add, x, Expr::mkBinary(BinOp::Mul, k, Expr::mkConst(d, w)));
    }
  }

  // Adds the conditions for atom `a` (all iterates 0..n-1 satisfy it); false if its
  // form is not one the acceleration handles.
  bool atom(const ExprPtr& a) {
    if (hasFloatOp(*a) || mentions(*a, tempVars_)) return false;
    if (!mentions(*a, delta_)) {  // invariant
      conds_.push_back(a);
      return true;
    }
    if (a->kind == ExprKind::Var || a->kind == ExprKind::Cast)  // `while (x)`: x != 0
      return atom(Expr::mkBinary(BinOp::Ne, a, Expr::mkConst(0, a->width), 8));
    if (a->kind != ExprKind::Binary) return false;
    BinOp op = a->binop;
    if (op != BinOp::ULt && op != BinOp::ULe && op != BinOp::SLt && op != BinOp::SLe && op != BinOp::Eq &&
        op != BinOp::Ne)
      return false;
    bool leftDep = mentions(*a->ops[0], delta_), rightDep = mentions(*a->ops[1], delta_);
    if (leftDep == rightDep) return false;
    const ExprPtr& side = leftDep ? a->ops[0] : a->ops[1];
    const ExprPtr& K = leftDep ? a->ops[1] : a->ops[0];
    // side: v, zext(v) or sext(v)
    const Expr* ve = side.get();
    std::optional<CastKind> cast;
    if (ve->kind == ExprKind::Cast) {
      if (ve->cast != CastKind::ZExt && ve->cast != CastKind::SExt) return false;
      cast = ve->cast;
      ve = ve->ops[0].get();
    }
    if (ve->kind != ExprKind::Var || !delta_.count(ve->var)) return false;
    VarId v = ve->var;
    bool compareSigned = op == BinOp::SLt || op == BinOp::SLe;
    bool isSigned;  // how the monotone order reads v
    if (cast == CastKind::ZExt)
      isSigned = false;
    else if (cast == CastKind::SExt) {
      if (!compareSigned && op != BinOp::Eq && op != BinOp::Ne) return false;  // sext read unsigned: not monotone
      isSigned = true;
    } else {
      isSigned = compareSigned;
    }
    uint32_t w = p_.vars[v].width;
    uint64_t d = delta_.at(v);
    ExprPtr x = Expr::mkVar(v, w);
    // direction and positive step D (w bits), and the no-wraparound bound on n-1
    bool up;
    uint64_t D;
    ExprPtr room;
    if (!isSigned) {
      up = d < (uint64_t{1} << (w - 1));
      D = up ? d : (0 - d) & maskOf(w);
      room = up ? Expr::mkBinary(BinOp::Sub, Expr::mkConst(maskOf(w), w), x) : x;
    } else {
      uint64_t sign = uint64_t{1} << (w - 1);
      up = (d & sign) == 0;
      D = up ? d : (0 - d) & maskOf(w);
      room = up ? Expr::mkBinary(BinOp::Sub, Expr::mkConst(sign - 1, w), x)       // SMAX - v
                : Expr::mkBinary(BinOp::Xor, x, Expr::mkConst(sign, w));           // v - SMIN
    }
    ExprPtr bound = Expr::mkBinary(BinOp::UDiv, room, Expr::mkConst(D, w));
    conds_.push_back(Expr::mkBinary(BinOp::ULe, nm1_, Expr::convert(bound, W_, false), 8));
    if (op != BinOp::Ne) {
      conds_.push_back(a);
      conds_.push_back(substitute(a, last_));
      return true;
    }
    // v != K at every iterate: K outside [first, last] in the monotone order, or K - first
    // not a multiple of the step (all in the width of the compared side)
    uint32_t sw = side->width;
    BinOp lt = isSigned ? BinOp::SLt : BinOp::ULt;
    ExprPtr first = side, lastE = substitute(side, last_);
    ExprPtr lo = up ? first : lastE, hi = up ? lastE : first;
    ExprPtr dist = up ? Expr::mkBinary(BinOp::Sub, K, first) : Expr::mkBinary(BinOp::Sub, first, K);
    ExprPtr notMultiple = Expr::mkBinary(
        BinOp::Ne, Expr::mkBinary(BinOp::URem, dist, Expr::mkConst(D, sw)), Expr::mkConst(0, sw), 8);
    conds_.push_back(Expr::mkBinary(
        BinOp::LOr, Expr::mkBinary(BinOp::LOr, Expr::mkBinary(lt, K, lo, 8), Expr::mkBinary(lt, hi, K, 8), 8),
        notMultiple, 8));
    return true;
  }

  // The guard's positive edge (index `posEdge`, L -> B) is redirected to a new location
  // C: C --havoc n--> D, D --assume n == 0--> B (one ordinary iteration), D --assume
  // n != 0--> the conditions --> the closing assignments --> L. The choice at D keeps the
  // out-edges of every location mutually exclusive (the unwinding's merges rely on it).
  void build(uint32_t posEdge) {
    const Edge guard = f_.edges[posEdge];
    const LocId body = guard.to;
    auto mark = [&](Edge& e, const std::string& what) {
      e.text = std::string(kAccelerationCountText) + what;
      e.range = guard.range;
    };
    LocId C = f_.addLoc(guard.range);
    // redirect the guard edge: L -> C
    {
      Edge& g = f_.edges[posEdge];
      auto& in = f_.locs[body].in;
      in.erase(std::find(in.begin(), in.end(), posEdge));
      g.to = C;
      f_.locs[C].in.push_back(posEdge);
    }
    at_ = C;
    auto chain = [&](Edge e) {
      LocId next = f_.addLoc(guard.range);
      e.from = at_;
      e.to = next;
      f_.addEdge(std::move(e));
      at_ = next;
    };
    Edge h;
    h.kind = EdgeKind::Havoc;
    h.lhs = n_;
    mark(h, "n more iterations while `" + guard.text + "` (0: one ordinary iteration)");
    chain(h);
    const LocId D = at_;
    Edge one;
    one.kind = EdgeKind::Assume;
    one.cond = Expr::mkBinary(BinOp::Eq, nE_, Expr::mkConst(0, W_), 8);
    mark(one, "n == 0");
    one.from = D;
    one.to = body;
    f_.addEdge(std::move(one));
    Edge a;
    a.kind = EdgeKind::Assume;
    a.cond = Expr::mkBinary(BinOp::Ne, nE_, Expr::mkConst(0, W_), 8);
    mark(a, "n != 0");
    chain(a);
    for (const ExprPtr& c : conds_) {
      Edge ce;
      ce.kind = EdgeKind::Assume;
      ce.cond = c;
      mark(ce, "guard at every iterate");
      chain(ce);
    }
    for (auto& [t, tc] : temps_) {  // t := v + (n-1)*d_v + dv, from v before the shortcut
      uint32_t w = p_.vars[t].width;
      uint64_t dv = delta_.count(tc.v) ? delta_.at(tc.v) : 0;
      Edge as;
      as.kind = EdgeKind::Assign;
      as.lhs = t;
      as.rhs = Expr::mkBinary(
          BinOp::Add, Expr::mkVar(tc.v, w),
          Expr::mkBinary(BinOp::Add, Expr::mkBinary(BinOp::Mul, Expr::convert(nm1_, w, false), Expr::mkConst(dv, w)),
                         Expr::mkConst(tc.dv, w)));
      mark(as, "temporary");
      chain(as);
    }
    size_t i = 0;
    for (auto& [v, d] : delta_) {
      uint32_t w = p_.vars[v].width;
      Edge as;
      as.kind = EdgeKind::Assign;
      as.lhs = v;
      as.rhs = Expr::mkBinary(BinOp::Add, Expr::mkVar(v, w),
                              Expr::mkBinary(BinOp::Mul, Expr::convert(nE_, w, false), Expr::mkConst(d, w)));
      mark(as, p_.vars[v].cName + " += n * " + std::to_string(d));
      if (++i == delta_.size()) {  // the last one closes the cycle
        as.from = at_;
        as.to = L_;
        f_.addEdge(std::move(as));
      } else {
        chain(as);
      }
    }
  }

 private:
  Program& p_;
  Function& f_;
  LocId L_;
  const std::map<VarId, uint64_t>& delta_;
  const std::map<VarId, TempCopy>& temps_;
  std::map<VarId, uint64_t> tempVars_;
  uint32_t W_ = 1;
  VarId n_ = 0;
  ExprPtr nE_, nm1_;
  std::map<VarId, ExprPtr> last_;
  std::vector<ExprPtr> conds_;
  LocId at_ = 0;
};

}  // namespace

namespace {

// The loop at L of f when it has the form of a translation loop (the header's comment),
// before its guard's atoms are looked at.
std::optional<Cycle> candidateLoop(const Program& p, const Function& f, LocId L) {
  if (f.locs[L].out.size() != 2) return std::nullopt;
  const Edge& e0 = f.edges[f.locs[L].out[0]];
  const Edge& e1 = f.edges[f.locs[L].out[1]];
  if (e0.kind != EdgeKind::Assume || e1.kind != EdgeKind::Assume || e0.positive == e1.positive) return std::nullopt;
  if (e0.cond != e1.cond && toString(e0.cond) != toString(e1.cond)) return std::nullopt;
  const Edge& pos = e0.positive ? e0 : e1;
  if (pos.check != CheckKind::None || pos.to == L) return std::nullopt;
  auto cycle = translationCycle(p, f, L, pos.to);
  if (!cycle) return std::nullopt;
  bool narrow = false;  // _Bool-like widths: no sign bit to speak of; wider than 64 bits: not done
  for (auto& [v, d] : cycle->delta) narrow = narrow || p.vars[v].width < 2 || p.vars[v].width > 64;
  if (narrow) return std::nullopt;
  return cycle;
}

}  // namespace

bool mayAccelerate(const Program& p) {
  for (const Function& f : p.functions)
    for (LocId L = 0; L < f.locs.size(); ++L)
      if (candidateLoop(p, f, L)) return true;
  return false;
}

uint32_t accelerateLoops(Program& p) {
  uint32_t count = 0;
  for (size_t fi = 0; fi < p.functions.size(); ++fi) {
    Function& f = p.functions[fi];
    const size_t nlocs = f.locs.size();
    for (LocId L = 0; L < nlocs; ++L) {
      auto cycle = candidateLoop(p, f, L);
      if (!cycle) continue;
      const Edge& e0 = f.edges[f.locs[L].out[0]];
      const std::map<VarId, uint64_t>* delta = &cycle->delta;
      const Edge& pos = e0.positive ? e0 : f.edges[f.locs[L].out[1]];
      std::vector<ExprPtr> atoms;
      conjuncts(pos.cond, atoms);
      const uint32_t posEdge = e0.positive ? f.locs[L].out[0] : f.locs[L].out[1];
      Builder b(p, f, L, *delta, cycle->temps);
      bool ok = true;
      for (const ExprPtr& a : atoms) ok = ok && b.atom(a);
      if (!ok) {
        p.vars.pop_back();  // the builder's n, unused
        continue;
      }
      b.build(posEdge);
      ++count;
    }
  }
  return count;
}

}  // namespace argus::cfa
