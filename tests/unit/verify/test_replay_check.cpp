// A path the concrete interpreter cannot replay is never reported as `false`.
#include <gtest/gtest.h>

#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::result::Verdict;
using argus::smt::SolverKind;

namespace {

const char* kBuggy =
    "extern int __VERIFIER_nondet_int(void); extern void reach_error(void);\n"
    "int main(){ int x = __VERIFIER_nondet_int(); if (x == 77) reach_error(); return 0; }\n";

TEST(ReplayCheck, CorruptedModelValuesGiveUnknown) {
  for (Algorithm alg : {Algorithm::Bmc, Algorithm::Ibmc}) {
    argus::engine::VerifyRequest req;
    req.file = "replay.c";
    req.source = kBuggy;
    req.algorithm = alg;
    req.timeoutS = 30;
    req.corruptReplayForTest = true;
    auto out = argus::engine::verify(req);
    ASSERT_FALSE(out.inputError) << out.error;
    EXPECT_EQ(out.result.verdict, Verdict::Unknown);
    EXPECT_NE(out.result.reason.find("did not replay"), std::string::npos) << out.result.reason;
    EXPECT_FALSE(out.result.counterexample.has_value());
  }
}

TEST(ReplayCheck, UncorruptedRunReportsReplayedFalse) {
  auto out = argus::testing::verifySource(kBuggy, Algorithm::Bmc, SolverKind::Z3);
  ASSERT_EQ(out.result.verdict, Verdict::False);
  ASSERT_TRUE(out.result.counterexample.has_value());
  EXPECT_TRUE(out.result.counterexample->replayed);
}

}  // namespace
