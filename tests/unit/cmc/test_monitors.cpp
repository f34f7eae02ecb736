// Conditional model checking, the remaining monitors: total memory, busy edge, time
// per post, path-formula size, time per refinement, overflow monitoring; BMC's bound and
// k-induction's base case as assumption automata read back by later analyses; kind as
// a chain stage.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/algorithms/bmc/bound_condition.h"
#include "core/frontend/frontend.h"
#include "core/result/assumption_automaton.h"
#include "tests/unit/cmc/cmc_helpers.h"

using argus::engine::Algorithm;
using argus::result::AssumptionAutomaton;
using argus::result::Verdict;
using argus::testing::CmcRun;
using argus::testing::contains;
using argus::testing::joined;
using argus::testing::lineOf;
using argus::testing::runCmc;
using argus::testing::statOf;

namespace {

// the initial state is neither "everything verified" nor "nothing verified"
bool restricted(const argus::result::VerificationResult& r) {
  return r.condition.automaton && r.condition.automaton->initial >= 2;
}

// part A: straight-line code; part B: a long loop
const char* kTwoParts =
    "int main(){\n"
    "  int c = __VERIFIER_nondet_int();\n"
    "  if (c) {\n"
    "    int a = 2; int b = 3;\n"
    "    if (a * b != 6) reach_error();\n"
    "  } else {\n"
    "    int i = 0;\n"
    "    while (i < 1000000) { i++; }\n"
    "    if (i < 1000000) reach_error();\n"
    "  }\n"
    "  return 0;\n"
    "}\n";

// --- total memory ----------------------------------------------------------------------

TEST(Monitors2, TotalMemoryEndsTheRunWithTheWaitingStatesOpen) {
  CmcRun c;
  c.maxMemoryMb = 1;  // any process is larger: the first check stops the run
  auto out = runCmc(kTwoParts, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_NE(out.result.reason.find("memory limit 1 MB reached"), std::string::npos) << out.result.reason;
  EXPECT_EQ(out.result.condition.kind, "assumption");
  EXPECT_TRUE(contains(out.result.condition.excluded, "not explored when the memory limit 1 MB reached stopped it"))
      << joined(out.result.condition.excluded);
  EXPECT_FALSE(out.result.condition.assumptions.empty());
  // the process is above the limit from the start: the first check (before the first
  // expansion) stops it, and the waiting initial state is the open part
  EXPECT_EQ(statOf(out.result, "expanded_states"), 0.0);
  ASSERT_TRUE(out.result.condition.automaton);
  EXPECT_EQ(out.result.condition.automaton->initial, AssumptionAutomaton::kOpen);
  // the same for predicate abstraction
  c.algorithm = Algorithm::Pred;
  auto pred = runCmc(kTwoParts, c);
  EXPECT_EQ(pred.result.verdict, Verdict::Unknown);
  EXPECT_NE(pred.result.reason.find("memory limit 1 MB reached"), std::string::npos) << pred.result.reason;
  ASSERT_TRUE(pred.result.condition.automaton);
}

// --- busy edge -------------------------------------------------------------------------

TEST(Monitors2, BusyEdgeCutsOnlyTheLoop) {
  CmcRun c;
  c.maxEdgePosts = 20;
  auto out = runCmc(kTwoParts, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_EQ(out.result.condition.kind, "assumption");
  std::string loop = "test.c:" + std::to_string(lineOf(kTwoParts, "while"));
  EXPECT_TRUE(contains(out.result.condition.excluded, "busy edge: the edge at " + loop + " was used in more than 20 posts"))
      << joined(out.result.condition.excluded);
  EXPECT_GE(statOf(out.result, "monitor_cuts"), 1.0);
  EXPECT_LT(statOf(out.result, "reached_states"), 200.0);
  // part A was verified: the condition is not trivial
  EXPECT_TRUE(restricted(out.result));
  EXPECT_EQ(out.result.condition.summary.rfind("verified except: busy edge", 0), 0u) << out.result.condition.summary;
}

TEST(Monitors2, BusyEdgeLetsTheRestFindTheBug) {
  // the depth-first search enters the loop branch first (the else branch here) and
  // without a limit stays there
  const char* body =
      "int main(){\n"
      "  int c = __VERIFIER_nondet_int();\n"
      "  if (c) { int a = 2; int b = 3; if (a * b == 6) reach_error(); }\n"
      "  else { int i = 0; while (i < 1000000) { i++; } if (i < 1000000) reach_error(); }\n"
      "  return 0;\n"
      "}\n";
  CmcRun plain;
  plain.timeout = 2;
  auto stuck = runCmc(body, plain);
  ASSERT_EQ(stuck.result.verdict, Verdict::Unknown) << "the search order changed: this test needs the loop first";
  CmcRun c;
  c.maxEdgePosts = 20;
  auto out = runCmc(body, c);
  EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
  EXPECT_GE(statOf(out.result, "monitor_cuts"), 1.0);  // the loop was cut on the way
}

TEST(Monitors2, BusyEdgeCountsOverTheWholeRun) {
  // every iteration reaches an error location on a path explicit values cannot refute
  // (the solver finds it infeasible: no square is -1 modulo 2^32), so CPA++ stops and
  // resumes 30 times; the posts along the loop edges still add up to the limit
  const char* body =
      "int main(){ int i = 0;\n"
      "  for (i = 0; i < 30; i++) { int y = __VERIFIER_nondet_int(); if (y * y == -1) reach_error(); }\n"
      "  return 0; }\n";
  CmcRun c;
  c.maxEdgePosts = 10;
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_GE(statOf(out.result, "error_paths_checked"), 5.0);
  EXPECT_TRUE(contains(out.result.condition.excluded, "busy edge")) << joined(out.result.condition.excluded);
  EXPECT_LE(statOf(out.result, "error_paths_checked"), 12.0);
}

TEST(Monitors2, BusyEdgeInPredicateAnalysisNeverGivesTrue) {
  CmcRun c;
  c.algorithm = Algorithm::Pred;
  c.maxEdgePosts = 1;
  auto out = runCmc(
      "int main(){ int i = 0; while (i < 10) { i++; } if (i != 10) reach_error(); return 0; }", c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_TRUE(contains(out.result.condition.excluded, "busy edge")) << joined(out.result.condition.excluded);
  EXPECT_GE(statOf(out.result, "monitor_cuts"), 1.0);
  // without the limit it is proved
  c.maxEdgePosts = 0;
  auto full = runCmc("int main(){ int i = 0; while (i < 10) { i++; } if (i != 10) reach_error(); return 0; }", c);
  EXPECT_EQ(full.result.verdict, Verdict::True) << full.result.reason;
}

// --- path-formula size ----------------------------------------------------------------

TEST(Monitors2, PathFormulaSizeCutsBigBlocks) {
  // a block with a long straight-line computation before the loop-free check
  std::string body = "int main(){ int c = __VERIFIER_nondet_int(); if (c) { int x = __VERIFIER_nondet_int();\n";
  for (int i = 0; i < 30; ++i) body += "  x = x * 3 + " + std::to_string(i) + ";\n";
  body += "  if (x == 12345) reach_error(); }\n  else { int y = 1; if (y != 1) reach_error(); }\n  return 0; }\n";
  CmcRun c;
  c.algorithm = Algorithm::Pred;
  c.maxPathFormulaSize = 60;
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_TRUE(contains(out.result.condition.excluded, "path-formula size: the block's path formula has more than 60"))
      << joined(out.result.condition.excluded);
  EXPECT_TRUE(restricted(out.result));
  // with a generous limit nothing is cut and the bug (x == 12345 is reachable) is found
  c.maxPathFormulaSize = 1000000;
  auto full = runCmc(body, c);
  EXPECT_NE(full.result.verdict, Verdict::Unknown) << full.result.reason;
  EXPECT_EQ(statOf(full.result, "monitor_cuts"), 0.0);
}

// --- time per refinement --------------------------------------------------------------

TEST(Monitors2, TimePerRefinementCutsTheTargetInsteadOfFailing) {
  const char* body =
      "int main(){ int c = __VERIFIER_nondet_int(); int i = 0;\n"
      "  if (c) { while (i < 10) { i++; } if (i != 10) reach_error(); }\n"
      "  return 0; }\n";
  CmcRun c;
  c.algorithm = Algorithm::Pred;
  c.maxTimePerRefinementMs = 1;  // a refinement builds fresh solvers: it cannot finish in 1 ms
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_TRUE(contains(out.result.condition.excluded, "time per refinement: refining the error path to test.c:" +
                                                          std::to_string(lineOf(body, "if (i != 10)"))))
      << joined(out.result.condition.excluded);
  EXPECT_GE(statOf(out.result, "refinement_cuts"), 1.0);
  EXPECT_EQ(out.result.condition.kind, "assumption");
  // without the limit: proved
  c.maxTimePerRefinementMs = 0;
  auto full = runCmc(body, c);
  EXPECT_EQ(full.result.verdict, Verdict::True) << full.result.reason;
  // and impact too stops only that part
  c.algorithm = Algorithm::Impact;
  c.maxTimePerRefinementMs = 1;
  auto imp = runCmc(body, c);
  EXPECT_EQ(imp.result.verdict, Verdict::Unknown) << imp.result.reason;
  EXPECT_TRUE(contains(imp.result.condition.excluded, "time per refinement")) << joined(imp.result.condition.excluded);
}

// --- time per post --------------------------------------------------------------------

TEST(Monitors2, TimePerPostNeverChangesAVerdictIntoAWrongOne) {
  // whatever the machine's speed, a cut only turns an answer into unknown with the cut
  // as a condition (the deterministic check of the cut itself is in test_cpa)
  const char* body =
      "int main(){ unsigned x = __VERIFIER_nondet_uint(); unsigned y = __VERIFIER_nondet_uint();\n"
      "  unsigned i = 0; while (i < 5) { x = x * y + i; i++; }\n"
      "  if (i != 5) reach_error(); return 0; }\n";
  CmcRun c;
  c.algorithm = Algorithm::Pred;
  c.maxTimePerPostMs = 1;
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  ASSERT_NE(out.result.verdict, Verdict::False) << out.result.reason;
  if (out.result.verdict == Verdict::Unknown && statOf(out.result, "monitor_cuts") > 0) {
    EXPECT_TRUE(contains(out.result.condition.excluded, "time per post")) << joined(out.result.condition.excluded);
  }
  if (out.result.verdict == Verdict::True) {
    EXPECT_EQ(statOf(out.result, "monitor_cuts"), 0.0);
  }
}

// --- overflow monitoring --------------------------------------------------------------

TEST(Monitors2, OverflowMonitoringCutsNonLinearArithmetic) {
  const char* body =
      "int main(){\n"
      "  int n = 0;\n"
      "  while (__VERIFIER_nondet_int()) { n++; }\n"
      "  int x = __VERIFIER_nondet_int(); int y = __VERIFIER_nondet_int();\n"
      "  int p = x * y;\n"
      "  if (p == 35 && x == 5 && y != 7) reach_error();\n"
      "  return 0;\n"
      "}\n";
  CmcRun c;
  c.monitorOverflow = true;
  c.maxRepeats = 5;
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  std::string at = "test.c:" + std::to_string(lineOf(body, "int p = x * y"));
  std::string loop = "test.c:" + std::to_string(lineOf(body, "while"));
  const std::string& s = out.result.condition.summary;
  EXPECT_NE(s.find("verified except: "), std::string::npos) << s;
  EXPECT_NE(s.find("the loop at " + loop + " beyond 4 iterations"), std::string::npos) << s;
  EXPECT_NE(s.find("the path through " + at + " where x * y is non-linear"), std::string::npos) << s;
  // without the monitor the product is unknown and the analysis goes on (the error path
  // it finds is infeasible: explicit values cannot refute it, so it stays open too)
  c.monitorOverflow = false;
  auto plain = runCmc(body, c);
  EXPECT_EQ(plain.result.verdict, Verdict::Unknown);
  EXPECT_EQ(plain.result.condition.summary.find("non-linear"), std::string::npos);
}

TEST(Monitors2, OverflowMonitoringCutsSignedOverflowOnly) {
  const char* body =
      "int main(){\n"
      "  int a = 2147483600;\n"
      "  int c = __VERIFIER_nondet_int();\n"
      "  if (c) { a = a + 100; if (a > 0) reach_error(); }\n"
      "  unsigned u = 4294967295u; u = u + 1u;\n"
      "  if (u != 0) reach_error();\n"
      "  return 0;\n"
      "}\n";
  CmcRun c;
  c.monitorOverflow = true;
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  // the signed overflow is cut (undefined in C); the unsigned wraparound is not
  EXPECT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  std::string at = "test.c:" + std::to_string(lineOf(body, "a = a + 100"));
  EXPECT_NE(out.result.condition.summary.find("the path through " + at + " where a + 100 overflows"), std::string::npos)
      << out.result.condition.summary;
  EXPECT_TRUE(restricted(out.result));
  // without it the wrapped value is negative: no error either way, proved
  c.monitorOverflow = false;
  auto plain = runCmc(body, c);
  EXPECT_EQ(plain.result.verdict, Verdict::True) << plain.result.reason;
}

// --- BMC's bound and k-induction's base case as conditions -----------------------------

const char* kBoundProgram =
    "int main(){\n"
    "  int c = __VERIFIER_nondet_int();\n"
    "  if (c) { int a = 2; int k = 0; for (k = 0; k < 3; k++) { a = a + 0; } if (a * 3 != 6) reach_error(); }\n"
    "  else { int i = 0; while (i < 300) i++; if (i < 300) reach_error(); }\n"
    "  return 0;\n"
    "}\n";

// The automaton's transitions into the open part (what it leaves unverified).
std::vector<const argus::result::AutomatonTransition*> openTransitions(const AssumptionAutomaton& a) {
  std::vector<const argus::result::AutomatonTransition*> out;
  for (const auto& s : a.states)
    for (const auto& t : s.out)
      if (t.target == AssumptionAutomaton::kOpen) out.push_back(&t);
  return out;
}

// k-induction without invariants cannot prove j == 50 after the loop (it needs i == j)
const char* kTwoCounters =
    "int main(){ int i = 0; int j = 0; while (i < 50) { i++; j++; } if (j != 50) reach_error(); return 0; }\n";

TEST(BoundCondition, BmcBoundIsAnAutomatonThatLaterAnalysesRestrictTo) {
  CmcRun b;
  b.algorithm = Algorithm::Bmc;
  b.maxBound = 4;
  auto bmc = runCmc(kBoundProgram, b);
  ASSERT_EQ(bmc.result.verdict, Verdict::Unknown) << bmc.result.reason;
  ASSERT_TRUE(bmc.result.condition.bound);
  EXPECT_EQ(*bmc.result.condition.bound, 4u);
  ASSERT_TRUE(restricted(bmc.result));
  EXPECT_GT(statOf(bmc.result, "bound_automaton_states"), 4.0);
  // the JSON form reads back to the same automaton
  nlohmann::json j = argus::result::toJson(*bmc.result.condition.automaton);
  auto back = std::make_shared<AssumptionAutomaton>(argus::result::automatonFromJson(nlohmann::json::parse(j.dump())));
  EXPECT_EQ(argus::result::toJson(*back), j);
  // explicit values with the condition: only the while loop beyond 4 iterations is left
  // (the branch with the short for loop was verified by BMC)
  CmcRun ex;
  auto without = runCmc(kBoundProgram, ex);
  ex.conditionIn = back;
  auto with = runCmc(kBoundProgram, ex);
  ASSERT_FALSE(with.inputError) << with.error;
  EXPECT_EQ(without.result.verdict, Verdict::True) << without.result.reason;
  EXPECT_EQ(with.result.verdict, Verdict::True) << with.result.reason;
  EXPECT_LT(statOf(with.result, "arg_states_created"), statOf(without.result, "arg_states_created"));
  // predicate abstraction with it: the same verdict
  CmcRun pr;
  pr.algorithm = Algorithm::Pred;
  auto predWithout = runCmc(kBoundProgram, pr);
  pr.conditionIn = back;
  auto pred = runCmc(kBoundProgram, pr);
  EXPECT_EQ(predWithout.result.verdict, Verdict::True) << predWithout.result.reason;
  EXPECT_EQ(pred.result.verdict, Verdict::True) << pred.result.reason;
}

TEST(BoundCondition, AutomatonCutsExactlyBeyondTheBound) {
  // BMC with k = 3 on a loop with an error in its 5th iteration: the bound automaton
  // excludes the iterations <= 3 only, so a later run still finds the bug
  const char* body =
      "int main(){ int i = 0; while (i < 10) { if (i == 4) reach_error(); i++; } return 0; }\n";
  CmcRun b;
  b.algorithm = Algorithm::Bmc;
  b.maxBound = 3;
  auto bmc = runCmc(body, b);
  ASSERT_EQ(bmc.result.verdict, Verdict::Unknown) << bmc.result.reason;
  ASSERT_TRUE(restricted(bmc.result));
  CmcRun ex;
  ex.conditionIn = bmc.result.condition.automaton;
  auto later = runCmc(body, ex);
  EXPECT_EQ(later.result.verdict, Verdict::False) << later.result.reason;
  // the automaton has no transition into the error: every state on the way is one of
  // the automaton's (not open) for the first iterations
  EXPECT_GE(openTransitions(*bmc.result.condition.automaton).size(), 1u);
}

TEST(BoundCondition, RecursionBeyondTheBoundIsOpen) {
  auto parsed = argus::frontend::parseSource(std::string(argus::testing::kPrelude) +
                                                 "int f(int n){ if (n <= 0) return 0; return f(n - 1) + 1; }\n"
                                                 "int main(){ int r = f(3); if (r != 3) reach_error(); return 0; }\n",
                                             "test.c", {});
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics;
  const argus::cfa::Program& p = *parsed.program;
  auto a = argus::algorithms::boundAutomaton(p, p.find("main")->id, 2);
  ASSERT_TRUE(a);
  EXPECT_GE(a->initial, 2u);
  auto open = openTransitions(*a);
  EXPECT_GE(open.size(), 1u);
  for (const auto* t : open) EXPECT_EQ(t->kind, 1);  // a call (CallEnter) is what is cut: no loops here
  // a size limit gives nothing rather than a partial automaton
  EXPECT_FALSE(argus::algorithms::boundAutomaton(p, p.find("main")->id, 2, 3));
}

TEST(BoundCondition, KInductionBaseCaseIsACondition) {
  // kind-noinv stops at its bound on kTwoCounters
  CmcRun k;
  k.algorithm = Algorithm::KindNoInv;
  k.maxBound = 4;
  auto kind = runCmc(kTwoCounters, k);
  ASSERT_EQ(kind.result.verdict, Verdict::Unknown) << kind.result.reason;
  ASSERT_TRUE(kind.result.condition.bound);
  EXPECT_TRUE(restricted(kind.result));
  EXPECT_NE(kind.result.condition.summary.find("beyond " + std::to_string(*kind.result.condition.bound) + " iterations"),
            std::string::npos)
      << kind.result.condition.summary;
}

TEST(Chain2, KindStageHandsItsBoundToTheNextStage) {
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  c.chain = "kind-noinv:k=4,explicit";
  std::vector<std::string> stages;
  auto out = runCmc(kTwoCounters, c, &stages);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0], "kind-noinv:k=4=unknown");
  EXPECT_EQ(stages[1], "explicit=true");
  // kind with a time limit parses too
  c.chain = "kind:time=20,pred";
  stages.clear();
  auto two = runCmc(kTwoCounters, c, &stages);
  ASSERT_FALSE(two.inputError) << two.error;
  EXPECT_EQ(two.result.verdict, Verdict::True) << two.result.reason;
  EXPECT_EQ(stages.front().rfind("kind:time=20=", 0), 0u);
}

TEST(Chain2, TimeoutInAChainStillLeavesANonTrivialCondition) {
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  c.chain = "bmc:k=2,pred";
  c.timeout = 8;  // enough for bmc's bound even on a loaded machine
  // pred needs the nonlinear invariant 2s = i(i + 1) and runs into the time limit
  const char* body =
      "int main(){\n"
      "  int c = __VERIFIER_nondet_int();\n"
      "  if (c) { int a = 2; if (a * 3 != 6) reach_error(); }\n"
      "  else { unsigned n = __VERIFIER_nondet_uint(), i = 0, s = 0; while (i < n) { i++; s += i; }\n"
      "         if (2 * s != i * (i + 1)) reach_error(); }\n"
      "  return 0;\n"
      "}\n";
  auto out = runCmc(body, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_TRUE(restricted(out.result));
  EXPECT_NE(out.result.condition.summary, "nothing verified");
  EXPECT_FALSE(out.result.condition.summary.empty());
}

TEST(Chain2, MonitorKeysInChainSpecs) {
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  c.chain = "explicit:edgeposts=20:overflow=1:mem=100000:post=1000,pred:refine=5000:pfsize=100000:post=2000:edgeposts=100000";
  auto out = runCmc(kTwoParts, c);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  c.chain = "bmc:refine=5";
  auto bad = runCmc(kTwoParts, c);
  EXPECT_TRUE(bad.inputError);
  c.chain = "kind:pfsize=5";
  bad = runCmc(kTwoParts, c);
  EXPECT_TRUE(bad.inputError);
}

}  // namespace
