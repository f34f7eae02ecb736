#include "core/algorithms/kinduction/kiki.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

#include "core/algorithms/bmc/bmc.h"
#include "core/algorithms/kinduction/segment_encoding.h"
#include "core/support/scc.h"

namespace argus::algorithms {

using cfa::EdgeKind;
using smt::CheckResult;
using smt::Term;

KikiMode parseKikiMode(const std::string& s) {
  if (s == "full") return KikiMode::Full;
  if (s == "ibmc") return KikiMode::Ibmc;
  if (s == "kind") return KikiMode::Kind;
  if (s == "ai") return KikiMode::Ai;
  throw std::invalid_argument("unknown kiki mode '" + s + "' (available: full, ibmc, kind, ai)");
}

const char* kikiModeName(KikiMode m) {
  switch (m) {
    case KikiMode::Full: return "full";
    case KikiMode::Ibmc: return "ibmc";
    case KikiMode::Kind: return "kind";
    case KikiMode::Ai: return "ai";
  }
  return "?";
}

namespace {

constexpr uint32_t W = kTemplateWidth;
constexpr uint32_t kMaxVarWidth = 32;
constexpr uint64_t kMaxZeroInitBytes = 4096;

int64_t toSigned(uint64_t v, uint32_t w) {
  uint64_t m = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  v &= m;
  if (w < 64 && (v >> (w - 1))) return static_cast<int64_t>(v) - static_cast<int64_t>(uint64_t(1) << w);
  return static_cast<int64_t>(v);
}

void exprVars(const cfa::ExprPtr& e, std::vector<cfa::VarId>& out) {
  if (!e) return;
  if (e->kind == cfa::ExprKind::Var) out.push_back(e->var);
  for (const auto& o : e->ops) exprVars(o, out);
}

bool isComparison(cfa::BinOp op) {
  using cfa::BinOp;
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::SLt || op == BinOp::SLe || op == BinOp::ULt ||
         op == BinOp::ULe;
}

// The variables of each comparison in e (x + y == 50 && j <= i: {x, y}, {j, i}).
void comparisons(const cfa::ExprPtr& e, std::vector<std::vector<cfa::VarId>>& out) {
  if (!e) return;
  if (e->kind == cfa::ExprKind::Binary && isComparison(e->binop)) {
    out.emplace_back();
    exprVars(e, out.back());
    return;
  }
  for (const auto& o : e->ops) comparisons(o, out);
}

// Strongly connected components of the flat graph.
std::vector<uint32_t> sccs(const FlatProgram& fp) {
  return support::sccIds(static_cast<uint32_t>(fp.nodes.size()), [&](uint32_t v, auto&& to) {
    for (uint32_t e : fp.nodes[v].out) to(fp.edges[e].to);
  });
}

// The template rows of every loop head (see kiki.h for the choice of variables).
std::vector<TemplateRow> buildTemplate(const FlatProgram& fp, const TemplateOptions& topts) {
  std::vector<TemplateRow> rows;
  std::vector<uint32_t> comp = sccs(fp);
  for (uint32_t c = 0; c < fp.cuts.size(); ++c) {
    uint32_t head = fp.cuts[c];
    uint32_t inst = fp.nodes[head].inst;
    uint32_t sc = comp[head];
    auto usable = [&](FlatVar x) {
      if (x == UINT32_MAX || x >= fp.vars.size()) return false;
      const FlatVarInfo& vi = fp.vars[x];
      // frontend temporaries ($t…) only repeat program variables: not in the template
      if (fp.prog->vars[vi.var].name.find('$') != std::string::npos) return false;
      return (vi.inst == -1 || vi.inst == static_cast<int>(inst)) && vi.width >= 1 && vi.width <= kMaxVarWidth;
    };
    std::set<FlatVar> assigned, readIn, readAfter;
    std::set<std::pair<FlatVar, FlatVar>> together;
    auto note = [&](std::vector<FlatVar> xs) {
      std::sort(xs.begin(), xs.end());
      xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
      for (size_t i = 0; i < xs.size(); ++i)
        for (size_t j = i + 1; j < xs.size(); ++j) together.insert({xs[i], xs[j]});
    };
    for (const FlatEdge& fe : fp.edges) {
      bool fromIn = comp[fe.from] == sc;
      bool inLoop = fromIn && comp[fe.to] == sc;
      bool sameInst = fp.nodes[fe.from].inst == inst;
      if (!fromIn && !sameInst) continue;
      std::vector<cfa::VarId> reads;
      std::vector<std::vector<cfa::VarId>> comps;
      std::optional<FlatVar> lhs;
      if (fe.kind == FlatEdge::Kind::Cfa) {
        const cfa::Edge& e = *fe.edge;
        if (e.kind == EdgeKind::Assume) {
          exprVars(e.cond, reads);
          comparisons(e.cond, comps);
        }
        if ((e.kind == EdgeKind::Assign || e.kind == EdgeKind::Havoc || e.kind == EdgeKind::Alloc) && e.lhs)
          lhs = fp.varOf(fe.inst, *e.lhs);
        if (e.kind == EdgeKind::Assign) exprVars(e.rhs, reads);
      } else if (fe.kind == FlatEdge::Kind::CallEnter) {
        for (const auto& a : fe.edge->args) {
          exprVars(a, reads);
          comparisons(a, comps);
        }
      } else if (fe.kind == FlatEdge::Kind::Return && fe.edge->lhs) {
        lhs = fp.varOf(fe.inst, *fe.edge->lhs);
      }
      std::vector<FlatVar> xs;
      for (cfa::VarId v : reads) {
        FlatVar x = fp.varOf(fe.inst, v);
        if (usable(x)) xs.push_back(x);
      }
      if (inLoop && lhs && usable(*lhs)) {
        assigned.insert(*lhs);
        xs.push_back(*lhs);
      }
      bool isTest = fe.kind == FlatEdge::Kind::CallEnter ||
                    (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Assume);
      if (fromIn && (isTest || inLoop)) {
        for (FlatVar x : xs) readIn.insert(x);
      }
      if (inLoop) note(xs);  // an assignment's (or a test's) variables in the loop
      for (const auto& cv : comps) {
        std::vector<FlatVar> ys;
        for (cfa::VarId v : cv) {
          FlatVar x = fp.varOf(fe.inst, v);
          if (usable(x)) ys.push_back(x);
        }
        note(ys);
        if (!fromIn)
          for (FlatVar y : ys) readAfter.insert(y);
      }
    }

    // variables by priority: assigned and tested in the loop; assigned; tested; tested elsewhere
    std::vector<FlatVar> vars;
    const size_t cap = topts.maxVars == 0 ? 0 : std::max(topts.maxVars, topts.maxIntervalVars);
    auto addAll = [&](auto pred) {
      for (FlatVar x = 0; x < fp.vars.size() && vars.size() < cap; ++x)
        if (pred(x) && std::find(vars.begin(), vars.end(), x) == vars.end()) vars.push_back(x);
    };
    addAll([&](FlatVar x) { return assigned.count(x) && readIn.count(x); });
    addAll([&](FlatVar x) { return assigned.count(x) > 0; });
    addAll([&](FlatVar x) { return readIn.count(x) > 0; });
    addAll([&](FlatVar x) { return readAfter.count(x) > 0; });
    if (assigned.empty()) vars.clear();  // nothing changes in the loop: intervals of inputs only
    for (FlatVar x : vars) {
      rows.push_back({c, x, x, 1, 0});
      rows.push_back({c, x, x, -1, 0});
    }
    // pairs: those compared (or assigned) together first, then pairs the loop assigns
    std::vector<std::pair<FlatVar, FlatVar>> pairs;
    const size_t paired = std::min(vars.size(), topts.maxVars);
    auto addPairs = [&](auto pred) {
      for (size_t i = 0; i < paired; ++i)
        for (size_t j = i + 1; j < paired; ++j) {
          if (pairs.size() >= topts.maxPairs) return;
          FlatVar a = std::min(vars[i], vars[j]), b = std::max(vars[i], vars[j]);
          if (std::find(pairs.begin(), pairs.end(), std::make_pair(a, b)) != pairs.end()) continue;
          if (pred(a, b)) pairs.emplace_back(a, b);
        }
    };
    if (topts.zones || topts.octagons) {
      addPairs([&](FlatVar a, FlatVar b) { return together.count({a, b}) > 0; });
      addPairs([&](FlatVar a, FlatVar b) { return assigned.count(a) && assigned.count(b); });
    }
    for (auto [a, b] : pairs) {
      if (topts.zones) {
        rows.push_back({c, a, b, 1, -1});
        rows.push_back({c, a, b, -1, 1});
      }
      if (topts.octagons) {
        rows.push_back({c, a, b, 1, 1});
        rows.push_back({c, a, b, -1, -1});
      }
    }
  }
  return rows;
}

int64_t varMax(const FlatVarInfo& v) { return v.isSigned ? (int64_t(1) << (v.width - 1)) - 1 : (int64_t(1) << v.width) - 1; }
int64_t varMin(const FlatVarInfo& v) { return v.isSigned ? -(int64_t(1) << (v.width - 1)) : 0; }

}  // namespace

struct KInvariantEngine::Impl {
  const FlatProgram& fp;
  smt::TermManager tm;
  std::unique_ptr<smt::Solver> solver;
  TemplateOptions topts;
  std::vector<TemplateRow> rows;
  SegmentEncoding seg;
  std::vector<std::vector<size_t>> rowsAt;  // per cut
  std::vector<int64_t> maxes;
  TemplateValue known;
  std::optional<AffineInvariant> affine;  // assumed in every state (assumeAffine)
  uint64_t iterations = 0;
  uint32_t lastK = 0;  // k of the last completed inference

  Impl(const FlatProgram& f, smt::SolverKind kind, const TemplateOptions& topts)
      : fp(f), topts(topts), rows(buildTemplate(f, topts)), seg(f, tm, topts.rootStart) {
    smt::SolverOptions so;
    so.models = true;
    solver = smt::makeSolver(kind, tm, so);
    rowsAt.resize(fp.cuts.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      rowsAt[rows[r].cut].push_back(r);
      const TemplateRow& t = rows[r];
      const FlatVarInfo& x = fp.vars[t.x];
      int64_t m = t.cx > 0 ? varMax(x) : -varMin(x);
      if (t.cy != 0) {
        const FlatVarInfo& y = fp.vars[t.y];
        m += t.cy > 0 ? varMax(y) : -varMin(y);
      }
      maxes.push_back(m);
    }
    known.reached.assign(fp.cuts.size(), true);
    known.d = maxes;
    collectThresholds();
    seg.onNewState = [this](size_t i) {
      Term pc = seg.pcs[i];
      Term root = tm.bvVal(seg.rootPc(), 32);
      // only the first state may be the program start; later ones are loop heads. A
      // program without loop heads has no later states (no segment reaches one): then
      // "pc < 0" would be false and make every check vacuously unsatisfiable.
      if (i == 0) solver->add(tm.bvUle(pc, root));
      else if (!fp.cuts.empty()) solver->add(tm.bvUlt(pc, root));
      if (affine) solver->add(seg.affineAt(*affine, i));
    };
    seg.start();
  }

  // Widening thresholds: the constants the program's conditions compare with (each as
  // c - 1, c, c + 1, and negated for the rows -x), as in widening with thresholds.
  std::vector<int64_t> thresholds;  // sorted, distinct
  void collectThresholds() {
    std::set<int64_t> out;
    std::function<void(const cfa::ExprPtr&)> walk = [&](const cfa::ExprPtr& e) {
      if (!e) return;
      if (e->kind == cfa::ExprKind::Const && e->width <= 33) {
        int64_t u = static_cast<int64_t>(e->value);
        int64_t sgn = e->width == 0 ? u : toSigned(e->value, e->width);
        for (int64_t c : {u, sgn})
          for (int64_t d : {c - 1, c, c + 1}) {
            out.insert(d);
            out.insert(-d);
          }
      }
      for (const auto& o : e->ops) walk(o);
    };
    for (const FlatEdge& fe : fp.edges)
      if (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Assume) walk(fe.edge->cond);
    thresholds.assign(out.begin(), out.end());
  }
  // The widened bound of row r that has reached v: the next threshold, else ⊤.
  int64_t widen(size_t r, int64_t v) {
    auto it = std::lower_bound(thresholds.begin(), thresholds.end(), v);
    return it == thresholds.end() || *it >= maxes[r] ? maxes[r] : *it;
  }

  void ensureSegments(size_t n) {
    while (seg.errs.size() < n) seg.encodeNext([this](Term t) { solver->add(t); });
  }

  Term ext(FlatVar x, size_t i) {
    Term v = (*seg.states[i].vars)[x];
    const FlatVarInfo& vi = fp.vars[x];
    return vi.isSigned ? tm.signExt(v, W - vi.width) : tm.zeroExt(v, W - vi.width);
  }
  Term rowExpr(size_t r, size_t i) {
    const TemplateRow& t = rows[r];
    Term a = ext(t.x, i);
    if (t.cx < 0) a = tm.bvNeg(a);
    if (t.cy == 0) return a;
    Term b = ext(t.y, i);
    return t.cy > 0 ? tm.bvAdd(a, b) : tm.bvSub(a, b);
  }
  Term val(int64_t d) { return tm.bvVal(static_cast<uint64_t>(d), W); }

  // T(s_i) for the value `v`, with some rows' bounds given as terms (δ).
  Term inTemplate(size_t i, const TemplateValue& v, const std::map<size_t, Term>& sym = {}) {
    std::vector<Term> conj;
    for (uint32_t c = 0; c < fp.cuts.size(); ++c) {
      Term at = tm.mkEq(seg.pcs[i], tm.bvVal(c, 32));
      if (!v.reached[c]) {
        conj.push_back(tm.mkNot(at));
        continue;
      }
      std::vector<Term> rs;
      for (size_t r : rowsAt[c]) {
        auto it = sym.find(r);
        if (it != sym.end()) rs.push_back(tm.bvSle(rowExpr(r, i), it->second));
        else if (v.d[r] < maxes[r]) rs.push_back(tm.bvSle(rowExpr(r, i), val(v.d[r])));
      }
      if (!rs.empty()) conj.push_back(tm.mkImplies(at, tm.mkAnd(rs)));
    }
    return tm.mkAnd(conj);
  }
  // s_i is at a loop head and outside T(v).
  Term violates(size_t i, const TemplateValue& v) {
    std::vector<Term> alts;
    for (uint32_t c = 0; c < fp.cuts.size(); ++c) {
      Term at = tm.mkEq(seg.pcs[i], tm.bvVal(c, 32));
      if (!v.reached[c]) {
        alts.push_back(at);
        continue;
      }
      std::vector<Term> rs;
      for (size_t r : rowsAt[c])
        if (v.d[r] < maxes[r]) rs.push_back(tm.bvSlt(val(v.d[r]), rowExpr(r, i)));
      if (!rs.empty()) alts.push_back(tm.mkAnd(at, tm.mkOr(rs)));
    }
    return tm.mkOr(alts);
  }

  // The k-invariant check (Eq. 13, with the program start for the first j <= k states):
  // some J in 1..k, s_0 at the program start (any J) or in T (J == k), s_1..s_{J-1} in
  // T, s_J reached and `post(J)`. The known invariants hold at every state. Asserted
  // into the current frame; returns the selector literals.
  std::vector<Term> assertPaths(uint32_t k, const TemplateValue& pre, const std::map<size_t, Term>& sym,
                                const std::function<Term(size_t)>& post) {
    Term atStart = tm.mkEq(seg.pcs[0], tm.bvVal(seg.rootPc(), 32));
    for (size_t i = 0; i <= k; ++i) solver->add(inTemplate(i, known));
    std::vector<Term> pres;
    for (size_t i = 0; i < k; ++i) pres.push_back(inTemplate(i, pre, sym));
    pres[0] = tm.mkOr(atStart, pres[0]);
    std::vector<Term> sels;
    for (uint32_t j = 1; j <= k; ++j) {
      Term sel = tm.freshVar("sel" + std::to_string(j), tm.boolSort());
      std::vector<Term> c;
      for (size_t i = 0; i < j; ++i) {
        c.push_back(seg.reaches[i]);
        c.push_back(pres[i]);
      }
      c.push_back(post(j));
      if (j < k) c.push_back(atStart);
      solver->add(tm.mkImplies(sel, tm.mkAnd(c)));
      sels.push_back(sel);
    }
    solver->add(tm.mkOr(sels));
    return sels;
  }

  CheckResult check(const support::Deadline& deadline, std::span<const Term> assumptions = {}) {
    solver->setTimeoutMs(deadline.remainingMs());
    return solver->check(assumptions);
  }

  int64_t modelSigned(Term t, uint32_t w) {
    Term v = solver->modelValue(t);
    if (v->kind != smt::Kind::BVConst) throw smt::SolverError("kiki: non-constant model value");
    return toSigned(v->value, w);
  }

  // An inference interrupted by its deadline: resumed by the next infer().
  std::optional<std::pair<uint32_t, TemplateValue>> pending;
  std::map<size_t, int> pendingGrowth;  // per row: improvements in the pending inference
  std::set<size_t> pendingWidened;
  static constexpr int kWidenAfter = 3;
  static constexpr int kMaxThresholdSteps = 8;
  uint64_t narrowingSteps = 0;

  bool pendingIntervalsOnly = false;
  // intervalsOnly: the zone and octagon rows stay ⊤ (a cheaper first inference); an
  // interrupted inference is resumed as it was started
  std::optional<TemplateValue> infer(uint32_t kRequested, const support::Deadline& deadline, bool intervalsOnly) {
    if (!pending) {
      TemplateValue d0;
      d0.reached.assign(fp.cuts.size(), false);
      d0.d = maxes;
      for (size_t r = 0; r < rows.size(); ++r)
        if (!intervalsOnly || rows[r].cy == 0) d0.d[r] = -maxes[r] - 1;  // irrelevant while ⊥
      pending.emplace(kRequested, std::move(d0));
      pendingIntervalsOnly = intervalsOnly;
      pendingGrowth.clear();
      pendingWidened.clear();
    }
    const bool onlyIntervals = pendingIntervalsOnly;
    uint32_t k = pending->first;
    TemplateValue& d = pending->second;
    ensureSegments(k);
    while (true) {
      if (deadline.expired()) return std::nullopt;
      // (13): is d a k-invariant?
      solver->push();
      std::vector<Term> sels = assertPaths(k, d, {}, [&](size_t j) { return violates(j, d); });
      CheckResult cr = check(deadline);
      if (cr == CheckResult::Unknown) {
        solver->pop();
        // (a time limit, as a rule: bit-vector queries are decidable) resumed later
        return std::nullopt;
      }
      if (cr == CheckResult::Unsat) {
        solver->pop();
        narrow(k, d, deadline);
        for (uint32_t c = 0; c < fp.cuts.size(); ++c) known.reached[c] = known.reached[c] && d.reached[c];
        for (size_t r = 0; r < rows.size(); ++r)
          if (d.reached[rows[r].cut]) known.d[r] = std::min(known.d[r], d.d[r]);
        TemplateValue out = std::move(d);
        pending.reset();
        if (!onlyIntervals) lastK = k;
        return out;
      }
      size_t j = 0;
      for (size_t s = 0; s < sels.size() && !j; ++s)
        if (solver->modelValue(sels[s])->isTrue()) j = s + 1;
      if (!j) throw smt::SolverError("kiki: no selector in the model");
      uint64_t cut = solver->modelValue(seg.pcs[j])->value;
      if (cut >= fp.cuts.size()) throw smt::SolverError("kiki: violation outside a loop head");
      std::vector<size_t> R;
      std::map<size_t, int64_t> seen;  // d'_r
      for (size_t r : rowsAt[cut]) {
        if (onlyIntervals && rows[r].cy != 0) continue;
        int64_t v = modelSigned(rowExpr(r, j), W);
        if (!d.reached[cut] || v > d.d[r]) {
          R.push_back(r);
          seen[r] = v;
        }
      }
      solver->pop();
      ++iterations;
      if (!d.reached[cut] && R.empty()) {
        d.reached[cut] = true;
        continue;
      }
      if (R.empty()) throw smt::SolverError("kiki: a violation without a violated row");
      if (!d.reached[cut]) {
        // from ⊥: the join with the model's point
        d.reached[cut] = true;
        for (size_t r : R) d.d[r] = seen[r];
        continue;
      }
      for (size_t r : R) d.d[r] = seen[r];  // the join with the model
      for (size_t r : R) {
        if (deadline.expired()) break;
        // widening: a row that keeps growing goes to the next threshold, and after
        // kMaxThresholdSteps of those to ⊤ (narrowed again at the end)
        int growth = ++pendingGrowth[r];
        if (growth > kWidenAfter) {
          d.d[r] = growth > kWidenAfter + kMaxThresholdSteps ? maxes[r] : widen(r, d.d[r]);
          pendingWidened.insert(r);
          continue;
        }
        d.d[r] = std::max(d.d[r], optimise(k, d, r, deadline, true));
      }
    }
  }

  // Narrowing of the widened rows of the k-invariant d: descending steps, in each of
  // which every widened row becomes the largest value of its expression in a state
  // reached from T(d) (a descending step keeps a k-invariant a k-invariant; the result
  // is checked by (13) again all the same, and a step that fails it is dropped).
  // Repeated while a row shrinks: in nested loops the outer head's bound reaches the
  // inner head in one step and comes back to the outer head in the next.
  void narrow(uint32_t k, TemplateValue& d, const support::Deadline& deadline) {
    if (pendingWidened.empty()) return;
    const size_t maxSteps = 2 * fp.cuts.size() + 2;
    for (size_t step = 0; step < maxSteps; ++step) {
      TemplateValue n = d;
      bool shrunk = false;
      for (size_t r : pendingWidened) {
        if (deadline.expired()) return;
        n.d[r] = std::min(d.d[r], optimise(k, d, r, deadline, false));
        shrunk = shrunk || n.d[r] < d.d[r];
      }
      if (!shrunk) return;
      solver->push();
      assertPaths(k, n, {}, [&](size_t j) { return violates(j, n); });
      CheckResult cr = check(deadline);
      solver->pop();
      if (cr != CheckResult::Unsat) return;
      d = std::move(n);
      ++narrowingSteps;
    }
  }

  // (14) for R = {r}: the largest δ such that from states in T (row r bounded by δ - 1
  // instead of d_r) a loop-head state with e_r >= δ is reached; by binary search
  // between d_r (feasible: the model just seen) and ⊤. (The paper maximises the sum
  // over all violated rows at once; with opposite rows such as x and −x in R that
  // system pins the post-state to one point, so we go row by row.)
  // ascend: row r bounded by δ in the pre-states, δ >= d_r (feasible); else (narrowing)
  // the pre-states in T(d) and δ from the row's minimum.
  int64_t optimise(uint32_t k, const TemplateValue& d, size_t r, const support::Deadline& deadline, bool ascend) {
    uint32_t cut = rows[r].cut;
    Term delta = tm.freshVar("delta", tm.bvSort(W));
    std::map<size_t, Term> sym;
    // ascending, the pre-states have row r below δ (at most δ - 1): a value the loop
    // keeps (x' = x) is then no reason to grow, and the result is the least value the
    // paths can reach, not any value they can keep
    if (ascend) sym[r] = tm.bvSub(delta, val(1));
    solver->push();
    assertPaths(k, d, sym, [&](size_t j) {
      return tm.mkAnd(tm.mkEq(seg.pcs[j], tm.bvVal(cut, 32)), tm.bvSle(delta, rowExpr(r, j)));
    });
    int64_t lo = ascend ? d.d[r] : -maxes[r] - 1, hi = maxes[r], best = ascend ? d.d[r] : hi;
    solver->add(tm.bvSle(val(lo), delta));
    if (!ascend) {
      // the smallest δ first: is the row's expression reachable at all?
      CheckResult cr = check(deadline);
      if (cr != CheckResult::Sat) {
        solver->pop();
        return hi;  // keep it widened (unreachable should not happen: the cut is reached)
      }
      lo = best = modelSigned(delta, W);
    }
    // the bounds are usually ⊤ or small: try ⊤ first, then gallop up from ℓ, then bisect
    int64_t step = 1;
    int phase = 0;  // 0: ⊤, 1: gallop, 2: bisect
    while (lo < hi && !deadline.expired()) {
      int64_t m;
      if (phase == 0) {
        m = hi;
      } else if (phase == 1 && step < hi - lo) {
        m = lo + step;
        step *= 4;
      } else {
        phase = 2;
        m = lo + (hi - lo + 1) / 2;
      }
      Term lit = tm.freshVar("ge", tm.boolSort());
      solver->add(tm.mkImplies(lit, tm.bvSle(val(m), delta)));
      std::vector<Term> as{lit};
      CheckResult br = check(deadline, as);
      if (br == CheckResult::Sat) {
        best = std::max(m, modelSigned(delta, W));
        lo = best;
        if (phase == 0) break;  // ⊤
      } else if (br == CheckResult::Unknown && !ascend) {
        best = hi;  // narrowing must not stop below the maximum
        break;
      } else if (br == CheckResult::Unsat) {
        hi = m - 1;
        phase = phase == 0 ? 1 : 2;
      } else {
        break;  // keep the best so far: the result is checked by (13) anyway
      }
    }
    solver->pop();
    if (!ascend && best != hi) best = lo;
    return best;
  }

  CheckResult checkProperty(uint32_t k, unsigned timeoutMs, bool fromStart) {
    ensureSegments(k + 1);
    solver->push();
    for (size_t i = 0; i <= k; ++i) solver->add(inTemplate(i, known));
    for (size_t i = 0; i < k; ++i) solver->add(seg.reaches[i]);
    if (!fromStart) solver->add(tm.mkNot(tm.mkEq(seg.pcs[0], tm.bvVal(seg.rootPc(), 32))));
    Term err = tm.freshVar("err", tm.boolSort());
    solver->add(tm.mkImplies(err, seg.errs[k]));
    auto t0 = std::chrono::steady_clock::now();
    solver->setTimeoutMs(timeoutMs);
    std::vector<Term> as{err};
    CheckResult r = solver->check(as);
    if (r == CheckResult::Unsat && fromStart) {
      // Vacuity guard for a proof from the program start: without the error the
      // constraints must have a model (the program start itself satisfies the
      // invariant); if they have none, the encoding is broken and nothing is proved.
      // (the rest of the time, at least a second; 0 stays "no limit")
      auto usedMs = static_cast<unsigned>(
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
      solver->setTimeoutMs(timeoutMs == 0 ? 0 : std::max(1000u, timeoutMs - std::min(timeoutMs, usedMs)));
      CheckResult bg = solver->check();
      if (bg != CheckResult::Sat) {
        r = CheckResult::Unknown;
        if (bg == CheckResult::Unsat) vacuous = true;
      }
    }
    solver->pop();
    return r;
  }
  bool vacuous = false;  // a vacuity guard failed (see checkProperty)

  void assumeAffine(const AffineInvariant& inv) {
    affine = inv;
    for (size_t i = 0; i < seg.states.size(); ++i) solver->add(seg.affineAt(*affine, i));
  }

  std::string formula(uint32_t c) const {
    if (!known.reached[c]) return "false";
    // per variable (pair): the bounds, dropping relational bounds the intervals imply
    std::map<FlatVar, std::pair<std::optional<int64_t>, std::optional<int64_t>>> itv;  // lo, hi
    for (size_t r : rowsAt[c]) {
      const TemplateRow& t = rows[r];
      if (t.cy != 0 || known.d[r] >= maxes[r]) continue;
      if (t.cx > 0) itv[t.x].second = known.d[r];
      else itv[t.x].first = -known.d[r];
    }
    auto hiOf = [&](FlatVar x, int s) -> int64_t {  // max of s*x under the intervals
      const FlatVarInfo& vi = fp.vars[x];
      auto it = itv.find(x);
      if (s > 0) return it != itv.end() && it->second.second ? *it->second.second : varMax(vi);
      return -(it != itv.end() && it->second.first ? *it->second.first : varMin(vi));
    };
    std::vector<std::string> facts;
    for (auto& [x, b] : itv) {
      std::string n = fp.varName(x);
      if (b.first && b.second && *b.first == *b.second) facts.push_back(n + " == " + std::to_string(*b.first));
      else {
        if (b.first) facts.push_back(std::to_string(*b.first) + " <= " + n);
        if (b.second) facts.push_back(n + " <= " + std::to_string(*b.second));
      }
    }
    std::map<std::pair<FlatVar, FlatVar>, std::map<std::pair<int, int>, int64_t>> rel;
    for (size_t r : rowsAt[c]) {
      const TemplateRow& t = rows[r];
      if (t.cy == 0 || known.d[r] >= maxes[r]) continue;
      if (known.d[r] >= hiOf(t.x, t.cx) + hiOf(t.y, t.cy)) continue;  // implied by the intervals
      rel[{t.x, t.y}][{t.cx, t.cy}] = known.d[r];
    }
    for (auto& [xy, m] : rel) {
      std::string a = fp.varName(xy.first), b = fp.varName(xy.second);
      auto one = [&](int cx, int cy, const std::string& expr) {
        auto up = m.find({cx, cy});
        auto down = m.find({-cx, -cy});
        if (up != m.end() && down != m.end() && up->second == -down->second)
          facts.push_back(expr + " == " + std::to_string(up->second));
        else {
          if (down != m.end()) facts.push_back(expr + " >= " + std::to_string(-down->second));
          if (up != m.end()) facts.push_back(expr + " <= " + std::to_string(up->second));
        }
      };
      one(1, -1, a + " - " + b);
      one(1, 1, a + " + " + b);
    }
    if (affine && c < affine->atCut.size() && !affine->atCut[c].empty())
      facts.push_back(affineString(fp, affine->atCut[c]));
    std::string s;
    for (auto& f : facts) s += (s.empty() ? "" : " && ") + f;
    return s;
  }
};

KInvariantEngine::KInvariantEngine(const FlatProgram& fp, smt::SolverKind solver, const TemplateOptions& topts)
    : impl_(std::make_unique<Impl>(fp, solver, topts)) {}
KInvariantEngine::~KInvariantEngine() = default;
const std::vector<TemplateRow>& KInvariantEngine::rows() const { return impl_->rows; }
int64_t KInvariantEngine::rowMax(size_t r) const { return impl_->maxes[r]; }
std::optional<TemplateValue> KInvariantEngine::infer(uint32_t k, const support::Deadline& deadline,
                                                     bool intervalsOnly) {
  if (k == 0) throw std::invalid_argument("KInvariantEngine::infer: k must be at least 1");
  if (!impl_->topts.rootStart) throw std::invalid_argument("KInvariantEngine::infer: needs rootStart");
  return impl_->infer(k, deadline, intervalsOnly);
}
const TemplateValue& KInvariantEngine::known() const { return impl_->known; }
void KInvariantEngine::assumeAffine(const AffineInvariant& inv) { impl_->assumeAffine(inv); }
CheckResult KInvariantEngine::checkProperty(uint32_t k, unsigned timeoutMs, bool fromStart) {
  if (fromStart && (k != 0 || !impl_->topts.rootStart))
    throw std::invalid_argument("KInvariantEngine::checkProperty: fromStart needs k == 0 and rootStart");
  return impl_->checkProperty(k, timeoutMs, fromStart);
}
std::string KInvariantEngine::formula(uint32_t cut) const { return impl_->formula(cut); }
uint64_t KInvariantEngine::queries() const { return impl_->solver->stats().checks; }
double KInvariantEngine::solverSeconds() const { return impl_->solver->stats().checkTimeS; }
uint64_t KInvariantEngine::iterations() const { return impl_->iterations; }
uint64_t KInvariantEngine::narrowingSteps() const { return impl_->narrowingSteps; }
bool KInvariantEngine::vacuityGuardFailed() const { return impl_->vacuous; }
void KInvariantEngine::breakEncodingForTest() { impl_->solver->add(impl_->tm.falseTerm()); }
bool KInvariantEngine::inferencePending() const { return impl_->pending.has_value(); }
uint32_t KInvariantEngine::lastInferredK() const { return impl_->lastK; }

// ------------------------------------------------------------------ driver

result::VerificationResult runKiki(const cfa::Program& prog, cfa::FuncId entry, const KikiOptions& opts) {
  auto wall0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); };
  support::Deadline deadline = support::Deadline::in(opts.timeoutS);
  const std::string name = opts.mode == KikiMode::Full ? "kiki" : std::string("kiki-") + kikiModeName(opts.mode);

  BmcOptions bo = incrementalBmcOptions(opts, name);
  if (opts.mode == KikiMode::Ibmc) {
    result::VerificationResult r = runBmc(prog, entry, bo);
    r.algorithm = name;
    return r;
  }

  std::shared_ptr<const FlatProgram> fp = buildFlatProgram(prog, entry);
  std::string disabled = fp->unusable;
  if (disabled.empty() && fp->nodes.size() * (fp->vars.size() + 1) > 20'000'000) disabled = "inlined program too large";
  std::unique_ptr<KInvariantEngine> eng;
  // The inference encodes the path from the program start: a large zero-initialised
  // object there (a static array) makes that formula too big to solve in time; then
  // no templates (k-induction without invariants, as kiki-kind) — or, for ai, nothing.
  std::string noTemplates;
  if (disabled.empty() && opts.mode != KikiMode::Kind) {
    for (const FlatEdge& fe : fp->edges)
      if (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Alloc && fe.edge->zeroInit &&
          fe.edge->size && fe.edge->size->kind == cfa::ExprKind::Const && fe.edge->size->value > kMaxZeroInitBytes) {
        noTemplates = "a zero-initialised object of " + std::to_string(fe.edge->size->value) + " bytes";
        break;
      }
    if (!noTemplates.empty() && opts.mode == KikiMode::Ai) disabled = "templates disabled: " + noTemplates;
  }
  if (disabled.empty()) {
    try {
      TemplateOptions to = opts.templates;
      if (opts.mode == KikiMode::Kind || !noTemplates.empty()) {
        to.maxVars = 0;  // the template {⊤}
        to.rootStart = false;
      }
      eng = std::make_unique<KInvariantEngine>(*fp, opts.solver, to);
    } catch (const std::exception& e) {
      disabled = e.what();
    }
  }
  // The affine equalities (affine_invariants.h) hold in every reachable loop-head state:
  // assumed in every state of the inference and the k-induction, as the known invariant.
  // Computed at the first step (loop-free programs and shallow bugs do not pay for it).
  size_t affineEqs = 0;
  double affineTime = 0;
  bool affineDone = !(opts.mode == KikiMode::Full && noTemplates.empty());
  auto assumeAffine = [&] {
    if (affineDone || !eng) return;
    affineDone = true;
    auto a0 = std::chrono::steady_clock::now();
    AffineOptions ao;
    ao.maxSeconds = opts.timeoutS > 0 ? std::min(2.0, opts.timeoutS / 10) : 2.0;
    std::optional<AffineInvariant> aff;
    try {
      aff = computeAffine(*fp, nullptr, ao);
    } catch (const std::bad_alloc&) {
    }
    affineTime = std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
    if (aff && aff->count() > 0) {
      eng->assumeAffine(*aff);
      affineEqs = aff->count();
      if (opts.progress) {
        std::string msg = "kiki: " + std::to_string(affineEqs) + " affine equalit" + (affineEqs == 1 ? "y" : "ies");
        for (size_t c = 0; c < fp->cuts.size() && c < aff->atCut.size(); ++c)
          if (!aff->atCut[c].empty()) msg += "\n  at " + fp->describe(fp->cuts[c]) + ": " + affineString(*fp, aff->atCut[c]);
        opts.progress(msg);
      }
    }
  };
  uint64_t stepChecks = 0, stepSkipped = 0, inferences = 0;
  double slice = 1.0;  // seconds for a pending inference (see the step below)
  bool intervalsDone = false;  // the intervals-only inference completed
  uint32_t provedK = 0;
  double stepTime = 0;
  std::string stepNote;
  auto report = [&](result::VerificationResult& r) {
    r.algorithm = name;
    r.stats.extra["step_checks"] = static_cast<double>(stepChecks);
    r.stats.extra["step_time_s"] = stepTime;
    r.stats.extra["step_skipped"] = static_cast<double>(stepSkipped);
    r.stats.extra["kiki_inferences"] = static_cast<double>(inferences);
    if (affineEqs) r.stats.extra["affine_equalities"] = static_cast<double>(affineEqs);
    if (affineTime > 0) r.stats.extra["affine_time_s"] = affineTime;
    if (eng) {
      r.stats.extra["template_rows"] = static_cast<double>(eng->rows().size());
      r.stats.extra["template_iterations"] = static_cast<double>(eng->iterations());
      r.stats.extra["template_narrowing_steps"] = static_cast<double>(eng->narrowingSteps());
      r.stats.solverQueries += eng->queries();
      r.stats.solverTimeS += eng->solverSeconds();
    }
    if (!stepNote.empty() && r.verdict == result::Verdict::Unknown) r.reason += (r.reason.empty() ? "" : "; ") + stepNote;
    if (!noTemplates.empty()) {
      r.stats.extra["templates_disabled"] = 1;
      if (r.verdict == result::Verdict::Unknown)
        r.reason += (r.reason.empty() ? "" : "; ") + ("kiki: no templates (" + noTemplates + ")");
    }
    if (r.verdict == result::Verdict::True && eng && (provedK || opts.mode == KikiMode::Ai)) {
      if (provedK) r.stats.extra["induction_k"] = provedK;
      for (uint32_t c = 0; c < fp->cuts.size(); ++c) {
        std::string f = eng->formula(c);
        if (!f.empty()) r.invariant[fp->describe(fp->cuts[c])] = f;
      }
    }
  };
  auto logInvariant = [&](uint32_t k) {
    if (!opts.progress || !eng) return;
    std::string msg = "kiki: " + std::to_string(k) + "-invariant";
    for (uint32_t c = 0; c < fp->cuts.size(); ++c) {
      std::string f = eng->formula(c);
      msg += "\n  at " + fp->describe(fp->cuts[c]) + ": " + (f.empty() ? "true" : f);
    }
    opts.progress(msg);
  };

  if (opts.mode == KikiMode::Ai) {
    result::VerificationResult r;
    r.solver = smt::solverName(opts.solver);
    r.verdict = result::Verdict::Unknown;
    r.condition.kind = "unsupported";
    r.condition.summary = "nothing verified";
    if (!eng) {
      r.reason = "abstract interpretation not applicable: " + disabled;
      report(r);
      return r;
    }
    try {
      auto t0 = std::chrono::steady_clock::now();
      auto inv = eng->infer(1, deadline);
      ++inferences;
      if (!inv) {
        r.reason = deadline.expired() ? "timeout" : "template inference: solver unknown";
      } else {
        logInvariant(1);
        CheckResult pr = eng->checkProperty(0, deadline.remainingMs(), /*fromStart=*/true);
        ++stepChecks;
        if (pr == CheckResult::Unsat) {
          r.verdict = result::Verdict::True;
          r.condition.kind = "none";
          r.condition.summary = "verified by the template invariant (abstract interpretation)";
        } else {
          r.reason = pr == CheckResult::Sat ? "the template invariant does not exclude the error"
                     : eng->vacuityGuardFailed()
                         ? "internal error: the invariant's constraints are unsatisfiable even without the error "
                           "(vacuity guard), so nothing is proved"
                         : "timeout";
        }
      }
      stepTime += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } catch (const smt::SolverError& e) {
      r.verdict = result::Verdict::Unknown;
      r.reason = std::string("solver error: ") + e.what();
    } catch (const std::bad_alloc&) {
      r.verdict = result::Verdict::Unknown;
      r.reason = "out of memory";
    }
    report(r);
    return r;
  }

  if (eng) {
    bo.inductiveStep = [&](uint32_t k) -> bool {
      if (!eng || deadline.expired()) return false;
      // As kind: the step (inference + k-induction) may use about 1.5 times as much time
      // as the base case (plus two seconds), so deep bugs are still found.
      double other = elapsed() - stepTime;
      double budget = 2.0 + 1.5 * other - stepTime;
      if (budget < 0.2) {
        ++stepSkipped;
        return false;
      }
      // an interrupted inference gets a slice that doubles each time (a query that needs
      // longer than the share would otherwise never finish); the share evens out later
      if (eng->inferencePending()) budget = std::max(budget, slice);
      support::Deadline stepDeadline = support::Deadline::in(budget);
      if (!deadline.isNever() && deadline.at() < stepDeadline.at()) stepDeadline = deadline;
      auto t0 = std::chrono::steady_clock::now();
      bool proved = false;
      // k-induction for kk <= k (the base case for k covers kk)
      auto induction = [&](uint32_t kk, unsigned ms) {
        CheckResult r = eng->checkProperty(kk, ms);
        ++stepChecks;
        if (opts.progress)
          opts.progress("kiki: k-induction k=" + std::to_string(kk) + ": " + smt::checkResultName(r));
        if (r == CheckResult::Unsat) {
          provedK = kk;
          proved = true;
        }
      };
      try {
        // k-induction under the invariants known so far (unless an inference is under
        // way: then its result is awaited, except for small k); then the inference of a
        // k-invariant — resumed if one was interrupted, else for the next k after the
        // last one inferred; the very first one over the intervals alone — and
        // k-induction again when it completed.
        assumeAffine();
        bool inferring = opts.mode == KikiMode::Full && noTemplates.empty();
        if (!inferring || !eng->inferencePending() || k <= 2) induction(k, stepDeadline.remainingMs());
        if (!proved && inferring && !stepDeadline.expired()) {
          // first a 1-invariant over the intervals alone: cheap, and often enough
          bool intervalsPhase = !intervalsDone;
          uint32_t kInf = intervalsPhase ? 1 : std::min(k, eng->lastInferredK() + 1);
          auto inv = eng->infer(kInf, stepDeadline, intervalsPhase);
          slice = inv ? 1.0 : std::min(slice * 2, 30.0);
          if (inv && intervalsPhase) intervalsDone = true;
          if (inv) {
            ++inferences;
            logInvariant(kInf);
            // with the new invariant, k-induction for the k it was inferred for (cheaper
            // than the current k); it gets at least two seconds
            unsigned ms = std::max(stepDeadline.remainingMs(), 2000u);
            if (!deadline.isNever()) ms = std::min(ms, deadline.remainingMs());
            induction(kInf, ms);
          }
        }
      } catch (const smt::SolverError& e) {
        stepNote = std::string("kiki step: solver error: ") + e.what();
        eng.reset();
      } catch (const std::bad_alloc&) {
        // the template engine's memory is given back; BMC goes on (and keeps its bound)
        stepNote = "kiki step: out of memory (invariant inference and k-induction dropped, bmc went on)";
        eng.reset();
        if (opts.progress) opts.progress(stepNote);
      }
      stepTime += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return proved;
    };
  }
  result::VerificationResult r = runBmc(prog, entry, bo);
  if (!disabled.empty()) {
    r.stats.extra["step_case_disabled"] = 1;
    std::string note = "kiki: inlined program not usable (" + disabled + "): bmc only";
    if (r.verdict == result::Verdict::Unknown) r.reason = r.reason.empty() ? note : r.reason + "; " + note;
    if (opts.progress) opts.progress(note);
  }
  report(r);
  return r;
}

}  // namespace argus::algorithms
