// Recursion in the proof engines (issue 21, deliverable 3): kind, kiki and pred run on
// the program with its recursion inlined up to a depth (core/cfa/recursion.h), deepened
// by the engine (core/engine/verify.cpp, runSingle). Bounded recursion is proved, a bug
// within the depth is found and replayed on the original program, and recursion deeper
// than any depth tried is unknown with the depth in the condition, never true.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

#include "core/cfa/recursion.h"
#include "core/engine/verify.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus::testing {
namespace {

using engine::Algorithm;
using frontend::DataModel;
using result::Verdict;
using smt::SolverKind;

struct Case {
  const char* name;
  const char* body;
  Verdict expected;
  DataModel dm = DataModel::LP64;
};

const Case kCases[] = {
    {"factorial_safe",
     "int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }\n"
     "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 0 && n <= 5);\n"
     "  int r = fact(n); __VERIFIER_assert(r >= 1 && r <= 120 && (n < 5 || r == 120)); return 0; }\n",
     Verdict::True},
    {"even_odd_safe",
     "int is_odd(int n);\n"
     "int is_even(int n) { if (n == 0) return 1; return is_odd(n - 1); }\n"
     "int is_odd(int n) { if (n == 0) return 0; return is_even(n - 1); }\n"
     "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 0 && n <= 6);\n"
     "  __VERIFIER_assert(is_even(n) != is_odd(n)); __VERIFIER_assert(is_even(n) == (n % 2 == 0)); return 0; }\n",
     Verdict::True},
    {"array_sum_safe",
     "int sum(int *a, int n) { if (n == 0) return 0; return a[n - 1] + sum(a, n - 1); }\n"
     "int main(){ int a[4]; for (int i = 0; i < 4; i++) { a[i] = __VERIFIER_nondet_int(); __VERIFIER_assume(a[i] >= 0 && a[i] <= 10); }\n"
     "  int s = sum(a, 4); __VERIFIER_assert(s >= 0 && s <= 40 && s == a[0] + a[1] + a[2] + a[3]); return 0; }\n",
     Verdict::True},
    {"array_sum_safe_ilp32",
     "long sum(long *a, unsigned long n) { if (n == 0) return 0; return a[n - 1] + sum(a, n - 1); }\n"
     "int main(){ long a[4]; for (int i = 0; i < 4; i++) { a[i] = __VERIFIER_nondet_long(); __VERIFIER_assume(a[i] >= 0 && a[i] <= 10); }\n"
     "  long s = sum(a, 4); __VERIFIER_assert(s == a[0] + a[1] + a[2] + a[3] && sizeof(long) == 4); return 0; }\n",
     Verdict::True, DataModel::ILP32},
    // the bug needs three nested calls of f (n = 3)
    {"bug_at_depth_3",
     "int f(int n) { if (n == 0) { return 0; } int r = f(n - 1) + 1; if (r == 3) reach_error(); return r; }\n"
     "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 0 && n <= 6); f(n); return 0; }\n",
     Verdict::False},
    // loops inside the recursive function stay loops of each copy
    {"loop_inside_safe",
     "int g(int d) { int s = 0; for (int i = 0; i < 10; i++) s += 1; if (d <= 0) return s; return s + g(d - 1); }\n"
     "int main(){ int d = __VERIFIER_nondet_int(); __VERIFIER_assume(d >= 0 && d <= 3);\n"
     "  __VERIFIER_assert(g(d) == 10 * (d + 1)); return 0; }\n",
     Verdict::True},
    {"loop_inside_bug",
     "int g(int d) { int s = 0; for (int i = 0; i < 10; i++) s += 1; if (d <= 0) return s; return s + g(d - 1); }\n"
     "int main(){ int d = __VERIFIER_nondet_int(); __VERIFIER_assume(d >= 0 && d <= 3);\n"
     "  __VERIFIER_assert(g(d) != 30); return 0; }\n",
     Verdict::False},
};

using Param = std::tuple<Case, Algorithm, SolverKind>;
class Recursion : public ::testing::TestWithParam<Param> {};

TEST_P(Recursion, DecidedByTheProofEngine) {
  const auto& [c, alg, solver] = GetParam();
  auto out = verifySource(std::string(kPrelude) + c.body, alg, solver, c.dm, "main", 60);
  ASSERT_FALSE(out.inputError) << out.error;
  // pred on the recursive sum over an array: the abstraction queries over the array's
  // stores exceed the time (a performance limit of pred, as in test_constructs.cpp);
  // unknown, never wrong
  // (the same for the copies of a 10-iteration loop: one refinement per iteration and copy)
  if (alg == Algorithm::Pred &&
      (std::string(c.name).rfind("array_sum", 0) == 0 || std::string(c.name).rfind("loop_inside", 0) == 0) &&
      out.result.verdict == Verdict::Unknown) {
    EXPECT_NE(out.result.reason.find("timeout"), std::string::npos) << out.result.reason;
    return;
  }
  ASSERT_EQ(out.result.verdict, c.expected)
      << c.name << ": got " << result::verdictName(out.result.verdict) << " (" << out.result.reason << ")";
  // the recursion was inlined, not left to a BMC fallback
  ASSERT_TRUE(out.result.stats.extra.count("recursion_depth")) << c.name;
  EXPECT_GE(out.result.stats.extra.at("recursion_depth"), 8.0);
  EXPECT_FALSE(out.result.stats.extra.count("step_case_disabled")) << c.name;
  if (c.expected == Verdict::False) {
    ASSERT_TRUE(out.result.counterexample.has_value());
    EXPECT_TRUE(out.result.counterexample->replayed);
    // the trace is on the original program: its functions, not the copies
    for (const auto& st : out.result.counterexample->steps)
      EXPECT_EQ(st.function.find('#'), std::string::npos) << st.function;
  }
  if (c.expected == Verdict::True) {
    EXPECT_NE(out.result.condition.summary.find("recursion inlined"), std::string::npos) << out.result.condition.summary;
  }
}

std::string caseName(const ::testing::TestParamInfo<Param>& info) {
  const auto& [c, alg, solver] = info.param;
  return std::string(c.name) + "_" + engine::algorithmName(alg) + "_" + smt::solverName(solver);
}

INSTANTIATE_TEST_SUITE_P(All, Recursion,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Algorithm::Kind, Algorithm::Kiki, Algorithm::Pred),
                                            ::testing::Values(SolverKind::Z3, SolverKind::CVC5)),
                         caseName);

// The bug at depth 3: the counterexample passes through three frames of f and reaches
// r == 3 (the replay ran on the original program).
TEST(RecursionTrace, BugAtDepthThreeIsReplayed) {
  const std::string code = std::string(kPrelude) + kCases[4].body;
  for (Algorithm alg : {Algorithm::Kind, Algorithm::Kiki, Algorithm::Pred}) {
    auto out = verifySource(code, alg, SolverKind::Z3);
    EXPECT_TRUE(replayedWithValue(out, "r", "3")) << engine::algorithmName(alg);
  }
}

// Unbounded recursion whose property holds: not provable by inlining; unknown with the
// depth that was verified, never true.
TEST(RecursionBound, UnboundedRecursionIsUnknownWithTheDepth) {
  const char* body =
      "int f(int n) { return n <= 0 ? 0 : f(n - 1); }\n"
      "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assert(f(n) >= 0); return 0; }\n";
  for (Algorithm alg : {Algorithm::Kind, Algorithm::Kiki, Algorithm::Pred})
    for (SolverKind solver : {SolverKind::Z3, SolverKind::CVC5}) {
      // k-induction spends what is left after the inlined runs on its BMC base case over
      // the recursive program itself (deeper bugs), so it takes the whole time
      const bool pred = alg == Algorithm::Pred;
      auto out = verifySource(std::string(kPrelude) + body, alg, solver, DataModel::LP64, "main", pred ? 20 : 6);
      ASSERT_FALSE(out.inputError) << out.error;
      ASSERT_EQ(out.result.verdict, Verdict::Unknown)
          << engine::algorithmName(alg) << ": " << result::verdictName(out.result.verdict);
      EXPECT_NE(out.result.reason.find("recursion nested more than"), std::string::npos) << out.result.reason;
      if (pred) {
        EXPECT_NE(out.result.condition.summary.find("calls deep not verified"), std::string::npos)
            << out.result.condition.summary;
      }
      ASSERT_TRUE(out.result.stats.extra.count("recursion_depth"));
      EXPECT_GE(out.result.stats.extra.at("recursion_depth"), 8.0);
    }
}

// A bug only deeper than the first depth (8): found after deepening.
TEST(RecursionBound, DeepeningFindsADeeperBug) {
  const char* body =
      "int f(int n) { if (n == 0) return 0; return f(n - 1) + 1; }\n"
      "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 0 && n <= 20);\n"
      "  __VERIFIER_assert(f(n) != 12); return 0; }\n";
  for (Algorithm alg : {Algorithm::Kind, Algorithm::Pred}) {
    auto out = verifySource(std::string(kPrelude) + body, alg, SolverKind::Z3);
    ASSERT_EQ(out.result.verdict, Verdict::False) << engine::algorithmName(alg) << ": " << out.result.reason;
    EXPECT_TRUE(out.result.counterexample && out.result.counterexample->replayed);
    EXPECT_GE(out.result.stats.extra.at("recursion_depth"), 16.0);
  }
}

// An unsupported construct other than the recursion depth (a `long double`) reachable
// early does not stop k-induction's base case on the inlined program: it goes on to the
// bug at bound 4 (it stopped after its first bound, "unsupported", before; on SQLite an
// indirect call through a nondeterministic pointer did that to most functions).
TEST(RecursionBound, AnotherUnsupportedConstructDoesNotStopTheBaseCase) {
  const char* body =
      "int f(int n) { return n <= 0 ? 0 : f(n - 1); }\n"
      "int main(void) { int n = __VERIFIER_nondet_int();\n"
      "  if (n == 100) { long double d = n; if (d > 1) return 1; }\n"
      "  int s = 0; for (int i = 0; i < n; i++) s++;\n"
      "  __VERIFIER_assert(s != 3 || f(1) != 0); return 0; }\n";
  for (Algorithm alg : {Algorithm::Kind, Algorithm::Kiki}) {
    auto out = verifySource(std::string(kPrelude) + body, alg, SolverKind::Z3);
    EXPECT_TRUE(replayedWithValue(out, "s", "3")) << engine::algorithmName(alg);
  }
}

// The transformation itself: no cycle is left, each level has its own variables, the
// deepest calls are the bound edges, and the original functions keep their numbering.
TEST(InlineRecursion, CopiesPerLevelAndBoundEdges) {
  frontend::FrontendOptions fo;
  std::string code =
      "extern void reach_error(void);\n"
      "int is_odd(int n);\n"
      "int is_even(int n) { if (n == 0) return 1; return is_odd(n - 1); }\n"
      "int is_odd(int n) { if (n == 0) return 0; return is_even(n - 1); }\n"
      "int main(){ if (is_even(4) != 1) reach_error(); return 0; }\n";
  auto parsed = frontend::parseSource(code, "test.c", fo);
  ASSERT_TRUE(parsed.program) << parsed.diagnostics;
  std::shared_ptr<const cfa::Program> p(std::move(parsed.program));
  cfa::FuncId main = p->funcByName.at("main");
  EXPECT_TRUE(cfa::hasRecursion(*p, main));
  auto inl = cfa::inlineRecursion(p, main, 3);
  ASSERT_TRUE(inl.has_value());
  const cfa::Program& q = *inl->program;
  EXPECT_EQ(inl->recursiveFunctions, 2u);
  EXPECT_EQ(inl->copies, 4u);  // levels 2 and 3 of both
  EXPECT_EQ(q.functions.size(), p->functions.size() + 4);
  EXPECT_FALSE(cfa::hasRecursion(q, main));
  EXPECT_EQ(&cfa::original(q), p.get());
  for (size_t f = 0; f < p->functions.size(); ++f) EXPECT_EQ(q.functions[f].name, p->functions[f].name);
  size_t bounds = 0;
  for (const cfa::Function& f : q.functions)
    for (const cfa::Edge& e : f.edges) {
      if (e.kind == cfa::EdgeKind::Unsupported && cfa::mentionsRecursionBound(e.text)) {
        ++bounds;
        EXPECT_NE(f.name.find("#3"), std::string::npos) << f.name;  // only at the deepest level
      }
      if (e.kind == cfa::EdgeKind::Call) {
        EXPECT_LT(e.callee, q.functions.size());
      }
    }
  EXPECT_EQ(bounds, 2u);  // is_even#3 -> is_odd, is_odd#3 -> is_even
  // a copy's variables are its own
  const cfa::Function& even3 = q.functions[q.funcByName.at("is_even#3")];
  ASSERT_EQ(even3.params.size(), 1u);
  EXPECT_EQ(q.vars[even3.params[0]].func, even3.id);
  EXPECT_NE(even3.params[0], q.functions[q.funcByName.at("is_even")].params[0]);
  // a program without recursion is left alone
  auto flat = frontend::parseSource(
      "extern void reach_error(void); int g(int x){ return x + 1; } int main(){ if (g(1) != 2) reach_error(); return 0; }",
      "test.c", fo);
  ASSERT_TRUE(flat.program);
  std::shared_ptr<const cfa::Program> fp(std::move(flat.program));
  EXPECT_FALSE(cfa::hasRecursion(*fp, fp->funcByName.at("main")));
  EXPECT_FALSE(cfa::inlineRecursion(fp, fp->funcByName.at("main"), 4).has_value());
}

}  // namespace
}  // namespace argus::testing
