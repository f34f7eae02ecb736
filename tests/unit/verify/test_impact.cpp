// Impact (--algorithm impact) end to end: safe and buggy programs with loops,
// replayed counterexamples, forced covering, statistics; and pred/impact under every
// refiner on a safe and a buggy loop (never a wrong verdict).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/algorithms/predicate/predicate_analysis.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::frontend::DataModel;
using argus::result::Verdict;
using argus::smt::SolverKind;
using argus::testing::kPrelude;
using argus::testing::verifySource;

namespace {

class Impact : public ::testing::TestWithParam<SolverKind> {
protected:
  argus::engine::VerifyOutcome run(const std::string& body, double timeout = 60) {
    auto out = verifySource(std::string(kPrelude) + body, Algorithm::Impact, GetParam(), DataModel::LP64, "main", timeout);
    EXPECT_FALSE(out.inputError) << out.error;
    EXPECT_EQ(out.result.algorithm, "impact");
    return out;
  }
};

TEST_P(Impact, SafeLoopWithUnboundedInputUsesForcedCovering) {
  // With unsat cores + strongest post: Impact's default refiner (whole path) names i's
  // values one by one and unrolls this loop (see Refiners.NoWrongVerdictOnLoops).
  auto req = argus::testing::snippetRequest(
      "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0; while (i < n) { i++; } "
      "if (i != n) reach_error(); return 0; }",
      Algorithm::Impact, GetParam(), 60);
  req.refiner = "newton-sp-core-live";
  auto out = argus::engine::verify(req);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_GE(out.result.stats.extra.at("refinements"), 1.0);
  // the loop head of the second iteration is covered by forcing the interpolant
  EXPECT_GE(out.result.stats.extra.at("forced_coverings"), 1.0);
  EXPECT_GE(out.result.stats.extra.at("strengthened_states"), 1.0);
  // every refinement's sequence was checked before it strengthened states
  EXPECT_GE(out.result.stats.extra.at("sequence_checks"), out.result.stats.extra.at("refinements"));
}

TEST_P(Impact, SafeLoopWithBranchesInTheBody) {
  // ABE merges the branches: the interpolants come from disjunctive block formulas
  auto out = run(
      "int main(){ int i = 0; int a = 0; while (i < 10) { if (__VERIFIER_nondet_int()) a = 1; else a = 2; i++; } "
      "if (a == 3) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
}

// (Z3 only: the run ends at its deadline, where cvc5 1.0.3 may abort the process.)
TEST(ImpactOptions, WithoutForcedCoveringNoneIsCounted) {
  argus::frontend::FrontendOptions po;
  std::string src = std::string(kPrelude) +
                    "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0; while (i < n) { i++; } "
                    "if (i != n) reach_error(); return 0; }";
  auto parsed = argus::frontend::parseSource(src, "test.c", po);
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics;
  const argus::cfa::Function* mainF = parsed.program->find("main");
  ASSERT_NE(mainF, nullptr);
  argus::algorithms::PredicateAnalysisOptions opts;
  opts.solver = SolverKind::Z3;
  opts.impact = true;
  opts.forcedCovering = false;
  opts.timeoutS = 5;
  auto r = argus::algorithms::runPredicateAnalysis(*parsed.program, mainF->id, opts);
  // with point-wise interpolants (i = 0, i = 1, …) Impact without forced covering
  // unrolls the loop until the deadline (with it, SafeLoopWithUnboundedInput… is proved)
  EXPECT_NE(r.verdict, Verdict::False);
  EXPECT_EQ(r.stats.extra.at("forced_coverings"), 0.0);
  EXPECT_EQ(r.stats.extra.at("forced_covering_attempts"), 0.0);
}

TEST_P(Impact, BugAfterLoopIsReplayed) {
  auto out = run(argus::testing::kBugAfterLoop);
  ASSERT_TRUE(argus::testing::replayedWithValue(out, "n", "7"));
  EXPECT_GE(out.result.stats.extra.at("removed_false_states"), 1.0);
}

TEST_P(Impact, BugInCalleeInsideLoop) {
  auto out = run(
      "int g; void step(int k){ g += k; if (g == 6) reach_error(); } "
      "int main(){ for (int i = 1; i <= 3; i++) step(i); return 0; }");
  ASSERT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  EXPECT_TRUE(out.result.counterexample->replayed);
}

TEST_P(Impact, StatisticsAreReported) {
  auto out = run("int main(){ int x = __VERIFIER_nondet_int(); if (x > 3 && x < 2) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True);
  for (const char* k : {"refinements", "abstractions", "arg_states_created", "reached_states", "predicates",
                        "time_abstraction_s", "time_refinement_s", "time_forced_covering_s", "forced_coverings",
                        "strengthened_states", "uncovered_states", "removed_false_states"})
    EXPECT_TRUE(out.result.stats.extra.count(k)) << k;
  EXPECT_EQ(out.result.stats.extra.at("refinements"), 1.0);
  EXPECT_GT(out.result.stats.solverQueries, 0u);
}

// Recursion is inlined up to a depth by the engine (core/cfa/recursion.h): bounded
// recursion is proved, and a wrong assertion about it is refuted.
TEST_P(Impact, BoundedRecursionIsDecided) {
  auto out = run("int f(int n){ return n <= 0 ? 0 : 1 + f(n - 1); } int main(){ if (f(3) != 3) reach_error(); return 0; }");
  EXPECT_EQ(out.result.verdict, Verdict::True) << out.result.reason;
  EXPECT_EQ(out.result.stats.extra.count("recursion_depth"), 1u);
  auto bug = run("int f(int n){ return n <= 0 ? 0 : 1 + f(n - 1); } int main(){ if (f(3) == 3) reach_error(); return 0; }");
  EXPECT_EQ(bug.result.verdict, Verdict::False) << bug.result.reason;
}

INSTANTIATE_TEST_SUITE_P(Solvers, Impact, ::testing::Values(SolverKind::Z3, SolverKind::CVC5),
                         [](const auto& info) { return std::string(argus::smt::solverName(info.param)); });

// Every refiner under pred and impact: a safe loop and a bug after a loop. The
// verdict may be unknown where an engine cannot refine (it must say why), never wrong.
// (Impact checks every sequence before using it; pred uses only their predicates.)
class Refiners : public ::testing::TestWithParam<std::tuple<std::string, Algorithm>> {};

TEST_P(Refiners, NoWrongVerdictOnLoops) {
  auto [refiner, alg] = GetParam();
  auto runOne = [&](const std::string& body) {
    auto req = argus::testing::snippetRequest(body, alg, SolverKind::Z3, 20);
    req.refiner = refiner;
    auto out = argus::engine::verify(req);
    EXPECT_FALSE(out.inputError) << out.error;
    return out.result;
  };
  auto safe = runOne(
      "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0; while (i < n) { i++; } "
      "if (i != n) reach_error(); return 0; }");
  EXPECT_NE(safe.verdict, Verdict::False);
  if (safe.verdict == Verdict::Unknown) {
    EXPECT_FALSE(safe.reason.empty());
  }
  auto bug = runOne(
      "int main(){ int s = 0; int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n > 0 && n < 5); "
      "for (int i = 0; i < n; i++) { s += 2; } if (s == 6) reach_error(); return 0; }");
  EXPECT_NE(bug.verdict, Verdict::True);
  if (bug.verdict == Verdict::False) {
    EXPECT_TRUE(bug.counterexample && bug.counterexample->replayed);
  }
  // The algorithm's default refiner (one of the names above) finds the bug.
  const auto& names = argus::algorithms::RefinerConfig::allNames();
  const std::string def = argus::engine::defaultRefiner(alg);
  EXPECT_NE(std::find(names.begin(), names.end(), def), names.end());
  if (refiner == def) {
    EXPECT_EQ(bug.verdict, Verdict::False) << bug.reason;
  }
  // Unsat cores + strongest post prove the loop safe under both algorithms, and so
  // does pred's default. Impact's default (strongest post over the whole path) does not: its
  // interpolants name i's values one by one (i = 0, i = 1, ...) and unroll the loop
  // until the time limit; it is the default because it solved the most benchmark tasks.
  if (refiner == "newton-sp-core-live" || (alg == Algorithm::Pred && refiner == def)) {
    EXPECT_EQ(safe.verdict, Verdict::True) << safe.reason;
    EXPECT_EQ(bug.verdict, Verdict::False) << bug.reason;
  }
}

std::vector<std::tuple<std::string, Algorithm>> refinerParams() {
  std::vector<std::tuple<std::string, Algorithm>> out;
  for (const std::string& n : argus::algorithms::RefinerConfig::allNames())
    for (Algorithm a : {Algorithm::Pred, Algorithm::Impact}) out.push_back({n, a});
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, Refiners, ::testing::ValuesIn(refinerParams()), [](const auto& info) {
  std::string n = std::string(argus::engine::algorithmName(std::get<1>(info.param))) + "_" + std::get<0>(info.param);
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
});

// Boolean or cartesian abstraction, abstraction formulas as SMT formulas or BDDs
// (--abstraction, --abstraction-formulas), with both solvers: pred proves a counting
// loop and finds the bug after a loop under each, and with Z3 (default refiner: weakest
// preconditions) also proves a loop relating two counters (with cvc5 the default
// refiner, strongest post over unsat cores, does not: there it must not answer
// false); Impact finds the bug. With BDDs, pred's coverage checks between
// abstraction states are decided on the BDDs (no solver query).
class AbstractionOptions : public ::testing::TestWithParam<std::tuple<bool, bool, SolverKind>> {};

TEST_P(AbstractionOptions, SameVerdicts) {
  auto [cartesian, bdd, solver] = GetParam();
  auto runOne = [&](Algorithm alg, const std::string& body, double timeout) {
    auto req = argus::testing::snippetRequest(body, alg, solver, timeout);
    req.cartesian = cartesian;
    req.bddAbstractions = bdd;
    auto out = argus::engine::verify(req);
    EXPECT_FALSE(out.inputError) << out.error;
    return out.result;
  };
  const char* counting =
      "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0; while (i < n) { i++; } "
      "if (i != n) reach_error(); return 0; }";
  const char* twoCounters =
      "int main(){ unsigned n = __VERIFIER_nondet_uint(); unsigned i = 0, j = 0; while (i < n) { i++; j += 2; } "
      "if (j != 2 * i) reach_error(); return 0; }";
  const char* bug =
      "int main(){ int s = 0; int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n > 0 && n < 5); "
      "for (int i = 0; i < n; i++) { s += 2; } if (s == 6) reach_error(); return 0; }";
  auto checkStats = [&](const argus::result::VerificationResult& r) {
    if (bdd) {
      EXPECT_EQ(r.stats.extra.count("bdd_regions"), 1u);
      EXPECT_EQ(r.stats.extra.count("coverage_checks") ? r.stats.extra.at("coverage_checks") : -1, 0.0);
    } else {
      EXPECT_EQ(r.stats.extra.count("bdd_regions"), 0u);
    }
  };
  auto r = runOne(Algorithm::Pred, counting, 20);
  EXPECT_EQ(r.verdict, Verdict::True) << r.reason;
  checkStats(r);
  r = runOne(Algorithm::Pred, twoCounters, 10);
  if (solver == SolverKind::Z3) {
    EXPECT_EQ(r.verdict, Verdict::True) << r.reason;
    checkStats(r);
  } else {
    EXPECT_NE(r.verdict, Verdict::False) << r.reason;
  }
  for (Algorithm alg : {Algorithm::Pred, Algorithm::Impact}) {
    r = runOne(alg, bug, 20);
    EXPECT_EQ(r.verdict, Verdict::False) << r.reason;
    EXPECT_TRUE(r.counterexample && r.counterexample->replayed);
  }
}

INSTANTIATE_TEST_SUITE_P(All, AbstractionOptions,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values(SolverKind::Z3, SolverKind::CVC5)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "cartesian" : "boolean") + "_" +
                                  (std::get<1>(info.param) ? "bdd" : "smt") + "_" +
                                  argus::smt::solverName(std::get<2>(info.param));
                         });

// A refinement that cannot exclude its spurious path cuts that error target (an open part
// of the condition) instead of ending the run: the rest is still explored, so a real bug
// behind it is found and a safe program ends unknown with what was verified. (The
// spurious target is inside the loop, so it is reached before the real bug after it.)
class FailedRefinement : public ::testing::TestWithParam<bool> {
protected:
  argus::result::VerificationResult runFailing(const std::string& body, uint32_t fail) {
    argus::frontend::FrontendOptions po;
    auto parsed = argus::frontend::parseSource(std::string(kPrelude) + body, "test.c", po);
    EXPECT_TRUE(parsed.ok()) << parsed.diagnostics;
    if (!parsed.ok()) return {};
    argus::algorithms::PredicateAnalysisOptions opts;
    opts.impact = GetParam();
    opts.timeoutS = 30;
    opts.failRefinementsForTest = fail;
    return argus::algorithms::runPredicateAnalysis(*parsed.program, parsed.program->find("main")->id, opts);
  }
};

constexpr const char* kSpuriousThenReal =
    "int main(){ int x = __VERIFIER_nondet_int(); int i = 0;\n"
    "  while (__VERIFIER_nondet_int()) { x++; }\n"
    "  if (x == 42) reach_error();\n"
    "  while (__VERIFIER_nondet_int()) { }\n"
    "  if (i != 0) reach_error();\n"
    "  return 0; }\n";

TEST_P(FailedRefinement, SafeProgramEndsUnknownWithTheTargetCut) {
  std::string safe = kSpuriousThenReal;
  safe.replace(safe.find("x == 42"), 7, "x != x");  // only the spurious target is left
  auto r = runFailing(safe, 1000);
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.reason;
  EXPECT_NE(r.reason.find("not everything verified: refinement failed on the error path to test.c:" +
                          std::to_string(std::count(kPrelude, kPrelude + std::strlen(kPrelude), '\n') + 5)),
            std::string::npos)
      << r.reason;
  EXPECT_EQ(r.condition.kind, "assumption");
  EXPECT_GE(r.stats.extra.at("refinement_failures"), 1.0);
  // with refinement the same program is proved
  auto proved = runFailing(safe, 0);
  EXPECT_EQ(proved.verdict, Verdict::True) << proved.reason;
  EXPECT_EQ(proved.stats.extra.at("refinement_failures"), 0.0);
}

TEST_P(FailedRefinement, BugBehindTheCutTargetIsFound) {
  // every refinement fails: the spurious target after the second loop (expanded first:
  // both targets are at the error location, and ties go last-in-first-out) is cut, and
  // the real bug needs no refinement
  auto r = runFailing(kSpuriousThenReal, 1000);
  ASSERT_EQ(r.verdict, Verdict::False) << r.reason;
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_TRUE(r.counterexample->replayed);
  EXPECT_GE(r.stats.extra.at("refinement_failures"), 1.0);
}

INSTANTIATE_TEST_SUITE_P(PredAndImpact, FailedRefinement, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "impact" : "pred"); });

}  // namespace
