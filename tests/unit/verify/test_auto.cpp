// `auto`, the default strategy: chain specs with parallel stages, the stages' records,
// CPU time over processes, and the programs the issue on `auto` names (a counting loop
// that needs a relational invariant, a reachable bug, bounded recursion).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/engine/verify.h"
#include "core/result/codec.h"
#include "core/result/result.h"
#include "core/support/deadline.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus::testing {
namespace {

using engine::Algorithm;
using result::Verdict;

engine::VerifyOutcome runAuto(const std::string& body, const std::string& chain = "", double timeout = 30,
                              smt::SolverKind solver = smt::SolverKind::Z3) {
  engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(kPrelude) + body;
  req.algorithm = Algorithm::Auto;
  req.chain = chain;
  req.solver = solver;
  req.timeoutS = timeout;
  return engine::verify(req);
}

// The example: kind and kiki time out on it, pred proves it at once.
const char* kCountingLoop =
    "int main(){\n"
    "  int n = __VERIFIER_nondet_int();\n"
    "  __VERIFIER_assume(n >= 0 && n < 1000000);\n"
    "  int i = 0, j = 0;\n"
    "  while (i < n) { i++; j += 2; }\n"
    "  if (j != 2 * i) reach_error();\n"
    "  return 0;\n"
    "}\n";

// pred proves j <= i at once; kind (intervals, affine equalities: no relational
// inequality) does not
const char* kOnlyPredProves =
    "int main(){ int n = __VERIFIER_nondet_int(); int i = 0, j = 0;\n"
    "  while (i < n) { i++; if (__VERIFIER_nondet_int()) j++; }\n"
    "  if (j > i) reach_error(); return 0; }\n";

TEST(ChainSpec, ParallelStagesAndShortBounds) {
  engine::Chain c = engine::parseChain("ibmc:k=2:time=2, kind|pred:time=5 ,bmc:3");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_FALSE(c[0].isParallel());
  EXPECT_EQ(c[0].algorithm, Algorithm::Ibmc);
  EXPECT_EQ(c[0].params.bound, 2u);
  EXPECT_EQ(c[0].params.timeS, 2.0);
  ASSERT_TRUE(c[1].isParallel());
  ASSERT_EQ(c[1].parallel.size(), 2u);
  EXPECT_EQ(c[1].parallel[0].algorithm, Algorithm::Kind);
  EXPECT_EQ(c[1].parallel[1].algorithm, Algorithm::Pred);
  EXPECT_EQ(c[1].parallel[1].params.timeS, 5.0);
  EXPECT_EQ(c[1].params.timeS, 0.0);  // kind has no time of its own: the stage takes what is left
  EXPECT_TRUE(c[1].restrictable());   // pred can use a condition
  EXPECT_FALSE(c[0].restrictable());
  EXPECT_EQ(c[2].params.bound, 3u);  // `bmc:3`, the daemon's older syntax
  EXPECT_EQ(engine::chainWidth(c), 2u);
  EXPECT_EQ(engine::chainSpec(c), "ibmc:k=2:time=2,kind|pred:time=5,bmc:3");
  EXPECT_EQ(engine::chainWidth(engine::parseChain(engine::kAutoChain)), 2u);
  // any single algorithm is a stage
  EXPECT_EQ(engine::parseChain("kiki-ai")[0].algorithm, Algorithm::KikiAi);
  EXPECT_THROW(engine::parseChain("kind|"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("auto"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("kind|magic"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("pred:k=3"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("explicit:7"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("kind:cond=ignore"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("pred:cond=maybe"), std::invalid_argument);
  engine::Chain ig = engine::parseChain("kind|pred:cond=ignore,explicit:cond=ignore|pred");
  EXPECT_FALSE(ig[0].restrictable());
  EXPECT_TRUE(ig[1].restrictable());
}

TEST(ChainSpec, EffectiveChainOfEachAlgorithm) {
  engine::VerifyRequest r;
  r.algorithm = Algorithm::Auto;
  EXPECT_EQ(engine::effectiveChain(r), engine::kAutoChain);
  r.algorithm = Algorithm::Cmc;
  EXPECT_EQ(engine::effectiveChain(r), engine::kDefaultChain);
  r.chain = "kind";
  EXPECT_EQ(engine::effectiveChain(r), "kind");
  r.chain.clear();
  r.algorithm = Algorithm::Kind;
  EXPECT_EQ(engine::effectiveChain(r), "kind");
  EXPECT_EQ(engine::parseAlgorithm("auto"), Algorithm::Auto);
  EXPECT_STREQ(engine::algorithmName(Algorithm::Auto), "auto");
}

TEST(Auto, ProvesTheCountingLoopThroughTheParallelStage) {
  auto out = runAuto(kCountingLoop);
  ASSERT_FALSE(out.inputError) << out.error;
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.algorithm, "auto");
  ASSERT_EQ(out.result.stages.size(), 2u);
  EXPECT_EQ(out.result.stages[0].spec, "bmc:k=2:time=2");
  EXPECT_EQ(out.result.stages[0].verdict, Verdict::Unknown);
  EXPECT_EQ(out.result.stages[1].spec, "kind|pred:cond=ignore:after=1");
  EXPECT_EQ(out.result.stages[1].verdict, Verdict::True);
  // pred finds j = 2i; whichever member decided is named
  EXPECT_TRUE(out.result.stages[1].decidedBy == "pred" || out.result.stages[1].decidedBy == "kind")
      << out.result.stages[1].decidedBy;
  std::string text = result::toText(out.result);
  EXPECT_NE(text.find("decided by: stage 2 kind|pred:cond=ignore:after=1"), std::string::npos) << text;
}

// A slice of more than engine::kAutoLargeSliceFunctions functions runs bmc alone
// (engine::kAutoLargeChain): the counting loop behind a chain of 70 calls (f0(x) = x + 69)
// is answered by bmc's bound condition, not proved by the parallel stage; its bug variant
// is found with a replayed path. The same loop behind 3 calls still gets the usual two
// stages (and pred's proof).
TEST(Auto, ALargeSliceRunsBmcAlone) {
  auto program = [](int calls, bool bug) {
    std::string s;
    for (int i = calls - 1; i >= 0; --i)
      s += "int f" + std::to_string(i) + "(int x) { return " +
           (i + 1 < calls ? "f" + std::to_string(i + 1) + "(x) + 1" : std::string("x")) + "; }\n";
    s += "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 0 && n < 1000000);\n"
         "  int i = 0, j = 0; while (i < n) { i++; j += 2; }\n"
         "  if (f0(j) - " + std::to_string(calls - 1) + (bug ? " == 6" : " != 2 * i") + ") reach_error(); return 0; }\n";
    return s;
  };
  auto large = runAuto(program(70, false), "", 8);
  ASSERT_FALSE(large.inputError) << large.error;
  EXPECT_EQ(large.result.algorithm, "bmc");  // a chain of one stage reads as that stage
  ASSERT_EQ(large.result.stages.size(), 1u);
  EXPECT_EQ(large.result.stages[0].spec, engine::kAutoLargeChain);
  EXPECT_EQ(large.result.verdict, Verdict::Unknown) << large.result.reason;
  EXPECT_GE(large.result.condition.bound.value_or(0), 2u) << large.result.condition.summary;
  EXPECT_GT(large.result.stats.extra["slice_functions"], static_cast<double>(engine::kAutoLargeSliceFunctions));
  auto bug = runAuto(program(70, true), "", 30);
  EXPECT_TRUE(replayedWithValue(bug, "n", "3")) << bug.result.reason;
  auto small = runAuto(program(3, false), "", 30);
  ASSERT_EQ(small.result.stages.size(), 2u);
  EXPECT_EQ(small.result.verdict, Verdict::True) << small.result.reason;
}

TEST(Auto, ReportsAReachableBugWithAReplayedPath) {
  auto out = runAuto(
      "int main(){ int x = __VERIFIER_nondet_int(); int y = 0;\n"
      "  while (y < 5) { y++; }\n"
      "  if (x == 42 && y == 5) reach_error();\n"
      "  return 0; }\n");
  ASSERT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
  EXPECT_TRUE(replayedWithValue(out, "x", "42"));
}

TEST(Auto, ABugOnlyTheParallelStageReachesComesBackFromAChildProcess) {
  // the bug needs 7 loop iterations: beyond the first stage's k = 2, so the parallel
  // stage (a child process) finds it and its counterexample crosses the pipe. (The loop
  // body branches: kBugAfterLoop's single-path `s += 2` loop is accelerated, and the
  // first stage finds its bug at once.)
  auto out = runAuto(
      "int main(){ int s = 0; int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n > 0 && n < 100);\n"
      "  for (int i = 0; i < n; i++) { if (i >= 0) s += 2; else s += 3; }\n"
      "  if (s == 14) reach_error(); return 0; }\n");
  ASSERT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  ASSERT_EQ(out.result.stages.size(), 2u);
  EXPECT_EQ(out.result.stages[1].verdict, Verdict::False);
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
  EXPECT_GT(out.result.counterexample->steps.size(), 7u);
}

TEST(Auto, BoundedRecursionIsDecided) {
  const char* body =
      "int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }\n"
      "int main(){ int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 0 && n <= 5);\n"
      "  if (fact(n) > 120) reach_error(); return 0; }\n";
  auto safe = runAuto(body);
  EXPECT_EQ(safe.result.verdict, Verdict::True) << safe.result.reason;
  std::string buggy(body);
  buggy.replace(buggy.find("> 120"), 5, ">= 120");
  auto bug = runAuto(buggy);
  EXPECT_EQ(bug.result.verdict, Verdict::False) << bug.result.reason;
}

TEST(Auto, CpuTimeCountsTheParallelMembers) {
  // a loop no member decides quickly (nonlinear invariant): the members work in child
  // processes, and the run's CPU time must include theirs
  const char* body =
      "int main(){ unsigned n = __VERIFIER_nondet_uint(), i = 0, s = 0;\n"
      "  while (i < n) { i++; s += i; }\n"
      "  if (2 * s != i * (i + 1)) reach_error(); return 0; }\n";
  double self0 = support::processCpuSeconds(), tree0 = support::processTreeCpuSeconds();
  auto out = runAuto(body, "kind|pred", 4);
  double self = support::processCpuSeconds() - self0, children = support::processTreeCpuSeconds() - tree0 - self;
  ASSERT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  ASSERT_EQ(out.result.stages.size(), 1u);
  EXPECT_NE(out.result.reason.find("kind: "), std::string::npos) << out.result.reason;
  EXPECT_NE(out.result.reason.find("pred: "), std::string::npos) << out.result.reason;
  EXPECT_GT(children, 0.2) << "the members did not run in child processes";
  EXPECT_GE(out.result.stats.cpuTimeS + 0.01, children) << "the run's CPU time leaves out its children";
  EXPECT_GE(out.result.stages[0].cpuTimeS + 0.01, children);
}

TEST(Auto, TheLoserIsStoppedWhenTheWinnerAnswers) {
  // pred proves j <= i at once; kind (intervals, affine equalities: no relational
  // inequality) alone would run for the whole 60 s. (kind now proves kCountingLoop too.)
  auto t0 = std::chrono::steady_clock::now();
  auto out = runAuto(
      kOnlyPredProves,
      "kind|pred", 60);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stages[0].decidedBy, "pred");
  EXPECT_LT(wall, 30) << "the kind member was not stopped";
}

TEST(ChainSpec, DelayedParallelMembers) {
  engine::Chain c = engine::parseChain("kind|pred:cond=ignore:after=1.5");
  ASSERT_TRUE(c[0].isParallel());
  EXPECT_EQ(c[0].parallel[0].params.afterS, 0.0);
  EXPECT_EQ(c[0].parallel[1].params.afterS, 1.5);
  EXPECT_THROW(engine::parseChain("pred:after=1"), std::invalid_argument);          // not a parallel member
  EXPECT_THROW(engine::parseChain("kind:after=1|pred:after=2"), std::invalid_argument);  // nobody starts
  EXPECT_THROW(engine::parseChain("kind|pred:after=-1"), std::invalid_argument);
  EXPECT_THROW(engine::parseChain("kind|pred:after=x"), std::invalid_argument);
}

// Runs a chain with a progress callback and returns what it reported.
engine::VerifyOutcome runWithProgress(const std::string& body, const std::string& chain, double timeout,
                                      std::string* progress) {
  engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(kPrelude) + body;
  req.algorithm = Algorithm::Auto;
  req.chain = chain;
  req.timeoutS = timeout;
  req.progress = [progress](const std::string& m) { *progress += m + "\n"; };
  return engine::verify(req);
}

TEST(Auto, ADelayedMemberNeverStartsWhenTheOtherAnswersFirst) {
  // kind proves the counting loop at k = 1 (affine equalities) long before 20 s: the
  // delayed pred member is killed while it waits
  std::string progress;
  auto out = runWithProgress(kCountingLoop, "kind|pred:after=20", 60, &progress);
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stages[0].decidedBy, "kind");
  EXPECT_EQ(out.result.stats.extra.count("parallel_not_started_pred:after=20"), 1u);
  EXPECT_EQ(out.result.stats.extra.count("parallel_stopped_pred:after=20"), 0u);
  // without the delay, pred started and was stopped
  auto both = runWithProgress(kCountingLoop, "kind|pred", 60, &progress);
  ASSERT_EQ(both.result.verdict, Verdict::True) << both.result.reason;
  if (both.result.stages[0].decidedBy == "kind") {
    EXPECT_EQ(both.result.stats.extra.count("parallel_stopped_pred"), 1u);
  }
}

TEST(Auto, ADelayedMemberStillDecidesWhatTheOtherCannot) {
  // only pred proves j <= i (see TheLoserIsStoppedWhenTheWinnerAnswers); started after
  // kind has used 0.5 s of CPU, it still decides
  std::string progress;
  auto out = runWithProgress(
      kOnlyPredProves,
      "kind|pred:after=0.5", 60, &progress);
  ASSERT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stages[0].decidedBy, "pred");
  EXPECT_GE(out.result.stages[0].cpuTimeS, 0.5);
  EXPECT_EQ(out.result.stats.extra.count("parallel_stopped_kind"), 1u);
  // a member that gives up early (kind at its bound 1) starts the delayed one at once,
  // long before anyone used 100 s of CPU
  auto t0 = std::chrono::steady_clock::now();
  auto early = runWithProgress(
      kOnlyPredProves,
      "kind:k=1|pred:after=100", 60, &progress);
  ASSERT_EQ(early.result.verdict, Verdict::True) << early.result.reason;
  EXPECT_EQ(early.result.stages[0].decidedBy, "pred");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 50);
}

TEST(Auto, WorksWithCvc5) {
  // (pred with cvc5's default refiner, newton-sp-core-live, does not prove the counting
  // loop within 30 s; the strategy's members use the solver the user chose)
  auto bug = runAuto(kBugAfterLoop, "", 30, smt::SolverKind::CVC5);
  EXPECT_TRUE(replayedWithValue(bug, "s", "14"));
  auto safe = runAuto(
      "int main(){ int x = __VERIFIER_nondet_int(); int y = x; if (x > 0 && y <= 0) reach_error(); return 0; }", "",
      30, smt::SolverKind::CVC5);
  EXPECT_EQ(safe.result.verdict, Verdict::True) << safe.result.reason;
}


// A loop whose every iteration calls through a pointer to no known function (SQLite's
// robust_ftruncate: `do rc = osFtruncate(h, sz); while (rc < 0 && errno == EINTR);`): no
// path that avoids the call gets beyond bound 1, so BMC's condition is complete. It names
// the call, not the loop, and the chain ends there: no later stage can verify more.
const char* kLoopAroundUnknownCall =
    "int (*hook)(int);\n"  // nothing is ever stored in it: a call through it has no known target
    "int f(int h) {\n"
    "  if (h * 0 != 0) reach_error();\n"
    "  int rc;\n"
    "  do { rc = hook(h); } while (rc < 0);\n"
    "  return rc;\n"
    "}\n";

// The same call after a loop that runs as often as the input says: paths avoiding the call
// go beyond any bound, so the condition is not complete and names the loop.
const char* kLoopBeforeUnknownCall =
    "int (*hook)(int);\n"
    "int f(int h) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < h; i++) { s += i; if (s < 0 && i < 0) reach_error(); }\n"
    "  if (h == 7) return hook(s);\n"
    "  return s;\n"
    "}\n";

// Every check after the call through a pointer with no known target: nothing can be
// verified (SQLite's sqlite3OsShmBarrier: a call through pMethods, checks behind it).
const char* kEveryCheckBehindUnknownCall =
    "int (*hook)(int);\n"
    "void g(int x) { if (x * 0 != 0) reach_error(); }\n"
    "int f(int h) {\n"
    "  int rc = hook(h);\n"
    "  g(rc);\n"
    "  return rc;\n"
    "}\n";

// The same, but a callee with a check runs before the call: that check is verified.
const char* kCheckInACalleeBeforeUnknownCall =
    "int (*hook)(int);\n"
    "void g(int x) { if (x * 0 != 0) reach_error(); }\n"
    "int f(int h) {\n"
    "  g(h);\n"
    "  return hook(h);\n"
    "}\n";

engine::VerifyOutcome runEntry(const char* body, Algorithm alg, uint32_t maxBound,
                               frontend::DataModel dm = frontend::DataModel::LP64) {
  engine::VerifyRequest req;
  req.dataModel = dm;
  req.file = "test.c";
  req.source = std::string(kPrelude) + body;
  req.algorithm = alg;
  req.function = "f";
  req.maxBound = maxBound;
  req.timeoutS = 30;
  return engine::verify(req);
}

TEST(Auto, ACompleteConditionEndsTheChain) {
  for (auto dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
    auto out = runEntry(kLoopAroundUnknownCall, Algorithm::Auto, 0, dm);
    ASSERT_FALSE(out.inputError) << out.error;
    ASSERT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
    EXPECT_TRUE(out.result.condition.complete) << out.result.condition.summary;
    ASSERT_TRUE(out.result.condition.bound.has_value());
    EXPECT_EQ(out.result.condition.summary.rfind("verified on every path", 0), 0u) << out.result.condition.summary;
    EXPECT_NE(out.result.reason.find("unknown function"), std::string::npos) << out.result.reason;
    for (const std::string& x : out.result.condition.excluded)
      EXPECT_EQ(x.find("the loop at"), std::string::npos) << x;
    EXPECT_EQ(out.result.stats.extra.at("stages_run"), 1) << "kind|pred cannot verify more than every path";
    EXPECT_EQ(out.result.stats.extra.at("stages_skipped_complete"), 1);
    EXPECT_EQ(out.result.stages.size(), 1u);
    // the JSON carries it, and reads back
    nlohmann::json j = result::toJson(out.result);
    EXPECT_EQ(j["condition"].value("complete", false), true);
    EXPECT_TRUE(result::decodeResult(result::encodeResult(out.result)).condition.complete);
  }
}

TEST(Auto, ACompleteConditionWithEveryCheckBehindTheConstructVerifiesNothing) {
  for (auto dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
    auto out = runEntry(kEveryCheckBehindUnknownCall, Algorithm::Auto, 0, dm);
    ASSERT_FALSE(out.inputError) << out.error;
    ASSERT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
    EXPECT_TRUE(out.result.condition.complete) << out.result.condition.summary;
    EXPECT_TRUE(out.result.condition.vacuous) << out.result.condition.summary;
    EXPECT_EQ(out.result.condition.summary.rfind("nothing verified: every check lies behind call through", 0), 0u)
        << out.result.condition.summary;
    EXPECT_EQ(out.result.stats.extra.at("stages_run"), 1) << "no algorithm gets past the call";
    nlohmann::json j = result::toJson(out.result);
    EXPECT_EQ(j["condition"].value("vacuous", false), true);
    EXPECT_TRUE(result::decodeResult(result::encodeResult(out.result)).condition.vacuous);
    // a check in a callee before the call is on a path that avoids it
    auto before = runEntry(kCheckInACalleeBeforeUnknownCall, Algorithm::Auto, 0, dm);
    ASSERT_EQ(before.result.verdict, Verdict::Unknown) << before.result.reason;
    EXPECT_TRUE(before.result.condition.complete) << before.result.condition.summary;
    EXPECT_FALSE(before.result.condition.vacuous) << before.result.condition.summary;
    EXPECT_EQ(before.result.condition.summary.rfind("verified on every path", 0), 0u) << before.result.condition.summary;
  }
  // the one in kLoopAroundUnknownCall comes before the call too
  EXPECT_FALSE(runEntry(kLoopAroundUnknownCall, Algorithm::Auto, 0).result.condition.vacuous);
}

TEST(Auto, AConditionWithLongerPathsIsNotComplete) {
  auto out = runEntry(kLoopBeforeUnknownCall, Algorithm::Bmc, 3);
  ASSERT_FALSE(out.inputError) << out.error;
  ASSERT_EQ(out.result.verdict, Verdict::Unknown) << out.result.reason;
  EXPECT_FALSE(out.result.condition.complete) << out.result.condition.summary;
  EXPECT_EQ(out.result.condition.summary.rfind("verified for loops", 0), 0u) << out.result.condition.summary;
  bool namesLoop = false;
  for (const std::string& x : out.result.condition.excluded) namesLoop = namesLoop || x.find("the loop at") != std::string::npos;
  EXPECT_TRUE(namesLoop);
  EXPECT_FALSE(result::toJson(out.result)["condition"].contains("complete"));
}

}  // namespace
}  // namespace argus::testing
