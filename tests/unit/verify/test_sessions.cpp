// Warm ibmc sessions: a shallow run's unwinding and solver are continued by the deep
// run (argusd's two stages), with the same verdicts as a fresh run.
#include <gtest/gtest.h>

#include "core/engine/sessions.h"
#include "core/engine/verify.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/verify_helpers.h"

using namespace argus;
using argus::result::Verdict;

namespace {

std::shared_ptr<frontend::ParseResult> parse(const std::string& body) {
  auto pr = std::make_shared<frontend::ParseResult>();
  *pr = frontend::parseSource(std::string(argus::testing::kPrelude) + body, "test.c", {});
  return pr;
}

engine::VerifyRequest request(const std::shared_ptr<frontend::ParseResult>& pr, engine::SessionCache& cache,
                              uint32_t maxBound, smt::SolverKind solver) {
  engine::VerifyRequest r;
  r.file = "test.c";
  r.algorithm = engine::Algorithm::Ibmc;
  r.solver = solver;
  r.maxBound = maxBound;
  r.timeoutS = 60;
  r.sessions = &cache;
  r.sessionKey = "tu|main";
  r.keepAlive = pr;
  return r;
}

class Sessions : public ::testing::TestWithParam<smt::SolverKind> {};

TEST_P(Sessions, DeepStageContinuesTheShallowOne) {
  auto pr = parse("int main(){ int s = 0; for (int i = 0; i < 7; i++) s += i; if (s != 21) reach_error(); return 0; }");
  ASSERT_TRUE(pr->ok()) << pr->diagnostics;
  engine::SessionCache cache;
  auto shallow = engine::verifyParsed(*pr->program, request(pr, cache, 3, GetParam()));
  EXPECT_EQ(shallow.result.verdict, Verdict::Unknown);
  EXPECT_EQ(shallow.result.condition.bound, 3u);
  EXPECT_EQ(cache.size(), 1u);
  auto deep = engine::verifyParsed(*pr->program, request(pr, cache, 0, GetParam()));
  EXPECT_EQ(deep.result.verdict, Verdict::True);
  EXPECT_EQ(cache.hits(), 1u);
  ASSERT_TRUE(deep.result.stats.extra.count("resumed_from_bound"));
  EXPECT_EQ(deep.result.stats.extra.at("resumed_from_bound"), 3);
  EXPECT_EQ(cache.size(), 0u);  // a final verdict is not kept
}

TEST_P(Sessions, BugBeyondTheShallowBoundIsFoundAndReplayed) {
  auto pr = parse("int main(){ unsigned n = __VERIFIER_nondet_uint(); for (unsigned i = 0; i < n; i++) if (i == 5) reach_error(); return 0; }");
  ASSERT_TRUE(pr->ok());
  engine::SessionCache cache;
  auto shallow = engine::verifyParsed(*pr->program, request(pr, cache, 3, GetParam()));
  EXPECT_EQ(shallow.result.verdict, Verdict::Unknown);
  auto deep = engine::verifyParsed(*pr->program, request(pr, cache, 0, GetParam()));
  ASSERT_EQ(deep.result.verdict, Verdict::False);
  ASSERT_TRUE(deep.result.counterexample.has_value());
  EXPECT_TRUE(deep.result.counterexample->replayed);
  EXPECT_EQ(deep.result.stats.extra.at("resumed_from_bound"), 3);
}

INSTANTIATE_TEST_SUITE_P(Backends, Sessions, ::testing::Values(smt::SolverKind::Z3, smt::SolverKind::CVC5),
                         [](const auto& info) { return std::string(smt::solverName(info.param)); });

TEST(SessionCache, EvictsLeastRecentlyUsed) {
  // An error edge, unreachable within bound 2, so each run keeps an incremental session
  // (a program without any error edge is verified without a solver, and keeps none).
  auto pr = parse("extern void reach_error(void);\nint main(){ int i = 0; while (i < 9) i++; if (i != 9) reach_error(); return 0; }");
  ASSERT_TRUE(pr->ok());
  engine::SessionCache cache(2);
  for (const char* key : {"a", "b", "c"}) {
    auto r = request(pr, cache, 2, smt::SolverKind::Z3);
    r.sessionKey = key;
    engine::verifyParsed(*pr->program, r);
  }
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.evictions(), 1u);
  EXPECT_EQ(cache.take("a"), nullptr);  // the oldest went first
  EXPECT_NE(cache.take("c"), nullptr);
}

}  // namespace
