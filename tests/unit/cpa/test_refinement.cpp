// Refinement engines (Craig and the eight Newton variants) on small infeasible traces:
// every produced sequence is checked with a solver (τ_0 = true, each step inductive,
// τ_n = false, τ_i over the variables current at position i), and the checker itself
// is checked on sequences that break each property.
#include <gtest/gtest.h>

#include "core/algorithms/predicate/refinement_engine.h"
#include "core/encoding/path_formula.h"
#include "tests/unit/cfa/builder.h"
#include "tests/unit/cpa/cpa_test_util.h"

using namespace argus;
using argus::cfa::BinOp;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::cfa::test::FuncBuilder;
using argus::cpa::test::edgeStep;
using algorithms::RefinerConfig;
using encoding::PathFormula;
using encoding::PathFormulaManager;
using smt::CheckResult;
using smt::SolverKind;
using smt::Term;

namespace {

// A trace: a program, its edges, and a cut into blocks.
struct TraceCase {
  cfa::Program p;
  cfa::FuncId f = 0;
  std::vector<std::vector<uint32_t>> blocks;
  std::map<std::string, cfa::ExprPtr> vars;
};

// havoc x; y = x + 1 | [10 < y]; *(0x2000) = y | [x < 5]
void straight(TraceCase& t) {
  FuncBuilder m(t.p, "main");
  t.f = m.id();
  auto x = m.var("x"), y = m.var("y");
  t.vars = {{"x", x}, {"y", y}};
  auto l1 = m.loc(), l2 = m.loc(), l3 = m.loc(), l4 = m.loc();
  uint32_t e0 = m.havoc(m.entry(), l1, x);
  uint32_t e1 = m.assign(l1, l2, y, B(BinOp::Add, x, C(1)));
  uint32_t e2 = m.assume(l2, l3, B(BinOp::SLt, C(10), y, 32));
  uint32_t e3 = m.store(l3, l4, C(0x2000, 64), y);
  uint32_t e4 = m.assume(l4, m.exit(), B(BinOp::SLt, x, C(5), 32));
  t.blocks = {{e0, e1}, {e2, e3}, {e4}};
  t.p.markLoopHeads();
}

// x = 0 | [x < 2] x = x + 1 | [x < 2] x = x + 1 | [x != 2]   (a loop unrolled twice)
void loop(TraceCase& t) {
  FuncBuilder m(t.p, "main");
  t.f = m.id();
  auto x = m.var("x");
  t.vars = {{"x", x}};
  auto l1 = m.loc(), l2 = m.loc(), l3 = m.loc(), l4 = m.loc(), l5 = m.loc(), l6 = m.loc();
  uint32_t e0 = m.assign(m.entry(), l1, x, C(0));
  uint32_t e1 = m.assume(l1, l2, B(BinOp::SLt, x, C(2), 32));
  uint32_t e2 = m.assign(l2, l3, x, B(BinOp::Add, x, C(1)));
  uint32_t e3 = m.assume(l3, l4, B(BinOp::SLt, x, C(2), 32));
  uint32_t e4 = m.assign(l4, l5, x, B(BinOp::Add, x, C(1)));
  uint32_t e5 = m.assume(l5, l6, B(BinOp::Ne, x, C(2), 32));
  t.blocks = {{e0}, {e1, e2}, {e3, e4}, {e5}};
  t.p.markLoopHeads();
}

// a = 1; b = 2 | t = a; a = b; b = t; havoc u | [u < 7]; [a != 2]   (dead t, irrelevant u)
void swap(TraceCase& t) {
  FuncBuilder m(t.p, "main");
  t.f = m.id();
  auto a = m.var("a"), b = m.var("b"), tt = m.var("t"), u = m.var("u");
  t.vars = {{"a", a}, {"b", b}, {"t", tt}, {"u", u}};
  auto l1 = m.loc(), l2 = m.loc(), l3 = m.loc(), l4 = m.loc(), l5 = m.loc(), l6 = m.loc(), l7 = m.loc();
  uint32_t e0 = m.assign(m.entry(), l1, a, C(1));
  uint32_t e1 = m.assign(l1, l2, b, C(2));
  uint32_t e2 = m.assign(l2, l3, tt, a);
  uint32_t e3 = m.assign(l3, l4, a, b);
  uint32_t e4 = m.assign(l4, l5, b, tt);
  uint32_t e5 = m.havoc(l5, l6, u);
  uint32_t e6 = m.assume(l6, l7, B(BinOp::SLt, u, C(7), 32));
  uint32_t e7 = m.assume(l7, m.exit(), B(BinOp::Ne, a, C(2), 32));
  t.blocks = {{e0, e1}, {e2, e3, e4, e5}, {e6, e7}};
  t.p.markLoopHeads();
}

struct Encoded {
  algorithms::RefinementInput in;
  std::vector<std::shared_ptr<const encoding::SsaMap>> keep;
};

Encoded encode(TraceCase& t, PathFormulaManager& pfm) {
  Encoded e;
  PathFormula pf = pfm.empty();
  for (auto& be : t.blocks) {
    PathFormula b = pfm.emptyWithSsa(pf);
    for (uint32_t ei : be) b = pfm.extend(b, edgeStep(t.p, t.f, ei));
    e.in.blocks.push_back(b.formula);
    e.keep.push_back(b.ssa);
    e.in.ssaAfter.push_back(b.ssa.get());
    pf = b;
  }
  return e;
}

using Param = std::tuple<std::string, SolverKind>;

class RefinementEngineTest : public ::testing::TestWithParam<Param> {
protected:
  smt::TermManager tm;
  RefinerConfig cfg() { return RefinerConfig::parse(std::get<0>(GetParam())); }
  SolverKind solver() { return std::get<1>(GetParam()); }

  void runOn(void (*build)(TraceCase&), size_t expectedLength) {
    TraceCase t;
    build(t);
    PathFormulaManager pfm(t.p, tm);
    Encoded e = encode(t, pfm);
    ASSERT_EQ(e.in.blocks.size(), expectedLength);
    auto engine = algorithms::makeRefinementEngine(cfg(), pfm, solver(), support::Deadline::never());
    auto out = engine->interpolate(e.in);
    ASSERT_TRUE(out.ok) << cfg().name() << ": " << out.reason;
    ASSERT_EQ(out.seq.size(), expectedLength);
    EXPECT_TRUE(out.seq.back()->isFalse());
    // the sequence properties, decided by the solver of the run
    EXPECT_EQ(algorithms::checkSequence(pfm, solver(), e.in, out.seq), "") << dump(out.seq);
    // and by the other solver too
    SolverKind other = solver() == SolverKind::Z3 ? SolverKind::CVC5 : SolverKind::Z3;
    EXPECT_EQ(algorithms::checkSequence(pfm, other, e.in, out.seq), "") << dump(out.seq);
    // predicates are over unindexed variables; false at the end
    auto preds = algorithms::sequencePredicates(pfm, out.seq);
    ASSERT_EQ(preds.size(), expectedLength);
    EXPECT_NE(std::find(preds.back().begin(), preds.back().end(), tm.falseTerm()), preds.back().end());
    for (auto& ps : preds)
      for (Term q : ps)
        for (Term v : tm.freeVars(q)) {
          const auto* vi = pfm.info(v);
          ASSERT_NE(vi, nullptr) << q->str();
          EXPECT_FALSE(vi->indexed) << q->str();
        }
    lastSeq = out.seq;
    if (cfg().kind == RefinerConfig::Kind::Newton && cfg().core) EXPECT_LE(out.coreSize, out.conjunctCount);
    if (cfg().kind == RefinerConfig::Kind::Newton && !cfg().core) EXPECT_EQ(out.coreSize, out.conjunctCount);
  }
  static std::string dump(const std::vector<Term>& seq) {
    std::string s;
    for (Term t : seq) s += "  " + t->str() + "\n";
    return s;
  }
  std::vector<Term> lastSeq;
};

TEST_P(RefinementEngineTest, StraightTrace) {
  if (cfg().kind == RefinerConfig::Kind::Craig) {
    // A known limit of cvc5 1.0.3's SyGuS interpolation over bit-vectors: at position
    // 2 the interpolant needs the constant 5 (x >= 5) and the search does not find it
    // (within the engine's per-query limit; position 1 is not found reliably either).
    // The engine must say so, not hang and not guess.
    TraceCase t;
    straight(t);
    PathFormulaManager pfm(t.p, tm);
    Encoded e = encode(t, pfm);
    auto engine = algorithms::makeRefinementEngine(cfg(), pfm, solver(), support::Deadline::never());
    auto out = engine->interpolate(e.in);
    if (out.ok) EXPECT_EQ(algorithms::checkSequence(pfm, solver(), e.in, out.seq), "");  // a newer cvc5 may find one
    else EXPECT_NE(out.reason.find("no interpolant for position"), std::string::npos) << out.reason;
    return;
  }
  runOn(straight, 3);
}
TEST_P(RefinementEngineTest, UnrolledLoop) { runOn(loop, 4); }
TEST_P(RefinementEngineTest, SwapWithDeadAndIrrelevantVariables) { runOn(swap, 3); }

TEST_P(RefinementEngineTest, FeasibleTraceIsRejected) {
  TraceCase t;
  straight(t);
  t.blocks.pop_back();  // without [x < 5] the trace is feasible
  PathFormulaManager pfm(t.p, tm);
  Encoded e = encode(t, pfm);
  auto engine = algorithms::makeRefinementEngine(cfg(), pfm, solver(), support::Deadline::never());
  auto out = engine->interpolate(e.in);
  EXPECT_FALSE(out.ok);
  EXPECT_FALSE(out.reason.empty());
  EXPECT_TRUE(out.seq.empty());
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const std::string& n : RefinerConfig::allNames())
    for (SolverKind k : {SolverKind::Z3, SolverKind::CVC5}) out.push_back({n, k});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Engines, RefinementEngineTest, ::testing::ValuesIn(params()), [](const auto& info) {
  std::string n = std::get<0>(info.param) + "_" + smt::solverName(std::get<1>(info.param));
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
});

class RefinementMiscTest : public ::testing::Test {
protected:
  smt::TermManager tm;
};

TEST_F(RefinementMiscTest, VariantNamesRoundTrip) {
  auto names = RefinerConfig::allNames();
  EXPECT_EQ(names.size(), 9u);
  for (const std::string& n : names) EXPECT_EQ(RefinerConfig::parse(n).name(), n);
  auto c = RefinerConfig::parse("newton-wp-all-live");
  EXPECT_TRUE(c.wp);
  EXPECT_FALSE(c.core);
  EXPECT_TRUE(c.live);
  EXPECT_THROW(RefinerConfig::parse("newton"), std::invalid_argument);
  EXPECT_THROW(RefinerConfig::parse("newton-sp-core"), std::invalid_argument);
}

// The checker rejects sequences that break each property.
TEST_F(RefinementMiscTest, CheckerRejectsBadSequences) {
  TraceCase t;
  loop(t);
  PathFormulaManager pfm(t.p, tm);
  Encoded e = encode(t, pfm);
  Term x = t.vars["x"]->kind == cfa::ExprKind::Var ? pfm.unindexed(t.vars["x"]->var) : nullptr;
  ASSERT_NE(x, nullptr);
  auto at = [&](size_t i, Term f) { return pfm.instantiate(f, *e.in.ssaAfter[i]); };
  auto eqc = [&](uint64_t c) { return tm.mkEq(x, tm.bvVal(c, 32)); };
  std::vector<Term> good{at(0, eqc(0)), at(1, eqc(1)), at(2, eqc(2)), tm.falseTerm()};
  EXPECT_EQ(algorithms::checkSequence(pfm, SolverKind::Z3, e.in, good), "");
  // not inductive at step 2
  std::vector<Term> bad1{at(0, eqc(0)), at(1, eqc(5)), at(2, eqc(2)), tm.falseTerm()};
  EXPECT_NE(algorithms::checkSequence(pfm, SolverKind::Z3, e.in, bad1), "");
  // does not end in false
  std::vector<Term> bad2{at(0, eqc(0)), at(1, eqc(1)), at(2, eqc(2)), tm.trueTerm()};
  EXPECT_NE(algorithms::checkSequence(pfm, SolverKind::Z3, e.in, bad2), "");
  // a stale variable in τ_2 (x at the indices of position 1)
  std::vector<Term> bad3{at(0, eqc(0)), at(1, eqc(1)), at(1, tm.mkNot(eqc(7))), tm.falseTerm()};
  EXPECT_NE(algorithms::checkSequence(pfm, SolverKind::Z3, e.in, bad3), "");
  // wrong length
  EXPECT_NE(algorithms::checkSequence(pfm, SolverKind::Z3, e.in, {tm.falseTerm()}), "");
}

TEST_F(RefinementMiscTest, SolverInterpolationApi) {
  Term a = tm.var("ia", tm.bvSort(8)), b = tm.var("ib", tm.bvSort(8)), c = tm.var("ic", tm.bvSort(8));
  Term A = tm.mkAnd(tm.mkEq(a, tm.bvVal(3, 8)), tm.mkEq(b, tm.bvAdd(a, tm.bvVal(1, 8))));
  Term Bf = tm.mkAnd(tm.mkEq(c, tm.bvAdd(b, tm.bvVal(1, 8))), tm.mkEq(c, tm.bvVal(9, 8)));
  auto z3 = smt::makeSolver(SolverKind::Z3, tm, {});
  EXPECT_FALSE(z3->supportsInterpolation());
  EXPECT_EQ(z3->interpolant(A, Bf), nullptr);
  EXPECT_NE(z3->reasonUnknown().find("not supported"), std::string::npos);
  smt::SolverOptions so;
  so.interpolants = true;
  auto cv = smt::makeSolver(SolverKind::CVC5, tm, so);
  EXPECT_TRUE(cv->supportsInterpolation());
  Term I = cv->interpolant(A, Bf);
  ASSERT_NE(I, nullptr) << cv->reasonUnknown();
  // only the shared symbol b
  for (Term v : tm.freeVars(I)) EXPECT_EQ(v, b) << I->str();
  auto chk = smt::makeSolver(SolverKind::Z3, tm, {});
  chk->push();
  chk->add(tm.mkAnd(A, tm.mkNot(I)));
  EXPECT_EQ(chk->check(), CheckResult::Unsat) << I->str();
  chk->pop();
  chk->add(tm.mkAnd(I, Bf));
  EXPECT_EQ(chk->check(), CheckResult::Unsat) << I->str();
  // the stack is left as it was: A ∧ B is not asserted
  EXPECT_EQ(cv->check(), CheckResult::Sat);
}

}  // namespace
