// The solver-neutral SMT layer against both backends: constant folding agrees with the
// solvers' bit-vector semantics, incremental use (push/pop, assumptions, unsat cores),
// models, arrays, integers, uninterpreted functions, timeouts and interruption.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <thread>

#include "core/smt/solver.h"
#include "core/smt/term.h"

using namespace argus::smt;

namespace {

class Smt : public ::testing::TestWithParam<SolverKind> {
protected:
  TermManager tm;
  std::unique_ptr<Solver> make(bool cores = false, unsigned timeoutMs = 0) {
    SolverOptions o;
    o.unsatCores = cores;
    o.timeoutMs = timeoutMs;
    return makeSolver(GetParam(), tm, o);
  }
};

using BinFn = std::function<Term(TermManager&, Term, Term)>;

struct BinOpCase {
  const char* name;
  BinFn fn;
};

const BinOpCase kBinOps[] = {
    {"add", [](TermManager& m, Term a, Term b) { return m.bvAdd(a, b); }},
    {"sub", [](TermManager& m, Term a, Term b) { return m.bvSub(a, b); }},
    {"mul", [](TermManager& m, Term a, Term b) { return m.bvMul(a, b); }},
    {"udiv", [](TermManager& m, Term a, Term b) { return m.bvUDiv(a, b); }},
    {"sdiv", [](TermManager& m, Term a, Term b) { return m.bvSDiv(a, b); }},
    {"urem", [](TermManager& m, Term a, Term b) { return m.bvURem(a, b); }},
    {"srem", [](TermManager& m, Term a, Term b) { return m.bvSRem(a, b); }},
    {"and", [](TermManager& m, Term a, Term b) { return m.bvAnd(a, b); }},
    {"or", [](TermManager& m, Term a, Term b) { return m.bvOr(a, b); }},
    {"xor", [](TermManager& m, Term a, Term b) { return m.bvXor(a, b); }},
    {"shl", [](TermManager& m, Term a, Term b) { return m.bvShl(a, b); }},
    {"lshr", [](TermManager& m, Term a, Term b) { return m.bvLShr(a, b); }},
    {"ashr", [](TermManager& m, Term a, Term b) { return m.bvAShr(a, b); }},
    {"ult", [](TermManager& m, Term a, Term b) { return m.mkIte(m.bvUlt(a, b), m.bvVal(1, 1), m.bvVal(0, 1)); }},
    {"ule", [](TermManager& m, Term a, Term b) { return m.mkIte(m.bvUle(a, b), m.bvVal(1, 1), m.bvVal(0, 1)); }},
    {"slt", [](TermManager& m, Term a, Term b) { return m.mkIte(m.bvSlt(a, b), m.bvVal(1, 1), m.bvVal(0, 1)); }},
    {"sle", [](TermManager& m, Term a, Term b) { return m.mkIte(m.bvSle(a, b), m.bvVal(1, 1), m.bvVal(0, 1)); }},
    {"eq", [](TermManager& m, Term a, Term b) { return m.mkIte(m.mkEq(a, b), m.bvVal(1, 1), m.bvVal(0, 1)); }},
    {"concat", [](TermManager& m, Term a, Term b) { return a->width() + b->width() <= 64 ? m.concat(a, b) : m.bvAdd(a, b); }},
};

// Interesting operands of a width: 0, 1, -1, the signed extremes, a shift amount beyond
// the width, and a few pseudo-random values.
std::vector<uint64_t> operands(uint32_t w, std::mt19937_64& rng) {
  uint64_t m = maskOf(w);
  std::vector<uint64_t> v = {0, 1 & m, m, (uint64_t(1) << (w - 1)) & m, ((uint64_t(1) << (w - 1)) - 1) & m,
                             uint64_t(w) & m, uint64_t(w + 3) & m};
  for (int i = 0; i < 3; ++i) v.push_back(rng() & m);
  return v;
}

// The folded constant op(c1, c2) equals the model value of op(x, y) under x = c1, y = c2.
TEST_P(Smt, ConstantFoldingAgreesWithTheSolver) {
  std::mt19937_64 rng(7);
  auto s = make();
  int checked = 0;
  for (uint32_t w : {1u, 3u, 8u, 13u, 32u, 64u}) {
    Term x = tm.var("x" + std::to_string(w), tm.bvSort(w));
    Term y = tm.var("y" + std::to_string(w), tm.bvSort(w));
    auto vals = operands(w, rng);
    for (const BinOpCase& op : kBinOps) {
      Term sym = op.fn(tm, x, y);
      ASSERT_FALSE(sym->isConst()) << op.name;
      for (uint64_t a : vals)
        for (uint64_t b : {vals[0], vals[1], vals[2], vals[3], vals[5], vals[8]}) {
          Term folded = op.fn(tm, tm.bvVal(a, w), tm.bvVal(b, w));
          ASSERT_TRUE(folded->isConst()) << op.name << " did not fold at width " << w;
          s->push();
          s->add(tm.mkEq(x, tm.bvVal(a, w)));
          s->add(tm.mkEq(y, tm.bvVal(b, w)));
          ASSERT_EQ(s->check(), CheckResult::Sat);
          Term model = s->modelValue(sym);
          EXPECT_EQ(model->value, folded->value)
              << op.name << " width " << w << " a=" << a << " b=" << b << " folded " << folded->value;
          s->pop();
          ++checked;
        }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST_P(Smt, UnaryAndWidthChangingOperationsAgreeWithTheSolver) {
  auto s = make();
  using UnFn = std::function<Term(Term)>;
  std::vector<std::pair<const char*, UnFn>> ops = {
      {"neg", [&](Term a) { return tm.bvNeg(a); }},
      {"not", [&](Term a) { return tm.bvNot(a); }},
      {"extract", [&](Term a) { return tm.extract(a, 11, 3); }},
      {"zext", [&](Term a) { return tm.zeroExt(a, 20); }},
      {"sext", [&](Term a) { return tm.signExt(a, 20); }},
  };
  Term x = tm.var("x", tm.bvSort(16));
  for (uint64_t a : {0ull, 1ull, 0x8000ull, 0xffffull, 0x7fffull, 0x1234ull}) {
    for (auto& [name, fn] : ops) {
      Term folded = fn(tm.bvVal(a, 16));
      ASSERT_TRUE(folded->isConst()) << name;
      s->push();
      s->add(tm.mkEq(x, tm.bvVal(a, 16)));
      ASSERT_EQ(s->check(), CheckResult::Sat);
      EXPECT_EQ(s->modelValue(fn(x))->value, folded->value) << name << " of " << a;
      s->pop();
    }
  }
}

// Constants wider than 64 bits (__int128) are Concats of 64-bit BVConsts, never folded
// by 64-bit arithmetic; model values of 128-bit terms come back whole (constBits).
TEST_P(Smt, WideConstantsAndModelValues) {
  using U = unsigned __int128;
  const U big = (U{0x0123456789abcdefull} << 64) | 0xfedcba9876543210ull;
  Term c = tm.bvValWide(big, 128);
  EXPECT_NE(c->kind, Kind::BVConst);
  ASSERT_TRUE(constBits(c).has_value());
  EXPECT_TRUE(*constBits(c) == big);
  EXPECT_TRUE(*constBits(tm.bvVal(5, 128)) == U{5});
  EXPECT_THROW(tm.bvValWide(1, 129), std::invalid_argument);
  auto s = make();
  Term x = tm.var("w128", tm.bvSort(128));
  // x * 3 == big * 3 (mod 2^128): x == big (3 is invertible modulo 2^128)
  s->add(tm.mkEq(tm.bvMul(x, tm.bvVal(3, 128)), tm.bvMul(c, tm.bvVal(3, 128))));
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_TRUE(modelBits(*s, x) == big);
  Term y = tm.var("w100", tm.bvSort(100));
  s->add(tm.mkEq(y, tm.bvValWide(~U{0}, 100)));
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_TRUE(modelBits(*s, y) == (U{1} << 100) - 1);
  EXPECT_EQ(parseDecimal128("340282366920938463463374607431768211455"), ~U{0});
  EXPECT_THROW(parseDecimal128("340282366920938463463374607431768211456"), std::invalid_argument);
}

TEST_P(Smt, PushPopRetractsAssertions) {
  auto s = make();
  Term x = tm.var("x", tm.bvSort(32));
  s->add(tm.bvUgt(x, tm.bvVal(5, 32)));
  s->push();
  s->add(tm.bvUlt(x, tm.bvVal(3, 32)));
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
  EXPECT_EQ(s->depth(), 0u);
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_GT(s->modelValue(x)->value, 5u);
}

TEST_P(Smt, AssumptionsAreRetractedAndUnsatCoreIsASubset) {
  auto s = make(/*cores=*/true);
  Term x = tm.var("x", tm.bvSort(8));
  Term y = tm.var("y", tm.bvSort(8));
  Term a = tm.var("a", tm.boolSort()), b = tm.var("b", tm.boolSort()), c = tm.var("c", tm.boolSort());
  s->add(tm.mkImplies(a, tm.bvUgt(x, tm.bvVal(5, 8))));
  s->add(tm.mkImplies(b, tm.bvUlt(x, tm.bvVal(3, 8))));
  s->add(tm.mkImplies(c, tm.mkEq(y, tm.bvVal(1, 8))));
  std::vector<Term> all = {a, b, c};
  ASSERT_EQ(s->check(all), CheckResult::Unsat);
  std::vector<Term> core = s->unsatCore();
  auto has = [&](Term t) { return std::find(core.begin(), core.end(), t) != core.end(); };
  // every unsatisfiable subset needs a and b; backends need not minimise (cvc5 does not)
  EXPECT_TRUE(has(a));
  EXPECT_TRUE(has(b));
  for (Term t : core) EXPECT_TRUE(t == a || t == b || t == c);
  EXPECT_EQ(s->check(core), CheckResult::Unsat);
  // the assumptions are gone after the call
  std::vector<Term> two = {a, c};
  ASSERT_EQ(s->check(two), CheckResult::Sat);
  EXPECT_EQ(s->modelValue(y)->value, 1u);
  EXPECT_EQ(s->check(), CheckResult::Sat);
}

TEST_P(Smt, ModelAndCoreOutsideTheirCheckThrow) {
  auto s = make(true);
  Term x = tm.var("x", tm.bvSort(8));
  s->add(tm.mkEq(x, tm.bvVal(3, 8)));
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_THROW(s->unsatCore(), SolverError);
  s->add(tm.mkEq(x, tm.bvVal(4, 8)));
  EXPECT_THROW(s->modelValue(x), SolverError);  // the stack changed
}

TEST_P(Smt, ArraysStoreSelectAndConstantArrays) {
  auto s = make();
  Sort mem = tm.arraySort(tm.bvSort(32), tm.bvSort(8));
  Term m0 = tm.var("m0", mem);
  Term i = tm.var("i", tm.bvSort(32)), j = tm.var("j", tm.bvSort(32));
  Term m1 = tm.store(m0, i, tm.bvVal(7, 8));
  s->push();
  s->add(tm.mkNot(tm.mkEq(tm.select(m1, i), tm.bvVal(7, 8))));
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
  s->push();
  s->add(tm.mkNot(tm.mkEq(i, j)));
  s->add(tm.mkNot(tm.mkEq(tm.select(m1, j), tm.select(m0, j))));
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
  Term zero = tm.constArray(mem, tm.bvVal(0, 8));
  s->add(tm.mkEq(tm.select(tm.store(zero, tm.bvVal(4, 32), tm.bvVal(9, 8)), j), tm.bvVal(9, 8)));
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_EQ(s->modelValue(j)->value, 4u);
}

TEST_P(Smt, IntegersAndUninterpretedFunctions) {
  auto s = make();
  Term x = tm.var("ix", tm.intSort()), y = tm.var("iy", tm.intSort());
  s->add(tm.mkEq(tm.intAdd(x, y), tm.intVal(10)));
  s->add(tm.mkEq(tm.intSub(x, y), tm.intVal(-2)));
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_EQ(s->modelValue(x)->ivalue, 4);
  EXPECT_EQ(s->modelValue(y)->ivalue, 6);
  Term a = tm.var("ua", tm.bvSort(8)), b = tm.var("ub", tm.bvSort(8));
  std::vector<Term> fa = {a}, fb = {b};
  s->add(tm.mkEq(tm.apply("f", tm.bvSort(8), fa), tm.bvVal(1, 8)));
  s->add(tm.mkEq(tm.apply("f", tm.bvSort(8), fb), tm.bvVal(2, 8)));
  EXPECT_EQ(s->check(), CheckResult::Sat);
  s->add(tm.mkEq(a, b));
  EXPECT_EQ(s->check(), CheckResult::Unsat);
}

// The pigeonhole principle for 14 pigeons and 13 holes: unsatisfiable, and every
// resolution proof of it is exponentially long, so CDCL solvers need far longer than
// the limits below (a solver-independent hard instance).
Term hardInstance(TermManager& tm) {
  const int holes = 13, pigeons = holes + 1;
  auto at = [&](int p, int h) { return tm.var("p" + std::to_string(p) + "h" + std::to_string(h), tm.boolSort()); };
  std::vector<Term> all;
  for (int p = 0; p < pigeons; ++p) {
    std::vector<Term> some;
    for (int h = 0; h < holes; ++h) some.push_back(at(p, h));
    all.push_back(tm.mkOr(some));
  }
  for (int h = 0; h < holes; ++h)
    for (int p = 0; p < pigeons; ++p)
      for (int q = p + 1; q < pigeons; ++q) all.push_back(tm.mkNot(tm.mkAnd(at(p, h), at(q, h))));
  return tm.mkAnd(all);
}

TEST_P(Smt, PerQueryTimeoutGivesUnknown) {
  auto s = make(false, 100);
  s->add(hardInstance(tm));
  auto t0 = std::chrono::steady_clock::now();
  CheckResult r = s->check();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r, CheckResult::Unknown);
  EXPECT_EQ(s->reasonUnknown(), "timeout");
  EXPECT_LT(secs, 20.0);
  // the solver stays usable
  s->setTimeoutMs(0);
  s->push();
  s->add(tm.falseTerm());
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
}

// A limit in units of work (Z3's rlimit): the hard instance gives up, every time, and the
// limit is per check (Z3's own counter runs on across checks): easy checks after a
// limit-exhausting one still get their full allowance. cvc5 offers none.
TEST_P(Smt, ResourceLimitIsPerCheck) {
  auto s = make(false, 0);
  if (GetParam() == SolverKind::CVC5) {
    EXPECT_FALSE(s->setResourceLimit(100000));
    return;
  }
  ASSERT_TRUE(s->setResourceLimit(200000));
  Sort bv = tm.bvSort(32);
  Term x = tm.var("x", bv), y = tm.var("y", bv);
  // x * 7 = 91 and y = x + 1: a multiplication circuit to bit-blast, one solution
  Term easy = tm.mkAnd(tm.mkEq(tm.bvMul(x, tm.bvVal(7, 32)), tm.bvVal(91, 32)), tm.mkEq(y, tm.bvAdd(x, tm.bvVal(1, 32))));
  for (int round = 0; round < 3; ++round) {
    s->push();
    s->add(hardInstance(tm));
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(s->check(), CheckResult::Unknown) << round;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
    s->pop();
    s->push();
    s->add(easy);
    ASSERT_EQ(s->check(), CheckResult::Sat) << round;
    EXPECT_EQ(modelBits(*s, x), 13u);
    EXPECT_EQ(modelBits(*s, y), 14u);
    s->pop();
  }
  // 0 (no limit) is accepted and the solver goes on
  ASSERT_TRUE(s->setResourceLimit(0));
  s->add(easy);
  EXPECT_EQ(s->check(), CheckResult::Sat);
}

// Solver::addGuarded and setOneShotAtOnce (BMC's location-by-location checks): a guarded
// assertion holds exactly when its guard is assumed, whether the check goes to Z3's
// one-shot solver at once (which leaves out what an unassumed guard guards) or not; an
// unguarded assertion always holds; two assumed guards are both in force.
TEST_P(Smt, GuardedAssertionsHoldWhereTheirGuardIsAssumed) {
  SolverOptions o;
  o.oneShotChecks = true;
  for (bool atOnce : {false, true}) {
    auto s = makeSolver(GetParam(), tm, o);
    s->setOneShotAtOnce(atOnce);
    Sort bv = tm.bvSort(32);
    Term x = tm.var("x", bv);
    Term mem = tm.var("mem", tm.arraySort(bv, tm.bvSort(8)));
    Term g1 = tm.var("g1", tm.boolSort()), g2 = tm.var("g2", tm.boolSort()), g3 = tm.var("g3", tm.boolSort());
    s->add(tm.bvUlt(x, tm.bvVal(10, 32)));
    s->addGuarded(g1, tm.mkEq(tm.select(mem, x), tm.bvVal(1, 8)));
    s->addGuarded(g2, tm.mkEq(tm.select(mem, x), tm.bvVal(2, 8)));
    s->addGuarded(g3, tm.bvUgt(x, tm.bvVal(20, 32)));  // contradicts the unguarded bound
    Term only2[] = {g2};
    ASSERT_EQ(s->check(only2), CheckResult::Sat) << atOnce;
    EXPECT_EQ(modelBits(*s, tm.select(mem, x)), 2u) << atOnce;
    EXPECT_LT(modelBits(*s, x), 10u) << atOnce << ": the unguarded assertion holds";
    Term both[] = {g1, g2};
    EXPECT_EQ(s->check(both), CheckResult::Unsat) << atOnce;
    Term only3[] = {g3};
    EXPECT_EQ(s->check(only3), CheckResult::Unsat) << atOnce;
    Term only1[] = {g1};
    ASSERT_EQ(s->check(only1), CheckResult::Sat) << atOnce;
    EXPECT_EQ(modelBits(*s, tm.select(mem, x)), 1u) << atOnce;
  }
}

// SolverOptions::oneShotChecks (BMC's solvers): a check with assumptions that runs out of
// its first units is run on a fresh solver with the assumptions asserted (here after 1
// unit, so every check that is not decided at once is); the answers and models are those
// of a check on the solver itself, the assumptions do not stay, and a resource limit
// still holds.
TEST_P(Smt, OneShotChecksAnswerAsChecksWithAssumptions) {
  SolverOptions o;
  o.oneShotChecks = true;
  o.oneShotAfterUnits = 1;
  o.unsatCores = true;
  auto s = makeSolver(GetParam(), tm, o);
  Sort bv = tm.bvSort(32);
  Term x = tm.var("x", bv), y = tm.var("y", bv);
  Term mem = tm.var("mem", tm.arraySort(bv, tm.bvSort(8)));
  Term a = tm.var("a", tm.boolSort()), b = tm.var("b", tm.boolSort());
  // a: mem[x] = 7 and x = y + 3; b: mem[y + 3] = 9 (with a: a contradiction)
  s->add(tm.mkImplies(a, tm.mkAnd(tm.mkEq(tm.select(mem, x), tm.bvVal(7, 8)), tm.mkEq(x, tm.bvAdd(y, tm.bvVal(3, 32))))));
  s->add(tm.mkImplies(b, tm.mkEq(tm.select(mem, tm.bvAdd(y, tm.bvVal(3, 32))), tm.bvVal(9, 8))));
  s->add(tm.bvUgt(y, tm.bvVal(100, 32)));
  for (int round = 0; round < 2; ++round) {
    Term ab[] = {a, b};
    EXPECT_EQ(s->check(ab), CheckResult::Unsat) << round;
    // Z3 answered on a fresh solver: no core; cvc5 ignores the option and has one
    EXPECT_EQ(s->unsatCore().empty(), GetParam() == SolverKind::Z3) << round;
    Term onlyA[] = {a};
    ASSERT_EQ(s->check(onlyA), CheckResult::Sat) << round;
    EXPECT_EQ(modelBits(*s, x), modelBits(*s, y) + 3);
    EXPECT_EQ(modelBits(*s, tm.select(mem, x)), 7u);
    EXPECT_GT(modelBits(*s, y), 100u);
    Term onlyB[] = {b};
    ASSERT_EQ(s->check(onlyB), CheckResult::Sat) << round << ": a is not asserted for good";
    EXPECT_EQ(modelBits(*s, tm.select(mem, tm.bvAdd(y, tm.bvVal(3, 32)))), 9u);
    s->push();
    s->add(tm.mkEq(y, tm.bvVal(200, 32)));
    ASSERT_EQ(s->check(onlyA), CheckResult::Sat) << round;
    EXPECT_EQ(modelBits(*s, x), 203u);
    s->pop();
  }
  // without arrays the solver itself answers (its core is there): Z3's one-shot path was
  // the slower one on bit-vector arithmetic
  {
    auto plain = makeSolver(GetParam(), tm, o);
    Term p = tm.var("p", tm.boolSort()), q = tm.var("q", tm.boolSort());
    plain->add(tm.mkImplies(p, tm.mkEq(tm.bvMul(x, tm.bvVal(7, 32)), tm.bvVal(91, 32))));
    plain->add(tm.mkImplies(q, tm.mkEq(x, tm.bvVal(12, 32))));
    Term pq[] = {p, q};
    EXPECT_EQ(plain->check(pq), CheckResult::Unsat);
    EXPECT_FALSE(plain->unsatCore().empty());
  }
  if (GetParam() == SolverKind::Z3) {
    ASSERT_TRUE(s->setResourceLimit(200000));
    Term c = tm.var("c", tm.boolSort());
    s->add(tm.mkImplies(c, hardInstance(tm)));
    Term onlyC[] = {c};
    EXPECT_EQ(s->check(onlyC), CheckResult::Unknown);
    ASSERT_TRUE(s->setResourceLimit(0));
    Term onlyA[] = {a};
    EXPECT_EQ(s->check(onlyA), CheckResult::Sat);
  }
}

// A time limit that fires while bit-vectors are combined with arrays: cvc5 1.0.3 used
// to abort the process here (core/smt/cvc5/cvc5_solver.cpp); the check must give
// `unknown`, and the assertions made before the instance switched its bit-blaster must
// still hold afterwards (frames below and above the switch, popped and kept).
TEST_P(Smt, TimeoutWithArraysGivesUnknownAndKeepsTheStack) {
  auto s = make(false, 10);
  Sort bv = tm.bvSort(64);
  Term x = tm.var("x", bv), y = tm.var("y", bv);
  Term lim = tm.bvVal(1ull << 32, 64);
  Term mem = tm.var("mem", tm.arraySort(bv, tm.bvSort(8)));
  s->add(tm.bvUgt(x, tm.bvVal(1, 64)));
  s->add(tm.bvUgt(y, tm.bvVal(1, 64)));
  s->push();
  s->add(tm.bvUlt(x, lim));
  s->add(tm.bvUlt(y, lim));
  s->push();
  // 2^61 - 1 is prime: no factors below 2^32, and bit-blasting cannot show it quickly
  s->add(tm.mkEq(tm.bvMul(x, y), tm.bvVal(2305843009213693951ull, 64)));
  // two reads: whether x = y is for theory combination to ask the bit-vector solver
  s->add(tm.mkEq(tm.select(mem, x), tm.bvVal(3, 8)));
  s->add(tm.mkEq(tm.select(mem, y), tm.bvVal(4, 8)));
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(s->check(), CheckResult::Unknown);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(s->reasonUnknown(), "timeout");
  EXPECT_LT(secs, 20.0);
  s->pop();
  s->setTimeoutMs(0);
  s->push();
  s->add(tm.mkEq(x, tm.bvVal(1, 64)));  // frame 0 says x > 1
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
  s->push();
  s->add(tm.mkEq(x, tm.bvAdd(lim, tm.bvVal(5, 64))));  // frame 1 says x < 2^32
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
  s->pop();
  s->push();
  s->add(tm.mkEq(tm.select(mem, x), tm.bvVal(7, 8)));
  s->add(tm.mkEq(x, tm.bvAdd(lim, tm.bvVal(5, 64))));  // frame 1 is gone
  ASSERT_EQ(s->check(), CheckResult::Sat);
  EXPECT_EQ(s->modelValue(x)->value, (1ull << 32) + 5);
  EXPECT_EQ(s->modelValue(tm.select(mem, x))->value, 7u);
  std::vector<Term> notTwo = {tm.mkNot(tm.bvUgt(y, tm.bvVal(1, 64)))};
  EXPECT_EQ(s->check(notTwo), CheckResult::Unsat);
  // the limit can fire again, and the solver goes on after it
  s->pop();
  s->setTimeoutMs(10);
  s->push();
  s->add(tm.bvUlt(x, lim));
  s->add(tm.bvUlt(y, lim));
  s->add(tm.mkEq(tm.bvMul(x, y), tm.bvVal(2305843009213693951ull, 64)));
  s->add(tm.mkEq(tm.select(mem, x), tm.bvVal(3, 8)));
  s->add(tm.mkEq(tm.select(mem, y), tm.bvVal(4, 8)));
  EXPECT_EQ(s->check(), CheckResult::Unknown);
  s->pop();
  EXPECT_EQ(s->check(), CheckResult::Sat);
}

TEST_P(Smt, InterruptFromAnotherThread) {
  auto s = make();
  s->add(hardInstance(tm));
  if (GetParam() == SolverKind::CVC5) {
    // cvc5 1.0 cannot stop a running check; an interrupt makes every later check give up.
    s->interrupt();
    EXPECT_EQ(s->check(), CheckResult::Unknown);
    EXPECT_EQ(s->reasonUnknown(), "interrupted");
    return;
  }
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    s->interrupt();
  });
  auto t0 = std::chrono::steady_clock::now();
  CheckResult r = s->check();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  EXPECT_EQ(r, CheckResult::Unknown);
  EXPECT_LT(secs, 20.0);
}

// The watchdog (z3_solver.cpp) interrupts a check that overruns its limit; the solver must
// answer the next check normally.
TEST_P(Smt, ChecksAfterAnInterruptAreAnswered) {
  auto s = make();
  if (GetParam() == SolverKind::CVC5) {  // cvc5 1.0: an interrupt makes every later check give up
    s->interrupt();
    Term y = tm.var("y", tm.bvSort(8));
    s->add(tm.bvUlt(y, tm.bvVal(3, 8)));
    EXPECT_EQ(s->check(), CheckResult::Unknown);
    return;
  }
  s->push();
  s->add(hardInstance(tm));
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    s->interrupt();
  });
  CheckResult r = s->check();
  stopper.join();
  EXPECT_EQ(r, CheckResult::Unknown);
  s->pop();
  Term x = tm.var("x", tm.bvSort(8));
  s->push();
  s->add(tm.bvUlt(x, tm.bvVal(3, 8)));
  EXPECT_EQ(s->check(), CheckResult::Sat);
  s->add(tm.bvUlt(tm.bvVal(5, 8), x));
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
  // an interrupt that comes between checks (the watchdog's race with a check's end) must
  // not change the next one's answer
  s->interrupt();
  s->add(tm.mkEq(tm.bvMul(x, x), tm.bvVal(49, 8)));
  ASSERT_EQ(s->check(), CheckResult::Sat);
  uint64_t v = s->modelValue(x)->value;
  EXPECT_EQ((v * v) % 256, 49u) << v;
  // ... nor make an unsat one sat (2 is no square modulo 256; Z3 4.8.12 said sat here)
  Term z = tm.var("z", tm.bvSort(8));
  s->interrupt();
  s->push();
  s->add(tm.mkEq(tm.bvMul(z, z), tm.bvVal(2, 8)));
  EXPECT_EQ(s->check(), CheckResult::Unsat);
  s->pop();
}

TEST_P(Smt, StatisticsCountChecks) {
  auto s = make();
  Term x = tm.var("x", tm.bvSort(4));
  s->add(tm.bvUlt(x, tm.bvVal(3, 4)));
  s->check();
  s->add(tm.bvUlt(tm.bvVal(5, 4), x));
  s->check();
  EXPECT_EQ(s->stats().checks, 2u);
  EXPECT_EQ(s->stats().sat, 1u);
  EXPECT_EQ(s->stats().unsat, 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, Smt, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const auto& info) { return std::string(solverName(info.param)); });

// The process-wide solver memory cap (argusd's workers set it, argus verify --max-memory-mb):
// a Z3 query whose allocations would pass it ends Unknown "out of memory" instead of
// growing, and with the cap lifted a new solver works as before.
TEST(SolverMemory, Z3QueryOverTheCapIsUnknownOutOfMemory) {
  TermManager tm;
  Sort bv = tm.bvSort(64);
  // 64 copies of "factor the prime 2^61 - 1 into two factors below 2^32": bit-blasting
  // the 64 multipliers takes far more than 24 MB
  std::vector<Term> all;
  for (int i = 0; i < 64; ++i) {
    Term x = tm.var("x" + std::to_string(i), bv), y = tm.var("y" + std::to_string(i), bv);
    all.push_back(tm.bvUgt(x, tm.bvVal(1, 64)));
    all.push_back(tm.bvUgt(y, tm.bvVal(1, 64)));
    all.push_back(tm.bvUlt(x, tm.bvVal(1ull << 32, 64)));
    all.push_back(tm.bvUlt(y, tm.bvVal(1ull << 32, 64)));
    all.push_back(tm.mkEq(tm.bvMul(x, y), tm.bvVal(2305843009213693951ull, 64)));
  }
  Term f = tm.mkAnd(all);
  setSolverMemoryLimitMb(24);
  EXPECT_EQ(solverMemoryLimitMb(), 24u);
  CheckResult r;
  std::string why;
  {
    SolverOptions o;
    o.timeoutMs = 60000;
    auto s = makeSolver(SolverKind::Z3, tm, o);
    try {
      s->add(f);
      r = s->check();
      why = s->reasonUnknown();
    } catch (const std::bad_alloc&) {  // the cap may also hit while the term is asserted
      r = CheckResult::Unknown;
      why = "out of memory";
    }
  }
  setSolverMemoryLimitMb(0);
  EXPECT_EQ(r, CheckResult::Unknown);
  EXPECT_EQ(why, "out of memory");
  SolverOptions o;
  o.timeoutMs = 60000;
  auto s = makeSolver(SolverKind::Z3, tm, o);
  Term x = tm.var("x", bv);
  s->add(tm.mkEq(tm.bvMul(x, tm.bvVal(3, 64)), tm.bvVal(21, 64)));
  EXPECT_EQ(s->check(), CheckResult::Sat);
}

// Hash-consing and local simplification (no solver involved).
TEST(Terms, HashConsingAndSimplification) {
  TermManager tm;
  Term x = tm.var("x", tm.bvSort(8));
  EXPECT_EQ(tm.bvAdd(x, tm.bvVal(1, 8)), tm.bvAdd(x, tm.bvVal(1, 8)));
  EXPECT_EQ(tm.bvAdd(x, tm.bvVal(0, 8)), x);
  EXPECT_EQ(tm.mkAnd(tm.trueTerm(), tm.var("p", tm.boolSort())), tm.var("p", tm.boolSort()));
  EXPECT_TRUE(tm.mkAnd(tm.falseTerm(), tm.var("p", tm.boolSort()))->isFalse());
  EXPECT_EQ(tm.mkIte(tm.trueTerm(), x, tm.bvVal(3, 8)), x);
  EXPECT_NE(tm.freshVar("v", tm.bvSort(8)), tm.freshVar("v", tm.bvSort(8)));
  EXPECT_THROW(tm.var("x", tm.bvSort(16)), std::exception);
  std::unordered_map<Term, Term> sub = {{x, tm.bvVal(4, 8)}};
  Term t = tm.substitute(tm.bvMul(x, tm.bvVal(3, 8)), sub);
  ASSERT_TRUE(t->isConst());
  EXPECT_EQ(t->value, 12u);
}

// A pointer that is one of a few constants (ite over constant leaves): adding a constant
// and comparing with a constant fold to the conditions, and distinctness from the
// leaves is syntactic (issue 21, list-ext_1). The solver confirms each rewrite.
TEST(Terms, ConstantTreesFold) {
  TermManager tm;
  Term c = tm.var("c", tm.boolSort()), d = tm.var("d", tm.boolSort());
  Term p = tm.mkIte(c, tm.bvVal(4096, 64), tm.bvVal(4112, 64));
  Term q = tm.mkIte(d, p, tm.bvVal(4128, 64));
  Term p8 = tm.bvAdd(p, tm.bvVal(8, 64));
  EXPECT_EQ(p8, tm.mkIte(c, tm.bvVal(4104, 64), tm.bvVal(4120, 64)));
  EXPECT_EQ(tm.mkEq(tm.bvVal(4104, 64), p8), c);
  EXPECT_EQ(tm.mkEq(p8, tm.bvVal(4120, 64)), tm.mkNot(c));
  EXPECT_TRUE(tm.mkEq(tm.bvVal(4100, 64), p8)->isFalse());
  EXPECT_TRUE(provablyDistinct(tm.bvVal(4100, 64), q));
  EXPECT_FALSE(provablyDistinct(tm.bvVal(4128, 64), q));
  EXPECT_TRUE(provablyDistinct(p8, p));
  EXPECT_FALSE(provablyDistinct(p8, tm.bvAdd(q, tm.bvVal(8, 64))));
  Term x = tm.var("x", tm.bvSort(64));
  EXPECT_FALSE(provablyDistinct(tm.mkIte(c, x, tm.bvVal(1, 64)), tm.bvVal(2, 64)));  // x is no constant
  for (SolverKind k : {SolverKind::Z3, SolverKind::CVC5}) {
    auto s = makeSolver(k, tm);
    Term eq = tm.mkEq(tm.bvAdd(q, tm.bvVal(8, 64)), tm.bvVal(4120, 64));
    Term ref = tm.mkAnd(d, tm.mkNot(c));
    s->add(tm.mkNot(tm.mkEq(eq, ref)));
    EXPECT_EQ(s->check(), CheckResult::Unsat) << solverName(k);
  }
}

// The guard after a two-way fork joins again is the guard before it, and a pointer that is
// one of a few constants, stored and read back byte by byte, is that tree of constants
// again (issue 29: addresses the encoder then resolves syntactically). The solver
// confirms the factoring.
TEST(Terms, ForkJoinsAndBytesOfConstantTreesFold) {
  TermManager tm;
  Term g = tm.var("g", tm.boolSort()), c = tm.var("c", tm.boolSort()), h = tm.var("h", tm.boolSort());
  EXPECT_TRUE(tm.mkOr(c, tm.mkNot(c))->isTrue());
  EXPECT_TRUE(tm.mkAnd(tm.mkNot(c), c)->isFalse());
  EXPECT_EQ(tm.mkOr(tm.mkAnd(g, c), tm.mkAnd(g, tm.mkNot(c))), g);
  Term gh = tm.mkAnd(std::vector<Term>{g, h});
  Term joined = tm.mkOr(tm.mkAnd(std::vector<Term>{g, c, h}), tm.mkAnd(std::vector<Term>{g, tm.mkNot(c), h}));
  EXPECT_EQ(joined, gh);
  // two literals differ: no factoring
  Term two = tm.mkOr(tm.mkAnd(g, c), tm.mkAnd(tm.mkNot(g), tm.mkNot(c)));
  EXPECT_EQ(two->kind, Kind::Or);
  for (SolverKind k : {SolverKind::Z3, SolverKind::CVC5}) {
    auto s = makeSolver(k, tm);
    Term raw = tm.var("raw", tm.boolSort());  // (g & c & h) | (g & !c & h), spelled out
    s->add(tm.mkEq(raw, tm.mkOr(tm.mkAnd(tm.mkAnd(g, c), h), tm.mkAnd(tm.mkAnd(g, h), tm.mkNot(c)))));
    s->add(tm.mkNot(tm.mkEq(raw, joined)));
    EXPECT_EQ(s->check(), CheckResult::Unsat) << solverName(k);
  }
  // ite(c, 0x1000, 0) split into bytes and put together again
  Term ptr = tm.mkIte(c, tm.bvVal(0x1000, 64), tm.bvVal(0, 64));
  Term back = nullptr;
  for (uint32_t i = 0; i < 8; ++i) {
    Term b = tm.extract(ptr, 8 * i + 7, 8 * i);
    EXPECT_TRUE(b->isConst() || isConstTree(b)) << i;
    back = back ? tm.concat(b, back) : b;
  }
  EXPECT_EQ(back, ptr);
  EXPECT_EQ(tm.bvAdd(back, tm.bvVal(8, 64)), tm.mkIte(c, tm.bvVal(0x1008, 64), tm.bvVal(8, 64)));
  // bytes under different conditions stay a concat
  Term other = tm.mkIte(g, tm.bvVal(1, 8), tm.bvVal(2, 8));
  EXPECT_EQ(tm.concat(other, tm.extract(ptr, 15, 8))->kind, Kind::Concat);
}

}  // namespace
