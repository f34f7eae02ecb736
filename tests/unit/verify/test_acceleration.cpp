// Loop acceleration (core/cfa/accelerate.h, issue 21): which loops get a shortcut, and
// BMC through the shortcuts: deep bugs found and confirmed by the replay of the loop
// itself, no wrong `false` where the loop wraps around or its guard fails mid-way, in
// both data models and with both solvers.
#include <gtest/gtest.h>

#include "core/cfa/accelerate.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus {
namespace {

using engine::Algorithm;
using result::Verdict;

struct Param {
  smt::SolverKind solver;
  frontend::DataModel dm;
};

std::string paramName(const ::testing::TestParamInfo<Param>& i) {
  return std::string(i.param.solver == smt::SolverKind::Z3 ? "z3" : "cvc5") +
         (i.param.dm == frontend::DataModel::ILP32 ? "_ilp32" : "_lp64");
}

class Acceleration : public ::testing::TestWithParam<Param> {
 protected:
  engine::VerifyOutcome run(const std::string& body, Algorithm alg = Algorithm::Bmc, double timeout = 60) {
    engine::VerifyRequest req = testing::snippetRequest(body, alg, GetParam().solver, timeout);
    req.dataModel = GetParam().dm;
    return engine::verify(req);
  }
};

::testing::AssertionResult replayedFalse(const engine::VerifyOutcome& out) {
  if (out.result.verdict != Verdict::False)
    return ::testing::AssertionFailure() << "verdict " << result::verdictName(out.result.verdict) << " ("
                                         << out.result.reason << ")";
  if (!out.result.counterexample || !out.result.counterexample->replayed)
    return ::testing::AssertionFailure() << "counterexample not replayed";
  return ::testing::AssertionSuccess();
}

// simple_1-1 of SV-COMP: 2^27 iterations, then the bug. No unrolling reaches it; the
// shortcut does at bound 1, and the interpreter confirms it by running the loop.
TEST_P(Acceleration, DeepUnsignedLoopBugIsFoundAndReplayed) {
  auto out = run("int main(void) { unsigned int x = 0; while (x < 0x0fffffff) { x += 2; }"
                 " __VERIFIER_assert(x % 2); return 0; }");
  EXPECT_TRUE(replayedFalse(out));
  ASSERT_TRUE(out.result.counterexample);
  // the trace does not list 2^27 iterations
  EXPECT_LT(out.result.counterexample->steps.size(), 100000u);
  bool gap = false;
  for (const auto& st : out.result.counterexample->steps)
    gap = gap || st.statement.find("of a long run not shown") != std::string::npos;
  EXPECT_TRUE(gap);
  // the path's last steps: the loop's exit and the assertion's argument
  EXPECT_TRUE(testing::replayedWithValue(out, "x", "268435456"));
  EXPECT_EQ(out.result.stats.extra.count("accelerated_loops"), 1u);
}

// The trace around the gap of a long run (issue 21): the head shows the first iterations
// (x = 2, 4, ...), the gap follows them, and after it the real last iterations, in order,
// up to x = 268435456; no value of the head reappears after the gap.
TEST_P(Acceleration, TraceShowsTheLastIterationsAfterTheGap) {
  auto out = run("int main(void) { unsigned int x = 0; while (x < 0x0fffffff) { x += 2; }"
                 " __VERIFIER_assert(x % 2); return 0; }");
  ASSERT_TRUE(replayedFalse(out));
  std::vector<uint64_t> before, after;
  bool gap = false;
  for (const auto& st : out.result.counterexample->steps) {
    if (st.statement.find("of a long run not shown") != std::string::npos) {
      EXPECT_FALSE(gap) << "one gap";
      gap = true;
      continue;
    }
    for (const auto& [k, v] : st.values)
      if (k == "x") (gap ? after : before).push_back(std::stoull(v));
  }
  ASSERT_TRUE(gap);
  ASSERT_GE(before.size(), 2u);
  ASSERT_GE(after.size(), 10u);  // several iterations, not only the last one
  EXPECT_EQ(after.back(), 268435456u);
  for (size_t i = 1; i < before.size(); ++i) EXPECT_EQ(before[i], before[i - 1] + 2) << "head, step " << i;
  for (size_t i = 1; i < after.size(); ++i) EXPECT_EQ(after[i], after[i - 1] + 2) << "tail, step " << i;
  EXPECT_GT(after.front(), before.back() + 2);  // the gap left iterations out, none is shown twice
}

// simple_4-1: counting down by 2 from an odd start; `x > 1` has the variable on the right.
TEST_P(Acceleration, DeepCountdownBugIsFoundAndReplayed) {
  auto out = run("int main(void) { unsigned int x = 0x0ffffff1; while (x > 1) { x -= 2; }"
                 " __VERIFIER_assert(!(x % 2)); return 0; }");
  EXPECT_TRUE(replayedFalse(out));
}

// The same loops with a true assertion: the shortcut must not reach a state the loop
// cannot (x ends at exactly 0x10000000, resp. 1). BMC cannot prove them; it must not
// answer false.
TEST_P(Acceleration, DeepLoopWithTrueAssertionIsNotRefuted) {
  auto a = run("int main(void) { unsigned int x = 0; while (x < 0x0fffffff) { x += 2; }"
               " __VERIFIER_assert(x == 0x10000000); return 0; }",
               Algorithm::Bmc, 8);
  EXPECT_NE(a.result.verdict, Verdict::False) << a.result.reason;
  auto b = run("int main(void) { unsigned int x = 0x0ffffff1; while (x > 1) { x -= 2; }"
               " __VERIFIER_assert(x == 1); return 0; }",
               Algorithm::Bmc, 8);
  EXPECT_NE(b.result.verdict, Verdict::False) << b.result.reason;
}

// Unsigned wraparound: from 0xfffffff0 in steps of 4 the counter wraps to 0 after 4
// iterations and reaches 0x01000000 after 2^22 more. The shortcut does not jump across the
// wraparound (it ends exactly on it), the loop takes that step, a second shortcut the rest.
TEST_P(Acceleration, UnsignedWraparoundIsExact) {
  auto out = run("int main(void) { unsigned int x = 0xfffffff0u; while (x != 0x01000000u) { x += 4; }"
                 " __VERIFIER_assert(x != 0x01000000u); return 0; }");
  EXPECT_TRUE(replayedFalse(out));
  // and no state beyond: x is never 0x01000004 after the loop, nor odd
  auto t = run("int main(void) { unsigned int x = 0xfffffff0u; while (x != 0x01000000u) { x += 4; }"
               " __VERIFIER_assert(x == 0x01000000u); return 0; }",
               Algorithm::Bmc, 8);
  EXPECT_NE(t.result.verdict, Verdict::False) << t.result.reason;
  // a loop whose guard never fails (x even, never 7): nothing after it is reachable
  auto inf = run("int main(void) { unsigned int x = 0; while (x != 7) { x += 2; } reach_error(); return 0; }",
                 Algorithm::Bmc, 8);
  EXPECT_NE(inf.result.verdict, Verdict::False) << inf.result.reason;
}

// A conjunction whose second atom fails first: the loop stops when j reaches 500, long
// before i's bound; a shortcut that looked at i alone would reach i = 10^6. (`&` of two
// comparisons: a short-circuit `&&` is two branches, a loop the acceleration leaves alone.)
TEST_P(Acceleration, GuardThatFailsMidWay) {
  auto t = run("int main(void) { int i = 0, j = 0; while ((i < 1000000) & (j < 500)) { i++; j++; }"
               " __VERIFIER_assert(i == 500); return 0; }",
               Algorithm::Bmc, 8);
  EXPECT_NE(t.result.verdict, Verdict::False) << t.result.reason;
  auto f = run("int main(void) { int i = 0, j = 0; while ((i < 1000000) & (j < 500)) { i++; j++; }"
               " __VERIFIER_assert(i != 500); return 0; }");
  EXPECT_TRUE(replayedFalse(f));
}

// Signed counters and the integer promotions (short: trunc(sext(s) + c)); `long` is 32
// bits in ILP32 and 64 in LP64.
TEST_P(Acceleration, SignedShortAndLongCounters) {
  auto s = run("int main(void) { short s = -30000; int k = 0; while (s < 30000) { s += 3; k += 1; }"
               " __VERIFIER_assert(k != 20000); return 0; }");
  EXPECT_TRUE(replayedFalse(s));
  auto l = run("int main(void) { unsigned long x = 0; while (x < 0x0fffffffUL) { x += 2; }"
               " __VERIFIER_assert(x % 2); return 0; }");
  EXPECT_TRUE(replayedFalse(l));
  auto lt = run("int main(void) { long x = 100000000L; while (x > 0) { x -= 7; }"
                " __VERIFIER_assert(x == -5 || x == 0); return 0; }",
                Algorithm::Bmc, 8);
  // 100000000 = 7 * 14285714 + 2: x ends at 2 - 7 = -5
  EXPECT_NE(lt.result.verdict, Verdict::False) << lt.result.reason;
  auto lf = run("int main(void) { long x = 100000000L; while (x > 0) { x -= 7; }"
                " __VERIFIER_assert(x != -5); return 0; }");
  EXPECT_TRUE(replayedFalse(lf));
}

// Incremental BMC (auto's first stage) takes the shortcuts too.
TEST_P(Acceleration, IncrementalBmcAndAuto) {
  auto out = run("int main(void) { unsigned int x = 0; while (x < 0x00ffffff) { x += 2; }"
                 " __VERIFIER_assert(x % 2); return 0; }",
                 Algorithm::Ibmc);
  EXPECT_TRUE(replayedFalse(out));
  auto a = run("int main(void) { unsigned int x = 0; while (x < 0x00ffffff) { x += 2; }"
               " __VERIFIER_assert(x % 2); return 0; }",
               Algorithm::Auto);
  EXPECT_TRUE(replayedFalse(a));
}

INSTANTIATE_TEST_SUITE_P(All, Acceleration,
                         ::testing::Values(Param{smt::SolverKind::Z3, frontend::DataModel::LP64},
                                           Param{smt::SolverKind::Z3, frontend::DataModel::ILP32},
                                           Param{smt::SolverKind::CVC5, frontend::DataModel::ILP32}),
                         paramName);

// Which loops get a shortcut: translations only, single path, the guard's form.
TEST(AccelerationShape, OnlyTranslationLoops) {
  auto count = [](const std::string& body) {
    frontend::FrontendOptions fo;
    auto parsed = frontend::parseSource(std::string(testing::kPrelude) + body, "test.c", fo);
    EXPECT_TRUE(parsed.ok()) << parsed.diagnostics;
    return parsed.ok() ? cfa::accelerateLoops(*parsed.program) : 0u;
  };
  EXPECT_EQ(count("int main(void) { unsigned x = 0; while (x < 100) x += 2; return x; }"), 1u);
  EXPECT_EQ(count("int main(void) { int i = 0, j = 5; for (i = 0; i < 100; i++) j -= 3; return j; }"), 1u);
  EXPECT_EQ(count("int main(void) { unsigned x = 1; while (x < 100) x *= 2; return x; }"), 0u);  // not a translation
  EXPECT_EQ(count("int main(void) { int x = 0, y = 0; while (x < 100) { x++; if (y) y++; } return x; }"), 0u);  // branch
  EXPECT_EQ(count("int main(void) { int x = 0, y = 0; while (x < y) { x++; y++; } return x; }"), 0u);  // both sides move
  EXPECT_EQ(count("int main(void) { int x = 0; int a[4]; while (x < 100) { a[x % 4] = 1; x++; } return x; }"), 0u);  // store
}

}  // namespace
}  // namespace argus
