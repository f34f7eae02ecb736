// kIkI (--algorithm kiki and its restrictions kiki-ibmc / kiki-kind / kiki-ai): template
// k-invariant inference on small loops (expected interval, zone and octagon bounds), and
// end-to-end verdicts: programs kiki proves and k-induction without invariants does not,
// several and nested loops, buggy programs (replayed counterexamples), wrap-around.
#include <gtest/gtest.h>

#include <optional>

#include <nlohmann/json.hpp>

#include "core/algorithms/kinduction/flat_program.h"
#include "core/algorithms/kinduction/kiki.h"
#include "core/frontend/frontend.h"
#include "core/support/deadline.h"
#include "tests/unit/verify/flat_helpers.h"

using argus::algorithms::KInvariantEngine;
using argus::algorithms::parseKikiMode;
using argus::algorithms::TemplateValue;
using argus::engine::Algorithm;
using argus::engine::parseAlgorithm;
using argus::result::Verdict;
using argus::smt::CheckResult;
using argus::smt::SolverKind;
using argus::support::Deadline;
using argus::testing::cutAtLine;
using argus::testing::kPrelude;
using argus::testing::parseFlat;
using argus::testing::ParsedFlat;
using argus::testing::verifySource;

namespace {

// The inferred bound of cx*X + cy*Y (cy == 0: of cx*X) at cut c; nullopt when the row
// is not in the template or is ⊤.
std::optional<int64_t> bound(const ParsedFlat& p, const KInvariantEngine& eng, const TemplateValue& v, uint32_t c,
                             const std::string& x, int cx, const std::string& y = "", int cy = 0) {
  const auto& rows = eng.rows();
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& t = rows[r];
    if (t.cut != c) continue;
    std::string tx = p.fp->varName(t.x), ty = p.fp->varName(t.y);
    bool match = cy == 0 ? (t.cy == 0 && tx == x && t.cx == cx)
                         : (t.cy != 0 && ((tx == x && ty == y && t.cx == cx && t.cy == cy) ||
                                          (tx == y && ty == x && t.cx == cy && t.cy == cx)));
    if (!match) continue;
    if (v.d[r] >= eng.rowMax(r)) return std::nullopt;
    return v.d[r];
  }
  return std::nullopt;
}

// kPrelude has 14 lines; bodies below start on line 15.
constexpr uint32_t L = 15;

// an octagon fact (x + y == 50) and a zone fact (j <= i), each needed by its assertion
const char* kOctagon =
    "int main(){ int x = 0, y = 50;\n"
    "  while (__VERIFIER_nondet_int()) { if (x < 100) { x++; y--; } }\n"
    "  __VERIFIER_assert(x + y == 50); return 0; }";

const char* kZone =
    "int main(){ int n = __VERIFIER_nondet_int(); int i = 0, j = 0;\n"
    "  while (i < n) { i++; if (__VERIFIER_nondet_int()) j++; }\n"
    "  __VERIFIER_assert(j <= i); return 0; }";

// an outer counter bounded by its guard, around an inner loop
const char* kNestedCounter =
    "int main(){ unsigned int x = 0, y = 0;\n"
    "  while (x < 1000001) {\n"
    "    y = 0;\n"
    "    while (y < 10) { y++; }\n"
    "    x++; }\n"
    "  __VERIFIER_assert(x % 2); return 0; }";

TEST(KikiTemplates, CountingLoopInterval) {
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0;\n"
      "  for (i = 0; i < 10; i++) { }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto c = cutAtLine(p, L + 1);
  ASSERT_TRUE(c);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  auto inv = eng.infer(1, Deadline::in(30));
  ASSERT_TRUE(inv);
  EXPECT_TRUE(inv->reached[*c]);
  EXPECT_EQ(bound(p, eng, *inv, *c, "i", 1), 10);   // i <= 10
  EXPECT_EQ(bound(p, eng, *inv, *c, "i", -1), 0);   // -i <= 0
  EXPECT_NE(eng.formula(*c).find("0 <= i && i <= 10"), std::string::npos) << eng.formula(*c);
}

TEST(KikiTemplates, ZoneFact) {
  // j <= i: the zone row j - i <= 0; no interval bounds i or j from above
  ParsedFlat p = parseFlat(kZone);
  auto c = cutAtLine(p, L + 1);
  ASSERT_TRUE(c);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  auto inv = eng.infer(1, Deadline::in(60));
  ASSERT_TRUE(inv);
  EXPECT_EQ(bound(p, eng, *inv, *c, "j", 1, "i", -1), 0);
  EXPECT_EQ(bound(p, eng, *inv, *c, "i", -1), 0);
  EXPECT_EQ(bound(p, eng, *inv, *c, "j", -1), 0);
  // and the step case holds with it, at k = 1
  EXPECT_EQ(eng.checkProperty(1, 30000), CheckResult::Unsat);
}

TEST(KikiTemplates, OctagonSumKept) {
  // x + y == 50 is kept by x++, y--: both octagon rows x + y <= 50 and -x - y <= -50
  ParsedFlat p = parseFlat(kOctagon);
  auto c = cutAtLine(p, L + 1);
  ASSERT_TRUE(c);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  auto inv = eng.infer(1, Deadline::in(60));
  ASSERT_TRUE(inv);
  EXPECT_EQ(bound(p, eng, *inv, *c, "x", 1, "y", 1), 50);
  EXPECT_EQ(bound(p, eng, *inv, *c, "x", -1, "y", -1), -50);
  EXPECT_NE(eng.formula(*c).find("x + y == 50"), std::string::npos) << eng.formula(*c);
  // without the template the step case fails; with it, it holds
  EXPECT_EQ(eng.checkProperty(1, 30000), CheckResult::Unsat);
}

TEST(KikiTemplates, IntervalsOnlyFirst) {
  // the cheap first inference leaves the octagon rows ⊤ and does not count as the
  // 1-invariant; the full one after it finds x + y == 50
  ParsedFlat p = parseFlat(kOctagon);
  auto c = cutAtLine(p, L + 1);
  ASSERT_TRUE(c);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  auto iv = eng.infer(1, Deadline::in(60), /*intervalsOnly=*/true);
  ASSERT_TRUE(iv);
  EXPECT_EQ(bound(p, eng, *iv, *c, "x", -1), 0);  // 0 <= x
  EXPECT_EQ(bound(p, eng, *iv, *c, "x", 1, "y", 1), std::nullopt);
  EXPECT_EQ(eng.lastInferredK(), 0u);
  EXPECT_EQ(eng.checkProperty(1, 30000), CheckResult::Sat);  // intervals are not enough
  auto full = eng.infer(1, Deadline::in(60));
  ASSERT_TRUE(full);
  EXPECT_EQ(bound(p, eng, *full, *c, "x", 1, "y", 1), 50);
  EXPECT_EQ(bound(p, eng, eng.known(), *c, "x", -1), 0);  // the known invariant keeps both
  EXPECT_EQ(eng.lastInferredK(), 1u);
  EXPECT_EQ(eng.checkProperty(1, 30000), CheckResult::Unsat);
}

TEST(KikiTemplates, StepCaseFailsWithoutInvariant) {
  ParsedFlat p = parseFlat(kOctagon);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  EXPECT_EQ(eng.checkProperty(1, 30000), CheckResult::Sat);
  EXPECT_EQ(eng.checkProperty(3, 30000), CheckResult::Sat);
}

TEST(KikiTemplates, UnreachableLoopIsBottom) {
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0; int z = 0;\n"
      "  if (z) { while (i < 5) { i++; } }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto c = cutAtLine(p, L + 1);
  ASSERT_TRUE(c);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  auto inv = eng.infer(1, Deadline::in(30));
  ASSERT_TRUE(inv);
  EXPECT_FALSE(inv->reached[*c]);
  EXPECT_EQ(eng.formula(*c), "false");
}

TEST(KikiTemplates, TwoInvariantTemplateWithK2) {
  // a 2-invariant: the bound of i holds; inference with k = 2 works and keeps the
  // known invariant (the conjunction with the 1-invariant)
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0;\n"
      "  while (i < 7) { i++; }\n"
      "  if (__VERIFIER_nondet_int()) reach_error(); return 0; }");
  auto c = cutAtLine(p, L + 1);
  ASSERT_TRUE(c);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  ASSERT_TRUE(eng.infer(1, Deadline::in(30)));
  auto inv2 = eng.infer(2, Deadline::in(30));
  ASSERT_TRUE(inv2);
  EXPECT_EQ(bound(p, eng, *inv2, *c, "i", 1), 7);
  EXPECT_EQ(bound(p, eng, eng.known(), *c, "i", 1), 7);
  EXPECT_EQ(eng.lastInferredK(), 2u);
}

TEST(KikiTemplates, NestedLoopBoundFromThresholds) {
  // The inner loop keeps x, so x at the inner head must not grow from the inner loop
  // itself (the optimisation's pre-states have the row below δ), and once widened it
  // stops at the guard's constant (a threshold), not at ⊤: from ⊤ no descending step
  // could bound it again, since the inner loop carries ⊤ around. With x <= 1000001 at the
  // outer head the parity after the loop is exact (as in loop-acceleration/nested_1-1).
  ParsedFlat p = parseFlat(kNestedCounter);
  auto outer = cutAtLine(p, L + 1), inner = cutAtLine(p, L + 3);
  ASSERT_TRUE(outer && inner);
  KInvariantEngine eng(*p.fp, SolverKind::Z3);
  auto inv = eng.infer(1, Deadline::in(60));
  ASSERT_TRUE(inv);
  EXPECT_EQ(bound(p, eng, *inv, *inner, "y", 1), 10) << eng.formula(*inner);
  EXPECT_EQ(bound(p, eng, *inv, *inner, "x", 1), 1000000) << eng.formula(*inner);
  EXPECT_EQ(bound(p, eng, *inv, *outer, "x", 1), 1000001) << eng.formula(*outer);
}

TEST(KikiTemplates, VacuousProofFromStartIsRefused) {
  // kiki-ai's proof is an unsat check from the program start; with a broken encoding
  // (every query unsatisfiable) the guard sees that the constraints have no model even
  // without the error and answers unknown instead of a proof
  ParsedFlat p = parseFlat(
      "int main(){ int i = 0;\n"
      "  while (i < 10) { i++; }\n"
      "  __VERIFIER_assert(i == 10); return 0; }");
  KInvariantEngine good(*p.fp, SolverKind::Z3);
  ASSERT_TRUE(good.infer(1, Deadline::in(30)));
  EXPECT_EQ(good.checkProperty(0, 30000, /*fromStart=*/true), CheckResult::Unsat);
  EXPECT_FALSE(good.vacuityGuardFailed());
  KInvariantEngine broken(*p.fp, SolverKind::Z3);
  ASSERT_TRUE(broken.infer(1, Deadline::in(30)));
  broken.breakEncodingForTest();
  EXPECT_EQ(broken.checkProperty(0, 30000, /*fromStart=*/true), CheckResult::Unknown);
  EXPECT_TRUE(broken.vacuityGuardFailed());
}

// ------------------------------------------------------------------ end to end

argus::engine::VerifyOutcome run(const std::string& body, Algorithm alg, double timeout = 60,
                                 SolverKind solver = SolverKind::Z3) {
  return verifySource(std::string(kPrelude) + body, alg, solver, argus::frontend::DataModel::LP64, "main", timeout);
}

TEST(Kiki, ProvesWhatKInductionWithoutInvariantsCannot) {
  for (const char* prog : {kOctagon, kZone}) {
    auto plain = run(prog, Algorithm::KindNoInv, 5);
    EXPECT_EQ(plain.result.verdict, Verdict::Unknown) << prog;
    auto kiki = run(prog, Algorithm::Kiki);
    EXPECT_EQ(kiki.result.verdict, Verdict::True) << prog << ": " << kiki.result.reason;
    EXPECT_EQ(kiki.result.algorithm, "kiki");
    EXPECT_FALSE(kiki.result.invariant.empty());
  }
}

TEST(Kiki, ProofCarriesTheInvariantInSourceNames) {
  auto out = run(kOctagon, Algorithm::Kiki);
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  ASSERT_EQ(out.result.invariant.size(), 1u);
  const auto& [where, formula] = *out.result.invariant.begin();
  EXPECT_NE(where.find("test.c:16"), std::string::npos) << where;
  EXPECT_NE(formula.find("x + y == 50"), std::string::npos) << formula;
  EXPECT_EQ(formula.find('$'), std::string::npos) << formula;
  auto json = argus::result::toJson(out.result);
  EXPECT_TRUE(json.contains("invariant")) << json.dump();
}

TEST(Kiki, AbstractInterpretationOnly) {
  auto out = run(kOctagon, Algorithm::KikiAi);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.algorithm, "kiki-ai");
  EXPECT_FALSE(out.result.invariant.empty());
  // a bug: never `false` (no counterexample search), unknown
  auto bug = run(
      "int main(){ int x = 0, y = 50;\n"
      "  while (__VERIFIER_nondet_int()) { if (x < 100) { x++; y--; } }\n"
      "  __VERIFIER_assert(x + y == 50 && x < 3); return 0; }",
      Algorithm::KikiAi);
  EXPECT_EQ(bug.result.verdict, Verdict::Unknown);
  // a loop that needs unrolling (not an invariant of the template): unknown
  auto deep = run(
      "int main(){ int i = 0; int s = 0;\n"
      "  while (i < 10) { i++; s = s + i; }\n"
      "  __VERIFIER_assert(s == 55); return 0; }",
      Algorithm::KikiAi);
  EXPECT_EQ(deep.result.verdict, Verdict::Unknown);
}

TEST(Kiki, NestedCounterProvedByAbstractInterpretation) {
  // the bound from a widening threshold (see KikiTemplates.NestedLoopBoundFromThresholds)
  for (Algorithm a : {Algorithm::KikiAi, Algorithm::Kiki}) {
    auto out = run(kNestedCounter, a);
    EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.algorithm << ": " << out.result.reason;
  }
}

TEST(Kiki, ProgramWithoutLoopsIsNotProvedVacuously) {
  // no loop heads: kiki-ai once proved every such program, its solver made
  // unsatisfiable by the constraint "pc < 0" on the (never reached) second state
  const char* bug = "int main(){ int x = __VERIFIER_nondet_int(); if (x == 5) reach_error(); return 0; }";
  const char* safe = "int main(){ int x = __VERIFIER_nondet_int(); if (x == 5 && x != 5) reach_error(); return 0; }";
  auto ai = run(bug, Algorithm::KikiAi);
  EXPECT_EQ(ai.result.verdict, Verdict::Unknown) << ai.result.reason;
  EXPECT_NE(ai.result.reason.find("does not exclude the error"), std::string::npos) << ai.result.reason;
  EXPECT_EQ(run(safe, Algorithm::KikiAi).result.verdict, Verdict::True);
  for (Algorithm a : {Algorithm::Kiki, Algorithm::KikiKind}) {
    auto out = run(bug, a);
    EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
    EXPECT_TRUE(argus::testing::replayedWithValue(out, "x", "5"));
    EXPECT_EQ(run(safe, a).result.verdict, Verdict::True);
  }
}

TEST(Kiki, Restrictions) {
  EXPECT_EQ(parseAlgorithm("kiki"), Algorithm::Kiki);
  EXPECT_EQ(parseAlgorithm("kiki-ibmc"), Algorithm::KikiIbmc);
  EXPECT_EQ(parseAlgorithm("kiki-kind"), Algorithm::KikiKind);
  EXPECT_EQ(parseAlgorithm("kiki-ai"), Algorithm::KikiAi);
  EXPECT_THROW(parseKikiMode("fast"), std::invalid_argument);
  // ibmc: bugs, bounded proofs, never an induction proof
  auto ibmc = run(kOctagon, Algorithm::KikiIbmc, 5);
  EXPECT_EQ(ibmc.result.verdict, Verdict::Unknown);
  EXPECT_EQ(ibmc.result.algorithm, "kiki-ibmc");
  // kind: k-induction without invariants
  auto kind = run(kOctagon, Algorithm::KikiKind, 5);
  EXPECT_EQ(kind.result.verdict, Verdict::Unknown);
  auto kindOk = run(
      "int main(){ unsigned i = 0;\n"
      "  while (i < 10) { i++; }\n"
      "  __VERIFIER_assert(i == 10); return 0; }",
      Algorithm::KikiKind);
  EXPECT_EQ(kindOk.result.verdict, Verdict::True) << kindOk.result.reason;
  EXPECT_EQ(kindOk.result.algorithm, "kiki-kind");
}

TEST(Kiki, SeveralAndNestedLoops) {
  auto nested = run(
      "int main(){ int i, j = 0, s = 0;\n"
      "  for (i = 0; i < 10; i++) { for (j = 0; j < i; j++) { s++; } }\n"
      "  __VERIFIER_assert(j <= 10 && i == 10); return 0; }",
      Algorithm::Kiki);
  EXPECT_EQ(nested.result.verdict, Verdict::True) << nested.result.reason;
  // two loops, each needing a relational invariant
  auto two = run(
      "int main(){ int x = 0, y = 50;\n"
      "  while (__VERIFIER_nondet_int()) { if (x < 100) { x++; y--; } }\n"
      "  int n = __VERIFIER_nondet_int(); int i = 0, j = 0;\n"
      "  while (i < n) { i++; if (__VERIFIER_nondet_int()) j++; }\n"
      "  __VERIFIER_assert(x + y == 50 && j <= i); return 0; }",
      Algorithm::Kiki);
  EXPECT_EQ(two.result.verdict, Verdict::True) << two.result.reason;
  EXPECT_EQ(two.result.invariant.size(), 2u);
}

TEST(Kiki, BuggyProgramsGiveReplayedCounterexamples) {
  const char* bugs[] = {
      // violated after 21 iterations
      "int main(){ int x = 0, y = 50;\n"
      "  while (__VERIFIER_nondet_int()) { if (x < 100) { x++; y--; } }\n"
      "  __VERIFIER_assert(x + y == 50 && y > 30); return 0; }",
      // off by one in a nested loop
      "int main(){ int i, j, s = 0;\n"
      "  for (i = 0; i < 4; i++) { for (j = 0; j <= i; j++) { s++; } }\n"
      "  __VERIFIER_assert(s == 9); return 0; }",
      // a call in the loop
      "int inc(int v) { return v + 2; }\n"
      "int main(){ int i = 0;\n"
      "  while (i < 10) { i = inc(i); }\n"
      "  __VERIFIER_assert(i == 11); return 0; }",
  };
  for (const char* prog : bugs) {
    auto out = run(prog, Algorithm::Kiki);
    ASSERT_EQ(out.result.verdict, Verdict::False) << prog << ": " << out.result.reason;
    ASSERT_TRUE(out.result.counterexample.has_value());
    EXPECT_TRUE(out.result.counterexample->replayed);
    EXPECT_FALSE(out.result.counterexample->steps.empty());
  }
}

TEST(Kiki, CorruptedReplayIsNeverReported) {
  argus::engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(kPrelude) +
               "int main(){ int x = __VERIFIER_nondet_int(); int i = 0;\n"
               "  while (i < 3) { i++; }\n"
               "  __VERIFIER_assert(x != 12345); return 0; }";
  req.algorithm = Algorithm::Kiki;
  req.timeoutS = 20;
  req.corruptReplayForTest = true;
  auto out = argus::engine::verify(req);
  EXPECT_NE(out.result.verdict, Verdict::False);
}

TEST(Kiki, UnsignedWrapAroundIsNotProved) {
  // x wraps from 255 to 0: x >= 250 is not an invariant (the promoted template must not
  // pretend it is)
  auto out = run(
      "int main(){ unsigned char x = 250; unsigned char y = 0;\n"
      "  while (__VERIFIER_nondet_int()) { x++; y++; }\n"
      "  __VERIFIER_assert(x >= 250); return 0; }",
      Algorithm::Kiki);
  EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  auto ai = run(
      "int main(){ unsigned x = 4294967290u;\n"
      "  while (__VERIFIER_nondet_int()) { x = x + 3; }\n"
      "  __VERIFIER_assert(x >= 10); return 0; }",
      Algorithm::KikiAi);
  EXPECT_NE(ai.result.verdict, Verdict::True);
  // a safe unsigned loop near the top of the range is still proved
  auto safe = run(
      "int main(){ unsigned x = 4294967200u;\n"
      "  while (x < 4294967290u) { x = x + 1; }\n"
      "  __VERIFIER_assert(x == 4294967290u); return 0; }",
      Algorithm::Kiki);
  EXPECT_EQ(safe.result.verdict, Verdict::True) << safe.result.reason;
}

TEST(Kiki, Cvc5Backend) {
  auto out = run(kOctagon, Algorithm::Kiki, 60, SolverKind::CVC5);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
}

}  // namespace
