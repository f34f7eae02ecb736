// The explicit-value analysis (--algorithm explicit): verdicts, bit-precise values,
// replayed counterexamples, and the cases it must leave unknown.
#include <gtest/gtest.h>

#include "core/result/assumption_automaton.h"
#include "tests/unit/cmc/cmc_helpers.h"

using argus::engine::Algorithm;
using argus::result::Verdict;
using argus::testing::CmcRun;
using argus::testing::runCmc;
using argus::testing::statOf;

namespace {

Verdict explicitVerdict(const std::string& body, argus::engine::VerifyOutcome* keep = nullptr) {
  CmcRun c;
  c.timeout = 30;
  auto out = runCmc(body, c);
  EXPECT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.algorithm, "explicit");
  if (out.result.verdict == Verdict::False) {
    EXPECT_TRUE(out.result.counterexample && out.result.counterexample->replayed);
  }
  if (keep) *keep = out;
  return out.result.verdict;
}

TEST(Explicit, SafeStraightLine) {
  EXPECT_EQ(explicitVerdict("int main(){ int x = 3; int y = x * 7 - 1; if (y != 20) reach_error(); return 0; }"),
            Verdict::True);
}

TEST(Explicit, BugStraightLineIsReplayed) {
  argus::engine::VerifyOutcome out;
  EXPECT_EQ(explicitVerdict("int main(){ int x = 3; int y = x * 7; if (y == 21) reach_error(); return 0; }", &out),
            Verdict::False);
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_FALSE(out.result.counterexample->steps.empty());
}

TEST(Explicit, BoundedLoopIsUnrolledExactly) {
  EXPECT_EQ(explicitVerdict("int main(){ int s = 0; for (int i = 0; i < 50; i++) s += i; "
                            "if (s != 1225) reach_error(); return 0; }"),
            Verdict::True);
  EXPECT_EQ(explicitVerdict("int main(){ int s = 0; for (int i = 0; i < 50; i++) s += i; "
                            "if (s == 1225) reach_error(); return 0; }"),
            Verdict::False);
}

TEST(Explicit, UnsignedAndSignedWraparound) {
  // the frontend's semantics: arithmetic wraps modulo 2^width
  EXPECT_EQ(explicitVerdict("int main(){ unsigned char c = 255; c++; if (c != 0) reach_error(); return 0; }"),
            Verdict::True);
  EXPECT_EQ(explicitVerdict("int main(){ unsigned u = 0; u = u - 1; if (u != 4294967295u) reach_error(); return 0; }"),
            Verdict::True);
  EXPECT_EQ(explicitVerdict("int main(){ short s = 32767; s = s + 1; if (s == -32768) reach_error(); return 0; }"),
            Verdict::False);
  EXPECT_EQ(explicitVerdict("int main(){ int x = -7; int q = x / 2; int r = x % 2; "
                            "if (q != -3 || r != -1) reach_error(); unsigned z = 0; "
                            "if ((1u << 31) >> 31 != 1) reach_error(); return 0; }"),
            Verdict::True);
}

TEST(Explicit, NondetValueFoundBySolverAndReplayed) {
  // the explicit analysis does not know x; the error path is decided by the solver
  argus::engine::VerifyOutcome out;
  EXPECT_EQ(explicitVerdict("int main(){ int x = __VERIFIER_nondet_int(); if (x == 42) reach_error(); return 0; }", &out),
            Verdict::False);
  bool saw42 = false;
  for (auto& st : out.result.counterexample->steps)
    for (auto& [k, v] : st.values)
      if (v == "42") saw42 = true;
  EXPECT_TRUE(saw42);
}

TEST(Explicit, EqualityAssumptionMakesValueKnown) {
  EXPECT_EQ(explicitVerdict("int main(){ int x = __VERIFIER_nondet_int(); if (x == 5) { if (x + 1 != 6) reach_error(); } "
                            "return 0; }"),
            Verdict::True);
}

TEST(Explicit, InfeasibleAbstractErrorPathIsNeverFalseNorTrue) {
  // x top: both branches are explored although no x satisfies both conditions
  argus::engine::VerifyOutcome out;
  EXPECT_EQ(explicitVerdict("int main(){ int x = __VERIFIER_nondet_int(); if (x > 5) { if (x < 3) reach_error(); } "
                            "return 0; }",
                            &out),
            Verdict::Unknown);
  EXPECT_EQ(statOf(out.result, "infeasible_error_paths"), 1.0);
  EXPECT_EQ(out.result.condition.kind, "assumption");
  EXPECT_NE(out.result.condition.summary.find("error location"), std::string::npos) << out.result.condition.summary;
  ASSERT_TRUE(out.result.condition.automaton);
  EXPECT_GE(out.result.condition.automaton->ordinaryStates(), 1u);
}

TEST(Explicit, MemoryArraysAndPointers) {
  EXPECT_EQ(explicitVerdict("int a[4]; int main(){ for (int i = 0; i < 4; i++) a[i] = i * i; int *p = &a[2]; "
                            "if (*p != 4 || a[3] != 9 || a[0] != 0) reach_error(); return 0; }"),
            Verdict::True);
  EXPECT_EQ(explicitVerdict("struct S { int x; char c; } s; int main(){ s.c = 'a'; s.x = 7; "
                            "if (s.x == 7 && s.c == 'a') reach_error(); return 0; }"),
            Verdict::False);
  // a store through an unknown pointer forgets memory: no wrong `true`
  EXPECT_NE(explicitVerdict("int a[2]; int main(){ int i = __VERIFIER_nondet_int(); if (i < 0 || i > 1) return 0; "
                            "a[i] = 5; if (a[0] == 5) reach_error(); return 0; }"),
            Verdict::True);
}

TEST(Explicit, FunctionCallsAndReturnValues) {
  EXPECT_EQ(explicitVerdict("int sq(int v) { int t = v * v; return t; } "
                            "int main(){ int a = sq(3); int b = sq(4); if (a + b != 25) reach_error(); return 0; }"),
            Verdict::True);
  EXPECT_EQ(explicitVerdict("int inc(int v) { return v + 1; } "
                            "int main(){ int a = inc(inc(1)); if (a == 3) reach_error(); return 0; }"),
            Verdict::False);
}

// The explicit analysis and BMC never contradict each other (and neither says
// something wrong on these small programs with known answers).
TEST(Explicit, AgreesWithBmc) {
  struct Case {
    const char* body;
    Verdict expected;
    bool exact = true;  // deterministic: the explicit analysis must decide it
  };
  const Case cases[] = {
      {"int main(){ unsigned x = __VERIFIER_nondet_uint(); unsigned y = x; if (x != y) reach_error(); return 0; }",
       Verdict::True, false},
      {"int main(){ char c = __VERIFIER_nondet_char(); int i = c; if (i > 127) reach_error(); return 0; }", Verdict::True,
       false},
      {"int main(){ int n = 0; for (int i = 0; i < 10; i++) if (i % 3 == 0) n++; if (n != 4) reach_error(); return 0; }",
       Verdict::True},
      {"int main(){ int n = 0; for (int i = 0; i < 10; i++) if (i % 3 == 0) n++; if (n == 4) reach_error(); return 0; }",
       Verdict::False},
      {"int main(){ long l = 1; for (int i = 0; i < 70; i++) l = l * 2; if (l == 0) reach_error(); return 0; }",
       Verdict::False},
      {"int main(){ int *p = malloc(8); p[0] = 1; p[1] = 2; if (p[0] + p[1] != 3) reach_error(); return 0; }",
       Verdict::True},
      {"int g; void set(int v) { g = v; } int main(){ set(3); set(g + 1); if (g != 4) reach_error(); return 0; }",
       Verdict::True},
  };
  for (const Case& c : cases) {
    Verdict e = explicitVerdict(c.body);
    auto bmc = argus::testing::verifySource(std::string(argus::testing::kPrelude) + c.body, Algorithm::Bmc,
                                            argus::smt::SolverKind::Z3);
    if (c.exact) EXPECT_EQ(e, c.expected) << c.body;
    else EXPECT_TRUE(e == c.expected || e == Verdict::Unknown) << c.body;
    EXPECT_EQ(bmc.result.verdict, c.expected) << c.body;
  }
}

TEST(Explicit, CorruptedReplayIsNeverReportedFalse) {
  argus::engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(argus::testing::kPrelude) +
               "int main(){ int x = __VERIFIER_nondet_int(); if (x == 1234) reach_error(); return 0; }";
  req.algorithm = Algorithm::Explicit;
  req.corruptReplayForTest = true;
  auto out = argus::engine::verify(req);
  EXPECT_NE(out.result.verdict, Verdict::False);
  EXPECT_NE(out.result.verdict, Verdict::True);
}

}  // namespace
