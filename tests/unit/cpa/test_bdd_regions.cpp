// Abstraction formulas as BDDs (core/cpa/bdd_regions.h): canonical regions, coverage
// decided on the BDDs, regions used from several threads at once, and the predicate
// CPA with BDD abstraction formulas against the one with SMT formulas.
#include <gtest/gtest.h>

#include <thread>

#include "core/cpa/bdd_regions.h"
#include "core/cpa/predicate_cpa.h"
#include "core/encoding/path_formula.h"
#include "tests/unit/cfa/builder.h"

using namespace argus;
using cpa::BddRegions;
using smt::CheckResult;
using smt::Term;

namespace {

bool valid(smt::TermManager& tm, Term f) {
  auto s = smt::makeSolver(smt::SolverKind::Z3, tm, {});
  s->add(tm.mkNot(f));
  return s->check() == CheckResult::Unsat;
}

TEST(BddRegions, EqualFunctionsGiveOneFormula) {
  smt::TermManager tm;
  Term p = tm.freshVar("p", tm.boolSort()), q = tm.freshVar("q", tm.boolSort()), r = tm.freshVar("r", tm.boolSort());
  BddRegions regions(tm);
  // (p ∧ q) ∨ (p ∧ ¬q) is p; written in another order it is the same term
  Term a = regions.fromCubes({{{p, true}, {q, true}}, {{p, true}, {q, false}}});
  Term b = regions.fromCubes({{{q, false}, {p, true}}, {{q, true}, {p, true}}});
  Term c = regions.fromCubes({{{p, true}}});
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_TRUE(valid(tm, tm.mkEq(a, p)));
  // the formula is the function of the cubes: (p ∧ ¬r) ∨ (¬p ∧ q ∧ r)
  Term d = regions.fromCubes({{{p, true}, {r, false}}, {{p, false}, {q, true}, {r, true}}});
  EXPECT_TRUE(valid(tm, tm.mkEq(d, tm.mkOr(tm.mkAnd(p, tm.mkNot(r)), tm.mkAnd(std::vector<Term>{tm.mkNot(p), q, r})))));
  // no cube: false; one empty cube: true
  EXPECT_TRUE(regions.fromCubes({})->isFalse());
  EXPECT_TRUE(regions.fromCubes({{}})->isTrue());
  EXPECT_EQ(regions.variables(), 3u);
}

TEST(BddRegions, ImplicationOnTheBdds) {
  smt::TermManager tm;
  Term p = tm.freshVar("p", tm.boolSort()), q = tm.freshVar("q", tm.boolSort());
  BddRegions regions(tm);
  Term pq = regions.fromCubes({{{p, true}, {q, true}}});
  Term porq = regions.fromCubes({{{p, true}}, {{q, true}}});
  Term notp = regions.fromCubes({{{p, false}}});
  EXPECT_EQ(regions.implies(pq, porq), std::optional<bool>(true));
  EXPECT_EQ(regions.implies(porq, pq), std::optional<bool>(false));
  EXPECT_EQ(regions.implies(notp, porq), std::optional<bool>(false));
  EXPECT_EQ(regions.implies(tm.falseTerm(), notp), std::optional<bool>(true));
  EXPECT_EQ(regions.implies(notp, tm.trueTerm()), std::optional<bool>(true));
  EXPECT_EQ(regions.implies(tm.trueTerm(), notp), std::optional<bool>(false));
  // the same formula built by hand is the region (terms are hash-consed) ...
  EXPECT_EQ(regions.implies(tm.mkAnd(p, q), porq), std::optional<bool>(true));
  // ... a formula that is not a region of this instance is left to the solver
  Term s = tm.freshVar("s", tm.boolSort());
  EXPECT_EQ(regions.implies(tm.mkAnd(p, s), porq), std::nullopt);
  BddRegions other(tm);
  EXPECT_EQ(other.implies(pq, porq), std::nullopt);
}

// argusd runs analyses in threads; BuDDy's node table is global. Each thread builds
// and compares its own regions; every answer must be the single-threaded one.
TEST(BddRegions, ThreadsSideBySide) {
  constexpr int kThreads = 4, kRounds = 200;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([t, &wrong] {
      smt::TermManager tm;
      BddRegions regions(tm);
      std::vector<Term> v;
      for (int i = 0; i < 12; ++i) v.push_back(tm.freshVar("v", tm.boolSort()));
      for (int k = 0; k < kRounds; ++k) {
        // cubes v_i ∧ v_{i+1} for i in a window: the region implies the wider window's
        std::vector<std::vector<BddRegions::Literal>> narrow, wide;
        int lo = (k + t) % 6;
        for (int i = lo; i < lo + 4; ++i) narrow.push_back({{v[i], true}, {v[i + 1], true}});
        wide = narrow;
        wide.push_back({{v[lo + 5], false}});
        Term a = regions.fromCubes(narrow), b = regions.fromCubes(wide);
        if (!a || !b || regions.implies(a, b) != std::optional<bool>(true) ||
            regions.implies(b, a) != std::optional<bool>(false))
          ++wrong[t];
      }
    });
  for (auto& th : ts) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// The predicate CPA with BDD abstraction formulas: the same abstraction (modulo the
// theory) as with SMT formulas, canonical, and coverage between abstractions decided
// without a solver query.
TEST(BddRegions, PredicateCpaAbstractionsAsBdds) {
  smt::TermManager tm;
  cfa::Program prog;
  cfa::test::FuncBuilder m(prog, "main");
  auto x = m.var("x");
  m.havoc(m.entry(), m.exit(), x);
  prog.markLoopHeads();
  encoding::PathFormulaManager pfm(prog, tm);
  cpa::ControlFlow cf(prog, m.id());
  auto s1 = smt::makeSolver(smt::SolverKind::Z3, tm, {});
  auto s2 = smt::makeSolver(smt::SolverKind::Z3, tm, {});
  cpa::PredicateCpaOptions so, bo;
  bo.bddAbstractions = true;
  cpa::PredicateCpa smtCpa(cf, pfm, *s1, so, support::Deadline::never());
  cpa::PredicateCpa bddCpa(cf, pfm, *s2, bo, support::Deadline::never());
  EXPECT_EQ(smtCpa.regions(), nullptr);
  ASSERT_NE(bddCpa.regions(), nullptr);
  encoding::SsaMap ssa = encoding::SsaMap().with(x->var, 1);
  Term x1 = pfm.indexed(x->var, 1), xu = pfm.unindexed(x->var);
  auto c = [&](uint64_t v) { return tm.bvVal(v, 32); };
  std::vector<Term> preds{tm.mkEq(xu, c(1)), tm.mkEq(xu, c(2)), tm.bvSlt(xu, c(0))};
  Term f12 = tm.mkOr(tm.mkEq(x1, c(1)), tm.mkEq(x1, c(2)));
  Term f21 = tm.mkOr(tm.mkEq(x1, c(2)), tm.mkEq(x1, c(1)));  // another formula, the same abstraction
  Term f1 = tm.mkEq(x1, c(1));
  Term a12 = bddCpa.abstract(f12, preds, ssa), a21 = bddCpa.abstract(f21, preds, ssa);
  Term a1 = bddCpa.abstract(f1, preds, ssa);
  EXPECT_TRUE(valid(tm, tm.mkEq(a12, smtCpa.abstract(f12, preds, ssa))));
  EXPECT_TRUE(valid(tm, tm.mkEq(a1, smtCpa.abstract(f1, preds, ssa))));
  EXPECT_EQ(a12, a21);  // canonical
  EXPECT_TRUE(bddCpa.implies(a1, a12));
  EXPECT_FALSE(bddCpa.implies(a12, a1));
  EXPECT_EQ(bddCpa.stats().bddImplications, 2u);
  EXPECT_EQ(bddCpa.stats().implicationChecks, 0u);
  // a formula that is no region (Impact conjoins interpolants): the solver decides
  EXPECT_TRUE(bddCpa.implies(tm.mkAnd(a1, preds[0]), a12));
  EXPECT_EQ(bddCpa.stats().implicationChecks, 1u);
  // cartesian abstraction as a region too
  cpa::PredicateCpaOptions cbo = bo;
  cbo.cartesian = true;
  auto s3 = smt::makeSolver(smt::SolverKind::Z3, tm, {});
  cpa::PredicateCpa cartCpa(cf, pfm, *s3, cbo, support::Deadline::never());
  Term ac = cartCpa.abstract(f12, preds, ssa);
  EXPECT_TRUE(valid(tm, tm.mkEq(ac, tm.mkNot(preds[2]))));
  EXPECT_EQ(cartCpa.regions()->regions(), 1u);
}

}  // namespace
