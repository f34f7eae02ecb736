// The BMC unwinding (core/algorithms/bmc/unwinding.h), issue 21:
//  - ibmc and bmc agree on verdict and bound on a table of programs whose merges hold
//    array addresses, values fixed before loops, parameters, heap lists and recursion;
//  - dead ends (core/cfa/dead_ends.h): a program's own exit() that loops forever is not
//    unrolled, so bmc, ibmc and kind prove the list program of CPAchecker's list-ext_1
//    shape; errors after loops, calls and nondeterministic infinite loops are still found.
#include <algorithm>

#include <gtest/gtest.h>

#include "core/support/deadline.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus {
namespace {

using engine::Algorithm;
using result::Verdict;

engine::VerifyOutcome run(const std::string& body, Algorithm alg, double timeout = 60, uint32_t maxBound = 0,
                          smt::SolverKind solver = smt::SolverKind::Z3) {
  engine::VerifyRequest req = testing::snippetRequest(body, alg, solver, timeout);
  req.dataModel = frontend::DataModel::ILP32;
  req.maxBound = maxBound;
  return engine::verify(req);
}

// ibmc and bmc agree on the verdict, and on the bound of a bug, for programs whose merges
// exercise the kept terms: addresses and values fixed before loops, a variable assigned
// once but not on every path, parameters of called functions, heap lists, recursion.
struct Case {
  const char* name;
  const char* code;
  Verdict expected;
};
const Case kCases[] = {
    {"array_address_before_loops_bug",
     "int main() { int a[4] = {1, 2, 3, 4}; int n = __VERIFIER_nondet_int(); int s = 0;\n"
     "  for (int i = 0; i < n && i < 4; i++) s += a[i];\n"
     "  for (int i = 0; i < 2; i++) a[i] = s;\n"
     "  if (a[3] == 4 && a[0] == 6) reach_error(); return 0; }",
     Verdict::False},
    {"array_address_before_loops_safe",
     "int main() { int a[4] = {1, 2, 3, 4}; int n = __VERIFIER_nondet_int(); int s = 0;\n"
     "  for (int i = 0; i < n && i < 4; i++) s += a[i];\n"
     "  for (int i = 0; i < 2; i++) a[i] = s;\n"
     "  if (a[3] != 4 || a[0] > 10) reach_error(); return 0; }",
     Verdict::True},
    {"assigned_once_not_on_every_path",
     "int main() { int c = __VERIFIER_nondet_int(); int v; if (c) v = 5;\n"
     "  int n = __VERIFIER_nondet_int(); for (int i = 0; i < n && i < 3; i++) { c = c + 1; }\n"
     "  if (c == 3 && v == 5) reach_error(); return 0; }",
     Verdict::False},
    {"assigned_once_not_on_every_path_safe",
     "int main() { int c = __VERIFIER_nondet_int(); int c0 = c; int v; if (c) v = 5;\n"
     "  int n = __VERIFIER_nondet_int(); for (int i = 0; i < n && i < 3; i++) { c = c + 1; }\n"
     "  if (c0 && v != 5) reach_error(); return 0; }",
     Verdict::True},
    {"fixed_value_differs_per_call",
     "int f(int p) { int k = p * 2; int i = 0; while (i < p && i < 3) i++; return k + i; }\n"
     "int main() { int a = f(1); int b = f(2); if (a == 3 && b == 6) reach_error(); return 0; }",
     Verdict::False},
    {"fixed_value_differs_per_call_safe",
     "int f(int p) { int k = p * 2; int i = 0; while (i < p && i < 3) i++; return k + i; }\n"
     "int main() { int a = f(1); int b = f(2); if (a != 3 || b != 6) reach_error(); return 0; }",
     Verdict::True},
    {"pointer_parameter_after_loop",
     "void fill(int *p, int n) { for (int i = 0; i < n && i < 3; i++) p[i] = i + 1; p[3] = n; }\n"
     "int main() { int a[4] = {0}; int n = __VERIFIER_nondet_int(); fill(a, n);\n"
     "  if (n == 2 && a[1] == 2 && a[3] == 2) reach_error(); return 0; }",
     Verdict::False},
    {"heap_list",
     "struct node { int h; struct node *n; };\n"
     "int main() { struct node *a = malloc(sizeof(struct node)); struct node *p = a; int i = 0;\n"
     "  while (i < 2 && __VERIFIER_nondet_int()) { i++; p->h = 1; p->n = malloc(sizeof(struct node)); p = p->n; }\n"
     "  p->h = 2; p->n = 0; int c = 0; p = a; while (p->h == 1) { c++; p = p->n; }\n"
     "  if (c != i) reach_error(); if (c == 1) reach_error(); return 0; }",
     Verdict::False},
    {"heap_list_safe",
     "struct node { int h; struct node *n; };\n"
     "int main() { struct node *a = malloc(sizeof(struct node)); struct node *p = a; int i = 0;\n"
     "  while (i < 2 && __VERIFIER_nondet_int()) { i++; p->h = 1; p->n = malloc(sizeof(struct node)); p = p->n; }\n"
     "  p->h = 2; p->n = 0; int c = 0; p = a; while (p->h == 1) { c++; p = p->n; }\n"
     "  if (c != i) reach_error(); return 0; }",
     Verdict::True},
    {"recursion_with_array",
     "int sum(int *a, int n) { if (n <= 0) return 0; return a[n - 1] + sum(a, n - 1); }\n"
     "int main() { int a[3] = {1, 2, 3}; int n = __VERIFIER_nondet_int(); if (n < 0 || n > 3) return 0;\n"
     "  if (sum(a, n) == 3) reach_error(); return 0; }",
     Verdict::False},
    {"nested_loops_distinct_values",
     "int main() { int g[3] = {5, 6, 7}; int t = 0;\n"
     "  for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) t += g[j];\n"
     "  if (t != 36) reach_error(); return 0; }",
     Verdict::True},
};

class IbmcAgreesWithBmc : public ::testing::TestWithParam<Case> {};

TEST_P(IbmcAgreesWithBmc, VerdictAndBound) {
  const Case& c = GetParam();
  for (smt::SolverKind solver : {smt::SolverKind::Z3, smt::SolverKind::CVC5}) {
    auto bmc = run(c.code, Algorithm::Bmc, 60, 0, solver);
    auto ibmc = run(c.code, Algorithm::Ibmc, 60, 0, solver);
    EXPECT_EQ(bmc.result.verdict, c.expected) << "bmc: " << bmc.result.reason;
    EXPECT_EQ(ibmc.result.verdict, c.expected) << "ibmc: " << ibmc.result.reason;
    if (c.expected == Verdict::False) {
      EXPECT_TRUE(bmc.result.counterexample && bmc.result.counterexample->replayed);
      EXPECT_TRUE(ibmc.result.counterexample && ibmc.result.counterexample->replayed);
      EXPECT_EQ(ibmc.result.stats.bound, bmc.result.stats.bound);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, IbmcAgreesWithBmc, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// CPAchecker's list-ext_1 shape: exit() is the program's own, a self-loop; the calls of
// it are unreachable (malloc does not fail), but the loop would be unrolled at every
// bound. A dead end: bmc, ibmc and kind prove the program.
const char* kOwnExit =
    "void exit(int s) { _EXIT: goto _EXIT; }\n"
    "struct node { int h; struct node *n; };\n"
    "int main() { struct node *a = malloc(sizeof(struct node)); if (a == 0) exit(1);\n"
    "  struct node *t, *p = a; int i = 0;\n"
    "  while (i < 3 && __VERIFIER_nondet_int()) { i++; p->h = 1;\n"
    "    t = malloc(sizeof(struct node)); if (t == 0) exit(1); p->n = t; p = p->n; }\n"
    "  p->h = 3; p->n = 0; p = a; i = 0;\n"
    "  while (p->h == 1) { i++; p = p->n; }\n"
    "  if (p->h != 3 || i > 3) reach_error();\n"
    "  return 0; }\n";

TEST(DeadEndsInVerification, OwnExitThatLoopsForeverIsNotUnrolled) {
  for (Algorithm alg : {Algorithm::Bmc, Algorithm::Ibmc, Algorithm::Kind}) {
    auto out = run(kOwnExit, alg, 60);
    EXPECT_EQ(out.result.verdict, Verdict::True) << engine::algorithmName(alg) << ": " << out.result.reason;
  }
}

// The same with a reachable exit(): still `true` (nothing is checked after it).
TEST(DeadEndsInVerification, ReachableOwnExitEndsThePath) {
  const char* code =
      "void exit(int s) { _EXIT: goto _EXIT; }\n"
      "int main() { int x = __VERIFIER_nondet_int(); if (x > 10) exit(1);\n"
      "  if (x > 20) reach_error(); return 0; }\n";
  for (Algorithm alg : {Algorithm::Bmc, Algorithm::Ibmc, Algorithm::Kind}) {
    auto out = run(code, alg, 60);
    EXPECT_EQ(out.result.verdict, Verdict::True) << engine::algorithmName(alg) << ": " << out.result.reason;
  }
}

// Soundness: an error after a loop that a path may leave, after the return of a callee
// with a loop, or beside a nondeterministic infinite loop is still found.
TEST(DeadEndsInVerification, ErrorsBehindLoopsAndCallsAreStillFound) {
  const char* codes[] = {
      "void exit(int s) { _EXIT: goto _EXIT; }\n"
      "int main() { int x = __VERIFIER_nondet_int(); if (x > 10) exit(1);\n"
      "  if (x == 5) reach_error(); return 0; }\n",
      "int g; void count(void) { for (int i = 0; i < 3; i++) g++; }\n"
      "int main() { count(); if (g == 3) reach_error(); return 0; }\n",
      "int main() { int x = __VERIFIER_nondet_int(); if (x) { while (1) { x++; } }\n"
      "  reach_error(); return 0; }\n",
      "void spin(int k) { while (k > 0) { k--; } }\n"
      "int main() { int x = __VERIFIER_nondet_int(); spin(x); if (x == 2) reach_error(); return 0; }\n",
  };
  for (const char* code : codes)
    for (Algorithm alg : {Algorithm::Bmc, Algorithm::Ibmc, Algorithm::Kind}) {
      auto out = run(code, alg, 60);
      EXPECT_EQ(out.result.verdict, Verdict::False) << engine::algorithmName(alg) << ": " << out.result.reason << "\n"
                                                    << code;
    }
}

// The forward condition (is any path longer than the bound?) gets a quarter of the time
// left (bmc.cpp, checkForward): where proving that no input repeats a bijective hash
// takes Z3 minutes, the run goes on to the next bound instead of spending its time
// there (before: bound 1 in 60 s); where the proof is cheap, the loop is still fully
// unrolled (`true`).
TEST(ForwardCondition, OutOfItsTimeTheRunGoesOnToTheNextBound) {
  const char* hard =
      "static unsigned long long mix(unsigned long long x) {\n"
      "  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull; x ^= x >> 31; return x; }\n"
      "int main() { unsigned long long x = (unsigned long long)__VERIFIER_nondet_uint() << 32 | __VERIFIER_nondet_uint();\n"
      "  unsigned long long n = 0;\n"
      "  while (mix(x ^ n) == 0x9e3779b97f4a7c15ull) n++;\n"
      "  if (x + 1 == x) reach_error(); return 0; }\n";
  auto out = run(hard, Algorithm::Bmc, 12, 3);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_NE(out.result.reason.find("bound limit"), std::string::npos) << out.result.reason;
  EXPECT_EQ(out.result.condition.bound, std::optional<uint32_t>(3)) << out.result.condition.summary;
  EXPECT_GE(out.result.stats.extra["forward_undecided"], 1);
  // ibmc's one solver learns across the bounds and may finish the proof at a later one
  auto inc = run(hard, Algorithm::Ibmc, 12, 3);
  if (inc.result.verdict != Verdict::True) {
    EXPECT_EQ(inc.result.verdict, Verdict::Unknown) << inc.result.reason;
    EXPECT_EQ(inc.result.condition.bound, std::optional<uint32_t>(3)) << inc.result.condition.summary;
  }
  const char* easy =
      "static unsigned mix(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;\n"
      "  return x; }\n"
      "int main() { unsigned x = __VERIFIER_nondet_uint(), n = 0;\n"
      "  while (mix(x ^ n) == 0x9e3779b9u) n++;\n"
      "  if (x + 1 == x) reach_error(); return 0; }\n";
  auto proved = run(easy, Algorithm::Bmc, 60);
  EXPECT_EQ(proved.result.verdict, Verdict::True) << proved.result.reason;
}

// Error locations (and loop cuts) checked one by one (bmc.cpp, checkAnySplit; on large
// formulas, where their disjunction is slow): with every disjunction split at once
// (VerifyRequest::splitAtOnceTerms = 0) bmc gives the verdicts of the whole-disjunction
// check: the one reachable location of three is reported with a replayed path through
// it, and a program whose three locations are all unreachable is proved (every loop cut
// ruled out one by one too).
TEST(SplitChecks, LocationByLocationGivesTheVerdictsOfTheDisjunction) {
  const char* prefix =
      "int tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};\n"
      "int main() { unsigned i = __VERIFIER_nondet_uint() % 8; int n = __VERIFIER_nondet_int(); int s = 0;\n"
      "  for (int k = 0; k < n && k < 3; k++) s += tab[k];\n"
      "  for (int k = 0; k < n && k < 2; k++) s -= 1;\n";
  const std::string bug = std::string(prefix) +
                          "  if (tab[i] == 7) reach_error();\n"
                          "  if (s == 6 && tab[i] == 9) reach_error();\n"
                          "  if (tab[i] > 9) reach_error(); return 0; }\n";
  const std::string safe = std::string(prefix) +
                           "  if (tab[i] == 7) reach_error();\n"
                           "  if (s > 8) reach_error();\n"
                           "  if (tab[i] > 9) reach_error(); return 0; }\n";
  for (bool split : {false, true}) {
    auto request = [&](const std::string& code) {
      engine::VerifyRequest req = testing::snippetRequest(code, Algorithm::Bmc, smt::SolverKind::Z3, 60);
      req.dataModel = frontend::DataModel::ILP32;
      if (split) req.splitAtOnceTerms = 0;
      return engine::verify(req);
    };
    auto b = request(bug);
    EXPECT_TRUE(testing::replayedWithValue(b, "i", "5")) << split;
    ASSERT_TRUE(b.result.counterexample) << split;
    const auto& steps = b.result.counterexample->steps;
    EXPECT_TRUE(std::any_of(steps.begin(), steps.end(),
                            [](const result::TraceStep& t) { return t.statement.find("s == 6") != std::string::npos; }))
        << split;
    EXPECT_EQ(b.result.stats.extra.count("split_queries") > 0, split) << split;
    auto p = request(safe);
    EXPECT_EQ(p.result.verdict, Verdict::True) << split << ": " << p.result.reason;
    if (split) {
      EXPECT_GE(p.result.stats.extra["split_queries"], 2) << "error locations and loop cuts";
    }
  }
}

// A function entry whose assumptions no input meets is not `true` (nothing was
// verified): bmc says "no execution gets through the entry's assumptions"; the same
// function with a precondition some input meets is proved, and main assuming false is
// `true` as SV-COMP reads it (no execution violates a check).
TEST(PathEnds, AnEntryNoInputGetsThroughVerifiesNothing) {
  const char* code =
      "int g(int x) { __VERIFIER_assume(x > 5 && x < 3); int s = 0;\n"
      "  for (int i = 0; i < 2; i++) s += x; if (s == 8) reach_error(); return s; }\n"
      "int h(int x) { __VERIFIER_assume(x > 5 && x < 9); int s = 0;\n"
      "  for (int i = 0; i < 2; i++) s += x; if (s == 8) reach_error(); return s; }\n"
      "int main() { int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 5 && x < 3);\n"
      "  if (x == 4) reach_error(); return 0; }\n";
  auto entry = [&](const char* fn) {
    engine::VerifyRequest req = testing::snippetRequest(code, Algorithm::Bmc, smt::SolverKind::Z3, 60);
    req.dataModel = frontend::DataModel::ILP32;
    req.function = fn;
    return engine::verify(req);
  };
  auto g = entry("g");
  EXPECT_EQ(g.result.verdict, Verdict::Unknown) << g.result.reason;
  EXPECT_NE(g.result.reason.find("no execution gets through the entry's assumptions"), std::string::npos)
      << g.result.reason;
  EXPECT_FALSE(g.result.condition.bound) << g.result.condition.summary;
  auto h = entry("h");
  EXPECT_EQ(h.result.verdict, Verdict::True) << h.result.reason;
  auto m = entry("main");
  EXPECT_EQ(m.result.verdict, Verdict::True) << m.result.reason;
}

// The same for the algorithms that prove without a path (pred's abstraction, k-induction's
// step): their `true` is checked after the run (engine::verify, bmc at bound 1). A
// function that never returns is no such entry: its loop is reached, and the proof stands.
TEST(PathEnds, NoAlgorithmProvesAnEntryNoInputGetsThrough) {
  const char* code =
      "int g(int x) { __VERIFIER_assume(x > 5 && x < 3); int s = 0;\n"
      "  while (s < x) { s++; if (s == 4) reach_error(); } return s; }\n"
      "int h(int x) { __VERIFIER_assume(x > 5 && x < 9); int s = 0;\n"
      "  while (s < x) { s++; if (x == 4) reach_error(); } return s; }\n"
      "void w(int x) { __VERIFIER_assume(x > 5);\n"
      "  while (1) { if (x == 4) reach_error(); } }\n";
  for (Algorithm alg : {Algorithm::Pred, Algorithm::Kind, Algorithm::Impact}) {
    auto entry = [&](const char* fn) {
      engine::VerifyRequest req = testing::snippetRequest(code, alg, smt::SolverKind::Z3, 60);
      req.dataModel = frontend::DataModel::ILP32;
      req.function = fn;
      return engine::verify(req);
    };
    const std::string name = engine::algorithmName(alg);
    auto g = entry("g");
    EXPECT_EQ(g.result.verdict, Verdict::Unknown) << name << ": " << g.result.reason;
    EXPECT_NE(g.result.reason.find("no execution gets through the entry's assumptions"), std::string::npos)
        << name << ": " << g.result.reason;
    EXPECT_EQ(g.result.condition.summary, "nothing verified") << name;
    // pred's proof is checked after the run; k-induction's base case may find it first
    if (alg != Algorithm::Kind) EXPECT_EQ(g.result.stats.extra.count("vacuity_check_s"), 1u) << name;
    auto h = entry("h");
    EXPECT_EQ(h.result.verdict, Verdict::True) << name << ": " << h.result.reason;
    auto w = entry("w");
    EXPECT_EQ(w.result.verdict, Verdict::True) << name << ": " << w.result.reason;
  }
}

}  // namespace
}  // namespace argus

namespace argus {
namespace {

// The process memory cap (support::setProcessMemoryLimitMb; argusd's workers set it with
// --job-memory-mb): the unwinding stops "out of memory" and bmc answers with the bound it
// verified, instead of growing; with the cap lifted the same program is proved.
TEST(UnwindingMemoryCap, BmcEndsOutOfMemoryWithTheVerifiedBound) {
  const char* code =
      "int main() { unsigned s = 0; for (int i = 0; i < 100000; i++) { s += i; if (s == 7u && i < 5) reach_error(); }\n"
      "  return 0; }\n";
  support::setProcessMemoryLimitMb(1);  // below any process: the next check is over it
  auto capped = run(code, Algorithm::Bmc, 60);
  support::setProcessMemoryLimitMb(0);
  EXPECT_EQ(capped.result.verdict, Verdict::Unknown);
  EXPECT_NE(capped.result.reason.find("out of memory"), std::string::npos) << capped.result.reason;
  auto uncapped = run(code, Algorithm::Bmc, 60, 3);
  EXPECT_EQ(uncapped.result.verdict, Verdict::Unknown);
  EXPECT_NE(uncapped.result.reason.find("bound limit"), std::string::npos) << uncapped.result.reason;
}

}  // namespace
}  // namespace argus
