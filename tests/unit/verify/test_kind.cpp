// k-induction (--algorithm kind / kind-noinv): the interval invariant generator on known
// loops, the step case with invariants injected into its running solver, and end-to-end
// verdicts on safe and buggy programs with several, nested loops and calls.
#include <gtest/gtest.h>

#include <climits>

#include <nlohmann/json.hpp>

#include "core/algorithms/kinduction/flat_program.h"
#include "core/algorithms/kinduction/interval_invariants.h"
#include "core/algorithms/kinduction/kinduction.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/flat_helpers.h"

using argus::algorithms::computeIntervals;
using argus::algorithms::IntervalInvariant;
using argus::algorithms::Itv;
using argus::algorithms::KInductionOptions;
using argus::algorithms::runKInduction;
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

// The interval of the C variable `name` (of main) at the loop head on source line `line`;
// nullopt when the variable is unconstrained there.
std::optional<Itv> intervalAt(const ParsedFlat& p, const IntervalInvariant& inv, uint32_t line, const std::string& name) {
  std::optional<uint32_t> c = cutAtLine(p, line);
  if (!c) {
    ADD_FAILURE() << "no loop head on line " << line;
    return std::nullopt;
  }
  EXPECT_FALSE(inv.atCut[*c].unreachable);
  if (inv.atCut[*c].alternatives.size() != 1) return std::nullopt;
  for (const auto& fact : inv.atCut[*c].alternatives[0])
    if (fact.var < p.fp->vars.size() && p.fp->varName(fact.var) == name) return fact.itv;
  return std::nullopt;
}

// kPrelude has 14 lines; bodies below start on line 15.
constexpr uint32_t L = 15;

TEST(IntervalGenerator, CountingLoopIsExactAfterNarrowing) {
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0;\n"
      "  while (i < 10) { i++; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  for (int level = 0; level <= 2; ++level) {
    auto inv = computeIntervals(*p.fp, level);
    ASSERT_TRUE(inv);
    auto i = intervalAt(p, *inv, L + 1, "i");
    ASSERT_TRUE(i) << "level " << level;
    EXPECT_EQ(i->lo, 0);
    EXPECT_EQ(i->hi, 10) << "level " << level;
  }
}

TEST(IntervalGenerator, ThresholdsRefineWhatPlainWideningLoses) {
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0;\n"
      "  while (__VERIFIER_nondet_int()) { if (i < 10) i++; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto coarse = computeIntervals(*p.fp, 0);
  auto fine = computeIntervals(*p.fp, 1);
  ASSERT_TRUE(coarse && fine);
  auto c = intervalAt(p, *coarse, L + 1, "i");
  auto f = intervalAt(p, *fine, L + 1, "i");
  ASSERT_TRUE(c && f);
  EXPECT_EQ(c->lo, 0);
  EXPECT_EQ(c->hi, INT_MAX);  // widened to the type bound; narrowing cannot recover it
  EXPECT_EQ(f->lo, 0);
  EXPECT_EQ(f->hi, 10);
  EXPECT_TRUE(argus::algorithms::adds(*coarse, *fine));
  EXPECT_FALSE(argus::algorithms::adds(*fine, *coarse));
}

TEST(IntervalGenerator, NestedLoopsAndCalls) {
  ParsedFlat p = parseFlat(
      "int step(int v) { return v < 5 ? v + 1 : v; }\n"
      "int main(){ int i = 0, j = 0;\n"
      "  while (__VERIFIER_nondet_int()) { i = step(i);\n"
      "    for (j = 0; j < i; j++) { }\n"
      "  }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto inv = computeIntervals(*p.fp, 1);
  ASSERT_TRUE(inv);
  auto outerI = intervalAt(p, *inv, L + 2, "i");
  auto innerJ = intervalAt(p, *inv, L + 3, "j");
  ASSERT_TRUE(outerI && innerJ);
  EXPECT_EQ(outerI->lo, 0);
  EXPECT_EQ(outerI->hi, 5);
  EXPECT_EQ(innerJ->lo, 0);
  EXPECT_EQ(innerJ->hi, 5);
}

TEST(IntervalGenerator, WrapAroundIsNotExcluded) {
  // c wraps from 255 to 0 and x from INT_MAX to INT_MIN: no bound may be claimed
  ParsedFlat p = parseFlat(
      "int main(){ unsigned char c = 0; int x = 0;\n"
      "  while (__VERIFIER_nondet_int()) { c++; x++; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  for (int level = 0; level <= 2; ++level) {
    auto inv = computeIntervals(*p.fp, level);
    ASSERT_TRUE(inv);
    auto c = intervalAt(p, *inv, L + 1, "c");
    auto x = intervalAt(p, *inv, L + 1, "x");
    EXPECT_FALSE(c.has_value()) << "level " << level << ": [" << c->lo << ", " << c->hi << "]";
    EXPECT_FALSE(x.has_value()) << "level " << level << ": [" << x->lo << ", " << x->hi << "]";
  }
}

TEST(IntervalGenerator, AllocationAddressesAreConstant) {
  ParsedFlat p = parseFlat(
      "int a[4];\n"
      "int main(){ int b[3]; int i = 0;\n"
      "  while (i < 3) { b[i] = i; i++; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto inv = computeIntervals(*p.fp, 0);
  ASSERT_TRUE(inv);
  // brk (the last fact variable) is a single value at the loop head
  bool brkExact = false;
  for (size_t c = 0; c < p.fp->cuts.size(); ++c)
    for (const auto& f : inv->atCut[c].alternatives.at(0))
      if (f.var == p.fp->vars.size()) brkExact = f.itv.lo == f.itv.hi;
  EXPECT_TRUE(brkExact);
}

// --------------------------------------------------------------- step case

const char* kNeedsInvariant =
    "int main(){ int i = 0;\n"
    "  while (__VERIFIER_nondet_int()) { if (i < 10) i++; }\n"
    "  if (i > 10) reach_error();\n"
    "  return 0; }";

TEST(StepCase, InvariantInjectedIntoTheRunningSolver) {
  ParsedFlat p = parseFlat(kNeedsInvariant);
  StepCase step(*p.fp, SolverKind::Z3);
  // not k-inductive on its own: i = 11 at the loop head stays 11
  for (uint32_t k = 0; k <= 3; ++k) EXPECT_EQ(step.check(k), CheckResult::Sat) << "k=" << k;
  auto inv = computeIntervals(*p.fp, 1);
  ASSERT_TRUE(inv);
  step.inject(*inv);
  EXPECT_EQ(step.injected(), 1u);
  EXPECT_EQ(step.check(3), CheckResult::Unsat);  // same solver, new literal
  EXPECT_EQ(step.check(4), CheckResult::Unsat);  // states added later get the invariant too
  EXPECT_EQ(step.check(1), CheckResult::Unsat);
}

TEST(StepCase, CoarseInvariantIsNotEnough) {
  ParsedFlat p = parseFlat(kNeedsInvariant);
  StepCase step(*p.fp, SolverKind::Z3);
  auto coarse = computeIntervals(*p.fp, 0);
  ASSERT_TRUE(coarse);
  step.inject(*coarse);
  EXPECT_EQ(step.check(2), CheckResult::Sat);
}

// x != 3 is not 1-inductive (x = 2 is followed by 3) but 2-inductive: 2 has no
// predecessor (0 -> 1, 1 -> 0, any other x -> x + 1).
const char* kTwoInductive =
    "int main(){ int x = 0;\n"
    "  while (__VERIFIER_nondet_int()) { if (x == 3) reach_error(); if (x == 0) x = 1; else if (x == 1) x = 0; else x = x + 1; }\n"
    "  return 0; }";

TEST(StepCase, PlainKInductionNeedsKTwo) {
  ParsedFlat p = parseFlat(kTwoInductive);
  StepCase step(*p.fp, SolverKind::Z3);
  EXPECT_EQ(step.check(0), CheckResult::Sat);  // x = 3 at the head
  EXPECT_EQ(step.check(1), CheckResult::Sat);  // x = 2, then 3
  EXPECT_EQ(step.check(2), CheckResult::Unsat);
  EXPECT_EQ(step.check(3), CheckResult::Unsat);
}

TEST(KInduction, InjectionMidRunProvesOnlyAfterTheInvariantArrives) {
  ParsedFlat p = parseFlat(kNeedsInvariant);
  KInductionOptions o;
  o.timeoutS = 60;
  o.maxBound = 20;
  o.holdInvariantsUntilK = 3;  // the generator's results are held back until k = 3
  o.waitForGenerator = true;
  auto r = runKInduction(*p.prog, p.entry, o);
  EXPECT_EQ(r.verdict, Verdict::True) << r.reason;
  EXPECT_EQ(r.stats.extra.at("induction_k"), 3.0);
  EXPECT_EQ(r.stats.extra.at("step_checks"), 3.0);  // k = 1, 2 fail; at k = 3 the invariant is in
  EXPECT_GE(r.stats.extra.at("invariants_injected"), 1.0);
  ASSERT_EQ(r.invariant.size(), 1u);
  EXPECT_NE(r.invariant.begin()->second.find("i <= 10"), std::string::npos) << r.invariant.begin()->second;
  EXPECT_NE(r.invariant.begin()->first.find("test.c:16"), std::string::npos) << r.invariant.begin()->first;

  KInductionOptions plain = o;
  plain.invariants = false;
  auto r2 = runKInduction(*p.prog, p.entry, plain);
  EXPECT_EQ(r2.verdict, Verdict::Unknown);
  EXPECT_EQ(r2.stats.extra.at("invariants_injected"), 0.0);
  EXPECT_TRUE(r2.invariant.empty());
}

// --------------------------------------------------------------- end to end

class Kind : public ::testing::TestWithParam<SolverKind> {
protected:
  argus::engine::VerifyOutcome run(const std::string& body, Algorithm alg = Algorithm::Kind, double timeout = 60) {
    auto out = verifySource(std::string(kPrelude) + body, alg, GetParam(), DataModel::LP64, "main", timeout);
    EXPECT_FALSE(out.inputError) << out.error;
    return out;
  }
  void expectBug(const argus::engine::VerifyOutcome& out) {
    EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
    ASSERT_TRUE(out.result.counterexample.has_value());
    EXPECT_TRUE(out.result.counterexample->replayed);
  }
};

TEST_P(Kind, NeedsTheGenerator) {
  auto out = run(kNeedsInvariant);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.algorithm, "kind");
  EXPECT_FALSE(out.result.invariant.empty());
  auto plain = run(kNeedsInvariant, Algorithm::KindNoInv, 5);
  EXPECT_EQ(plain.result.verdict, Verdict::Unknown);
  EXPECT_EQ(plain.result.algorithm, "kind-noinv");
}

TEST_P(Kind, PlainInductionProvesUnboundedLoop) {
  // BMC cannot unroll this loop completely; plain 2-induction proves it
  auto out = run(kTwoInductive, Algorithm::KindNoInv);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_TRUE(out.result.invariant.empty());
  EXPECT_EQ(out.result.stats.extra.at("induction_k"), 2.0);
  auto bmc = run(kTwoInductive, Algorithm::Ibmc, 3);
  EXPECT_EQ(bmc.result.verdict, Verdict::Unknown);
}

TEST_P(Kind, SeveralAndNestedLoopsWithCalls) {
  auto out = run(
      "int step(int v) { return v < 5 ? v + 1 : v; }\n"
      "int main(){ int i = 0, j = 0, n = 0;\n"
      "  while (__VERIFIER_nondet_int()) { i = step(i);\n"
      "    for (j = 0; j < i; j++) { if (j > 5) reach_error(); }\n"
      "  }\n"
      "  while (n < i) n++;\n"
      "  if (n > 5) reach_error();\n"
      "  return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
}

TEST_P(Kind, BugAfterSeveralLoopsIsFound) {
  auto out = run(
      "int step(int v) { return v < 5 ? v + 1 : v; }\n"
      "int main(){ int i = 0, j = 0, n = 0;\n"
      "  while (__VERIFIER_nondet_int()) { i = step(i);\n"
      "    for (j = 0; j < i; j++) { }\n"
      "  }\n"
      "  while (n < i) n++;\n"
      "  if (n == 5) reach_error();\n"
      "  return 0; }");
  expectBug(out);
}

// The step case starts from an arbitrary state: memory, globals and the variables of
// called functions must all be havocked, or these bugs would be "proved" away.
TEST_P(Kind, ArrayChangedInLoopIsHavocked) {
  expectBug(run("int a[2];\n int main(){ a[0] = 0; while (__VERIFIER_nondet_int()) { a[0]++; } if (a[0] == 4) reach_error(); return 0; }"));
}

TEST_P(Kind, GlobalChangedInCalleeIsHavocked) {
  expectBug(run("int g;\n void f(void) { g++; }\n int main(){ while (__VERIFIER_nondet_int()) f(); if (g == 4) reach_error(); return 0; }"));
}

TEST_P(Kind, HeapChangedInLoopIsHavocked) {
  expectBug(run("int main(){ int *p = malloc(8); *p = 0; while (__VERIFIER_nondet_int()) { *p += 3; } if (*p == 12) reach_error(); return 0; }"));
}

TEST_P(Kind, SafeArrayLoop) {
  auto out = run(
      "int main(){ int a[5]; int i;\n"
      "  for (i = 0; i < 5; i++) a[i] = i;\n"
      "  for (i = 0; i < 5; i++) if (a[i] != i) reach_error();\n"
      "  return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
}

// Through the engine, recursion is inlined up to a depth (core/cfa/recursion.h) and the
// step case runs; k-induction called on the recursive program itself still falls back
// to BMC and says so.
TEST_P(Kind, RecursionIsInlinedOrFallsBackToBmc) {
  const char* safe =
      "int f(int n) { return n <= 0 ? 0 : 1 + f(n - 1); }\n"
      "int main(){ int x = __VERIFIER_nondet_int(); if (x > 3 || x < 0) return 0; if (f(x) != x) reach_error(); return 0; }";
  auto out = run(safe);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stats.extra.count("step_case_disabled"), 0u);
  EXPECT_EQ(out.result.stats.extra.at("recursion_depth"), 8.0);
  auto pr = argus::frontend::parseSource(std::string(kPrelude) + safe, "test.c", {});
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  KInductionOptions o;
  o.solver = GetParam();
  o.timeoutS = 60;
  auto direct = runKInduction(*pr.program, pr.program->find("main")->id, o);
  EXPECT_EQ(direct.verdict, Verdict::True) << direct.reason;
  EXPECT_EQ(direct.stats.extra.at("step_case_disabled"), 1.0);
  auto bug = run(
      "int f(int n) { return n <= 0 ? 0 : 1 + f(n - 1); }\n"
      "int main(){ int x = __VERIFIER_nondet_int(); if (x > 3 || x < 0) return 0; if (f(x) == 3) reach_error(); return 0; }");
  expectBug(bug);
}

TEST_P(Kind, JsonAndTextCarryTheInvariant) {
  auto out = run(kNeedsInvariant);
  ASSERT_EQ(out.result.verdict, Verdict::True);
  auto j = argus::result::toJson(out.result);
  ASSERT_TRUE(j.contains("invariant"));
  EXPECT_TRUE(j["invariant"].is_object());
  std::string text = argus::result::toText(out.result);
  EXPECT_NE(text.find("invariant at test.c:16"), std::string::npos) << text;
}

// The checks of the properties are 1-bit conditions: the interval generator models them
// (it gave nothing for any program with a property check), so a product bounded only by
// the loop's interval is proved free of overflow, and a bound one step too weak is not.
TEST_P(Kind, IntervalInvariantsUnderPropertyChecks) {
  auto withProperty = [&](const char* body) {
    argus::engine::VerifyRequest req;
    req.file = "test.c";
    req.source = std::string(kPrelude) + body;
    req.algorithm = Algorithm::Kind;
    req.solver = GetParam();
    req.dataModel = DataModel::LP64;
    req.timeoutS = 30;
    req.property = "no-overflow";
    return argus::engine::verify(req);
  };
  auto safe = withProperty(
      "int main(){ int x = 0;\n"
      "  while (__VERIFIER_nondet_int()) { if (x < 10) x++; }\n"
      "  return x * 100000000; }");
  EXPECT_EQ(safe.result.verdict, Verdict::True) << safe.result.reason;
  EXPECT_GE(safe.result.stats.extra.at("invariants_injected"), 1.0);
  auto bug = withProperty(
      "int main(){ int x = 0;\n"
      "  while (__VERIFIER_nondet_int()) { if (x < 22) x++; }\n"
      "  return x * 100000000; }");
  EXPECT_EQ(bug.result.verdict, Verdict::False) << bug.result.reason;
  ASSERT_TRUE(bug.result.counterexample.has_value());
  EXPECT_TRUE(bug.result.counterexample->replayed);
  EXPECT_EQ(bug.result.counterexample->property, "no-overflow");
}

INSTANTIATE_TEST_SUITE_P(Solvers, Kind, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const auto& info) { return std::string(argus::smt::solverName(info.param)); });

}  // namespace

namespace {

// --algorithm ai: the interval analysis alone proves or says unknown, never false.
TEST(AbstractInterpretation, ProvesWhatIntervalsProveAndNothingElse) {
  auto safe = verifySource(std::string(kPrelude) + kNeedsInvariant, Algorithm::Ai, SolverKind::Z3);
  EXPECT_EQ(safe.result.verdict, Verdict::True) << safe.result.reason;
  EXPECT_EQ(safe.result.algorithm, "ai");
  EXPECT_FALSE(safe.result.invariant.empty());
  auto buggy = verifySource(std::string(kPrelude) +
                                "int main(){ int i = 0; while (__VERIFIER_nondet_int()) { if (i < 10) i++; } "
                                "if (i == 10) reach_error(); return 0; }",
                            Algorithm::Ai, SolverKind::Z3);
  EXPECT_EQ(buggy.result.verdict, Verdict::Unknown);
  // relational: beyond intervals
  auto rel = verifySource(std::string(kPrelude) +
                              "int main(){ int x = 0, y = 0; while (__VERIFIER_nondet_int()) { x++; y++; if (x > 100) { x = 0; y = 0; } } "
                              "if (x != y) reach_error(); return 0; }",
                          Algorithm::Ai, SolverKind::Z3);
  EXPECT_EQ(rel.result.verdict, Verdict::Unknown);
  // an unsupported construct that the intervals cannot exclude
  auto uns = verifySource(std::string(kPrelude) + "int main(){ long double f = 1.5L; f = f * 2; return 0; }", Algorithm::Ai,
                          SolverKind::Z3);
  EXPECT_EQ(uns.result.verdict, Verdict::Unknown);
}

}  // namespace
