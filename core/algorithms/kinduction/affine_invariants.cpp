#include "core/algorithms/kinduction/affine_invariants.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <deque>
#include <map>
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

struct Overflow {};  // a rational left int64: the analysis gives up (no result)

int64_t chk(i128 x) {
  if (x > INT64_MAX || x < INT64_MIN) throw Overflow{};
  return static_cast<int64_t>(x);
}
i128 gcd128(i128 a, i128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    i128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// An exact rational with int64 numerator and denominator (den > 0, reduced).
struct Q {
  int64_t n = 0, d = 1;
  bool zero() const { return n == 0; }
  bool operator==(const Q&) const = default;
};
Q mkQ(i128 n, i128 d) {
  if (d == 0) throw Overflow{};  // cannot happen: divisions are by nonzero pivots
  if (d < 0) {
    n = -n;
    d = -d;
  }
  i128 g = gcd128(n, d);
  if (g > 1) {
    n /= g;
    d /= g;
  }
  return {chk(n), chk(d)};
}
Q qint(int64_t v) { return {v, 1}; }
Q operator+(Q a, Q b) { return mkQ(static_cast<i128>(a.n) * b.d + static_cast<i128>(b.n) * a.d, static_cast<i128>(a.d) * b.d); }
Q operator-(Q a) { return mkQ(-static_cast<i128>(a.n), a.d); }
Q operator-(Q a, Q b) { return a + (-b); }
Q operator*(Q a, Q b) { return mkQ(static_cast<i128>(a.n) * b.n, static_cast<i128>(a.d) * b.d); }
Q operator/(Q a, Q b) { return mkQ(static_cast<i128>(a.n) * b.d, static_cast<i128>(a.d) * b.n); }

// sum(c) == b; `piv` is a variable with coefficient 1 that no other row of the state has.
struct Row {
  std::vector<std::pair<FlatVar, Q>> c;  // sorted by variable, nonzero
  Q b;
  FlatVar piv = 0;
};

Q coeff(const Row& r, FlatVar v) {
  auto it = std::lower_bound(r.c.begin(), r.c.end(), v, [](const auto& p, FlatVar x) { return p.first < x; });
  return it != r.c.end() && it->first == v ? it->second : Q{};
}
// r + f*s
Row axpy(const Row& r, Q f, const Row& s) {
  Row o;
  o.piv = r.piv;
  o.b = r.b + f * s.b;
  size_t i = 0, j = 0;
  while (i < r.c.size() || j < s.c.size()) {
    if (j == s.c.size() || (i < r.c.size() && r.c[i].first < s.c[j].first)) {
      o.c.push_back(r.c[i++]);
    } else if (i == r.c.size() || s.c[j].first < r.c[i].first) {
      Q v = f * s.c[j].second;
      if (!v.zero()) o.c.emplace_back(s.c[j].first, v);
      ++j;
    } else {
      Q v = r.c[i].second + f * s.c[j].second;
      if (!v.zero()) o.c.emplace_back(r.c[i].first, v);
      ++i;
      ++j;
    }
  }
  return o;
}

struct State {
  bool bottom = true;
  std::vector<Row> rows;  // reduced: each row's pivot occurs in no other row
};

// Brings rows into reduced form; false when they are inconsistent (0 == b != 0).
bool canon(std::vector<Row>& rows) {
  std::vector<Row> out;
  for (Row r : rows) {
    for (const Row& q : out) {
      Q c = coeff(r, q.piv);
      if (!c.zero()) r = axpy(r, -c, q);
    }
    if (r.c.empty()) {
      if (!r.b.zero()) return false;
      continue;
    }
    // pivot: the last variable (so a later-declared variable is expressed by earlier ones)
    r.piv = r.c.back().first;
    Q inv = Q{1, 1} / r.c.back().second;
    for (auto& [v, q] : r.c) q = q * inv;
    r.b = r.b * inv;
    for (Row& q : out) {
      Q c = coeff(q, r.piv);
      if (!c.zero()) q = axpy(q, -c, r);
    }
    out.push_back(std::move(r));
  }
  rows = std::move(out);
  return true;
}

// An affine expression: sum(c) + k.
struct Lin {
  std::map<FlatVar, Q> c;
  Q k;
};
Lin linAdd(const Lin& a, const Lin& b, Q f = qint(1)) {  // a + f*b
  Lin o = a;
  o.k = o.k + f * b.k;
  for (auto& [v, q] : b.c) {
    Q n = o.c[v] + f * q;
    if (n.zero()) o.c.erase(v);
    else o.c[v] = n;
  }
  return o;
}
Lin linScale(const Lin& a, Q f) {
  Lin o;
  if (f.zero()) return o;
  o.k = a.k * f;
  for (auto& [v, q] : a.c) o.c[v] = q * f;
  return o;
}

int64_t constSigned(uint64_t v, uint32_t w) {
  if (w >= 64) return static_cast<int64_t>(v);
  v &= (uint64_t(1) << w) - 1;
  if (v >> (w - 1)) return static_cast<int64_t>(v) - static_cast<int64_t>(uint64_t(1) << w);
  return static_cast<int64_t>(v);
}

class Analysis {
public:
  Analysis(const FlatProgram& fp, uint32_t W, const std::atomic<bool>* stop,
           std::chrono::steady_clock::time_point deadline)
      : fp_(fp), prog_(*fp.prog), W_(W), stop_(stop), deadline_(deadline) {}

  // per cut: the rows at that loop head (empty: none or unreachable)
  std::optional<std::vector<std::vector<Row>>> run() {
    size_t nn = fp_.nodes.size();
    X_.assign(nn, State{});
    X_[fp_.root].bottom = false;
    std::deque<uint32_t> work{fp_.root};
    std::vector<bool> queued(nn, false);
    queued[fp_.root] = true;
    size_t steps = 0;
    while (!work.empty()) {
      if ((++steps & 127) == 0 && ((stop_ && stop_->load()) || std::chrono::steady_clock::now() > deadline_))
        return std::nullopt;
      uint32_t n = work.front();
      work.pop_front();
      queued[n] = false;
      if (X_[n].bottom) continue;
      for (uint32_t ei : fp_.nodes[n].out) {
        const FlatEdge& e = fp_.edges[ei];
        State post = transfer(X_[n], e);
        if (post.bottom) continue;
        if (update(e.to, std::move(post)) && !queued[e.to]) {
          queued[e.to] = true;
          work.push_back(e.to);
        }
      }
    }
    std::vector<std::vector<Row>> out(fp_.cuts.size());
    for (size_t c = 0; c < fp_.cuts.size(); ++c)
      if (!X_[fp_.cuts[c]].bottom) out[c] = X_[fp_.cuts[c]].rows;
    return out;
  }

  // Is some assignment of this class affine in two or more variables, or are there two
  // variables assigned affinely? Otherwise the class has no relations worth computing.
  bool worthIt() {
    std::set<FlatVar> assigned;
    for (const FlatEdge& fe : fp_.edges) {
      if (fe.kind != FlatEdge::Kind::Cfa || fe.edge->kind != EdgeKind::Assign || !fe.edge->lhs) continue;
      FlatVar x = fp_.varOf(fe.inst, *fe.edge->lhs);
      if (x == UINT32_MAX || fp_.vars[x].width != W_) continue;
      if (auto l = eval(fe.edge->rhs, fe.inst)) {
        assigned.insert(x);
        if (l->c.size() >= 2 || (l->c.size() == 1 && l->c.begin()->first != x)) return true;
      }
      if (assigned.size() >= 2) return true;
    }
    return false;
  }

private:
  const FlatProgram& fp_;
  const cfa::Program& prog_;
  uint32_t W_;
  const std::atomic<bool>* stop_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<State> X_;

  bool tracked(FlatVar x) const { return x != UINT32_MAX && fp_.vars[x].width == W_; }

  // value(e) == result modulo 2^W for every state, or nullopt.
  std::optional<Lin> eval(const ExprPtr& e, uint32_t inst) const {
    if (!e || e->width < W_ || e->width > 64) return std::nullopt;
    switch (e->kind) {
      case ExprKind::Const: {
        Lin l;
        l.k = qint(constSigned(e->value, e->width));
        return l;
      }
      case ExprKind::Var: {
        FlatVar x = fp_.varOf(inst, e->var);
        if (!tracked(x) || e->width != W_) return std::nullopt;
        Lin l;
        l.c[x] = qint(1);
        return l;
      }
      case ExprKind::Unary: {
        if (e->unop != UnOp::Neg && e->unop != UnOp::BitNot) return std::nullopt;
        auto a = eval(e->ops[0], inst);
        if (!a) return std::nullopt;
        Lin n = linScale(*a, qint(-1));
        if (e->unop == UnOp::BitNot) n.k = n.k - qint(1);  // ~x == -x - 1 (two's complement)
        return n;
      }
      case ExprKind::Cast:
        // extensions and truncations to at least W bits keep the low W bits
        if (e->cast == CastKind::SExt || e->cast == CastKind::ZExt || e->cast == CastKind::Trunc)
          return eval(e->ops[0], inst);
        return std::nullopt;
      case ExprKind::Binary: {
        BinOp op = e->binop;
        if (op != BinOp::Add && op != BinOp::Sub && op != BinOp::Mul && op != BinOp::Shl) return std::nullopt;
        if (e->ops[0]->width != e->width) return std::nullopt;  // ring operations on the result width only
        if (op == BinOp::Shl) {
          const ExprPtr& s = e->ops[1];
          if (s->kind != ExprKind::Const || s->width > 64) return std::nullopt;
          uint64_t k = s->value;
          if (k >= e->width || k >= 62) return std::nullopt;
          auto a = eval(e->ops[0], inst);
          if (!a) return std::nullopt;
          return linScale(*a, qint(int64_t(1) << k));
        }
        auto a = eval(e->ops[0], inst);
        if (!a) return std::nullopt;
        auto b = eval(e->ops[1], inst);
        if (!b) return std::nullopt;
        if (op == BinOp::Add) return linAdd(*a, *b);
        if (op == BinOp::Sub) return linAdd(*a, *b, qint(-1));
        if (a->c.empty()) return linScale(*b, a->k);
        if (b->c.empty()) return linScale(*a, b->k);
        return std::nullopt;  // nonlinear
      }
      default:
        return std::nullopt;  // loads, comparisons, ite, floating point
    }
  }

  void havoc(State& s, FlatVar v) const {
    if (s.bottom || !tracked(v)) return;
    size_t k = s.rows.size();
    for (size_t i = 0; i < s.rows.size(); ++i)
      if (!coeff(s.rows[i], v).zero()) {
        k = i;
        if (s.rows[i].piv == v) break;
      }
    if (k == s.rows.size()) return;
    Row r = std::move(s.rows[k]);
    s.rows.erase(s.rows.begin() + static_cast<long>(k));
    Q rv = coeff(r, v);
    for (Row& q : s.rows) {
      Q c = coeff(q, v);
      if (!c.zero()) q = axpy(q, -(c / rv), r);
    }
    if (!canon(s.rows)) s.bottom = true;  // cannot happen (a projection); be safe
  }

  // v := l (l may mention v)
  void assign(State& s, FlatVar v, const Lin& l) const {
    if (s.bottom || !tracked(v)) return;
    auto it = l.c.find(v);
    if (it != l.c.end()) {
      // invertible over the rationals: v_old = (v_new - rest - k) / a
      Q a = it->second;
      Lin rest = l;
      rest.c.erase(v);
      for (Row& q : s.rows) {
        Q c = coeff(q, v);
        if (c.zero()) continue;
        Q f = c / a;
        Row sub;  // f*v_new - f*rest == f*k  (replaces c*v_old)
        sub.c.emplace_back(v, f);
        for (auto& [x, qx] : rest.c) sub.c.emplace_back(x, -(f * qx));
        std::sort(sub.c.begin(), sub.c.end(), [](const auto& p, const auto& r) { return p.first < r.first; });
        sub.b = f * rest.k;
        // remove c*v_old from q, add sub (left side) and its constant to the right side
        Row onlyV;
        onlyV.c.emplace_back(v, qint(1));
        Row q2 = axpy(q, -c, onlyV);
        q2.b = q.b;  // onlyV has b == 0
        q = axpy(q2, qint(1), sub);
      }
      if (!canon(s.rows)) s.bottom = true;
      return;
    }
    havoc(s, v);
    Row r;
    r.c.emplace_back(v, qint(1));
    for (auto& [x, q] : l.c) r.c.emplace_back(x, -q);
    std::sort(r.c.begin(), r.c.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
    r.b = l.k;
    s.rows.push_back(std::move(r));
    if (!canon(s.rows)) s.bottom = true;
  }

  // The affine hull: the constraints implied by both (Zassenhaus on [A|A];[B|0]).
  State join(const State& a, const State& b) const {
    if (a.bottom) return b;
    if (b.bottom) return a;
    State o;
    o.bottom = false;
    if (a.rows.empty() || b.rows.empty()) return o;
    std::vector<FlatVar> vars;
    for (const State* s : {&a, &b})
      for (const Row& r : s->rows)
        for (auto& [v, q] : r.c) vars.push_back(v);
    std::sort(vars.begin(), vars.end());
    vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    size_t m = vars.size() + 1;  // + the constant column
    auto col = [&](FlatVar v) { return static_cast<size_t>(std::lower_bound(vars.begin(), vars.end(), v) - vars.begin()); };
    std::vector<std::vector<Q>> M;
    for (const Row& r : a.rows) {
      std::vector<Q> row(2 * m);
      for (auto& [v, q] : r.c) row[col(v)] = row[m + col(v)] = q;
      row[m - 1] = row[2 * m - 1] = r.b;
      M.push_back(std::move(row));
    }
    for (const Row& r : b.rows) {
      std::vector<Q> row(2 * m);
      for (auto& [v, q] : r.c) row[col(v)] = q;
      row[m - 1] = r.b;
      M.push_back(std::move(row));
    }
    // row echelon form, columns in order
    size_t rank = 0;
    for (size_t c = 0; c < 2 * m && rank < M.size(); ++c) {
      size_t p = rank;
      while (p < M.size() && M[p][c].zero()) ++p;
      if (p == M.size()) continue;
      std::swap(M[p], M[rank]);
      for (size_t i = rank + 1; i < M.size(); ++i) {
        if (M[i][c].zero()) continue;
        Q f = M[i][c] / M[rank][c];
        for (size_t j = c; j < 2 * m; ++j)
          if (!M[rank][j].zero()) M[i][j] = M[i][j] - f * M[rank][j];
      }
      ++rank;
    }
    for (size_t i = 0; i < rank; ++i) {
      bool leftZero = true;
      for (size_t j = 0; j < m && leftZero; ++j) leftZero = M[i][j].zero();
      if (!leftZero) continue;
      Row r;
      for (size_t j = 0; j + 1 < m; ++j)
        if (!M[i][m + j].zero()) r.c.emplace_back(vars[j], M[i][m + j]);
      r.b = M[i][2 * m - 1];
      o.rows.push_back(std::move(r));
    }
    if (!canon(o.rows)) o.bottom = true;  // cannot happen: both are nonempty
    return o;
  }

  bool update(uint32_t t, State post) {
    State& x = X_[t];
    if (x.bottom) {
      x = std::move(post);
      return true;
    }
    State j = join(x, post);
    if (j.rows.size() < x.rows.size()) {  // the hull contains x: same rank means equal
      x = std::move(j);
      return true;
    }
    return false;
  }

  State transfer(const State& in, const FlatEdge& fe) const {
    State s = in;
    switch (fe.kind) {
      case FlatEdge::Kind::Start: {
        const cfa::Function& ef = prog_.functions[fp_.entry];
        for (cfa::VarId p : ef.params) havoc(s, fp_.varOf(fe.calleeInst, p));
        return s;
      }
      case FlatEdge::Kind::CallEnter: {
        const cfa::Function& callee = prog_.functions[fe.edge->callee];
        std::vector<std::optional<Lin>> args;
        for (size_t i = 0; i < callee.params.size(); ++i)
          args.push_back(i < fe.edge->args.size() ? eval(fe.edge->args[i], fe.inst) : std::nullopt);
        for (FlatVar x : fp_.instLocals[fe.calleeInst]) havoc(s, x);
        for (size_t i = 0; i < callee.params.size(); ++i) {
          FlatVar p = fp_.varOf(fe.calleeInst, callee.params[i]);
          if (args[i]) assign(s, p, *args[i]);  // the callee's parameters are not in the caller's arguments
          else havoc(s, p);
        }
        return s;
      }
      case FlatEdge::Kind::Return: {
        const cfa::Function& callee = prog_.functions[fp_.instances[fe.calleeInst].func];
        if (fe.edge->lhs) {
          FlatVar l = fp_.varOf(fe.inst, *fe.edge->lhs);
          FlatVar r = callee.retVar ? fp_.varOf(fe.calleeInst, *callee.retVar) : UINT32_MAX;
          if (tracked(l) && tracked(r)) {
            Lin v;
            v.c[r] = qint(1);
            assign(s, l, v);
          } else {
            havoc(s, l);
          }
        }
        return s;
      }
      case FlatEdge::Kind::Cfa:
        break;
    }
    const cfa::Edge& e = *fe.edge;
    switch (e.kind) {
      case EdgeKind::Assign: {
        FlatVar x = fp_.varOf(fe.inst, *e.lhs);
        if (auto l = eval(e.rhs, fe.inst)) assign(s, x, *l);
        else havoc(s, x);
        return s;
      }
      case EdgeKind::Havoc:
      case EdgeKind::Alloc:
        havoc(s, fp_.varOf(fe.inst, *e.lhs));
        return s;
      default:
        return s;  // guards are ignored (see the header); no other edge writes a register
    }
  }
};

// integer coefficients (scaled by the common denominator, divided by the common factor)
std::optional<AffineEq> toInteger(const Row& r, uint32_t W) {
  i128 l = 1;
  auto lcm = [&](int64_t d) {
    l = l / gcd128(l, d) * d;
    chk(l);
  };
  for (auto& [v, q] : r.c) lcm(q.d);
  lcm(r.b.d);
  AffineEq eq;
  eq.width = W;
  i128 g = 0;
  std::vector<i128> cs;
  for (auto& [v, q] : r.c) {
    cs.push_back(static_cast<i128>(q.n) * (l / q.d));
    g = gcd128(g, cs.back());
  }
  i128 b = static_cast<i128>(r.b.n) * (l / r.b.d);
  g = gcd128(g, b);
  if (g == 0) return std::nullopt;
  // modulo 2^W a coefficient that is a multiple of 2^W vanishes
  bool anyNonzero = false;
  for (size_t i = 0; i < r.c.size(); ++i) {
    int64_t c = chk(cs[i] / g);
    if (constSigned(static_cast<uint64_t>(c), W) != 0) anyNonzero = true;
    eq.terms.emplace_back(r.c[i].first, c);
  }
  if (!anyNonzero) return std::nullopt;
  eq.rhs = chk(b / g);
  // a leading negative coefficient reads badly: negate the equality
  if (!eq.terms.empty() && eq.terms.back().second < 0) {
    for (auto& [v, c] : eq.terms) c = chk(-static_cast<i128>(c));
    eq.rhs = chk(-static_cast<i128>(eq.rhs));
  }
  return eq;
}

}  // namespace

size_t AffineInvariant::count() const {
  size_t n = 0;
  for (const auto& v : atCut) n += v.size();
  return n;
}
size_t AffineInvariant::relational() const {
  size_t n = 0;
  for (const auto& v : atCut)
    for (const AffineEq& e : v) n += e.terms.size() >= 2;
  return n;
}

std::optional<AffineInvariant> computeAffine(const FlatProgram& fp, const std::atomic<bool>* stop,
                                             const AffineOptions& opts) {
  if (!fp.unusable.empty() || fp.nodes.size() > opts.maxNodes) return std::nullopt;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::microseconds(static_cast<int64_t>(opts.maxSeconds * 1e6));
  std::set<uint32_t> widths;
  for (const FlatVarInfo& v : fp.vars)
    if (v.width >= 2 && v.width <= 64) widths.insert(v.width);
  AffineInvariant out;
  out.atCut.resize(fp.cuts.size());
  try {
    for (uint32_t W : widths) {
      Analysis a(fp, W, stop, deadline);
      if (!a.worthIt()) continue;
      auto rows = a.run();
      if (!rows) return std::nullopt;
      for (size_t c = 0; c < rows->size(); ++c)
        for (const Row& r : (*rows)[c]) {
          if (r.c.size() < 2 && !opts.singleVariable) continue;
          if (auto eq = toInteger(r, W)) out.atCut[c].push_back(std::move(*eq));
        }
    }
  } catch (const Overflow&) {
    return std::nullopt;
  }
  return out;
}

std::string affineString(const FlatProgram& fp, const AffineEq& eq) {
  std::ostringstream o;
  bool first = true;
  // the positive terms first, each group in variable order: "x + y == 50", "j - 2*i == 0"
  std::vector<std::pair<FlatVar, int64_t>> terms;
  for (const auto& t : eq.terms)
    if (t.second > 0) terms.push_back(t);
  for (const auto& t : eq.terms)
    if (t.second < 0) terms.push_back(t);
  for (auto it = terms.begin(); it != terms.end(); ++it) {
    int64_t c = it->second;
    if (first) {
      if (c < 0) o << "-";
    } else {
      o << (c < 0 ? " - " : " + ");
    }
    uint64_t mag = c < 0 ? static_cast<uint64_t>(-(c + 1)) + 1 : static_cast<uint64_t>(c);
    if (mag != 1) o << mag << "*";
    o << fp.varName(it->first);
    first = false;
  }
  o << " == " << eq.rhs;
  return o.str();
}

std::string affineString(const FlatProgram& fp, const std::vector<AffineEq>& eqs) {
  std::string s;
  for (const AffineEq& e : eqs) {
    if (!s.empty()) s += " && ";
    s += affineString(fp, e);
  }
  return s;
}

}  // namespace argus::algorithms
