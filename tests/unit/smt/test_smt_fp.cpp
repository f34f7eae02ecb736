// The floating-point terms (IEEE 754 through the SMT FloatingPoint theory) against both
// backends: each operation on bit images agrees with the host's IEEE arithmetic, NaN
// bit images are free (any NaN pattern), and cvc5's definitions of bit images survive
// push/pop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/smt/solver.h"
#include "core/smt/term.h"

using namespace argus::smt;

namespace {

uint64_t bitsD(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
uint64_t bitsF(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

class SmtFp : public ::testing::TestWithParam<SolverKind> {
protected:
  TermManager tm;
  std::unique_ptr<Solver> solver = makeSolver(GetParam(), tm);
  Sort f64() { return tm.fpSortOfWidth(64); }
  Sort f32() { return tm.fpSortOfWidth(32); }
  Term d(double x) { return tm.fpFromBits(tm.bvVal(bitsD(x), 64), f64()); }
  Term f(float x) { return tm.fpFromBits(tm.bvVal(bitsF(x), 32), f32()); }
  // The only value of the bit-vector term t (asserting t == expected is sat, t != expected unsat).
  void expectBits(Term t, uint64_t expected, const std::string& what) {
    solver->push();
    solver->add(tm.mkEq(t, tm.bvVal(expected, t->width())));
    EXPECT_EQ(solver->check(), CheckResult::Sat) << what;
    solver->pop();
    solver->push();
    solver->add(tm.mkDistinct(t, tm.bvVal(expected, t->width())));
    EXPECT_EQ(solver->check(), CheckResult::Unsat) << what;
    solver->pop();
  }
  void expectTrue(Term b, const std::string& what) {
    solver->push();
    solver->add(tm.mkNot(b));
    EXPECT_EQ(solver->check(), CheckResult::Unsat) << what;
    solver->pop();
  }
};

TEST_P(SmtFp, ArithmeticAgreesWithTheHost) {
  volatile double a = 0.1, b = 0.2, big = 1e308, tiny = 4.9e-324;
  expectBits(tm.fpToBits(tm.fpAdd(d(a), d(b))), bitsD(a + b), "0.1 + 0.2");
  expectBits(tm.fpToBits(tm.fpSub(d(a), d(b))), bitsD(a - b), "0.1 - 0.2");
  expectBits(tm.fpToBits(tm.fpMul(d(big), d(10.0))), bitsD(big * 10.0), "overflow to inf");
  expectBits(tm.fpToBits(tm.fpDiv(d(tiny), d(2.0))), bitsD(tiny / 2.0), "underflow to 0 (ties to even)");
  expectBits(tm.fpToBits(tm.fpDiv(d(1.0), d(-0.0))), bitsD(-std::numeric_limits<double>::infinity()), "1 / -0");
  expectBits(tm.fpToBits(tm.fpSqrt(d(2.0))), bitsD(std::sqrt(2.0)), "sqrt 2");
  volatile float fa = 0.1f, fb = 0.2f;
  expectBits(tm.fpToBits(tm.fpAdd(f(fa), f(fb))), bitsF(fa + fb), "0.1f + 0.2f");
  // rounding to an integral value in each mode
  expectBits(tm.fpToBits(tm.fpRoundToIntegral(d(2.5), RoundingMode::RNE)), bitsD(2.0), "rint 2.5");
  expectBits(tm.fpToBits(tm.fpRoundToIntegral(d(-2.5), RoundingMode::RNA)), bitsD(-3.0), "round -2.5");
  expectBits(tm.fpToBits(tm.fpRoundToIntegral(d(-2.5), RoundingMode::RTN)), bitsD(-3.0), "floor -2.5");
  expectBits(tm.fpToBits(tm.fpRoundToIntegral(d(-0.5), RoundingMode::RTP)), bitsD(-0.0), "ceil -0.5 is -0");
  expectBits(tm.fpToBits(tm.fpRoundToIntegral(d(-2.7), RoundingMode::RTZ)), bitsD(-2.0), "trunc -2.7");
}

// fp.rem is C's remainder(): the quotient rounded to nearest even, the result exact; also
// across large exponent gaps (where solvers' fp.rem implementations have had bugs).
TEST_P(SmtFp, RemainderAgreesWithTheHost) {
  volatile double pairs[][2] = {{5.0, 2.0}, {7.0, 2.0}, {-7.0, 2.0}, {3.0, 2.0}, {1e300, 7.0}, {1e300, 3.0},
                                {1e-300, 3.0}, {0.1, 0.03}, {-0.0, 1.0}, {1.7976931348623157e308, 4.9e-324}};
  for (auto& p : pairs)
    expectBits(tm.fpToBits(tm.fpRem(d(p[0]), d(p[1]))), bitsD(std::remainder(p[0], p[1])),
               "remainder(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ")");
  volatile float fx = 3.40282347e38f, fy = 3.14159274f, f55 = 5.5f, f2 = 2.0f;
  expectBits(tm.fpToBits(tm.fpRem(f(fx), f(fy))), bitsF(std::remainder(fx, fy)), "remainderf(FLT_MAX, pi)");
  expectBits(tm.fpToBits(tm.fpRem(f(f55), f(f2))), bitsF(-0.5f), "remainderf(5.5, 2)");
  expectTrue(tm.fpIsNaN(tm.fpRem(d(1.0), d(0.0))), "remainder(1, 0) is NaN");
}

TEST_P(SmtFp, ComparisonsAndConversions) {
  Term nan = tm.fpDiv(d(0.0), d(0.0));
  expectTrue(tm.fpIsNaN(nan), "0/0 is NaN");
  expectTrue(tm.mkNot(tm.fpEq(nan, nan)), "NaN != NaN");
  expectTrue(tm.mkNot(tm.fpLt(nan, d(1.0))), "NaN < 1 is false");
  expectTrue(tm.fpEq(d(-0.0), d(0.0)), "-0 == +0");
  expectTrue(tm.mkNot(tm.fpLt(d(-0.0), d(0.0))), "-0 < +0 is false");
  expectTrue(tm.fpLe(d(1.0), d(1.0)), "1 <= 1");
  volatile int32_t big = 16777217;
  expectBits(tm.fpToBits(tm.sbvToFP(tm.bvVal(static_cast<uint32_t>(big), 32), f32())), bitsF(static_cast<float>(big)),
             "(float)16777217");
  expectBits(tm.fpToBits(tm.ubvToFP(tm.bvVal(~uint64_t{0}, 64), f64())), bitsD(18446744073709551615.0), "(double)UINT64_MAX");
  expectBits(tm.fpToSBV(d(-2.7), 32), static_cast<uint32_t>(-2), "(int)-2.7");
  expectBits(tm.fpToUBV(d(3e9), 32), 3000000000u, "(unsigned)3e9");
  volatile double third = 1.0 / 3.0;
  expectBits(tm.fpToBits(tm.fpToFP(d(third), f32())), bitsF(static_cast<float>(third)), "(float)(1/3)");
  expectBits(tm.fpToBits(tm.fpToFP(f(0.1f), f64())), bitsD(static_cast<double>(0.1f)), "(double)0.1f");
}

TEST_P(SmtFp, BitImagesOfNaNAreAnyNaNPattern) {
  Term x = tm.var("x", tm.bvSort(64));
  Term nanBits = tm.fpToBits(tm.fpDiv(tm.fpFromBits(x, f64()), tm.fpFromBits(x, f64())));
  // x = 0 gives 0/0: the bits are some NaN pattern, and not one in particular
  solver->add(tm.mkEq(x, tm.bvVal(0, 64)));
  for (uint64_t pattern : {uint64_t{0x7ff8000000000000}, uint64_t{0xfff8000000000000}, uint64_t{0x7ff0000000000001}}) {
    solver->push();
    solver->add(tm.mkEq(nanBits, tm.bvVal(pattern, 64)));
    EXPECT_EQ(solver->check(), CheckResult::Sat) << std::hex << pattern;
    solver->pop();
  }
  // but never a non-NaN pattern (infinity here)
  solver->push();
  solver->add(tm.mkEq(nanBits, tm.bvVal(0x7ff0000000000000, 64)));
  EXPECT_EQ(solver->check(), CheckResult::Unsat);
  solver->pop();
  // a nondeterministic input: bits read back through the FP sort are unchanged unless NaN
  Term y = tm.var("y", tm.bvSort(32));
  Term back = tm.fpToBits(tm.fpMul(tm.fpFromBits(y, f32()), f(1.0f)));
  solver->push();
  solver->add(tm.mkNot(tm.fpIsNaN(tm.fpFromBits(y, f32()))));
  solver->add(tm.mkDistinct(back, y));
  EXPECT_EQ(solver->check(), CheckResult::Unsat) << "y * 1.0f == y for every non-NaN y";
  solver->pop();
}

TEST_P(SmtFp, DefinitionsSurvivePushPopAndModelsAreExact) {
  Term y = tm.var("y", tm.bvSort(32));
  Term sum = tm.fpToBits(tm.fpAdd(tm.fpFromBits(y, f32()), f(0.5f)));
  // first used inside a frame that is popped, then again outside it
  solver->push();
  solver->add(tm.mkEq(sum, tm.bvVal(bitsF(2.0f), 32)));
  ASSERT_EQ(solver->check(), CheckResult::Sat);
  // the model is any y the host also rounds to 2.0f (1.5f, or 1.5f + 1 ulp: a tie to even)
  uint32_t yb = static_cast<uint32_t>(solver->modelValue(y)->value);
  float yv;
  std::memcpy(&yv, &yb, 4);
  volatile float half = 0.5f;
  EXPECT_EQ(bitsF(yv + half), bitsF(2.0f)) << yv;
  solver->pop();
  solver->add(tm.mkEq(y, tm.bvVal(bitsF(3.0f), 32)));
  solver->add(tm.mkDistinct(sum, tm.bvVal(bitsF(3.5f), 32)));
  EXPECT_EQ(solver->check(), CheckResult::Unsat) << "3.0f + 0.5f must be 3.5f after the pop";
}

TEST(SmtFpTerms, SimplificationsAndSorts) {
  TermManager tm;
  Sort f32 = tm.fpSortOfWidth(32);
  EXPECT_EQ(f32, tm.fpSort(8, 24));
  EXPECT_EQ(f32->width, 32u);
  EXPECT_THROW(tm.fpSortOfWidth(80), std::invalid_argument);
  Term x = tm.var("x", f32);
  // the bits of a value read back give the value
  EXPECT_EQ(tm.fpFromBits(tm.fpToBits(x), f32), x);
  // the bits of a non-NaN constant are the constant; a NaN constant's are not fixed
  Term one = tm.bvVal(0x3f800000, 32);
  EXPECT_EQ(tm.fpToBits(tm.fpFromBits(one, f32)), one);
  Term nan = tm.bvVal(0x7fc00000, 32);
  EXPECT_NE(tm.fpToBits(tm.fpFromBits(nan, f32)), nan);
  EXPECT_THROW(tm.fpAdd(x, tm.var("z", tm.fpSortOfWidth(64))), std::invalid_argument);
  // substitution rebuilds FP terms
  Term b = tm.var("b", tm.bvSort(32));
  Term t = tm.fpToBits(tm.fpAdd(tm.fpFromBits(b, f32), tm.fpFromBits(b, f32)));
  Term s = tm.substitute(t, {{b, one}});
  EXPECT_NE(s, t);
  EXPECT_EQ(tm.freeVars(s).size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, SmtFp, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const ::testing::TestParamInfo<SolverKind>& i) { return std::string(solverName(i.param)); });

}  // namespace
