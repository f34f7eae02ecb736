// Path formulas, the predicate CPA's abstraction and coverage, and Newton refinement
// sequences on small traces — with real solvers.
#include <gtest/gtest.h>

#include "core/algorithms/predicate/newton_refiner.h"
#include "core/cpa/location_cpa.h"
#include "core/cpa/predicate_cpa.h"
#include "core/encoding/path_formula.h"
#include "tests/unit/cfa/builder.h"
#include "tests/unit/cpa/cpa_test_util.h"

using namespace argus;
using argus::cfa::BinOp;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::cfa::test::FuncBuilder;
using argus::cpa::test::edgeStep;
using encoding::PathFormula;
using encoding::PathFormulaManager;
using smt::CheckResult;
using smt::SolverKind;
using smt::Term;

namespace {

class PredicateTest : public ::testing::TestWithParam<SolverKind> {
protected:
  smt::TermManager tm;
  std::unique_ptr<smt::Solver> solver() { return smt::makeSolver(GetParam(), tm, {}); }
  bool valid(Term f) {
    auto s = solver();
    s->add(tm.mkNot(f));
    return s->check() == CheckResult::Unsat;
  }
  bool sat(Term f) {
    auto s = solver();
    s->add(f);
    return s->check() == CheckResult::Sat;
  }
};

// main: x = nondet; y = x + 1; [y > 10]; *(p) = y (p = 0x2000, 4 bytes); [x < 5]
struct Trace {
  cfa::Program p;
  cfa::FuncId f;
  cfa::ExprPtr x, y;
  std::vector<uint32_t> edges;
  Trace() {
    FuncBuilder m(p, "main");
    f = m.id();
    x = m.var("x");
    y = m.var("y");
    auto l1 = m.loc(), l2 = m.loc(), l3 = m.loc(), l4 = m.loc();
    edges.push_back(m.havoc(m.entry(), l1, x));
    edges.push_back(m.assign(l1, l2, y, B(BinOp::Add, x, C(1))));
    edges.push_back(m.assume(l2, l3, B(BinOp::SLt, C(10), y, 32)));
    edges.push_back(m.store(l3, l4, C(0x2000, 64), y));
    edges.push_back(m.assume(l4, m.exit(), B(BinOp::SLt, x, C(5), 32)));
    p.markLoopHeads();
  }
};

TEST_P(PredicateTest, PathFormulaSsaAndSemantics) {
  Trace t;
  PathFormulaManager pfm(t.p, tm);
  PathFormula pf = pfm.empty();
  std::vector<PathFormula> pfs;
  for (uint32_t e : t.edges) {
    pf = pfm.extend(pf, edgeStep(t.p, t.f, e));
    pfs.push_back(pf);
  }
  cfa::VarId x = t.x->var, y = t.y->var;
  EXPECT_EQ(pfs[0].ssa->index(x), 1u);  // havoc: a fresh index, no constraint
  EXPECT_TRUE(pfs[0].formula->isTrue());
  EXPECT_EQ(pfs[1].ssa->index(y), 1u);
  EXPECT_EQ(pfs[3].ssa->index(encoding::kMemKey), 1u);
  EXPECT_EQ(pfs[2].ssa, pfs[1].ssa);  // assume keeps the indices
  // x + 1 > 10 and x < 5 (signed 32 bit) is unsatisfiable
  EXPECT_FALSE(sat(pf.formula));
  EXPECT_TRUE(sat(pfs[3].formula));
  // the stored value is y
  Term load = pfm.encoder().load(pfm.current(encoding::kMemKey, *pfs[3].ssa), tm.bvVal(0x2000, 64), 4);
  EXPECT_TRUE(valid(tm.mkImplies(pfs[3].formula, tm.mkEq(load, pfm.current(y, *pfs[3].ssa)))));
  // instantiate / uninstantiate round trip
  Term u = tm.bvSlt(pfm.unindexed(x), tm.bvVal(3, 32));
  Term i = pfm.instantiate(u, *pfs[3].ssa);
  EXPECT_EQ(i, tm.bvSlt(pfm.indexed(x, 1), tm.bvVal(3, 32)));
  EXPECT_EQ(pfm.uninstantiate(i), u);
}

TEST_P(PredicateTest, MakeOrUnifiesIndices) {
  Trace t;
  PathFormulaManager pfm(t.p, tm);
  PathFormula base = pfm.empty();
  PathFormula a = pfm.extend(base, edgeStep(t.p, t.f, t.edges[0]));  // x@1
  a = pfm.extend(a, edgeStep(t.p, t.f, t.edges[1]));                  // y@1 = x@1 + 1
  PathFormula b = pfm.conjoin(base, tm.mkEq(pfm.indexed(t.y->var, 0), tm.bvVal(42, 32)));
  PathFormula m = pfm.makeOr(a, b);
  EXPECT_EQ(m.ssa->index(t.x->var), 1u);
  EXPECT_EQ(m.ssa->index(t.y->var), 1u);
  // on the b side y@1 = y@0 = 42
  Term y1 = pfm.indexed(t.y->var, 1), x1 = pfm.indexed(t.x->var, 1);
  EXPECT_TRUE(valid(tm.mkImplies(m.formula, tm.mkOr(tm.mkEq(y1, tm.bvVal(42, 32)), tm.mkEq(y1, tm.bvAdd(x1, tm.bvVal(1, 32)))))));
  EXPECT_TRUE(sat(tm.mkAnd(m.formula, tm.mkEq(y1, tm.bvVal(42, 32)))));
}

TEST_P(PredicateTest, BooleanAndCartesianAbstraction) {
  Trace t;
  PathFormulaManager pfm(t.p, tm);
  cpa::ControlFlow cf(t.p, t.f);
  auto s = solver();
  cpa::PredicateCpaOptions bo, co;
  co.cartesian = true;
  cpa::PredicateCpa boolCpa(cf, pfm, *s, bo, support::Deadline::never());
  cpa::PredicateCpa cartCpa(cf, pfm, *s, co, support::Deadline::never());
  encoding::SsaMap ssa = encoding::SsaMap().with(t.x->var, 1);
  Term x1 = pfm.indexed(t.x->var, 1), xu = pfm.unindexed(t.x->var);
  Term f = tm.mkOr(tm.mkEq(x1, tm.bvVal(1, 32)), tm.mkEq(x1, tm.bvVal(2, 32)));
  std::vector<Term> preds{tm.mkEq(xu, tm.bvVal(1, 32)), tm.mkEq(xu, tm.bvVal(2, 32)), tm.bvSlt(xu, tm.bvVal(0, 32))};
  Term ab = boolCpa.abstract(f, preds, ssa);
  Term ac = cartCpa.abstract(f, preds, ssa);
  // boolean: exactly (x=1 ∨ x=2) ∧ ¬(x<0) over the predicates
  EXPECT_TRUE(valid(tm.mkEq(ab, tm.mkAnd(tm.mkOr(preds[0], preds[1]), tm.mkNot(preds[2])))));
  // cartesian: only the conjunction of implied literals: ¬(x<0)
  EXPECT_TRUE(valid(tm.mkEq(ac, tm.mkNot(preds[2]))));
  // unsatisfiable block: false
  EXPECT_TRUE(boolCpa.abstract(tm.mkAnd(tm.mkEq(x1, tm.bvVal(1, 32)), tm.mkEq(x1, tm.bvVal(2, 32))), preds, ssa)->isFalse());
  // the all-SAT cap falls back to cartesian (sound, weaker)
  cpa::PredicateCpaOptions capped;
  capped.maxAllSatModels = 1;
  cpa::PredicateCpa capCpa(cf, pfm, *s, capped, support::Deadline::never());
  Term acap = capCpa.abstract(f, preds, ssa);
  EXPECT_TRUE(valid(tm.mkEq(acap, tm.mkNot(preds[2]))));
  EXPECT_EQ(capCpa.stats().cartesianFallbacks, 1u);
  // coverage: implication, cached
  EXPECT_TRUE(boolCpa.implies(preds[0], tm.mkNot(preds[1])));
  EXPECT_FALSE(boolCpa.implies(tm.mkNot(preds[1]), preds[0]));
  EXPECT_TRUE(boolCpa.implies(preds[0], tm.mkNot(preds[1])));
  EXPECT_EQ(boolCpa.stats().implicationCacheHits, 1u);
}

// Checks the properties of an inductive sequence for blocks φ_1..φ_n:
// τ_0 = true, τ_n = false, τ_{i-1} ∧ φ_i ⇒ τ_i.
void expectInductive(PredicateTest& t, smt::TermManager& tm, const std::vector<Term>& blocks,
                     const algorithms::RefinementOutput& out, std::function<bool(Term)> valid) {
  ASSERT_TRUE(out.ok) << out.reason;
  ASSERT_EQ(out.sequence.size(), blocks.size());
  EXPECT_TRUE(out.sequence.back()->isFalse());
  Term prev = tm.trueTerm();
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_TRUE(valid(tm.mkImplies(tm.mkAnd(prev, blocks[i]), out.sequence[i])))
        << "step " << i << ": " << out.sequence[i]->str();
    prev = out.sequence[i];
  }
  (void)t;
}

TEST_P(PredicateTest, NewtonSequenceOnStraightTrace) {
  Trace t;
  PathFormulaManager pfm(t.p, tm);
  // blocks: [havoc x; y = x + 1] [y > 10; store] [x < 5]
  std::vector<std::vector<uint32_t>> blockEdges{{t.edges[0], t.edges[1]}, {t.edges[2], t.edges[3]}, {t.edges[4]}};
  PathFormula pf = pfm.empty();
  std::vector<Term> blocks;
  std::vector<std::shared_ptr<const encoding::SsaMap>> ssas;
  for (auto& be : blockEdges) {
    PathFormula b = pfm.emptyWithSsa(pf);
    for (uint32_t e : be) b = pfm.extend(b, edgeStep(t.p, t.f, e));
    blocks.push_back(b.formula);
    ssas.push_back(b.ssa);
    pf = b;
  }
  algorithms::RefinementInput in;
  in.blocks = blocks;
  for (auto& s : ssas) in.ssaAfter.push_back(s.get());
  algorithms::NewtonRefiner newton(pfm, GetParam(), support::Deadline::never());
  auto out = newton.refine(in);
  expectInductive(*this, tm, blocks, out, [&](Term f) { return valid(f); });
  // the store is irrelevant: not in the (minimised) core
  EXPECT_LT(out.coreSize, out.conjunctCount);
  // τ_1 relates the current x and y: y = x + 1 (x is not stale after block 1)
  EXPECT_FALSE(out.predicates[0].empty());
  // false is a predicate at the last block end
  EXPECT_TRUE(std::find(out.predicates[2].begin(), out.predicates[2].end(), tm.falseTerm()) != out.predicates[2].end());
  // predicates are over unindexed variables
  for (auto& ps : out.predicates)
    for (Term p : ps)
      for (Term v : tm.freeVars(p)) {
        const auto* vi = pfm.info(v);
        ASSERT_NE(vi, nullptr);
        EXPECT_FALSE(vi->indexed) << p->str();
      }
}

// x = 0; loop unrolled twice: [x < 2] x = x + 1; [x < 2] x = x + 1; [x != 2] → infeasible.
// The projection must eliminate the stale x's by substitution.
TEST_P(PredicateTest, NewtonEliminatesStaleVariables) {
  cfa::Program p;
  FuncBuilder m(p, "main");
  auto x = m.var("x");
  std::vector<uint32_t> e;
  auto l = m.entry();
  auto next = [&] { return m.loc(); };
  auto l1 = next();
  e.push_back(m.assign(l, l1, x, C(0)));
  auto l2 = next(), l3 = next(), l4 = next(), l5 = next(), l6 = next();
  e.push_back(m.assume(l1, l2, B(BinOp::SLt, x, C(2), 32)));
  e.push_back(m.assign(l2, l3, x, B(BinOp::Add, x, C(1))));
  e.push_back(m.assume(l3, l4, B(BinOp::SLt, x, C(2), 32)));
  e.push_back(m.assign(l4, l5, x, B(BinOp::Add, x, C(1))));
  e.push_back(m.assume(l5, l6, B(BinOp::Ne, x, C(2), 32)));
  p.markLoopHeads();
  PathFormulaManager pfm(p, tm);
  std::vector<Term> blocks;
  std::vector<std::shared_ptr<const encoding::SsaMap>> ssas;
  PathFormula pf = pfm.empty();
  for (uint32_t ei : e) {  // one block per edge
    PathFormula b = pfm.extend(pfm.emptyWithSsa(pf), edgeStep(p, m.id(), ei));
    blocks.push_back(b.formula);
    ssas.push_back(b.ssa);
    pf = b;
  }
  algorithms::RefinementInput in;
  in.blocks = blocks;
  for (auto& s : ssas) in.ssaAfter.push_back(s.get());
  algorithms::NewtonRefiner newton(pfm, GetParam(), support::Deadline::never());
  auto out = newton.refine(in);
  expectInductive(*this, tm, blocks, out, [&](Term f) { return valid(f); });
  // after the second increment: x = 2 (all older x eliminated)
  Term x3 = pfm.indexed(x->var, 3);
  EXPECT_TRUE(valid(tm.mkEq(out.sequence[4], tm.mkEq(x3, tm.bvVal(2, 32))))) << out.sequence[4]->str();
  bool found = false;
  for (Term q : out.predicates[4])
    if (valid(tm.mkEq(q, tm.mkEq(pfm.unindexed(x->var), tm.bvVal(2, 32))))) found = true;
  EXPECT_TRUE(found);
}

TEST_P(PredicateTest, NewtonReportsAFeasibleTrace) {
  Trace t;
  PathFormulaManager pfm(t.p, tm);
  PathFormula pf = pfm.extend(pfm.empty(), edgeStep(t.p, t.f, t.edges[0]));
  pf = pfm.extend(pf, edgeStep(t.p, t.f, t.edges[1]));
  algorithms::RefinementInput in;
  in.blocks = {pf.formula};
  in.ssaAfter = {pf.ssa.get()};
  algorithms::NewtonRefiner newton(pfm, GetParam(), support::Deadline::never());
  auto out = newton.refine(in);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.reason.find("feasible"), std::string::npos);
}

TEST_P(PredicateTest, ProjectionOfStoreChains) {
  Trace t;
  PathFormulaManager pfm(t.p, tm);
  using encoding::kMemKey;
  // mem@1 = store(mem@0, 8, 5) with mem@0 stale: ∃mem@0 gives select(mem@1, 8) = 5
  Term m0 = pfm.indexed(kMemKey, 0), m1 = pfm.indexed(kMemKey, 1);
  Term a = tm.bvVal(8, 64);
  Term k = tm.mkEq(m1, tm.store(m0, a, tm.bvVal(5, 8)));
  algorithms::NewtonRefiner newton(pfm, GetParam(), support::Deadline::never());
  encoding::SsaMap ssa = encoding::SsaMap().with(kMemKey, 1);
  Term tau = newton.project({k}, ssa);
  EXPECT_TRUE(valid(tm.mkEq(tau, tm.mkEq(tm.select(m1, a), tm.bvVal(5, 8))))) << tau->str();
}

INSTANTIATE_TEST_SUITE_P(Solvers, PredicateTest, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const auto& info) { return std::string(smt::solverName(info.param)); });

}  // namespace
