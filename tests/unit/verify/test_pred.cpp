// Lazy predicate abstraction (--algorithm pred) end to end: safe and buggy programs
// with loops, counterexamples that replay, statistics, and the unknown cases.
#include <gtest/gtest.h>
#include <algorithm>
#include <cstring>

#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::frontend::DataModel;
using argus::result::Verdict;
using argus::smt::SolverKind;
using argus::testing::kPrelude;
using argus::testing::verifySource;

namespace {

class Pred : public ::testing::TestWithParam<SolverKind> {
protected:
  argus::engine::VerifyOutcome run(const std::string& body, double timeout = 60) {
    auto out = verifySource(std::string(kPrelude) + body, Algorithm::Pred, GetParam(), DataModel::LP64, "main", timeout);
    EXPECT_FALSE(out.inputError) << out.error;
    EXPECT_EQ(out.result.algorithm, "pred");
    return out;
  }
};

TEST_P(Pred, SafeLoopWithUnboundedInput) {
  // needs a loop invariant (i <= n); BMC cannot prove this one
  auto out = run(
      "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0; while (i < n) { i++; } "
      "if (i != n) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_GE(out.result.stats.extra.at("refinements"), 1.0);
  EXPECT_GE(out.result.stats.extra.at("predicates"), 1.0);
}

TEST_P(Pred, AProofGivesItsLoopInvariantInC) {
  // the abstraction at the loop head, as C over the program's names (for correctness
  // witnesses): relates x and y, and names no SMT variable (main::y)
  auto out = run(
      "int main(){ int x = 0, y = 0; int n = __VERIFIER_nondet_int(); while (x < n) { x++; y++; } "
      "if (x != y) reach_error(); return 0; }");
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  ASSERT_EQ(out.result.invariant.size(), 1u);
  const auto& [where, inv] = *out.result.invariant.begin();
  EXPECT_NE(where.find(" in main"), std::string::npos) << where;
  EXPECT_NE(inv.find("(unsigned int)x"), std::string::npos) << inv;
  EXPECT_NE(inv.find("(unsigned int)y"), std::string::npos) << inv;
  EXPECT_EQ(inv.find("::"), std::string::npos) << inv;
}

TEST_P(Pred, SafeLoopWithTwoCounters) {
  auto out = run(
      "int main(){ int x = 0, y = 0; int n = __VERIFIER_nondet_int(); while (x < n) { x++; y++; } "
      "if (x != y) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
}

TEST_P(Pred, BugAfterLoopIsReplayed) {
  auto out = run(argus::testing::kBugAfterLoop);
  ASSERT_TRUE(argus::testing::replayedWithValue(out, "n", "7"));
}

TEST_P(Pred, BugInCalleeInsideLoop) {
  auto out = run(
      "int g; void step(int k){ g += k; if (g == 6) reach_error(); } "
      "int main(){ for (int i = 1; i <= 3; i++) step(i); return 0; }");
  ASSERT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  EXPECT_TRUE(out.result.counterexample->replayed);
}

TEST_P(Pred, SafeCallsFromSeveralSites) {
  auto out = run(
      "int abs_(int x){ return x < 0 ? -x : x; } "
      "int main(){ int a = __VERIFIER_nondet_int(); __VERIFIER_assume(a > -100 && a < 100); "
      "int b = abs_(a); int c = abs_(-a); if (b != c || b < 0) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
}

TEST_P(Pred, StatisticsAreReported) {
  auto out = run("int main(){ int x = __VERIFIER_nondet_int(); if (x > 3 && x < 2) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True);
  for (const char* k : {"refinements", "abstractions", "arg_states_created", "reached_states", "predicates",
                        "time_abstraction_s", "time_refinement_s"})
    EXPECT_TRUE(out.result.stats.extra.count(k)) << k;
  EXPECT_GT(out.result.stats.solverQueries, 0u);
}

// Recursion is inlined up to a depth by the engine (core/cfa/recursion.h): bounded
// recursion is proved, and a wrong assertion about it is refuted.
TEST_P(Pred, BoundedRecursionIsDecided) {
  auto out = run("int f(int n){ return n <= 0 ? 0 : 1 + f(n - 1); } int main(){ if (f(3) != 3) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stats.extra.count("recursion_depth"), 1u);
  auto bug = run("int f(int n){ return n <= 0 ? 0 : 1 + f(n - 1); } int main(){ if (f(3) == 3) reach_error(); return 0; }");
  EXPECT_EQ(bug.result.verdict, Verdict::False) << bug.result.reason;
}

TEST_P(Pred, UnreachableRecursionDoesNotMatter) {
  auto out = run(
      "int f(int n){ return n <= 0 ? 0 : 1 + f(n - 1); } "
      "int main(){ int x = __VERIFIER_nondet_int(); if (x > 5 && x < 3) f(x); if (x == 9) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
}

TEST_P(Pred, UnsupportedConstructGivesUnknownButBugsAreStillFound) {
  // the remainder of doubles is pred's one unsupported floating-point operation
  auto unk = run("double remainder(double, double);\nint main(){\n double d = __VERIFIER_nondet_int();\n if (remainder(d, 3.0) > 1.0) reach_error();\n return 0; }");
  EXPECT_EQ(unk.result.verdict, Verdict::Unknown);
  // at the line of the remainder: the prelude's lines, then the fourth
  const std::string where = "test.c:" + std::to_string(std::count(kPrelude, kPrelude + std::strlen(kPrelude), '\n') + 4);
  EXPECT_NE(unk.result.reason.find(where), std::string::npos) << unk.result.reason;
  EXPECT_NE(unk.result.reason.find("remainder"), std::string::npos) << unk.result.reason;
  auto bug = run(
      "double remainder(double, double); int main(){ int x = __VERIFIER_nondet_int(); double d = x; if (remainder(d, 3.0) > 2.0) return 1; if (x == 3) reach_error(); return 0; }");
  EXPECT_NE(bug.result.verdict, Verdict::True);
  auto bug2 = run(
      "double remainder(double, double); int main(){ int x = __VERIFIER_nondet_int(); if (x == 3) reach_error(); double d = x; if (remainder(d, 3.0) > 2.0) return 1; return 0; }");
  EXPECT_EQ(bug2.result.verdict, Verdict::False) << bug2.result.reason;
}

// Floating point is encoded exactly (SMT FloatingPoint): pred proves and refutes float code.
TEST_P(Pred, FloatingPointIsDecided) {
  auto bug = run("int main(){ double d = 1.5; if (d > 1.0) reach_error(); return 0; }");
  EXPECT_EQ(bug.result.verdict, Verdict::False) << bug.result.reason;
  auto safe = run(
      "extern float __VERIFIER_nondet_float(void); int main(){ float f = __VERIFIER_nondet_float(); if (f > 1.0f && f < 0.5f) reach_error(); return 0; }");
  EXPECT_EQ(safe.result.verdict, Verdict::True) << safe.result.reason;
  auto nan = run(
      "extern double __VERIFIER_nondet_double(void); int main(){ double d = __VERIFIER_nondet_double(); if (d != d) reach_error(); return 0; }");
  EXPECT_EQ(nan.result.verdict, Verdict::False) << nan.result.reason;
}

TEST_P(Pred, PathThatDoesNotReplayIsNeverFalse) {
  argus::engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(kPrelude) + "int main(){ int x = __VERIFIER_nondet_int(); if (x == 77) reach_error(); return 0; }";
  req.algorithm = Algorithm::Pred;
  req.solver = GetParam();
  req.timeoutS = 60;
  req.corruptReplayForTest = true;
  auto out = argus::engine::verify(req);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_NE(out.result.reason.find("did not replay"), std::string::npos) << out.result.reason;
}

TEST_P(Pred, TimeoutIsRespected) {
  // a safe loop that may need many refinements: true or unknown, never false, in time
  auto out = run("int main(){ unsigned x = 0; while (x < 1000000) x++; if (x != 1000000) reach_error(); return 0; }", 2);
  EXPECT_NE(out.result.verdict, Verdict::False);
  if (out.result.verdict == Verdict::Unknown) {
    EXPECT_EQ(out.result.reason, "timeout");
  }
  EXPECT_LT(out.result.stats.wallTimeS, 10.0);
}

// pred with Z3 and no --refiner: the default refiner (weakest preconditions) has a quarter
// of the time, then strongest posts the rest (engine::fallbackRefiner). On a counting loop
// the default adds one predicate per unrolling (13 after 6 s); the fallback proves it
// with 4. A refiner the user names runs alone, and a run the default decides keeps it.
TEST(PredRefiners, TheFallbackProvesACountingLoopTheDefaultKeepsUnrolling) {
  const std::string code = std::string(kPrelude) +
                           "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 5 && x < 9); int s = 0;\n"
                           "  while (s < x) { s++; if (s > 10) reach_error(); } return 0; }\n";
  auto out = verifySource(code, Algorithm::Pred, SolverKind::Z3, DataModel::LP64, "main", 12);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stats.extra["refiner_fallback"], 1);
  EXPECT_GE(out.result.stats.extra["refiner_first_s"], 0.25 * 12 - 0.5);

  argus::engine::VerifyRequest req = argus::testing::snippetRequest(
      "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 5 && x < 9); int s = 0;\n"
      "  while (s < x) { s++; if (s > 10) reach_error(); } return 0; }\n",
      Algorithm::Pred, SolverKind::Z3, 4);
  req.refiner = argus::engine::defaultRefiner(Algorithm::Pred, SolverKind::Z3);
  auto named = argus::engine::verify(req);
  EXPECT_EQ(named.result.verdict, Verdict::Unknown) << named.result.reason;
  EXPECT_EQ(named.result.reason, "timeout");
  EXPECT_EQ(named.result.stats.extra.count("refiner_fallback"), 0u);

  auto decided = verifySource(
      std::string(kPrelude) + "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0; while (i < n) { i++; } "
                              "if (i != n) reach_error(); return 0; }",
      Algorithm::Pred, SolverKind::Z3, DataModel::LP64, "main", 60);
  EXPECT_EQ(decided.result.verdict, Verdict::True) << decided.result.reason;
  EXPECT_EQ(decided.result.stats.extra.count("refiner_fallback"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Solvers, Pred, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const auto& info) { return std::string(argus::smt::solverName(info.param)); });

}  // namespace
