// Properties beside reachability (issue 26): no-overflow, div-by-zero and shift as check
// edges added by the frontend (core/frontend/lower_checks.cpp), verified by every
// algorithm with no property-specific code. Each case runs under several algorithms:
// bmc must give the expected verdict, the others the expected one or unknown, never the
// opposite; every `false` must name the expected property and be replayed by the
// interpreter, which confirms the violation from the operands on its own.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::frontend::DataModel;
using argus::result::Verdict;
using argus::smt::SolverKind;

namespace {

struct PropCase {
  const char* name;
  const char* body;      // after kPrelude
  const char* property;  // --property
  Verdict lp64;
  Verdict ilp32;
  const char* violated;  // for false: the property the counterexample must name
  // Non-linear: a proof may time out even for bmc (a violation must still be found).
  bool hardProof = false;
};


const PropCase kCases[] = {
    {"add_overflow", "int main(){ int x = __VERIFIER_nondet_int(); int y = x + 1; return y; }", "no-overflow",
     Verdict::False, Verdict::False, "no-overflow"},
    {"add_guarded", "int main(){ int x = __VERIFIER_nondet_int(); if (x < 2147483647) { int y = x + 1; return y; } return 0; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"sub_overflow", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x < 0); int y = 2147483647 - x; return y; }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    {"unsigned_wraps", "int main(){ unsigned u = __VERIFIER_nondet_uint(); u = u + 1; u *= 3; return (int)(u & 1); }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"char_increment_is_conversion", "int main(){ char c = __VERIFIER_nondet_char(); c++; c += 100; short s = __VERIFIER_nondet_short(); s = s * s; return c + s; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"postfix_increment", "int main(){ int i = __VERIFIER_nondet_int(); i++; return i; }", "no-overflow",
     Verdict::False, Verdict::False, "no-overflow"},
    {"compound_mul", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 40000 && x < 50000); x *= x; return x; }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    {"mul_fits", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > -46340 && x < 46340); return x * x; }",
     "no-overflow", Verdict::True, Verdict::True, "", true},
    // long is 64 bits under LP64 (the product fits), 32 bits under ILP32 (it does not)
    {"long_mul_data_model", "int main(){ long a = __VERIFIER_nondet_long(), b = __VERIFIER_nondet_long(); __VERIFIER_assume(a > 65536 && a < 3037000000L && b > 65536 && b < 3037000000L); long c = a * b; return c > 0; }",
     "no-overflow", Verdict::True, Verdict::False, "no-overflow", true},
    {"negation", "int main(){ int x = __VERIFIER_nondet_int(); return -x; }", "no-overflow", Verdict::False,
     Verdict::False, "no-overflow"},
    {"negation_guarded", "int main(){ int x = __VERIFIER_nondet_int(); if (x != (-2147483647 - 1)) return -x; return 0; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"div_min_by_minus_one", "int main(){ int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(); __VERIFIER_assume(y != 0); return x / y; }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    {"div_by_zero", "int main(){ int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(); __VERIFIER_assume(y > -5 && y < 5); return x % y; }",
     "div-by-zero", Verdict::False, Verdict::False, "div-by-zero"},
    {"div_nonzero", "int main(){ int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(); __VERIFIER_assume(y != 0); return x / y; }",
     "div-by-zero", Verdict::True, Verdict::True, ""},
    {"unsigned_div_by_zero", "int main(){ unsigned x = __VERIFIER_nondet_uint(), y = __VERIFIER_nondet_uint(); __VERIFIER_assume(y < 3); return (int)(x / y); }",
     "div-by-zero", Verdict::False, Verdict::False, "div-by-zero"},
    {"shift_too_wide", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s >= 0 && s <= 32); return (int)(1u << s); }",
     "shift", Verdict::False, Verdict::False, "shift"},
    {"shift_negative", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s > -3 && s < 3); return 8 >> s; }", "shift",
     Verdict::False, Verdict::False, "shift"},
    {"shift_in_range", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s >= 0 && s < 32); return (int)(1u << s); }",
     "shift", Verdict::True, Verdict::True, ""},
    // the width of long decides
    {"shift_long_data_model", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s >= 0 && s < 40); unsigned long v = 1ul << s; return v != 0; }",
     "shift", Verdict::True, Verdict::False, "shift"},
    // two properties: the one violated on the path is named
    {"two_properties", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x == 0); return 10 / x; }",
     "no-overflow,div-by-zero", Verdict::False, Verdict::False, "div-by-zero"},
    // not checking unreach-call: an error call ends the execution, it is no violation
    {"error_call_not_checked", "int main(){ int x = __VERIFIER_nondet_int(); if (x > 5) reach_error(); return x; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    // ... while with unreach-call as well it is one, and named as such ("")
    {"error_call_and_overflow", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 0); if (x > 5) reach_error(); return x; }",
     "unreach-call,no-overflow", Verdict::False, Verdict::False, ""},
    // the overflow is in a callee
    {"overflow_in_callee", "int inc(int a) { return a + 1; } int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 2147483000); return inc(x); }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
};

struct AlgRun {
  Algorithm alg;
  bool mustDecide;  // the verdict must be the expected one (else: expected or unknown)
};

// bmc decides every case; kind, pred, explicit, impact and ibmc must agree or say
// unknown (within 5 s). auto and cmc are chains of these.
const AlgRun kRuns[] = {{Algorithm::Bmc, true},   {Algorithm::Kind, false},     {Algorithm::Pred, false},
                        {Algorithm::Explicit, false}, {Algorithm::Impact, false}, {Algorithm::Ibmc, false}};

class PropertyTest : public ::testing::TestWithParam<PropCase> {};

TEST_P(PropertyTest, VerdictAndViolatedProperty) {
  const PropCase& c = GetParam();
  for (DataModel dm : {DataModel::LP64, DataModel::ILP32}) {
    Verdict expected = dm == DataModel::LP64 ? c.lp64 : c.ilp32;
    for (const AlgRun& run : kRuns) {
      argus::engine::VerifyRequest req;
      req.file = "test.c";
      req.source = std::string(argus::testing::kPrelude) + c.body;
      req.algorithm = run.alg;
      req.solver = SolverKind::Z3;
      req.dataModel = dm;
      req.timeoutS = run.mustDecide ? 30 : 5;
      req.property = c.property;
      argus::engine::VerifyOutcome out = argus::engine::verify(req);
      std::string what = std::string(c.name) + " " + argus::engine::algorithmName(run.alg) + " " +
                         (dm == DataModel::LP64 ? "LP64" : "ILP32") + ": " +
                         argus::result::verdictText(out.result) + " " + out.result.reason;
      ASSERT_FALSE(out.inputError) << what << out.error;
      EXPECT_EQ(out.result.property, c.property) << what;
      if (run.mustDecide && !(c.hardProof && expected == Verdict::True)) {
        EXPECT_EQ(out.result.verdict, expected) << what;
      } else {
        EXPECT_TRUE(out.result.verdict == expected || out.result.verdict == Verdict::Unknown) << what;
      }
      if (out.result.verdict == Verdict::False) {
        ASSERT_TRUE(out.result.counterexample) << what;
        EXPECT_TRUE(out.result.counterexample->replayed) << what;
        EXPECT_EQ(out.result.counterexample->property, c.violated) << what;
        std::string text = argus::result::verdictText(out.result);
        EXPECT_EQ(text, *c.violated ? "false(" + std::string(c.violated) + ")" : std::string("false")) << what;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Checks, PropertyTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<PropCase>& i) { return std::string(i.param.name); });

// Reachability users pay nothing: without --property (or with unreach-call) no check
// edge is added, and a program without an error call is proved without a solver.
TEST(Properties, NothingEncodedForReachability) {
  for (const char* prop : {"", "unreach-call"}) {
    argus::engine::VerifyRequest req;
    req.file = "test.c";
    req.source = std::string(argus::testing::kPrelude) +
                 "int main(){ int x = __VERIFIER_nondet_int(); int y = x + 1; return y / x << x; }";
    req.algorithm = Algorithm::Bmc;
    req.property = prop;
    auto out = argus::engine::verify(req);
    EXPECT_EQ(out.result.verdict, Verdict::True) << prop;
    EXPECT_EQ(out.result.stats.extra.count("no_error_location"), 1u) << prop;
    EXPECT_EQ(out.result.stats.solverQueries, 0u) << prop;
  }
}

// Memory safety is not checked yet: such a property is unknown, never true.
TEST(Properties, MemorySafetyIsUnknownNotTrue) {
  for (const char* prop : {"valid-memsafety", "valid-memcleanup", "valid-deref,no-overflow"}) {
    argus::engine::VerifyRequest req;
    req.file = "test.c";
    req.source = "#include <stdlib.h>\nint main(){ int *p = malloc(4); free(p); free(p); return 0; }";
    req.algorithm = Algorithm::Bmc;
    req.property = prop;
    auto out = argus::engine::verify(req);
    EXPECT_EQ(out.result.verdict, Verdict::Unknown) << prop;
    EXPECT_NE(out.result.reason.find("not checked"), std::string::npos) << out.result.reason;
  }
}

TEST(Properties, ParsesNamesAndPropertyFiles) {
  using argus::engine::parseProperties;
  EXPECT_EQ(parseProperties("no-overflow, shift"), (std::set<std::string>{"no-overflow", "shift"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G ! call(reach_error())) )\n"),
            (std::set<std::string>{"unreach-call"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G ! overflow) )\n"), (std::set<std::string>{"no-overflow"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n"
                            "CHECK( init(main()), LTL(G valid-memtrack) )\n"),
            (std::set<std::string>{"valid-memsafety"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G valid-memcleanup) )"), (std::set<std::string>{"valid-memcleanup"}));
  EXPECT_THROW(parseProperties("no-such-property"), std::invalid_argument);
  EXPECT_THROW(parseProperties("CHECK( init(main()), LTL(F end) )"), std::invalid_argument);
}

}  // namespace
