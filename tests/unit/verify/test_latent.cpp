// Manifest and latent findings (issue 29 item 4, README "Manifest and latent findings",
// core/result/replay.h): a counterexample of a non-main entry that depends on the entry's
// inputs is latent (verdict unknown, with its precondition); one that does not is
// manifest (false); a caller that passes the bad value makes a latent finding manifest
// (VerifyRequest::checkCallers); main's findings are always manifest. Each case in both
// data models, with bmc and kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/engine/verify.h"
#include "core/result/codec.h"
#include "core/result/sarif.h"
#include "tests/unit/verify/verify_helpers.h"

using namespace argus;
using argus::result::Verdict;

namespace {

const frontend::DataModel kModels[] = {frontend::DataModel::LP64, frontend::DataModel::ILP32};
const engine::Algorithm kAlgorithms[] = {engine::Algorithm::Bmc, engine::Algorithm::Kind};

std::string name(frontend::DataModel dm, engine::Algorithm alg) {
  return std::string(dm == frontend::DataModel::ILP32 ? "ILP32 " : "LP64 ") + engine::algorithmName(alg);
}

engine::VerifyOutcome run(const std::string& body, const std::string& function, frontend::DataModel dm,
                          engine::Algorithm alg, bool checkCallers = false) {
  engine::VerifyRequest req = argus::testing::snippetRequest(body, alg, smt::SolverKind::Z3, 60);
  req.function = function;
  req.dataModel = dm;
  req.maxBound = 8;
  req.checkCallers = checkCallers;
  return engine::verify(req);
}

// The line of the first occurrence of `what` in the snippet (the prelude comes first).
uint32_t lineOf(const std::string& body, const std::string& what) {
  std::string all = std::string(argus::testing::kPrelude) + body;
  size_t at = all.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  return 1 + static_cast<uint32_t>(std::count(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// unknown, a replayed latent counterexample whose first precondition part is `cond` at `line`
::testing::AssertionResult latent(const engine::VerifyOutcome& o, const std::string& cond, uint32_t line) {
  const result::VerificationResult& r = o.result;
  if (o.inputError) return ::testing::AssertionFailure() << o.error;
  if (r.verdict != Verdict::Unknown) return ::testing::AssertionFailure() << "verdict " << result::verdictName(r.verdict);
  if (!r.counterexample) return ::testing::AssertionFailure() << "no counterexample (" << r.reason << ")";
  const result::Counterexample& c = *r.counterexample;
  if (!c.replayed || c.finding != "latent") return ::testing::AssertionFailure() << "finding " << c.finding;
  if (c.precondition.empty()) return ::testing::AssertionFailure() << "no precondition";
  if (c.precondition[0].condition != cond || c.precondition[0].line != line || c.precondition[0].file != "test.c")
    return ::testing::AssertionFailure() << "precondition " << result::preconditionText(c);
  if (r.reason.rfind("latent finding: fails if on entry: " + cond + " (test.c:" + std::to_string(line) + ")", 0) != 0)
    return ::testing::AssertionFailure() << "reason " << r.reason;
  return ::testing::AssertionSuccess();
}

// false, a replayed manifest counterexample from `entry`
::testing::AssertionResult manifest(const engine::VerifyOutcome& o, const std::string& entry) {
  const result::VerificationResult& r = o.result;
  if (o.inputError) return ::testing::AssertionFailure() << o.error;
  if (r.verdict != Verdict::False) return ::testing::AssertionFailure() << "verdict " << result::verdictName(r.verdict) << ": " << r.reason;
  if (!r.counterexample || !r.counterexample->replayed) return ::testing::AssertionFailure() << "no replayed counterexample";
  if (r.counterexample->finding != "manifest" || !r.counterexample->precondition.empty())
    return ::testing::AssertionFailure() << "finding " << r.counterexample->finding;
  if (r.counterexample->entry != entry) return ::testing::AssertionFailure() << "from " << r.counterexample->entry;
  return ::testing::AssertionSuccess();
}

const std::string kNoBadCaller =
    "int f(int x) {\n"
    "  if (x > 100) reach_error();\n"
    "  return x;\n"
    "}\n"
    "int main(void) { return f(1) + f(2); }\n";

TEST(Latent, AFindingOnAParameterStaysLatentWhenNoCallerPassesTheValue) {
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(kNoBadCaller, "f", dm, alg);
      EXPECT_TRUE(latent(o, "x > 100", lineOf(kNoBadCaller, "if (x > 100)"))) << name(dm, alg);
      // the one caller, main, passes 1 and 2: still latent, the caller was checked
      auto c = run(kNoBadCaller, "f", dm, alg, true);
      EXPECT_TRUE(latent(c, "x > 100", lineOf(kNoBadCaller, "if (x > 100)"))) << name(dm, alg);
      EXPECT_EQ(c.result.stats.extra["callers_checked"], 1) << name(dm, alg);
      EXPECT_EQ(c.result.stats.extra.count("manifest_via_caller"), 0u) << name(dm, alg);
      // and main itself is verified
      EXPECT_EQ(run(kNoBadCaller, "main", dm, alg).result.verdict, Verdict::True) << name(dm, alg);
    }
}

TEST(Latent, ACallerPassingTheBadValueMakesItManifest) {
  const std::string code =
      "int f(int x) {\n"
      "  if (x > 100) reach_error();\n"
      "  return x;\n"
      "}\n"
      "int g(int y) { return y; }\n"
      "int main(void) { return f(1) + g(2) + f(500); }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      EXPECT_TRUE(latent(run(code, "f", dm, alg), "x > 100", lineOf(code, "if (x > 100)"))) << name(dm, alg);
      auto c = run(code, "f", dm, alg, true);
      EXPECT_TRUE(manifest(c, "main")) << name(dm, alg);
      EXPECT_EQ(c.result.entryName, "f");
      EXPECT_EQ(c.result.stats.extra["manifest_via_caller"], 1) << name(dm, alg);
      ASSERT_TRUE(c.result.counterexample);
      // the whole path from main, through f, to the same reach_error
      EXPECT_EQ(c.result.counterexample->steps.back().line, lineOf(code, "if (x > 100)"));
      std::string text = result::toText(c.result);
      EXPECT_NE(text.find("manifest: the path comes from the caller 'main' and passes through 'f'"), std::string::npos) << text;
    }
}

// A variadic function verified as its own entry: its variadic arguments are entry inputs
// (the hidden parameter points to a buffer of any contents), so a finding that needs one
// of them is latent; a caller that passes the bad value makes it manifest.
TEST(Latent, VariadicArgumentsAreEntryInputs) {
  const std::string good =
      "typedef __builtin_va_list va_list;\n"
      "int pick(int n, ...) {\n"
      "  va_list ap;\n"
      "  __builtin_va_start(ap, n);\n"
      "  int v = __builtin_va_arg(ap, int);\n"
      "  __builtin_va_end(ap);\n"
      "  if (v == 5) reach_error();\n"
      "  return v;\n"
      "}\n"
      "int main(void) { return pick(1, 4) + pick(2, 6, 5); }\n";
  std::string bad = good;
  bad.replace(bad.find("pick(2, 6, 5)"), 13, "pick(2, 5, 6)");
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(good, "pick", dm, alg);
      ASSERT_FALSE(o.inputError) << o.error;
      EXPECT_EQ(o.result.verdict, Verdict::Unknown) << name(dm, alg) << ": " << o.result.reason;
      ASSERT_TRUE(o.result.counterexample) << name(dm, alg) << ": " << o.result.reason;
      EXPECT_TRUE(o.result.counterexample->replayed);
      EXPECT_EQ(o.result.counterexample->finding, "latent") << name(dm, alg);
      EXPECT_FALSE(o.result.counterexample->precondition.empty()) << name(dm, alg);
      // main passes 4, then 6 (and 5 after it, never read): latent still
      auto c = run(good, "pick", dm, alg, true);
      EXPECT_EQ(c.result.stats.extra.count("manifest_via_caller"), 0u) << name(dm, alg);
      EXPECT_NE(c.result.verdict, Verdict::False) << name(dm, alg);
      EXPECT_EQ(run(good, "main", dm, alg).result.verdict, Verdict::True) << name(dm, alg);
      // main passes 5 first: manifest, from main
      EXPECT_TRUE(manifest(run(bad, "pick", dm, alg, true), "main")) << name(dm, alg);
      EXPECT_EQ(run(bad, "main", dm, alg).result.verdict, Verdict::False) << name(dm, alg);
    }
}

TEST(Latent, FindingsThatDoNotDependOnInputsAreManifestFromAnyEntry) {
  // a local loop overrunning an assertion, a parameter that does not matter
  const std::string loop =
      "int f(int x) { int n = 0;\n"
      "  for (int i = 0; i < 3; i++) n++;\n"
      "  if (!(n < 3)) reach_error();\n"
      "  return x; }\n";
  // the contents of the parameter's fresh object, written before they are read
  const std::string written = "int f(int *p) { *p = 3; if (*p == 3) reach_error(); return 0; }\n";
  // a value the function asks for itself
  const std::string own = "int f(void) { int x = __VERIFIER_nondet_int(); if (x == 9) reach_error(); return 0; }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      EXPECT_TRUE(manifest(run(loop, "f", dm, alg), "f")) << name(dm, alg);
      EXPECT_TRUE(manifest(run(written, "f", dm, alg), "f")) << name(dm, alg);
      EXPECT_TRUE(manifest(run(own, "f", dm, alg), "f")) << name(dm, alg);
    }
}

TEST(Latent, InputsAreContentsOfHarnessObjectsGlobalsAndNullChoices) {
  const std::string contents = "int f(int *p) { if (*p == 3) reach_error(); return 0; }\n";
  const std::string global = "int g;\nint f(void) { if (g == 9) reach_error(); return 0; }\n";
  const std::string null = "int f(int *p) { if (p) return 1; reach_error(); return 0; }\n";
  // through arithmetic, a local copy and a call
  const std::string flow =
      "int twice(int v) { return 2 * v; }\n"
      "int f(int x) { int y = twice(x) + 1; int a[2]; a[1] = y;\n"
      "  if (a[1] == 15) reach_error(); return 0; }\n";
  // the failing direction of a negated comparison reads as its opposite
  const std::string negated = "int f(int x) { if (!(x < 10)) reach_error(); return 0; }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      EXPECT_TRUE(latent(run(contents, "f", dm, alg), "*p == 3", lineOf(contents, "int f"))) << name(dm, alg);
      EXPECT_TRUE(latent(run(global, "f", dm, alg), "g == 9", lineOf(global, "int f"))) << name(dm, alg);
      // the harness's null is an input; the precondition is the program's own test of it
      EXPECT_TRUE(latent(run(null, "f", dm, alg), "!(p)", lineOf(null, "int f"))) << name(dm, alg);
      EXPECT_TRUE(latent(run(flow, "f", dm, alg), "a[1] == 15", lineOf(flow, "  if (a[1]"))) << name(dm, alg);
      EXPECT_TRUE(latent(run(negated, "f", dm, alg), "x >= 10", lineOf(negated, "int f"))) << name(dm, alg);
    }
}

// A pointer slot the harness leaves null because its depth bound is reached is a
// modelling bound, not a fact: a finding that needs it is latent. (SQLite's
// `assert( p->pNext==0 || p->pNext->pBt>p->pBt )` was reported manifest, `false`, with
// pNext's pBt null only because the harness stops at depth 2.)
TEST(Latent, ASlotNullAtTheHarnessDepthBoundIsAnInput) {
  const std::string code =
      "struct B { int x; };\n"
      "struct N { struct B *b; };\n"
      "struct P { struct N *next; };\n"
      "int f(struct P *p) { if (p->next->b == 0) reach_error(); return 0; }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms)
      EXPECT_TRUE(latent(run(code, "f", dm, alg), "p->next->b == 0", lineOf(code, "int f"))) << name(dm, alg);
}

TEST(Latent, MainFindingsAreManifest) {
  const std::string code =
      "int f(int x) { if (x > 100) reach_error(); return x; }\n"
      "int main(void) { int v = __VERIFIER_nondet_int(); return f(v); }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) EXPECT_TRUE(manifest(run(code, "main", dm, alg), "main")) << name(dm, alg);
}

TEST(Latent, JsonTextSarifAndCodecCarryTheFinding) {
  auto o = run(kNoBadCaller, "f", frontend::DataModel::LP64, engine::Algorithm::Bmc);
  uint32_t line = lineOf(kNoBadCaller, "if (x > 100)");
  ASSERT_TRUE(latent(o, "x > 100", line));
  const std::string pre = "fails if on entry: x > 100 (test.c:" + std::to_string(line) + ")";
  nlohmann::json j = result::toJson(o.result);
  EXPECT_EQ(j["verdict"], "unknown");
  EXPECT_EQ(j["counterexample"]["finding"], "latent");
  EXPECT_EQ(j["counterexample"]["precondition"]["text"], pre);
  ASSERT_EQ(j["counterexample"]["precondition"]["conditions"].size(), 1u);
  EXPECT_EQ(j["counterexample"]["precondition"]["conditions"][0]["condition"], "x > 100");
  EXPECT_EQ(j["counterexample"]["precondition"]["conditions"][0]["function"], "f");
  EXPECT_EQ(j["counterexample"]["precondition"]["conditions"][0]["line"], line);
  std::string text = result::toText(o.result);
  EXPECT_NE(text.find("\nlatent: " + pre + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("VERDICT: unknown"), std::string::npos) << text;
  // SARIF: a warning with the path, not an error
  nlohmann::json s = result::toSarif({{"test.c", j}}, {});
  const nlohmann::json& res = s["runs"][0]["results"];
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0]["level"], "warning");
  EXPECT_EQ(res[0]["properties"]["finding"], "latent");
  EXPECT_FALSE(res[0]["codeFlows"].empty());
  // the codec (daemon workers, parallel stages, result stores) round trip
  result::VerificationResult back = result::decodeResult(result::encodeResult(o.result));
  ASSERT_TRUE(back.counterexample);
  EXPECT_EQ(back.counterexample->finding, "latent");
  ASSERT_EQ(back.counterexample->precondition.size(), 1u);
  EXPECT_EQ(back.counterexample->precondition[0].condition, "x > 100");
  EXPECT_EQ(back.counterexample->precondition[0].function, "f");
  EXPECT_EQ(back.counterexample->precondition[0].file, "test.c");
  EXPECT_EQ(back.counterexample->precondition[0].line, line);
  EXPECT_TRUE(result::isLatent(back));
  EXPECT_EQ(result::toJson(back), j);
  // a manifest one: SARIF error, JSON finding manifest without precondition
  auto m = run("int f(void) { int x = __VERIFIER_nondet_int(); if (x == 9) reach_error(); return 0; }\n", "f",
               frontend::DataModel::LP64, engine::Algorithm::Bmc);
  ASSERT_TRUE(manifest(m, "f"));
  nlohmann::json mj = result::toJson(m.result);
  EXPECT_EQ(mj["counterexample"]["finding"], "manifest");
  EXPECT_FALSE(mj["counterexample"].contains("precondition"));
  EXPECT_EQ(result::toSarif({{"test.c", mj}}, {})["runs"][0]["results"][0]["level"], "error");
  EXPECT_EQ(result::decodeResult(result::encodeResult(m.result)).counterexample->finding, "manifest");
}

}  // namespace

namespace {

// Issue 29 (readable preconditions): a condition written as a macro's argument reads as
// the user wrote it (SQLite's `assert( op>=0 && op<ArraySize(x) )`), not as the whole
// macro invocation; a condition of the macro's own body keeps the invocation's text.
TEST(Latent, APreconditionFromAMacroArgumentIsItsWrittenText) {
  const std::string code =
      "#define ArraySize(X) ((int)(sizeof(X)/sizeof(X[0])))\n"
      "#define myassert(x) ((x) ? (void)0 : reach_error())\n"
      "#define CHECK_OP(o) myassert( (o)>=0 && (o)<ArraySize(table) )\n"
      "int table[4];\n"
      "int f(int op) {\n"
      "  myassert( op>=0 && op<ArraySize(table) );\n"
      "  return table[op];\n"
      "}\n"
      "int g(int op) {\n"
      "  CHECK_OP(op);\n"
      "  return table[op];\n"
      "}\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "f", dm, alg);
      ASSERT_TRUE(o.result.counterexample) << name(dm, alg) << ": " << o.result.reason;
      std::string pre = result::preconditionText(*o.result.counterexample);
      EXPECT_EQ(o.result.counterexample->finding, "latent") << pre;
      // the decisions in path order, each the text of one operand as written
      bool low = pre.find("!(op>=0)") != std::string::npos || pre.find("op < 0") != std::string::npos;
      bool high = pre.find("op >= ArraySize(table)") != std::string::npos;
      EXPECT_TRUE(low || high) << name(dm, alg) << ": " << pre;
      EXPECT_EQ(pre.find("myassert"), std::string::npos) << name(dm, alg) << ": " << pre;
      // a macro whose argument is a macro's own body text: the inner argument is what the user wrote
      auto g = run(code, "g", dm, alg);
      ASSERT_TRUE(g.result.counterexample) << name(dm, alg) << ": " << g.result.reason;
      std::string gp = result::preconditionText(*g.result.counterexample);
      EXPECT_EQ(gp.find("myassert"), std::string::npos) << name(dm, alg) << ": " << gp;
      EXPECT_NE(gp.find("CHECK_OP(op)"), std::string::npos) << name(dm, alg) << ": " << gp;
    }
}

// A condition whose argument begins with a macro of its own (SQLite's `assert(
// sqlite3GlobalConfig.mutex.xMutexInit )`, sqlite3GlobalConfig a macro): its text is the
// argument as written, not the whole assert.
TEST(Latent, APreconditionWhoseArgumentBeginsWithAMacroIsItsWrittenText) {
  const std::string code =
      "#define myassert(x) ((x) ? (void)0 : reach_error())\n"
      "struct cfg { int isInit, flags; int (*init)(void); int (*alloc)(void); } config;\n"
      "#define GlobalConfig config\n"
      "#define FIELD(p) p.alloc\n"
      "#define UsesList(p) (((p).flags&4)==0)\n"
      "int f(void) {\n"
      "  if (!GlobalConfig.isInit) {\n"
      "    myassert( GlobalConfig.init );\n"
      "    myassert( FIELD(GlobalConfig) );\n"
      "    myassert( UsesList(GlobalConfig) );\n"
      "  }\n"
      "  return 0;\n"
      "}\n";
  for (auto dm : kModels) {
    auto o = run(code, "f", dm, engine::Algorithm::Bmc);
    ASSERT_TRUE(o.result.counterexample) << o.result.reason;
    EXPECT_EQ(o.result.counterexample->finding, "latent");
    // two findings (in the solver's order): each precondition as written
    std::vector<std::string> texts{result::preconditionText(*o.result.counterexample)};
    for (const auto& c : o.result.moreLatent) texts.push_back(result::preconditionText(c));
    bool first = false, second = false, third = false;
    for (const std::string& t : texts) {
      EXPECT_EQ(t.find("myassert"), std::string::npos) << t;
      EXPECT_NE(t.find("!(GlobalConfig.isInit)"), std::string::npos) << t;
      first = first || t.find("!(GlobalConfig.init)") != std::string::npos;
      // a nested invocation at the start of the argument
      second = second || t.find("!(FIELD(GlobalConfig))") != std::string::npos;
      // a macro whose body is the whole condition: its invocation
      third = third || t.find("!(UsesList(GlobalConfig))") != std::string::npos;
    }
    EXPECT_TRUE(third) << result::toJson(o.result).dump();
    EXPECT_TRUE(first) << result::toJson(o.result).dump();
    EXPECT_TRUE(second) << result::toJson(o.result).dump();
  }
}

}  // namespace

namespace {

// Issue 29 item 4, "unknown listing them": after a latent finding the run goes on with that
// check cut (VerifyRequest::continueAfterLatent) and lists each further latent finding;
// the condition says what it verified of every other check.
TEST(Latent, TheRunGoesOnAfterALatentFindingAndListsTheNext) {
  const std::string code =
      "int table[10];\n"
      "int f(int op, int n) {\n"
      "  if (!(op >= 0 && op < 10)) reach_error();\n"
      "  int s = table[op];\n"
      "  if (n == 7) reach_error();\n"
      "  if (s > 5 && s < 2) reach_error();\n"  // never: the rest is proved
      "  return s;\n"
      "}\n";
  const uint32_t second = lineOf(code, "if (n == 7)");
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "f", dm, alg);
      const result::VerificationResult& r = o.result;
      ASSERT_EQ(r.verdict, Verdict::Unknown) << name(dm, alg) << ": " << r.reason;
      ASSERT_TRUE(result::isLatent(r)) << name(dm, alg);
      ASSERT_EQ(r.moreLatent.size(), 1u) << name(dm, alg) << ": " << r.reason;
      // the two findings are the two checks, in either order, each with its own precondition
      const result::Counterexample* atN = r.moreLatent[0].steps.back().line == second ? &r.moreLatent[0]
                                          : r.counterexample->steps.back().line == second ? &*r.counterexample
                                                                                         : nullptr;
      ASSERT_NE(atN, nullptr) << name(dm, alg) << ": " << r.reason;
      EXPECT_EQ(atN->finding, "latent");
      EXPECT_TRUE(atN->replayed);
      EXPECT_NE(result::preconditionText(*atN).find("n == 7 (test.c:" + std::to_string(second) + ")"), std::string::npos)
          << result::preconditionText(*atN);
      EXPECT_NE(r.condition.summary.find("2 errors are reachable"), std::string::npos) << r.condition.summary;
      EXPECT_NE(r.condition.summary.find("every other check proved"), std::string::npos) << r.condition.summary;
      EXPECT_NE(r.reason.find("; latent finding at test.c:"), std::string::npos) << r.reason;
      EXPECT_EQ(r.stats.extra.at("latent_findings"), 2);
      // JSON lists it, the codec keeps it with its path
      nlohmann::json j = result::toJson(r);
      ASSERT_EQ(j["more_latent"].size(), 1u);
      EXPECT_EQ(j["more_latent"][0]["finding"], "latent");
      result::VerificationResult back = result::decodeResult(result::encodeResult(r));
      ASSERT_EQ(back.moreLatent.size(), 1u);
      EXPECT_EQ(back.moreLatent[0].steps.size(), r.moreLatent[0].steps.size());
      EXPECT_EQ(result::preconditionText(back.moreLatent[0]), result::preconditionText(r.moreLatent[0]));
      EXPECT_EQ(result::toJson(back), j);
      EXPECT_NE(result::toText(r).find("\nlatent finding at test.c:"), std::string::npos) << result::toText(r);
    }
}

// An error every input reaches once the function's latent checks hold is manifest: the
// path's only input decision passes a latent finding's check (its other branch fails that
// check). The run may meet either first: the check (then the error's path passes a check
// already cut), or the error, latent on `op >= 0` until the check is found and the error
// is verified again with the check cut.
TEST(Latent, AnErrorBehindALatentCheckIsManifest) {
  const std::string code =
      "int f(int op) {\n"
      "  if (op < 0) reach_error();\n"
      "  int k = 3;\n"
      "  if (k == 3) reach_error();\n"
      "  return op;\n"
      "}\n";
  const uint32_t bugLine = lineOf(code, "if (k == 3)");
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "f", dm, alg);
      const result::VerificationResult& r = o.result;
      ASSERT_EQ(r.verdict, Verdict::False) << name(dm, alg) << ": " << r.reason;
      ASSERT_TRUE(r.counterexample && r.counterexample->replayed);
      EXPECT_EQ(r.counterexample->finding, "manifest");
      EXPECT_EQ(r.counterexample->steps.back().line, bugLine);
      EXPECT_NE(r.counterexample->manifestGiven.find("passes the check of a latent finding"), std::string::npos);
      ASSERT_EQ(r.moreLatent.size(), 1u) << name(dm, alg);  // `op < 0` stays listed
      EXPECT_NE(result::preconditionText(r.moreLatent[0]).find("op < 0"), std::string::npos);
      EXPECT_EQ(result::toJson(r)["counterexample"]["manifest_given"], r.counterexample->manifestGiven);
    }
}

// The same error behind a branch that is not a check stays latent: an input with op < 0
// fails nothing.
TEST(Latent, AnErrorBehindAPlainBranchStaysLatent) {
  const std::string code =
      "int f(int op) {\n"
      "  if (op >= 0) { int k = 3; if (k == 3) reach_error(); }\n"
      "  return op;\n"
      "}\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "f", dm, alg);
      ASSERT_EQ(o.result.verdict, Verdict::Unknown) << name(dm, alg) << ": " << o.result.reason;
      EXPECT_TRUE(result::isLatent(o.result));
    }
}

// ... but not when the later error also needs an input decision of its own.
TEST(Latent, AnErrorThatNeedsItsOwnInputStaysLatent) {
  const std::string code =
      "int f(int op, int n) {\n"
      "  if (op < 0) reach_error();\n"
      "  if (n > op) reach_error();\n"
      "  return op;\n"
      "}\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "f", dm, alg);
      ASSERT_EQ(o.result.verdict, Verdict::Unknown) << name(dm, alg) << ": " << o.result.reason;
      EXPECT_TRUE(result::isLatent(o.result));
      EXPECT_EQ(o.result.moreLatent.size(), 1u) << o.result.reason;
    }
}

// Without a time limit or a bound the run stops at the first latent finding, as before.
TEST(Latent, NoContinuationWithoutALimit) {
  engine::VerifyRequest req = argus::testing::snippetRequest(
      "int f(int op, int n) { if (op < 0) reach_error(); if (n == 7) reach_error(); return op; }\n",
      engine::Algorithm::Bmc, smt::SolverKind::Z3, 0);
  req.function = "f";
  auto o = engine::verify(req);
  ASSERT_TRUE(result::isLatent(o.result)) << o.result.reason;
  EXPECT_TRUE(o.result.moreLatent.empty());
  req.continueAfterLatent = false;
  req.timeoutS = 30;
  o = engine::verify(req);
  ASSERT_TRUE(result::isLatent(o.result)) << o.result.reason;
  EXPECT_TRUE(o.result.moreLatent.empty());
}

// `argus verify` after a latent finding: the continuation (the rest of the entry) comes
// first with at most half of the time left, then the callers' check of the first finding
// (VerifyRequest::checkCallers, kCallerCheckShare). Two callers whose checks never end (bmc
// deepens a loop for ever) no longer leave the continuation nothing: the entry's second
// finding is listed.
TEST(Latent, CallersChecksLeaveTheContinuationItsTime) {
  const std::string code =
      "int f(int op, int n) {\n"
      "  if (op < 0) reach_error();\n"
      "  if (n == 7) reach_error();\n"
      "  return op;\n"
      "}\n"
      "int g(void) { unsigned i = 0; while (__VERIFIER_nondet_int()) i++; return f(1, (int)(i % 5u)); }\n"
      "int h(void) { unsigned i = 0; while (__VERIFIER_nondet_int()) i += 2; return f(2, (int)(i % 3u)); }\n";
  engine::VerifyRequest req = argus::testing::snippetRequest(code, engine::Algorithm::Bmc, smt::SolverKind::Z3, 8);
  req.function = "f";
  req.checkCallers = true;
  auto o = engine::verify(req);
  const result::VerificationResult& r = o.result;
  ASSERT_TRUE(result::isLatent(r)) << r.reason;
  EXPECT_EQ(r.stats.extra.at("callers_checked"), 2);
  EXPECT_EQ(r.stats.extra.count("manifest_via_caller"), 0u);
  EXPECT_GE(r.stats.extra.at("latent_continuations"), 1);
  EXPECT_EQ(r.moreLatent.size(), 1u) << r.reason;
  EXPECT_NE(r.condition.summary.find("2 errors are reachable"), std::string::npos) << r.condition.summary;
}

// ... and a continuation that runs to its limit (bmc deepens the loop for ever) leaves the
// callers their share: the caller passing the bad value still makes the finding manifest.
TEST(Latent, AContinuationToItsLimitLeavesTheCallersTheirShare) {
  const std::string code =
      "int f(int op) {\n"
      "  if (op < 0) reach_error();\n"
      "  unsigned i = 0;\n"
      "  while (__VERIFIER_nondet_int()) i = i * 3u + 1u;\n"
      "  if (i == 2u) reach_error();\n"
      "  return op;\n"
      "}\n"
      "int main(void) { return f(-1); }\n";
  engine::VerifyRequest req = argus::testing::snippetRequest(code, engine::Algorithm::Bmc, smt::SolverKind::Z3, 6);
  req.function = "f";
  req.checkCallers = true;
  auto o = engine::verify(req);
  const result::VerificationResult& r = o.result;
  ASSERT_TRUE(manifest(o, "main")) << r.reason;
  EXPECT_EQ(r.stats.extra.at("manifest_via_caller"), 1);
  EXPECT_GE(r.stats.extra.at("latent_continuations"), 1);
  EXPECT_EQ(r.counterexample->steps.back().line, lineOf(code, "if (op < 0)"));
}

}  // namespace

namespace {

// The harness's null choices a path took that its error does not need are dropped
// (algorithms::withoutNeedlessNulls): the precondition names only what the error needs,
// and an error that needs nothing is manifest.
TEST(Latent, ANullTheErrorDoesNotNeedIsNoPartOfThePrecondition) {
  const std::string code =
      "struct node { struct node *next; struct node *prev; int v; };\n"
      "void h(struct node *p) {\n"
      "  if (p == 0) reach_error();\n"
      "  if (p->next == 0 && p->prev == 0) p->v = 1;\n"  // both tested: both nullable
      "}\n"
      "int k(struct node *p) {\n"
      "  int r = 0;\n"
      "  if (p->next) r++;\n"
      "  if (p->prev) r++;\n"
      "  int z = 0;\n"
      "  if (!z) reach_error();\n"
      "  return r;\n"
      "}\n";
  const uint32_t line = lineOf(code, "  if (p == 0)");
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "h", dm, alg);
      ASSERT_TRUE(result::isLatent(o.result)) << name(dm, alg) << ": " << o.result.reason;
      EXPECT_EQ(result::preconditionText(*o.result.counterexample),
                "fails if on entry: p == 0 (test.c:" + std::to_string(line) + ")")
          << name(dm, alg);
      EXPECT_TRUE(manifest(run(code, "k", dm, alg), "k")) << name(dm, alg);
    }
}

// Globals the harness may leave null (each tested against null somewhere), their objects'
// nullable pointers too, and a path that reads none of them before its error: the
// precondition is the entry's own condition only, whichever nulls the solver chose for the
// globals (SQLite's exprMightBeIndexed listed 30 nulls of page-cache globals first).
TEST(Latent, NullsOfGlobalsThePathNeverReadsAreNoPartOfThePrecondition) {
  std::string code = "struct node { struct node *next; struct node *prev; int v; };\n";
  for (int i = 0; i < 40; ++i) code += "struct node *g" + std::to_string(i) + ";\n";
  code += "int count(void) {\n  int k = 0;\n";
  for (int i = 0; i < 40; ++i) {
    std::string g = "g" + std::to_string(i);
    code += "  if (" + g + " != 0 && " + g + "->next != 0 && " + g + "->prev == 0) k++;\n";
  }
  code += "  return k;\n}\nint f(int x) {\n  if (x == 7) reach_error();\n  return count();\n}\n";
  const uint32_t line = lineOf(code, "  if (x == 7)");
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "f", dm, alg);
      ASSERT_TRUE(result::isLatent(o.result)) << name(dm, alg) << ": " << o.result.reason;
      EXPECT_EQ(result::preconditionText(*o.result.counterexample),
                "fails if on entry: x == 7 (test.c:" + std::to_string(line) + ")")
          << name(dm, alg);
      // the text trace shows the model's object choices as one line; JSON has each step
      const std::string text = result::toText(o.result);
      size_t choices = 0;
      for (const result::TraceStep& s : o.result.counterexample->steps)
        choices += s.statement.find(" may be null") != std::string::npos;
      EXPECT_GE(choices, 40u) << name(dm, alg);
      EXPECT_EQ(text.find(" may be null"), std::string::npos) << name(dm, alg) << ":\n" << text;
      EXPECT_NE(text.find(" pointers in g0, g1, g2"), std::string::npos) << name(dm, alg) << ":\n" << text;
      EXPECT_NE(text.find(" point to fresh objects (not null)\n"), std::string::npos) << name(dm, alg);
      // the globals' nondeterministic initial values, which the model assigns again, are
      // not shown ("g0 = NULL" before the model's object said the opposite)
      for (const result::TraceStep& s : o.result.counterexample->steps)
        EXPECT_EQ(s.statement.find("(nondeterministic)"), std::string::npos) << name(dm, alg) << ": " << s.statement;
      // the span line keeps the columns of the others and names its file and line
      std::istringstream lines(text);
      std::set<size_t> columns;
      size_t spans = 0;
      for (std::string l; std::getline(lines, l);) {
        const size_t at = l.find("  test.c:");
        if (l.find(" pointers in ") != std::string::npos) {
          ++spans;
          EXPECT_NE(at, std::string::npos) << l;
        }
        if (at != std::string::npos && l.find_first_not_of(" 0123456789-") == at + 2) columns.insert(at);
      }
      EXPECT_EQ(spans, 1u) << name(dm, alg) << ":\n" << text;
      EXPECT_EQ(columns.size(), 1u) << name(dm, alg) << ":\n" << text;
    }
}


// A condition a callee evaluates is named with that callee: both functions call their
// parameter p, and "p->state == 1, !(p)" would read as a contradiction (SQLite's
// sqlite3_bind_double: its own p->eVdbeState and sqlite3_mutex_enter's p).
TEST(Latent, ConditionsOfCalleesNameTheCallee) {
  const std::string code =
      "struct mutex { int held; };\n"
      "struct stmt { int state; struct mutex *mx; };\n"
      "void enter(struct mutex *p) {\n"
      "  if (!p) return;\n"
      "  if (p->held) reach_error();\n"
      "}\n"
      "int bind(struct stmt *p) {\n"
      "  if (p->state == 1) enter(p->mx);\n"
      "  return 0;\n"
      "}\n";
  const uint32_t own = lineOf(code, "  if (p->state == 1)");
  const uint32_t callee = lineOf(code, "  if (p->held)");
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(code, "bind", dm, alg);
      ASSERT_TRUE(result::isLatent(o.result)) << name(dm, alg) << ": " << o.result.reason;
      const std::string text = result::preconditionText(*o.result.counterexample);
      EXPECT_EQ(text.rfind("fails if on entry: p->state == 1 (test.c:" + std::to_string(own) + "), ", 0), 0u)
          << name(dm, alg) << ": " << text;
      EXPECT_NE(text.find("p->held (in enter, test.c:" + std::to_string(callee) + ")"), std::string::npos)
          << name(dm, alg) << ": " << text;
    }
}

}  // namespace
