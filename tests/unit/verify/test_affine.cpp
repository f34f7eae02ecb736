// The affine-equality analysis (affine_invariants.h) and its use by k-induction and kIkI:
// equalities at loop heads (counting loops, joins, calls), what it must forget (nonlinear
// and non-ring operations, mixed widths, equality guards), and end-to-end proofs of the
// counting loop of issue 21 by kind and kiki that need the relation j == 2*i.
#include <gtest/gtest.h>

#include <optional>

#include "core/algorithms/kinduction/affine_invariants.h"
#include "core/algorithms/kinduction/flat_program.h"
#include "core/algorithms/kinduction/kinduction.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/flat_helpers.h"

using argus::algorithms::AffineEq;
using argus::algorithms::AffineInvariant;
using argus::algorithms::affineString;
using argus::algorithms::computeAffine;
using argus::algorithms::StepCase;
using argus::engine::Algorithm;
using argus::frontend::DataModel;
using argus::result::Verdict;
using argus::smt::CheckResult;
using argus::smt::SolverKind;
using argus::testing::cutAtLine;
using argus::testing::kPrelude;
using argus::testing::parseFlat;
using argus::testing::ParsedFlat;
using argus::testing::verifySource;

namespace {

// kPrelude has 14 lines; bodies below start on line 15.
constexpr uint32_t L = 15;

// The equalities at the loop head on `line`, as strings ("j - 2*i == 0").
std::vector<std::string> eqsAt(const ParsedFlat& p, const AffineInvariant& inv, uint32_t line) {
  std::optional<uint32_t> c = cutAtLine(p, line);
  if (!c) {
    ADD_FAILURE() << "no loop head on line " << line;
    return {};
  }
  std::vector<std::string> out;
  for (const AffineEq& e : inv.atCut[*c]) out.push_back(affineString(*p.fp, e));
  return out;
}
bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

// The counting loop of issue 21: safe, but only with the relation j == 2*i at the loop
// head (intervals, zones and octagons cannot express it).
const char* kCounting =
    "int main(void){ int n = __VERIFIER_nondet_int(); int i = 0, j = 0; if (n < 0 || n > 1000000) return 0;\n"
    "  while (i < n) { i++; j += 2; }\n"
    "  if (j != 2*i) reach_error(); return 0; }";

TEST(Affine, CountingLoop) {
  ParsedFlat p = parseFlat(kCounting);
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 1);
  EXPECT_TRUE(has(eqs, "j - 2*i == 0")) << join(eqs);
  // n is free (only the frontend's copy of the nondet value equals it); i alone is not constant
  for (const std::string& e : eqs) {
    EXPECT_TRUE(e == "j - 2*i == 0" || e == "main::$t0 - n == 0") << e;
  }
  EXPECT_EQ(inv->atCut[*cutAtLine(p, L + 1)][0].width, 32u);
}

TEST(Affine, JoinIsTheAffineHull) {
  // the two branches give (x, y) = (1, 3) and (2, 5): the line y == 2x + 1; the loop keeps it
  ParsedFlat p = parseFlat(
      "int main(){ int x, y; if (__VERIFIER_nondet_int()) { x = 1; y = 3; } else { x = 2; y = 5; }\n"
      "  while (__VERIFIER_nondet_int()) { x = x + 3; y = y + 6; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 1);
  EXPECT_TRUE(has(eqs, "y - 2*x == 1")) << join(eqs);
}

TEST(Affine, ThreeVariablesAndCalls) {
  // j == 5 - 3*i and k == 5 - 2*i, i stepped through a callee's parameter and return value
  ParsedFlat p = parseFlat(
      "int inc(int v, int d) { return v + d; }\n"
      "int main(){ int i = 0, j = 5, k = 5;\n"
      "  while (__VERIFIER_nondet_int()) { i = inc(i, 1); j = j - 3; k = k - 2; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 2);
  EXPECT_TRUE(has(eqs, "3*i + j == 5")) << join(eqs);
  EXPECT_TRUE(has(eqs, "2*i + k == 5")) << join(eqs);
}

TEST(Affine, NonlinearAndNonRingOperationsForget) {
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0, a = 0, b = 0, c = 0;\n"
      "  while (__VERIFIER_nondet_int()) { i++; a = i * i; b = i / 2; c = i & 7; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 1);
  for (const std::string& e : eqs) {
    EXPECT_EQ(e.find("a"), std::string::npos) << e;
    EXPECT_EQ(e.find("b"), std::string::npos) << e;
    EXPECT_EQ(e.find("c"), std::string::npos) << e;
  }
}

TEST(Affine, DifferentWidthsAreNotRelated) {
  // c (8 bits) wraps after 128 steps, i (32 bits) does not: c == i must not be derived
  // (c == (char)i holds, but is not an equality of one width class).
  ParsedFlat p = parseFlat(
      "int main(){ signed char c = 0; int i = 0; unsigned char u = 0, v = 0;\n"
      "  while (__VERIFIER_nondet_int()) { c++; i++; u += 3; v += 6; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 1);
  for (const std::string& e : eqs)
    EXPECT_FALSE(e.find("c") != std::string::npos && e.find("i") != std::string::npos) << e;
  // within the 8-bit class (c, u, v) the wrap-around ring keeps u == 3*c and v == 6*c
  EXPECT_TRUE(has(eqs, "u - 3*c == 0")) << join(eqs);
  EXPECT_TRUE(has(eqs, "v - 6*c == 0")) << join(eqs);
  for (const AffineEq& e : inv->atCut[*cutAtLine(p, L + 1)]) EXPECT_EQ(e.width, 8u) << affineString(*p.fp, e);
}

TEST(Affine, EqualityGuardsAreNotUsed) {
  // 2*x == 0 modulo 2^32 allows x == 0x80000000: over the rationals it would give x == 0
  ParsedFlat p = parseFlat(
      "int main(){ unsigned x = __VERIFIER_nondet_uint(), y = 0;\n"
      "  if (2*x == 0) { while (__VERIFIER_nondet_int()) { y++; } if (x != 0) reach_error(); }\n"
      "  return 0; }");
  argus::algorithms::AffineOptions ao;
  ao.singleVariable = true;  // report x == c too: it must not be there
  auto inv = computeAffine(*p.fp, nullptr, ao);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 1);
  for (const AffineEq& e : inv->atCut[*cutAtLine(p, L + 1)])
    if (e.terms.size() == 1) { EXPECT_NE(p.fp->varName(e.terms[0].first), "x") << affineString(*p.fp, e); }
  // and k-induction finds the bug (x == 0x80000000)
  auto out = verifySource(std::string(kPrelude) +
                              "int main(){ unsigned x = __VERIFIER_nondet_uint(), y = 0, z = 0;\n"
                              "  if (2*x == 0) { while (y < 3) { y++; z += x; } if (x != 0) reach_error(); }\n"
                              "  return 0; }",
                          Algorithm::Kind, SolverKind::Z3, DataModel::LP64, "main", 30);
  EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
}

TEST(Affine, WrapAroundEqualityHoldsModulo) {
  // x += 0x80000000 wraps every second step; x - 0x80000000*y == 0 holds modulo 2^32
  const char* body =
      "int main(){ unsigned x = 0, y = 0;\n"
      "  while (__VERIFIER_nondet_int()) { x += 0x80000000u; y++; }\n"
      "  if (x != (y & 1u) * 0x80000000u) reach_error(); return 0; }";
  ParsedFlat p = parseFlat(body);
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  auto eqs = eqsAt(p, *inv, L + 1);
  EXPECT_FALSE(eqs.empty());
  // the bug variant: x == 0 after two steps: found, with a replayed counterexample
  auto bug = verifySource(std::string(kPrelude) +
                              "int main(){ unsigned x = 0, y = 0;\n"
                              "  while (__VERIFIER_nondet_int()) { x += 0x80000000u; y++; }\n"
                              "  if (y == 2 && x == 0) reach_error(); return 0; }",
                          Algorithm::Kind, SolverKind::Z3, DataModel::LP64, "main", 30);
  EXPECT_EQ(bug.result.verdict, Verdict::False) << bug.result.reason;
  ASSERT_TRUE(bug.result.counterexample.has_value());
  EXPECT_TRUE(bug.result.counterexample->replayed);
}

TEST(Affine, StepCaseHoldsOnlyWithTheEqualities) {
  ParsedFlat p = parseFlat(kCounting);
  auto inv = computeAffine(*p.fp);
  ASSERT_TRUE(inv);
  for (SolverKind s : {SolverKind::Z3, SolverKind::CVC5}) {
    StepCase step(*p.fp, s);
    EXPECT_EQ(step.check(1), CheckResult::Sat);
    EXPECT_EQ(step.check(4), CheckResult::Sat);  // no k proves it without the relation
    step.injectAffine(*inv);
    EXPECT_EQ(step.check(4), CheckResult::Unsat);
    EXPECT_EQ(step.check(5), CheckResult::Unsat);
  }
  // a fresh step case: already at k = 1
  StepCase step(*p.fp, SolverKind::Z3);
  step.injectAffine(*inv);
  EXPECT_EQ(step.check(1), CheckResult::Unsat);
}

// End to end: kind and kiki prove the counting loop (both solvers, both data models),
// naming the equality in the invariant; and still find the bug of a variant.
struct Case {
  Algorithm alg;
  SolverKind solver;
  DataModel dm;
};
class AffineEndToEnd : public ::testing::TestWithParam<Case> {};

TEST_P(AffineEndToEnd, CountingLoopIsProved) {
  const Case& c = GetParam();
  auto out = verifySource(std::string(kPrelude) + kCounting, c.alg, c.solver, c.dm, "main", 30);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_GE(out.result.stats.extra.at("affine_equalities"), 1.0);
  bool named = false;
  for (auto& [at, f] : out.result.invariant) named = named || f.find("j - 2*i == 0") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_LT(out.result.stats.wallTimeS, 10.0);
}

TEST_P(AffineEndToEnd, BugVariantIsFound) {
  const Case& c = GetParam();
  auto out = verifySource(std::string(kPrelude) +
                              "int main(void){ int n = __VERIFIER_nondet_int(); int i = 0, j = 0; if (n < 0 || n > 1000000) return 0;\n"
                              "  while (i < n) { i++; j += 2; }\n"
                              "  if (j == 2*i && i == 6) reach_error(); return 0; }",
                          c.alg, c.solver, c.dm, "main", 30);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample.has_value());
  EXPECT_TRUE(out.result.counterexample->replayed);
}

INSTANTIATE_TEST_SUITE_P(
    Engines, AffineEndToEnd,
    ::testing::Values(Case{Algorithm::Kind, SolverKind::Z3, DataModel::LP64},
                      Case{Algorithm::Kind, SolverKind::CVC5, DataModel::LP64},
                      Case{Algorithm::Kind, SolverKind::Z3, DataModel::ILP32},
                      Case{Algorithm::Kiki, SolverKind::Z3, DataModel::LP64},
                      Case{Algorithm::Kiki, SolverKind::CVC5, DataModel::LP64},
                      Case{Algorithm::Kiki, SolverKind::Z3, DataModel::ILP32}),
    [](const auto& info) {
      const Case& c = info.param;
      return std::string(c.alg == Algorithm::Kind ? "kind" : "kiki") + "_" + argus::smt::solverName(c.solver) + "_" +
             argus::frontend::dataModelName(c.dm);
    });

}  // namespace
