// Contracts the developer writes (issue 29 item 5, README "Contracts"): an ACSL
// `/*@ requires e; */` comment before a definition is assumed when the function is the
// verified entry and asserted at every call; a leading __VERIFIER_assume is a call-site
// check only in per-function runs (entry not main), never in a whole program's run.
// Each case in both data models, with bmc and kind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/engine/verify.h"
#include "core/frontend/contracts.h"
#include "core/frontend/frontend.h"
#include "core/result/result.h"
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
                          engine::Algorithm alg, const std::string& property = "") {
  engine::VerifyRequest req = argus::testing::snippetRequest(body, alg, smt::SolverKind::Z3, 60);
  req.function = function;
  req.dataModel = dm;
  req.maxBound = 8;
  req.property = property;
  return engine::verify(req);
}

uint32_t lineOf(const std::string& body, const std::string& what) {
  std::string all = std::string(argus::testing::kPrelude) + body;
  size_t at = all.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  return 1 + static_cast<uint32_t>(std::count(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

std::string describe(const engine::VerifyOutcome& o) {
  std::string s = std::string(result::verdictName(o.result.verdict)) + " (" + o.result.reason + ")";
  if (o.result.counterexample) s += " finding " + o.result.counterexample->finding + ", violation '" + o.result.counterexample->violation + "'";
  return s + (o.inputError ? " input error: " + o.error : "");
}

// false from `entry`, manifest, replayed, and the violation is the precondition `text`
::testing::AssertionResult preconditionViolated(const engine::VerifyOutcome& o, const std::string& entry,
                                                const std::string& text) {
  const result::VerificationResult& r = o.result;
  if (r.verdict != Verdict::False || !r.counterexample) return ::testing::AssertionFailure() << describe(o);
  const result::Counterexample& c = *r.counterexample;
  if (!c.replayed || c.finding != "manifest" || c.entry != entry) return ::testing::AssertionFailure() << describe(o);
  if (c.violation != text) return ::testing::AssertionFailure() << "violation '" << c.violation << "'";
  if (!c.property.empty()) return ::testing::AssertionFailure() << "property " << c.property;
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------- the rewrite

TEST(Contracts, TheRewriteKeepsLinesAndWarnsOutsideTheSubset) {
  const std::string code =
      "/*@ requires n > 0;\n"
      "  @ requires \\valid(p + (0 .. n-1)); */\n"
      "int f(int *p, int n)\n"
      "{\n"
      "  return p[n - 1];\n"
      "}\n"
      "/*@ requires \\forall int i; 0 <= i < n ==> p[i] > 0; */\n"
      "int g(int *p, int n) { return n; }\n"
      "/*@ requires 0 <= x < 10; ensures \\result == x; */\n"
      "int h(int x) { return x; }\n"
      "/*@ requires x > 0; */\n"
      "int k(int x);\n"
      "int m(int y) { /*@ assert y > 0; */ return y; }\n";
  frontend::ContractRewrite r = frontend::rewriteContracts(code, "c.c");
  ASSERT_TRUE(r.changed);
  EXPECT_TRUE(r.usesValid);
  EXPECT_EQ(std::count(r.code.begin(), r.code.end(), '\n'), std::count(code.begin(), code.end(), '\n'));
  ASSERT_EQ(r.clauses.size(), 2u);
  EXPECT_EQ(r.clauses[0].line, 1u);
  EXPECT_EQ(r.clauses[0].text, "requires n > 0");
  EXPECT_EQ(r.clauses[1].line, 2u);
  EXPECT_EQ(r.clauses[1].text, "requires \\valid(p + (0 .. n-1))");
  EXPECT_NE(r.code.find("{ __argus_requires((n > 0), 0); __argus_requires((__argus_valid_range((p), (long "
                        "long)(0), (long long)(n-1), sizeof(*(p)))), 1);\n"),
            std::string::npos)
      << r.code;
  auto warned = [&](const std::string& what) {
    for (const std::string& w : r.warnings)
      if (w.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(warned("c.c:7: warning: contract `requires \\forall int i`")) << ::testing::PrintToString(r.warnings);
  EXPECT_TRUE(warned("c.c:9: warning: contract `requires 0 <= x < 10` of h uses a chained comparison"))
      << ::testing::PrintToString(r.warnings);
  EXPECT_TRUE(warned("c.c:9: warning: contract clause `ensures \\result == x`")) << ::testing::PrintToString(r.warnings);
  EXPECT_TRUE(warned("c.c:11: warning: contract `requires x > 0` of k is not before a function definition"))
      << ::testing::PrintToString(r.warnings);
  EXPECT_TRUE(warned("c.c:13: warning: ACSL annotation inside a function body")) << ::testing::PrintToString(r.warnings);
  // nothing inserted for g, h, k, m
  EXPECT_EQ(r.code.find("__argus_requires", r.code.find("int g(")), std::string::npos);
  // a text without contracts is left alone
  EXPECT_FALSE(frontend::rewriteContracts("int f(void) { return 0; } /* @ requires */", "c.c").changed);
}

TEST(Contracts, AContractClangRejectsCostsTheContractsNotTheFile) {
  const std::string code =
      "/*@ requires nosuchname > 0; */\n"
      "int f(int x) { return x; }\n";
  frontend::ParseResult pr = frontend::parseSource(code, "c.c", {});
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  EXPECT_NE(pr.diagnostics.find("the contracts of this file are ignored"), std::string::npos) << pr.diagnostics;
}

// ---------------------------------------------------------------- requires

const std::string kRequires =
    "/*@ requires 0 <= x; requires x < 10; */\n"
    "int f(int x) {\n"
    "  if (x >= 10 || x < 0) reach_error();\n"
    "  return x;\n"
    "}\n";

TEST(Contracts, ARequiresIsAssumedAtTheEntry) {
  // without the contract, f's own check is a latent finding; with it, f is verified
  std::string plain = kRequires.substr(kRequires.find('\n') + 1) + "int main(void) { return f(3); }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto without = run(plain, "f", dm, alg);
      ASSERT_TRUE(without.result.counterexample) << describe(without) << " " << name(dm, alg);
      EXPECT_EQ(without.result.counterexample->finding, "latent") << name(dm, alg);
      auto with = run(kRequires + "int main(void) { return f(3); }\n", "f", dm, alg);
      EXPECT_EQ(with.result.verdict, Verdict::True) << describe(with) << " " << name(dm, alg);
      // the contract's own branches are not input decisions: a finding on every path the
      // contract allows stays manifest
      const std::string always = "/*@ requires x > 0; */\nint k(int x) {\n  reach_error();\n  return x;\n}\n";
      auto m = run(always, "k", dm, alg);
      EXPECT_EQ(m.result.verdict, Verdict::False) << describe(m) << " " << name(dm, alg);
      if (m.result.counterexample) { EXPECT_EQ(m.result.counterexample->finding, "manifest"); }
    }
}

TEST(Contracts, ARequiresIsAssertedAtEveryCallSite) {
  const std::string bad = kRequires + "int main(void) { int a = f(3); return a + f(10); }\n";
  const std::string good = kRequires + "int main(void) { return f(3) + f(9); }\n";
  const std::string passes = kRequires + "int g(int y) { return f(y); }\n";
  const std::string text = "precondition of f (test.c:" + std::to_string(lineOf(bad, "/*@")) +
                           ") violated at call site: requires x < 10";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(bad, "main", dm, alg);
      EXPECT_TRUE(preconditionViolated(o, "main", text)) << name(dm, alg);
      if (o.result.counterexample) {
        std::string t = result::toText(o.result);
        EXPECT_NE(t.find("violates: " + text), std::string::npos) << t;
      }
      auto g = run(good, "main", dm, alg);
      EXPECT_EQ(g.result.verdict, Verdict::True) << describe(g) << " " << name(dm, alg);
      // a caller that passes its own input: a latent finding of g, with g's precondition
      auto l = run(passes, "g", dm, alg);
      ASSERT_TRUE(l.result.counterexample) << describe(l) << " " << name(dm, alg);
      EXPECT_EQ(l.result.verdict, Verdict::Unknown) << name(dm, alg);
      EXPECT_EQ(l.result.counterexample->finding, "latent") << name(dm, alg);
      EXPECT_EQ(l.result.counterexample->violation.rfind("precondition of f (test.c:", 0), 0u) << describe(l);
    }
}

// ---------------------------------------------------------------- \valid

const std::string kValid =
    "/*@ requires 0 <= n && n <= 4;\n"
    "    requires \\valid(a + (0 .. n-1)); */\n"
    "int sum(int *a, int n) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++) s += a[i] & 1;\n"
    "  return s;\n"
    "}\n";

TEST(Contracts, ValidRangeIsTheEntrysObjectAndTheCallersCheck) {
  std::string plain = kValid.substr(kValid.find("int sum"));
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      // the entry: `a` holds n ints (without the contract: one, and a[1] is a latent finding)
      auto without = run(plain, "sum", dm, alg, "valid-deref");
      ASSERT_TRUE(without.result.counterexample) << describe(without) << " " << name(dm, alg);
      EXPECT_EQ(without.result.counterexample->finding, "latent") << name(dm, alg);
      auto with = run(kValid, "sum", dm, alg, "valid-deref");
      EXPECT_EQ(with.result.verdict, Verdict::True) << describe(with) << " " << name(dm, alg);
      // callers, with and without the memory-safety property (the layout is on either way)
      const std::string text = "precondition of sum (test.c:" + std::to_string(lineOf(kValid, "requires \\valid")) +
                               ") violated at call site: requires \\valid(a + (0 .. n-1))";
      for (const char* prop : {"", "valid-deref"}) {
        auto bad = run(kValid + "int main(void) { int b[3] = {1, 2, 3}; return sum(b, 4); }\n", "main", dm, alg, prop);
        if (*prop) {  // unreach-call not checked: the call goes on, and reads b[3]
          EXPECT_EQ(bad.result.verdict, Verdict::False) << describe(bad) << " " << name(dm, alg);
          if (bad.result.counterexample) { EXPECT_EQ(bad.result.counterexample->property, "valid-deref"); }
          continue;
        }
        EXPECT_TRUE(preconditionViolated(bad, "main", text)) << name(dm, alg) << " " << prop;
        auto heap = run(kValid + "int main(void) { int *b = malloc(3 * sizeof(int)); if (!b) return 0;"
                                 " b[0] = b[1] = b[2] = 0; int s = sum(b + 1, 3); free(b); return s; }\n",
                        "main", dm, alg, prop);
        EXPECT_TRUE(preconditionViolated(heap, "main", text)) << name(dm, alg) << " " << prop;
        auto good = run(kValid + "int main(void) { int b[4] = {1, 2, 3, 4}; return sum(b, 4) + sum(b + 1, 3) + sum(0, 0); }\n",
                        "main", dm, alg, prop);
        EXPECT_EQ(good.result.verdict, Verdict::True) << describe(good) << " " << name(dm, alg) << " " << prop;
      }
      // \valid(p): a null or freed pointer is not valid
      const std::string one =
          "/*@ requires \\valid(p); */\n"
          "int get(int *p) { return *p; }\n"
          "int main(void) { int *q = malloc(sizeof(int)); if (!q) return 0; *q = 1; free(q); return get(q); }\n";
      auto freed = run(one, "main", dm, alg);
      EXPECT_TRUE(preconditionViolated(freed, "main", "precondition of get (test.c:" + std::to_string(lineOf(one, "/*@")) +
                                                          ") violated at call site: requires \\valid(p)"))
          << name(dm, alg);
      const std::string ok = "/*@ requires \\valid(p); */\n"
                             "int get(int *p) { return *p; }\n"
                             "int main(void) { int x = 1; return get(&x); }\n";
      EXPECT_EQ(run(ok, "main", dm, alg).result.verdict, Verdict::True) << name(dm, alg);
    }
}

// ---------------------------------------------------------------- leading __VERIFIER_assume

const std::string kAssume =
    "int f(int x) {\n"
    "  __VERIFIER_assume(x > 0);\n"
    "  if (x <= 0) reach_error();\n"
    "  return x;\n"
    "}\n";

TEST(Contracts, ALeadingAssumeInAWholeProgramIsStillAnAssume) {
  const std::string prog = kAssume + "int main(void) { int v = __VERIFIER_nondet_int(); return f(v); }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(prog, "main", dm, alg);
      EXPECT_EQ(o.result.verdict, Verdict::True) << describe(o) << " " << name(dm, alg);
    }
}

TEST(Contracts, ALeadingAssumeIsACallSiteCheckInPerFunctionRuns) {
  const std::string code = kAssume + "int g(int y) { return f(y); }\nint h(int y) { return y > 5 ? f(y) : 0; }\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      // f itself: assumed
      auto f = run(code, "f", dm, alg);
      EXPECT_EQ(f.result.verdict, Verdict::True) << describe(f) << " " << name(dm, alg);
      // g passes any y: latent, naming f's precondition
      auto g = run(code, "g", dm, alg);
      ASSERT_TRUE(g.result.counterexample) << describe(g) << " " << name(dm, alg);
      EXPECT_EQ(g.result.counterexample->finding, "latent");
      EXPECT_EQ(g.result.counterexample->violation,
                "precondition of f (test.c:" + std::to_string(lineOf(code, "__VERIFIER_assume(x")) +
                    ") violated at call site: __VERIFIER_assume(x > 0)");
      // h establishes it
      auto h = run(code, "h", dm, alg);
      EXPECT_EQ(h.result.verdict, Verdict::True) << describe(h) << " " << name(dm, alg);
    }
}

}  // namespace

// ---------------------------------------------------------------- contracts on prototypes

TEST(Contracts, APrototypesContractIsTheDefinitionsWhenTheNamesAgree) {
  const std::string header =
      "#ifndef H_H\n"
      "#ifdef __cplusplus\n"
      "extern \"C\" {\n"
      "#endif\n"
      "/*@ requires x < 10; */\n"
      "int f(int x);\n"
      "/*@ requires a > 0; */\n"
      "int renamed(int a);\n"
      "/*@ requires y != 0; */\n"
      "int elsewhere(int y);\n"
      "#ifdef __cplusplus\n"
      "}\n"
      "#endif\n"
      "#endif\n";
  std::vector<frontend::DeclaredContract> declared = frontend::declaredContracts(header, "inc/h.h");
  ASSERT_EQ(declared.size(), 3u);
  EXPECT_EQ(declared[0].function, "f");
  EXPECT_EQ(declared[0].params, std::vector<std::string>{"x"});
  EXPECT_EQ(declared[0].line, 5u);  // inside the C++ guard's `extern "C" {`
  const std::string code =
      "#include \"h.h\"\n"
      "/*@ requires n >= 0; */\n"
      "int g(int n);\n"
      "int f(int x) { return x; }\n"
      "int renamed(int b) { return b; }\n"
      "int g(int n) { return n; }\n";
  frontend::ContractRewrite r = frontend::rewriteContracts(code, "m.c", true, declared);
  ASSERT_TRUE(r.changed);
  ASSERT_EQ(r.clauses.size(), 2u) << r.code;
  // f from the header (file and line of the header), g from its own prototype here
  EXPECT_NE(r.code.find("int f(int x) { __argus_requires((x < 10), "), std::string::npos) << r.code;
  EXPECT_NE(r.code.find("int g(int n) { __argus_requires((n >= 0), "), std::string::npos) << r.code;
  for (const frontend::ContractClause& c : r.clauses) {
    if (c.text == "requires x < 10") {
      EXPECT_EQ(c.file, "inc/h.h");
      EXPECT_EQ(c.line, 5u);
    } else {
      EXPECT_EQ(c.text, "requires n >= 0");
      EXPECT_EQ(c.file, "");
      EXPECT_EQ(c.line, 2u);
    }
  }
  // renamed's parameter is `b` in the definition, `a` in the prototype: not guessed
  EXPECT_EQ(r.code.find("__argus_requires((a > 0)"), std::string::npos) << r.code;
  bool warned = false;
  for (const std::string& w : r.warnings)
    warned = warned || w.find("inc/h.h:7: warning: the contract on the declaration of renamed is ignored: its parameter "
                              "names differ") != std::string::npos;
  EXPECT_TRUE(warned) << ::testing::PrintToString(r.warnings);
  // `elsewhere` has no definition in this file: another unit's business, no warning
  for (const std::string& w : r.warnings) EXPECT_EQ(w.find("elsewhere"), std::string::npos) << w;
  EXPECT_EQ(std::count(r.code.begin(), r.code.end(), '\n'), std::count(code.begin(), code.end(), '\n'));
}

TEST(Contracts, AHeadersPrototypeContractIsAssumedAndAsserted) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("argus-contracts-" + std::to_string(::getpid()));
  fs::create_directories(dir / "include");
  {
    std::ofstream h(dir / "include" / "lib.h");
    h << "void reach_error(void);\n/*@ requires 0 <= x && x < 10; */\nint f(int x);\n";
    std::ofstream c(dir / "m.c");
    c << "#include \"lib.h\"\n"
         "int f(int x) {\n"
         "  if (x >= 10 || x < 0) reach_error();\n"
         "  return x;\n"
         "}\n"
         "int good(void) { return f(3); }\n"
         "int bad(void) { return f(20); }\n";
  }
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      engine::VerifyRequest req;
      req.file = (dir / "m.c").string();
      req.algorithm = alg;
      req.dataModel = dm;
      req.timeoutS = 60;
      req.maxBound = 8;
      req.extraArgs = {"-I" + (dir / "include").string()};
      req.function = "f";
      auto own = engine::verify(req);
      EXPECT_EQ(own.result.verdict, Verdict::True) << describe(own) << " " << name(dm, alg);
      req.function = "good";
      auto g = engine::verify(req);
      EXPECT_EQ(g.result.verdict, Verdict::True) << describe(g) << " " << name(dm, alg);
      req.function = "bad";
      auto b = engine::verify(req);
      EXPECT_TRUE(preconditionViolated(b, "bad",
                                       "precondition of f (" + (dir / "include" / "lib.h").string() +
                                           ":2) violated at call site: requires 0 <= x && x < 10"))
          << name(dm, alg);
    }
  fs::remove_all(dir);
}

// ---------------------------------------------------------------- leading assertions

namespace {

// `assert(e)` statements that open a body (README "Contracts"): the function's precondition
// when it is verified on its own, a check at every call, and a check in `main` itself.
const std::string kAsserts =
    "#include <assert.h>\n"
    "int get(int *a, int i) {\n"
    "  int r;\n"
    "  assert(a != 0);\n"
    "  assert(i >= 0 && i < 4);\n"
    "  r = i + 1;\n"
    "  if (r > 4) reach_error();\n"
    "  return r;\n"
    "}\n"
    "int pick(int *p, int n) {\n"
    "  assert(p != 0);\n"
    "  if (n > 5) reach_error();\n"
    "  return n;\n"
    "}\n"
    "int late(int i) {\n"
    "  i++;\n"
    "  assert(i > 0);\n"
    "  return i;\n"
    "}\n"
    "int never(int x) {\n"
    "  assert(0);\n"
    "  return x;\n"
    "}\n"
    "int any(int y) { int a[4]; return get(a, y); }\n"
    "int bad(void) { int a[4]; return get(a, 4); }\n"
    "int fine(void) { int a[4]; return get(a, 3); }\n";

}  // namespace

TEST(Contracts, ALeadingAssertionIsTheEntrysPreconditionAndACheckAtEveryCall) {
  const std::string l1 = std::to_string(lineOf(kAsserts, "assert(a != 0)"));
  const std::string l2 = std::to_string(lineOf(kAsserts, "assert(i >= 0 &&"));
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      // the entry: both assertions assumed (the error behind them needs i >= 4), and said so
      auto g = run(kAsserts, "get", dm, alg);
      EXPECT_EQ(g.result.verdict, Verdict::True) << describe(g) << " " << name(dm, alg);
      EXPECT_EQ(g.result.assumedPrecondition,
                (std::vector<std::string>{"assert(a != 0) (test.c:" + l1 + ")",
                                          "assert(i >= 0 && i < 4) (test.c:" + l2 + ")"}))
          << name(dm, alg);
      // a caller passing any value: a latent finding at get's assertion, nothing assumed
      auto a = run(kAsserts, "any", dm, alg);
      ASSERT_TRUE(a.result.counterexample) << describe(a) << " " << name(dm, alg);
      EXPECT_EQ(a.result.counterexample->finding, "latent") << describe(a);
      EXPECT_EQ(a.result.counterexample->steps.back().line, std::stoul(l2)) << describe(a);
      EXPECT_TRUE(a.result.assumedPrecondition.empty());
      // a caller passing 4: manifest false; one passing 3: true
      auto b = run(kAsserts, "bad", dm, alg);
      EXPECT_EQ(b.result.verdict, Verdict::False) << describe(b) << " " << name(dm, alg);
      if (b.result.counterexample) {
        EXPECT_EQ(b.result.counterexample->finding, "manifest");
      }
      auto f = run(kAsserts, "fine", dm, alg);
      EXPECT_EQ(f.result.verdict, Verdict::True) << describe(f) << " " << name(dm, alg);
    }
}

TEST(Contracts, OnlyLeadingNonConstantAssertionsAreAssumedAndTheirConditionIsNoInputDecision) {
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      // the finding after an assumed assertion: its precondition is the program's own test
      // only, not the assertion's condition
      auto p = run(kAsserts, "pick", dm, alg);
      ASSERT_TRUE(p.result.counterexample) << describe(p) << " " << name(dm, alg);
      EXPECT_EQ(p.result.counterexample->finding, "latent");
      EXPECT_EQ(result::preconditionText(*p.result.counterexample),
                "fails if on entry: n > 5 (test.c:" + std::to_string(lineOf(kAsserts, "if (n > 5)")) + ")");
      // after a statement with an effect: a check (latent), nothing assumed
      auto l = run(kAsserts, "late", dm, alg);
      ASSERT_TRUE(l.result.counterexample) << describe(l) << " " << name(dm, alg);
      EXPECT_EQ(l.result.counterexample->finding, "latent");
      EXPECT_TRUE(l.result.assumedPrecondition.empty());
      // assert(0): "never called" is no precondition; calling it fails on every input
      auto n = run(kAsserts, "never", dm, alg);
      EXPECT_EQ(n.result.verdict, Verdict::False) << describe(n) << " " << name(dm, alg);
      EXPECT_TRUE(n.result.assumedPrecondition.empty());
    }
}

TEST(Contracts, MainsOwnLeadingAssertionStaysACheck) {
  const std::string prog =
      "#include <assert.h>\n"
      "int g;\n"
      "int main(void) {\n"
      "  assert(g != 0);\n"
      "  return 0;\n"
      "}\n";
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto o = run(prog, "main", dm, alg);
      EXPECT_EQ(o.result.verdict, Verdict::False) << describe(o) << " " << name(dm, alg);
      EXPECT_TRUE(o.result.assumedPrecondition.empty());
    }
}

TEST(Contracts, ARecursiveEntryAssumesItsLeadingAssertionOnTheFirstInvocationOnly) {
  // depth(1) calls depth(-1): the recursive invocation's assertion is a check (a latent
  // finding from n = 1), the first invocation's an assumption (no finding from n < 0)
  const std::string code =
      "#include <assert.h>\n"
      "int depth(int n) {\n"
      "  assert(n >= 0);\n"
      "  if (n == 0) return 0;\n"
      "  return 1 + depth(n - 2);\n"
      "}\n"
      "int even(int n) {\n"
      "  assert(n >= 0 && n % 2 == 0);\n"
      "  if (n == 0) return 0;\n"
      "  return 1 + even(n - 2);\n"
      "}\n";
  for (auto dm : kModels) {
    auto d = run(code, "depth", dm, engine::Algorithm::Bmc);
    ASSERT_TRUE(d.result.counterexample) << describe(d) << " " << name(dm, engine::Algorithm::Bmc);
    EXPECT_EQ(d.result.counterexample->finding, "latent");
    EXPECT_EQ(d.result.assumedPrecondition.size(), 1u);
    size_t calls = 0;
    for (const auto& s : d.result.counterexample->steps) calls += s.statement == "depth(n - 2)";
    EXPECT_EQ(calls, 1u) << "the failing assertion is the recursive invocation's";
    // every invocation meets the precondition: nothing fails (bmc: within its bound)
    auto e = run(code, "even", dm, engine::Algorithm::Bmc);
    EXPECT_NE(e.result.verdict, Verdict::False) << describe(e);
    EXPECT_FALSE(e.result.counterexample) << describe(e);
  }
}

TEST(Contracts, TheAssertionsALeadingAssertionsCallsEvaluateArePartOfThePrecondition) {
  // `assert(held(m))` on entry holds only if held's own assertion passes on the way
  // (SQLite's `assert( sqlite3_mutex_held(db->mutex) )`): assumed with it in the entry;
  // the same function called in the body is checked; a caller checks both.
  const std::string code =
      "#include <assert.h>\n"
      "int ready;\n"
      "int held(int *m) {\n"
      "  assert(m == 0 || ready);\n"
      "  return m == 0 || *m == 1;\n"
      "}\n"
      "int entry(int *m) {\n"
      "  assert(held(m));\n"
      "  return *m;\n"
      "}\n"
      "int body(int *m, int *n, int k) {\n"
      "  assert(held(m));\n"
      "  if (k > 5) ready = 0;\n"
      "  return held(n);\n"
      "}\n"
      "int caller(int *m) { return entry(m); }\n"
      "int calls;\n"
      "int counted(int *m) {\n"
      "  calls++;\n"
      "  assert(ready || m == 0);\n"
      "  return m == 0 || *m == 1;\n"
      "}\n"
      "int impure(int *m, int *n, int k) {\n"
      "  assert(counted(m));\n"
      "  if (k > 6) ready = 0;\n"
      "  return held(n);\n"
      "}\n";
  const std::string inHeld = std::to_string(lineOf(code, "assert(m == 0 || ready)"));
  for (auto dm : kModels)
    for (auto alg : kAlgorithms) {
      auto e = run(code, "entry", dm, alg);
      EXPECT_EQ(e.result.verdict, Verdict::True) << describe(e) << " " << name(dm, alg);
      EXPECT_EQ(e.result.assumedPrecondition.size(), 1u) << name(dm, alg);
      // held(n) in the body: its assertion is a check (m is no null pointer in the entry
      // model, so the precondition says ready != 0; the body clears it when k > 5)
      auto b = run(code, "body", dm, alg);
      ASSERT_TRUE(b.result.counterexample) << describe(b) << " " << name(dm, alg);
      EXPECT_EQ(b.result.counterexample->finding, "latent") << describe(b);
      EXPECT_EQ(b.result.counterexample->steps.back().line, std::stoul(inHeld)) << describe(b);
      size_t inBody = 0;
      for (const auto& s : b.result.counterexample->steps) inBody += s.statement == "held(n)";
      EXPECT_EQ(inBody, 1u) << "the failing call is the body's, not the precondition's";
      // held's branches when the precondition called it are no decisions (it only reads)
      EXPECT_EQ(result::preconditionText(*b.result.counterexample),
                "fails if on entry: k > 5 (test.c:" + std::to_string(lineOf(code, "if (k > 5)")) + ")");
      // a precondition call that writes a global: its branches stay decisions (named with
      // the callee that makes them)
      auto i = run(code, "impure", dm, alg);
      ASSERT_TRUE(i.result.counterexample) << describe(i) << " " << name(dm, alg);
      EXPECT_EQ(i.result.counterexample->finding, "latent") << describe(i);
      EXPECT_EQ(result::preconditionText(*i.result.counterexample),
                "fails if on entry: ready (in counted, test.c:" + std::to_string(lineOf(code, "assert(ready || m == 0)")) +
                    "), k > 6 (test.c:" + std::to_string(lineOf(code, "if (k > 6)")) + ")");
      // a caller evaluates entry's precondition as a check, held's assertion included
      // (entry's own assertion fails where *m != 1; held's where ready == 0)
      auto c = run(code, "caller", dm, alg);
      ASSERT_TRUE(c.result.counterexample) << describe(c) << " " << name(dm, alg);
      bool heldChecked = c.result.counterexample->steps.back().line == std::stoul(inHeld);
      for (const result::Counterexample& m : c.result.moreLatent)
        heldChecked = heldChecked || (!m.steps.empty() && m.steps.back().line == std::stoul(inHeld));
      EXPECT_TRUE(heldChecked) << describe(c);
      EXPECT_TRUE(c.result.assumedPrecondition.empty());
    }
}
