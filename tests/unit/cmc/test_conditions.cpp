// Conditional model checking: condition monitors stop the right part and record its
// assumption; output conditions (formula, automaton in JSON and CPAchecker's format);
// input conditions restrict a later run; chains (the paper's Fig. 2 / Fig. 3 programs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

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

// Two independent parts selected by a nondeterministic choice: part A is a short
// computation, part B a long loop (explicit values unroll it a million times).
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

TEST(Monitors, RepeatingLocationsCutsOnlyTheLoop) {
  CmcRun c;
  c.maxRepeats = 5;
  auto out = runCmc(kTwoParts, c);
  ASSERT_FALSE(out.inputError) << out.error;
  const auto& cond = out.result.condition;
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_EQ(cond.kind, "assumption");
  std::string loop = "test.c:" + std::to_string(lineOf(kTwoParts, "while"));
  EXPECT_TRUE(contains(cond.excluded, "the loop at " + loop + " beyond 4 iterations")) << joined(cond.excluded);
  EXPECT_EQ(cond.excluded.size(), 1u) << joined(cond.excluded);  // nothing else is open
  EXPECT_NE(cond.summary.find("verified except: the loop at " + loop), std::string::npos) << cond.summary;
  ASSERT_FALSE(cond.assumptions.empty());
  EXPECT_NE(cond.assumptions[0].find("=> !("), std::string::npos) << cond.assumptions[0];
  EXPECT_NE(cond.assumptions[0].find("repeating locations"), std::string::npos) << cond.assumptions[0];
  ASSERT_TRUE(cond.automaton);
  EXPECT_NE(cond.automaton->initial, AssumptionAutomaton::kVerified);
  EXPECT_NE(cond.automaton->initial, AssumptionAutomaton::kOpen);
  // the loop was cut after 5 visits of its head, not explored further
  EXPECT_LT(statOf(out.result, "reached_states"), 200.0);
}

TEST(Monitors, RepeatingLocationsLetsTheRestFindTheBug) {
  // the paper's Fig. 2: the bug is outside the loop that would keep the analysis busy
  const char* fig2 =
      "int main(){\n"
      "  int n = __VERIFIER_nondet_int();\n"
      "  int i = 0;\n"
      "  if (n > 0) {\n"
      "    while (i < 1000000) { i++; }\n"
      "    __VERIFIER_assert(i == 1000000);\n"
      "  } else {\n"
      "    int a = 3, b = 4;\n"
      "    __VERIFIER_assert(a + b != 7);\n"
      "  }\n"
      "  return 0;\n"
      "}\n";
  CmcRun c;
  c.maxRepeats = 3;
  c.timeout = 20;
  auto out = runCmc(fig2, c);
  EXPECT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
}

TEST(Monitors, PathLengthCutsLongPaths) {
  CmcRun c;
  c.maxPathLength = 60;
  auto out = runCmc(kTwoParts, c);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_TRUE(contains(out.result.condition.excluded, "paths longer than 60 steps")) << joined(out.result.condition.excluded);
  EXPECT_EQ(out.result.condition.excluded.size(), 1u) << joined(out.result.condition.excluded);
  EXPECT_TRUE(contains(out.result.condition.assumptions, "path length: more than 60 steps"));
}

TEST(Monitors, AssumeEdgesCutsPathsWithManyBranches) {
  CmcRun c;
  c.maxAssumeEdges = 12;
  auto out = runCmc(kTwoParts, c);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_TRUE(contains(out.result.condition.excluded, "paths with more than 12 assume edges"))
      << joined(out.result.condition.excluded);
}

TEST(Monitors, StatesPerLocationCutsOnlyTheCrowdedLocations) {
  CmcRun c;
  c.maxStatesPerLocation = 7;
  auto out = runCmc(kTwoParts, c);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  const auto& ex = out.result.condition.excluded;
  EXPECT_TRUE(contains(ex, "states beyond 7 per location at test.c:")) << joined(ex);
  // only locations of the loop part are crowded
  for (const std::string& e : ex) {
    auto p = e.find("test.c:");
    ASSERT_NE(p, std::string::npos) << e;
    int line = std::stoi(e.substr(p + 7));
    EXPECT_GE(line, static_cast<int>(lineOf(kTwoParts, "int i = 0;"))) << e;
  }
  // part A is verified: the automaton does not enter its branch
  ASSERT_TRUE(out.result.condition.automaton);
  EXPECT_GE(out.result.condition.automaton->ordinaryStates(), 1u);
  EXPECT_LT(statOf(out.result, "reached_states"), 300.0);
}

TEST(Monitors, NoLimitHitNoAssumption) {
  // limits that the program never reaches change nothing: true, nothing excluded
  CmcRun c;
  c.maxRepeats = 100;
  c.maxPathLength = 10000;
  c.maxAssumeEdges = 1000;
  c.maxStatesPerLocation = 1000;
  auto out = runCmc("int main(){ int s = 0; for (int i = 0; i < 20; i++) s += 2; if (s != 40) reach_error(); return 0; }", c);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_TRUE(out.result.condition.excluded.empty());
  EXPECT_TRUE(out.result.condition.assumptions.empty());
  ASSERT_TRUE(out.result.condition.automaton);
  EXPECT_EQ(out.result.condition.automaton->initial, AssumptionAutomaton::kVerified);
}

TEST(Monitors, StateLimitLeavesTheWaitingStatesOpen) {
  CmcRun c;
  c.maxStates = 150;
  auto out = runCmc(kTwoParts, c);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_NE(out.result.reason.find("state limit 150"), std::string::npos) << out.result.reason;
  EXPECT_TRUE(contains(out.result.condition.excluded, "not explored when the state limit 150 reached stopped it"))
      << joined(out.result.condition.excluded);
  EXPECT_LE(statOf(out.result, "reached_states"), 152.0);
  ASSERT_TRUE(out.result.condition.automaton);
  EXPECT_GE(out.result.condition.automaton->ordinaryStates(), 1u);
}

TEST(Monitors, TotalTimeLeavesANonTrivialCondition) {
  CmcRun c;
  c.timeout = 1.0;
  auto out = runCmc(
      "int main(){ unsigned i = 0; while (i < 4000000000u) { i++; } if (i == 7) reach_error(); return 0; }", c);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  EXPECT_NE(out.result.reason.find("time limit"), std::string::npos) << out.result.reason;
  EXPECT_EQ(out.result.condition.kind, "assumption");
  EXPECT_NE(out.result.condition.summary.find("not explored when the time limit stopped it"), std::string::npos)
      << out.result.condition.summary;
  EXPECT_FALSE(out.result.condition.assumptions.empty());
  EXPECT_LT(out.result.stats.wallTimeS, 10.0);
}

// --- output and input conditions -------------------------------------------------

TEST(Conditions, AutomatonJsonRoundTripGivesTheSameRestriction) {
  CmcRun first;
  first.maxRepeats = 5;
  auto one = runCmc(kTwoParts, first);
  ASSERT_TRUE(one.result.condition.automaton);
  const AssumptionAutomaton& a = *one.result.condition.automaton;
  nlohmann::json j = argus::result::toJson(a);
  AssumptionAutomaton back = argus::result::automatonFromJson(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(argus::result::toJson(back), j);
  // the same restriction: a later run with either explores exactly the same states
  CmcRun second;
  second.maxRepeats = 8;
  second.conditionIn = one.result.condition.automaton;
  auto withOriginal = runCmc(kTwoParts, second);
  second.conditionIn = std::make_shared<AssumptionAutomaton>(back);
  auto withReadBack = runCmc(kTwoParts, second);
  EXPECT_EQ(withOriginal.result.verdict, withReadBack.result.verdict);
  EXPECT_EQ(statOf(withOriginal.result, "arg_states_created"), statOf(withReadBack.result, "arg_states_created"));
  EXPECT_GT(statOf(withOriginal.result, "arg_states_created"), 0.0);
}

TEST(Conditions, SecondRunExploresFewerStatesAndReachesTheSameVerdict) {
  // first run: the loop part is cut; the condition leaves only that part open
  CmcRun first;
  first.maxRepeats = 5;
  auto one = runCmc(kTwoParts, first);
  ASSERT_EQ(one.result.verdict, Verdict::Unknown);
  // second run: predicate abstraction, with and without the first run's condition
  CmcRun plain;
  plain.algorithm = Algorithm::Pred;
  auto without = runCmc(kTwoParts, plain);
  CmcRun guided = plain;
  guided.conditionIn = one.result.condition.automaton;
  auto with = runCmc(kTwoParts, guided);
  ASSERT_FALSE(with.inputError) << with.error;
  EXPECT_EQ(without.result.verdict, Verdict::True) << without.result.reason;
  EXPECT_EQ(with.result.verdict, Verdict::True) << with.result.reason;
  EXPECT_LT(statOf(with.result, "arg_states_created"), statOf(without.result, "arg_states_created"));
  // the same with the explicit analysis given a larger budget for the second run
  CmcRun ex;
  ex.maxRepeats = 0;
  ex.maxStates = 0;
  ex.timeout = 120;
  const char* small = "int main(){ int c = __VERIFIER_nondet_int(); if (c) { int a = 2; if (a * 3 != 6) reach_error(); } "
                      "else { int i = 0; while (i < 300) i++; if (i != 300) reach_error(); } return 0; }";
  CmcRun cut;
  cut.maxRepeats = 10;
  auto firstSmall = runCmc(small, cut);
  ASSERT_EQ(firstSmall.result.verdict, Verdict::Unknown);
  auto exWithout = runCmc(small, ex);
  ex.conditionIn = firstSmall.result.condition.automaton;
  auto exWith = runCmc(small, ex);
  EXPECT_EQ(exWithout.result.verdict, Verdict::True);
  EXPECT_EQ(exWith.result.verdict, Verdict::True);
  EXPECT_LT(statOf(exWith.result, "arg_states_created"), statOf(exWithout.result, "arg_states_created"));
}

TEST(Conditions, AVerifiedConditionLeavesNothingToExplore) {
  CmcRun c;
  auto one = runCmc("int main(){ int x = 1; if (x != 1) reach_error(); return 0; }", c);
  ASSERT_EQ(one.result.verdict, Verdict::True);
  ASSERT_EQ(one.result.condition.automaton->initial, AssumptionAutomaton::kVerified);
  c.conditionIn = one.result.condition.automaton;
  auto two = runCmc("int main(){ int x = 1; if (x != 1) reach_error(); return 0; }", c);
  EXPECT_EQ(two.result.verdict, Verdict::True);
  EXPECT_EQ(statOf(two.result, "arg_states_created"), 1.0);  // only the root
}

TEST(Conditions, ConditionOfAnotherProgramIsRejected) {
  CmcRun c;
  c.maxRepeats = 5;
  auto one = runCmc(kTwoParts, c);
  CmcRun other;
  other.conditionIn = one.result.condition.automaton;
  auto two = runCmc("int main(){ int y = 0; return y; }", other);
  EXPECT_TRUE(two.inputError);
  EXPECT_NE(two.error.find("another program"), std::string::npos) << two.error;
}

TEST(Conditions, ConditionFilesInJsonAndCpacheckerFormat) {
  std::string dir = ::testing::TempDir();
  CmcRun c;
  c.maxRepeats = 5;
  c.conditionOut = dir + "/cond.json";
  auto one = runCmc(kTwoParts, c);
  ASSERT_FALSE(one.inputError) << one.error;
  std::ifstream jf(c.conditionOut);
  ASSERT_TRUE(jf.good());
  nlohmann::json j = nlohmann::json::parse(jf);
  EXPECT_EQ(j["condition"]["kind"], "assumption");
  EXPECT_FALSE(j["condition"]["assumption_formula"].empty());
  AssumptionAutomaton back = argus::result::automatonFromJson(j);
  EXPECT_EQ(argus::result::toJson(back), argus::result::toJson(*one.result.condition.automaton));

  c.conditionOut = dir + "/cond.spc";
  auto two = runCmc(kTwoParts, c);
  ASSERT_FALSE(two.inputError) << two.error;
  std::ifstream sf(c.conditionOut);
  std::stringstream ss;
  ss << sf.rdbuf();
  std::string spc = ss.str();
  EXPECT_NE(spc.find("OBSERVER AUTOMATON AssumptionAutomaton"), std::string::npos);
  EXPECT_NE(spc.find("INITIAL STATE ARG"), std::string::npos);
  EXPECT_NE(spc.find("STATE __TRUE :\n    TRUE -> GOTO __TRUE;"), std::string::npos);
  EXPECT_NE(spc.find("ASSUME {false} GOTO __FALSE;"), std::string::npos);
  // the else branch is followed up to the loop, which is open (the then branch was verified)
  EXPECT_NE(spc.find("MATCH \"int i = 0;\" -> GOTO ARG"), std::string::npos) << spc.substr(0, 3000);
  EXPECT_EQ(spc.find("int a = 2;"), std::string::npos) << spc.substr(0, 3000);
  EXPECT_NE(spc.find("END AUTOMATON"), std::string::npos);
  std::remove((dir + "/cond.json").c_str());
  std::remove((dir + "/cond.spc").c_str());
}

TEST(Conditions, BmcBoundIsAConditionWithTheLoops) {
  argus::engine::VerifyRequest req;
  req.file = "test.c";
  std::string body = "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0;\n"
                     "  while (i < n) { i++; }\n"
                     "  if (i < n) reach_error(); return 0; }";
  req.source = std::string(argus::testing::kPrelude) + body;
  req.algorithm = Algorithm::Bmc;
  req.maxBound = 3;
  auto out = argus::engine::verify(req);
  EXPECT_EQ(out.result.verdict, Verdict::Unknown);
  ASSERT_TRUE(out.result.condition.bound);
  EXPECT_EQ(*out.result.condition.bound, 3u);
  std::string loop = "test.c:" + std::to_string(lineOf(body, "while"));
  EXPECT_TRUE(contains(out.result.condition.excluded, "the loop at " + loop + " beyond 3 iterations"))
      << joined(out.result.condition.excluded);
  EXPECT_NE(out.result.condition.summary.find("verified for loops and recursion unrolled <= 3 times"), std::string::npos);
}

// The loops a bound condition names: the program's own before those of Argus's C library
// models (a SQLite function's named five loops of libc_models.c first), the entry's first.
TEST(Conditions, ABoundConditionNamesTheProgramsLoopsBeforeTheModels) {
  argus::engine::VerifyRequest req;
  req.file = "test.c";
  std::string body = "#include <string.h>\n"
                     "unsigned count(unsigned n) { unsigned i = 0; while (i < n) i++; return i; }\n"
                     "char a[8], b[8];\n"
                     "int main(){ unsigned n = __VERIFIER_nondet_uint();\n"
                     "  int r = strcmp(a, b) + (int)strlen(a);\n"
                     "  for (unsigned j = 0; j < n; j++) r++;\n"
                     "  if (count(n) < n) reach_error(); return r; }";
  req.source = std::string(argus::testing::kPrelude) + body;
  req.algorithm = Algorithm::Bmc;
  req.maxBound = 2;
  auto out = argus::engine::verify(req);
  ASSERT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  const std::string& s = out.result.condition.summary;
  size_t own = s.find("the loop at test.c:" + std::to_string(lineOf(body, "for (unsigned j")));
  size_t callee = s.find("the loop at test.c:" + std::to_string(lineOf(body, "unsigned count")));
  size_t model = s.find("libc_models.c");
  ASSERT_NE(own, std::string::npos) << s;
  ASSERT_NE(callee, std::string::npos) << s;
  EXPECT_LT(own, callee) << s;
  if (model != std::string::npos) EXPECT_LT(callee, model) << s;
  // every loop is still among the excluded parts
  bool anyModel = false;
  for (const std::string& x : out.result.condition.excluded) anyModel = anyModel || x.find("libc_models.c") != std::string::npos;
  EXPECT_TRUE(anyModel) << joined(out.result.condition.excluded);
}

// --- chains --------------------------------------------------------------------------

// The paper's Fig. 3: a loop that explicit values would unroll a million times and a
// multiplication of variables (non-linear for the paper's predicate analysis).
const char* kFig3 =
    "int main(){\n"
    "  int i = 0;\n"
    "  int x = __VERIFIER_nondet_int();\n"
    "  while (i < 1000000) { i++; }\n"
    "  __VERIFIER_assert(i >= 1000000);\n"
    "  int y = 3; int z = 5;\n"
    "  int r = y * z;\n"
    "  if (x > 0) { __VERIFIER_assert(r == 15); }\n"
    "  return 0;\n"
    "}\n";

TEST(Chain, Fig3ExplicitThenPredicate) {
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  c.chain = "explicit:repeats=5,pred";
  std::vector<std::string> stages;
  auto out = runCmc(kFig3, c, &stages);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.algorithm, "cmc");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0], "explicit:repeats=5=unknown");
  EXPECT_EQ(stages[1], "pred=true");
}

TEST(Chain, Fig2FindsTheBugInTheFirstStagesThatCanReachIt) {
  const char* fig2 =
      "int main(){\n"
      "  int n = __VERIFIER_nondet_int();\n"
      "  int i = 0;\n"
      "  if (n > 0) {\n"
      "    while (i < 1000000) { i++; }\n"
      "    __VERIFIER_assert(i == 1000000);\n"
      "  } else {\n"
      "    int a = 3, b = 4;\n"
      "    __VERIFIER_assert(a + b != 7);\n"
      "  }\n"
      "  return 0;\n"
      "}\n";
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  c.chain = "bmc:k=1,explicit:time=10,pred";
  std::vector<std::string> stages;
  auto out = runCmc(fig2, c, &stages);
  EXPECT_EQ(out.result.verdict, Verdict::False);
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
  ASSERT_FALSE(stages.empty());
  EXPECT_EQ(stages.back().substr(stages.back().size() - 5), "false");
}

TEST(Chain, EveryStageGetsThePreviousCondition) {
  // bmc k=1 cannot finish the loop; explicit with a repeat limit verifies the other
  // part; pred, restricted to the loop part, proves it
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  c.chain = "bmc:k=1,explicit:repeats=5,pred";
  std::vector<std::string> stages;
  auto out = runCmc(kTwoParts, c, &stages);
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0], "bmc:k=1=unknown");
  EXPECT_EQ(stages[1], "explicit:repeats=5=unknown");
  EXPECT_EQ(stages[2], "pred=true");
  EXPECT_EQ(statOf(out.result, "stages_run"), 3.0);
}

TEST(Chain, DefaultChainAndBadSpecs) {
  CmcRun c;
  c.algorithm = Algorithm::Cmc;
  std::vector<std::string> stages;
  auto out = runCmc("int main(){ int x = __VERIFIER_nondet_int(); if (x == 3) reach_error(); return 0; }", c, &stages);
  EXPECT_EQ(out.result.verdict, Verdict::False);
  ASSERT_EQ(stages.size(), 1u);  // bmc k=1 finds it
  EXPECT_EQ(stages[0], "bmc:k=1=false");
  c.chain = "bmc:k=1,magic";
  auto bad = runCmc("int main(){ return 0; }", c);
  EXPECT_TRUE(bad.inputError);
  EXPECT_NE(bad.error.find("unknown chain stage 'magic'"), std::string::npos) << bad.error;
  c.chain = "explicit:time=abc";
  EXPECT_TRUE(runCmc("int main(){ return 0; }", c).inputError);
}

}  // namespace

namespace {

TEST(Conditions, PredicateAnalysisStoppedByTimeLeavesACondition) {
  // needs the invariant 2s = i(i + 1) (nonlinear: beyond the predicates of every
  // refiner): it runs into its time limit, and still says what it verified: the
  // other branch, with the waiting states open
  const char* body =
      "int main(){\n"
      "  int c = __VERIFIER_nondet_int();\n"
      "  if (c) { int a = 2; if (a * 3 != 6) reach_error(); }\n"
      "  else { unsigned n = __VERIFIER_nondet_uint(), i = 0, s = 0; while (i < n) { i++; s += i; }\n"
      "         if (2 * s != i * (i + 1)) reach_error(); }\n"
      "  return 0;\n"
      "}\n";
  CmcRun c;
  c.algorithm = Algorithm::Pred;
  c.timeout = 3;
  auto out = runCmc(body, c);
  ASSERT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_EQ(out.result.condition.summary.rfind("verified except: ", 0), 0u) << out.result.condition.summary;
  ASSERT_TRUE(out.result.condition.automaton);
  EXPECT_GE(out.result.condition.automaton->ordinaryStates(), 1u);
  EXPECT_FALSE(out.result.condition.assumptions.empty());
}

}  // namespace
