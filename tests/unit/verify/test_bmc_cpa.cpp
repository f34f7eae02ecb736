// BMC as a configuration of the CPA core (--algorithm bmc-cpa: blk^never, the
// loop-bound CPA, no refinement): the same verdicts and the same bound semantics as
// the foundation's BMC (core/algorithms/bmc/bmc.cpp), replayed counterexamples, `true`
// only from the forward condition, and a "bound" condition when deepening stops.
#include <gtest/gtest.h>

#include "core/engine/verify.h"
#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::result::Verdict;
using argus::smt::SolverKind;
using argus::testing::kPrelude;

namespace {

argus::engine::VerifyOutcome runWith(Algorithm alg, SolverKind solver, const std::string& body, uint32_t maxBound = 0,
                                     double timeout = 60) {
  auto req = argus::testing::snippetRequest(body, alg, solver, timeout);
  req.maxBound = maxBound;
  auto out = argus::engine::verify(req);
  EXPECT_FALSE(out.inputError) << out.error;
  return out;
}

class BmcCpa : public ::testing::TestWithParam<SolverKind> {
protected:
  argus::engine::VerifyOutcome run(const std::string& body, uint32_t maxBound = 0) {
    auto out = runWith(Algorithm::BmcCpa, GetParam(), body, maxBound);
    EXPECT_EQ(out.result.algorithm, "bmc-cpa");
    return out;
  }
};

TEST_P(BmcCpa, BugAfterLoopIsReplayed) {
  auto out = run(argus::testing::kBugAfterLoop);
  ASSERT_TRUE(argus::testing::replayedWithValue(out, "n", "7"));
  // seven iterations: found at bound 7, not before
  EXPECT_EQ(out.result.stats.bound, 7u);
}

TEST_P(BmcCpa, BoundedLoopIsProvedByTheForwardCondition) {
  auto out = run(
      "int main(){ int x = 0; for (int i = 0; i < 5; i++) { if (__VERIFIER_nondet_int()) x++; } "
      "if (x > 5) reach_error(); return 0; }");
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_NE(out.result.condition.summary.find("forward condition"), std::string::npos) << out.result.condition.summary;
  // five iterations: at bound 5 no path is cut any more
  EXPECT_EQ(out.result.stats.bound, 5u);
  ASSERT_TRUE(out.result.condition.bound.has_value());
  EXPECT_EQ(*out.result.condition.bound, 5u);
}

TEST_P(BmcCpa, UnboundedLoopStopsWithABoundCondition) {
  const char* prog =
      "int main(){ unsigned x = 0; while (__VERIFIER_nondet_int()) { x++; }\n"
      "if (x == 3) reach_error(); return 0; }";
  // three iterations are needed: bound 2 verifies what it can and says so ...
  auto two = run(prog, 2);
  ASSERT_EQ(two.result.verdict, Verdict::Unknown) << two.result.reason;
  EXPECT_EQ(two.result.condition.kind, "bound");
  ASSERT_TRUE(two.result.condition.bound.has_value());
  EXPECT_EQ(*two.result.condition.bound, 2u);
  EXPECT_NE(two.result.condition.summary.find("unrolled <= 2"), std::string::npos) << two.result.condition.summary;
  ASSERT_FALSE(two.result.condition.excluded.empty());
  EXPECT_NE(two.result.condition.excluded.front().find("test.c:"), std::string::npos) << two.result.condition.excluded.front();
  // ... and bound 3 finds the bug, as the foundation's BMC does with the same bounds
  auto three = run(prog, 3);
  ASSERT_EQ(three.result.verdict, Verdict::False) << three.result.reason;
  EXPECT_TRUE(three.result.counterexample->replayed);
  auto bmc2 = runWith(Algorithm::Bmc, GetParam(), prog, 2);
  auto bmc3 = runWith(Algorithm::Bmc, GetParam(), prog, 3);
  EXPECT_EQ(bmc2.result.verdict, Verdict::Unknown);
  EXPECT_EQ(bmc3.result.verdict, Verdict::False);
}

TEST_P(BmcCpa, RecursionIsUnknownWithTheCall) {
  auto out = run("int f(int n){ return n <= 0 ? 0 : 1 + f(n - 1); } int main(){ if (f(3) != 3) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_NE(out.result.reason.find("recursive call of f"), std::string::npos) << out.result.reason;
}

INSTANTIATE_TEST_SUITE_P(Solvers, BmcCpa, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const auto& info) { return std::string(argus::smt::solverName(info.param)); });

// The same verdict as the foundation's BMC on programs with several and nested loops,
// calls, arrays and pointers (both decide every one of these within the limit).
struct Prog {
  const char* name;
  const char* body;
};

class BmcCpaAgrees : public ::testing::TestWithParam<Prog> {};

TEST_P(BmcCpaAgrees, WithFoundationBmc) {
  const Prog& p = GetParam();
  auto cpa = runWith(Algorithm::BmcCpa, SolverKind::Z3, p.body, 0, 30);
  auto bmc = runWith(Algorithm::Bmc, SolverKind::Z3, p.body, 0, 30);
  ASSERT_NE(bmc.result.verdict, Verdict::Unknown) << bmc.result.reason;
  EXPECT_EQ(cpa.result.verdict, bmc.result.verdict) << p.name << ": " << cpa.result.reason;
  if (cpa.result.verdict == Verdict::False) { EXPECT_TRUE(cpa.result.counterexample && cpa.result.counterexample->replayed); }
}

const Prog kProgs[] = {
    {"nested_safe", "int main(){ int c = 0; for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) c++; if (c != 12) reach_error(); return 0; }"},
    {"nested_bug", "int main(){ int c = 0; for (int i = 0; i < 3; i++) for (int j = 0; j < i; j++) c++; if (c == 3) reach_error(); return 0; }"},
    {"two_loops_safe", "int main(){ int a = 0, b = 0; while (a < 4) a++; while (b < a) b += 2; if (b != 4) reach_error(); return 0; }"},
    {"call_in_loop_bug", "int g; void step(int k){ g += k; if (g == 6) reach_error(); } int main(){ for (int i = 1; i <= 3; i++) step(i); return 0; }"},
    {"array_safe", "int main(){ int a[4]; for (int i = 0; i < 4; i++) a[i] = i * i; if (a[3] != 9) reach_error(); return 0; }"},
    {"pointer_bug", "int main(){ int x = 1; int *p = &x; for (int i = 0; i < 2; i++) *p = *p * 3; if (x == 9) reach_error(); return 0; }"},
    {"nondet_branch_safe", "int main(){ int x = __VERIFIER_nondet_int(); int y = 0; if (x > 0) y = x; else y = -x; if (y < 0 && x != -2147483647 - 1) reach_error(); return 0; }"},
};

INSTANTIATE_TEST_SUITE_P(Programs, BmcCpaAgrees, ::testing::ValuesIn(kProgs),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
