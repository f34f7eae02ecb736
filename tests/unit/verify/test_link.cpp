// Linking translation units (core/cfa/link.h via core/frontend/project_link.h) and
// verifying the linked program: what crosses units must mean what C means, and what
// the linker cannot vouch for must stay unknown.
#include <gtest/gtest.h>

#include "core/engine/verify.h"
#include "core/frontend/project_link.h"

namespace argus {
namespace {

struct Linked {
  frontend::LinkedProject project;
  result::Verdict verify(const std::string& function) const { return run(function).verdict; }
  result::VerificationResult run(const std::string& function) const {
    engine::VerifyRequest req;
    req.file = "a.c";
    req.algorithm = engine::Algorithm::Ibmc;
    req.function = function;
    req.timeoutS = 60;
    engine::VerifyOutcome o = engine::verifyParsed(*project.link.program, req);
    EXPECT_FALSE(o.inputError) << o.error;
    return o.result;
  }
};

Linked linkSources(const std::vector<std::pair<std::string, std::string>>& files,
                   const frontend::FrontendOptions& opts = frontend::FrontendOptions{}) {
  std::vector<frontend::UnitSource> units;
  for (const auto& [name, text] : files) units.push_back({name, {}, text});
  return {frontend::parseAndLink(units, opts)};
}

const char* kDecls = "void reach_error(void);\n#define CHECK(c) do { if (!(c)) reach_error(); } while (0)\n";

TEST(Link, CrossUnitCallUsesTheBody) {
  Linked l = linkSources({{"a.c", std::string(kDecls) + "int sq(int x);\nint f(int x) { if (x > 0 && x < 1000) CHECK(sq(x) > 0); return 0; }\n"},
                          {"b.c", "int sq(int x) { return x * x; }\n"}});
  ASSERT_TRUE(l.project.errors.empty()) << l.project.errors[0];
  EXPECT_EQ(l.project.reparsed, 1u);
  EXPECT_EQ(l.verify("f"), result::Verdict::True);
}

TEST(Link, CrossUnitBugIsFound) {
  Linked l = linkSources({{"a.c", std::string(kDecls) + "int sq(int x);\nint f(int x) { if (x >= 0 && x < 1000) CHECK(sq(x) > 0); return 0; }\n"},
                          {"b.c", "int sq(int x) { return x * x; }\n"}});
  ASSERT_TRUE(l.project.errors.empty());
  // sq(0) == 0: found through b.c's body; x is f's parameter, so the finding is latent
  // (issue 29 item 4): unknown, with the replayed path and its precondition
  result::VerificationResult r = l.run("f");
  EXPECT_EQ(r.verdict, result::Verdict::Unknown) << r.reason;
  ASSERT_TRUE(r.counterexample) << r.reason;
  EXPECT_TRUE(r.counterexample->replayed);
  EXPECT_EQ(r.counterexample->finding, "latent");
  EXPECT_NE(r.reason.find("x >= 0"), std::string::npos) << r.reason;
}

// A variadic function defined in another unit: its arguments cross the units in the
// block the call builds (the hidden parameter is part of both signatures).
TEST(Link, CrossUnitVariadicCall) {
  const char* defs =
      "typedef __builtin_va_list va_list;\n"
      "int sum(int n, ...) { va_list ap; __builtin_va_start(ap, n); int s = 0;\n"
      "  for (int i = 0; i < n; i++) s += __builtin_va_arg(ap, int);\n"
      "  __builtin_va_end(ap); return s; }\n";
  Linked l = linkSources({{"a.c", std::string(kDecls) + "int sum(int n, ...);\n"
                                      "int f(void) { CHECK(sum(3, 1, 2, 3) == 6); return 0; }\n"
                                      "int g(void) { CHECK(sum(2, 1, 2) == 4); return 0; }\n"},
                          {"b.c", defs}});
  ASSERT_TRUE(l.project.errors.empty()) << l.project.errors[0];
  EXPECT_EQ(l.verify("f"), result::Verdict::True);
  result::VerificationResult r = l.run("g");
  EXPECT_EQ(r.verdict, result::Verdict::False) << r.reason;
  ASSERT_TRUE(r.counterexample);
  EXPECT_TRUE(r.counterexample->replayed);
}

TEST(Link, StaticsStayApart) {
  Linked l = linkSources({{"a.c", std::string(kDecls) +
                                      "static int k = 1;\nstatic int get(void) { return k; }\nint other(void);\n"
                                      "int main(void) { CHECK(get() == 1 && other() == 2); return 0; }\n"},
                          {"b.c", "static int k = 2;\nstatic int get(void) { return k; }\nint other(void) { return get(); }\n"}});
  ASSERT_TRUE(l.project.errors.empty());
  EXPECT_EQ(l.verify("main"), result::Verdict::True);
  EXPECT_TRUE(l.project.link.program->find("get@a.c"));
  EXPECT_TRUE(l.project.link.program->find("get@b.c"));
}

// b.c's initialiser takes the address of a.c's global: a.c's unit is initialised first,
// whatever the order of the units.
TEST(Link, InitialiserUsesAnotherUnitsGlobal) {
  Linked l = linkSources({{"b.c", std::string(kDecls) + "extern int g;\nint *p = &g;\n"
                                                         "int main(void) { CHECK(*p == 7); g = 8; CHECK(*p == 8); return 0; }\n"},
                          {"a.c", "int g = 7;\n"}});
  ASSERT_TRUE(l.project.errors.empty()) << l.project.errors[0];
  EXPECT_EQ(l.verify("main"), result::Verdict::True);
}

TEST(Link, TentativeDefinitionsMerge) {
  Linked l = linkSources({{"a.c", std::string(kDecls) + "int g;\nvoid set(void);\n"
                                                         "int main(void) { CHECK(g == 0); set(); CHECK(g == 3); return 0; }\n"},
                          {"b.c", "int g;\nvoid set(void) { g = 3; }\n"}});
  ASSERT_TRUE(l.project.errors.empty());
  EXPECT_EQ(l.verify("main"), result::Verdict::True);
}

TEST(Link, BugThroughSharedGlobal) {
  Linked l = linkSources({{"a.c", std::string(kDecls) + "extern int g;\nvoid set(void);\n"
                                                         "int main(void) { set(); CHECK(g == 3); return 0; }\n"},
                          {"b.c", "int g = 1;\nvoid set(void) { g = 4; }\n"}});
  ASSERT_TRUE(l.project.errors.empty());
  EXPECT_EQ(l.verify("main"), result::Verdict::False);
}

TEST(Link, DuplicateDefinitionIsAnError) {
  Linked l = linkSources({{"a.c", "int f(void) { return 1; }\n"}, {"b.c", "int f(void) { return 2; }\n"}});
  ASSERT_EQ(l.project.errors.size(), 1u);
  EXPECT_NE(l.project.errors[0].find("multiple definition of 'f'"), std::string::npos) << l.project.errors[0];
  EXPECT_FALSE(l.project.link.program);
}

TEST(Link, DuplicateInitialisedGlobalIsAnError) {
  Linked l = linkSources({{"a.c", "int g = 1;\n"}, {"b.c", "int g = 2;\n"}});
  ASSERT_EQ(l.project.errors.size(), 1u);
  EXPECT_NE(l.project.errors[0].find("global 'g'"), std::string::npos) << l.project.errors[0];
}

// Declared with another type than defined: the call must not be linked (unknown).
TEST(Link, MismatchedDeclarationStaysUnknown) {
  Linked l = linkSources({{"a.c", std::string(kDecls) + "long h(long x);\nint f(void) { CHECK(h(1) == 1); return 0; }\n"},
                          {"b.c", "int h(int x) { return x; }\n"}});
  ASSERT_TRUE(l.project.errors.empty());
  EXPECT_FALSE(l.project.link.warnings.empty());
  EXPECT_EQ(l.verify("f"), result::Verdict::Unknown);
}

// A function pointer to another unit's function, called here: unknown, never the
// wrong function (addresses agree across units, dispatch covers this unit only).
TEST(Link, ForeignFunctionPointerIsNotMisdispatched) {
  Linked l = linkSources({{"a.c", std::string(kDecls) + "typedef int (*fp)(void);\nfp pick(void);\n"
                                                         "int one(void) { return 1; }\n"
                                                         "int main(void) { fp p = pick(); CHECK(p() == 2); return 0; }\n"},
                          {"b.c", "typedef int (*fp)(void);\nint two(void) { return 2; }\nfp pick(void) { return two; }\n"}});
  ASSERT_TRUE(l.project.errors.empty());
  EXPECT_NE(l.verify("main"), result::Verdict::False);
  // and &two is the same value in both units
  Linked m = linkSources({{"a.c", std::string(kDecls) + "typedef int (*fp)(void);\nfp pick(void);\nint two(void);\n"
                                                         "int main(void) { CHECK(pick() == two); return 0; }\n"},
                          {"b.c", "typedef int (*fp)(void);\nint two(void) { return 2; }\nfp pick(void) { return two; }\n"}});
  ASSERT_TRUE(m.project.errors.empty());
  EXPECT_EQ(m.verify("main"), result::Verdict::True);
}

// Memory safety across units (`argus project --property valid-memsafety`): the linked
// program keeps the memory-safety layout (Program::objectBits), and its object-id counter
// starts once: b.c, which has no global of its own, must not reset it after a.c's global
// took id 1 (g would then look unallocated: a violation the interpreter does not see).
TEST(Link, MemorySafetyLayoutSpansTheUnits) {
  frontend::FrontendOptions fo;
  fo.properties = {"valid-memsafety"};
  for (frontend::DataModel dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
    fo.dataModel = dm;
    auto verdict = [](const Linked& l, std::string* property) {
      engine::VerifyRequest req;
      req.file = "a.c";
      req.algorithm = engine::Algorithm::Bmc;
      req.function = "main";
      req.timeoutS = 60;
      req.property = "valid-memsafety";
      engine::VerifyOutcome o = engine::verifyParsed(*l.project.link.program, req);
      EXPECT_FALSE(o.inputError) << o.error;
      if (o.result.counterexample) {
        EXPECT_TRUE(o.result.counterexample->replayed);
        *property = o.result.counterexample->property;
      }
      return o.result.verdict;
    };
    const char* b = "extern int g[4];\nint get(int i) { int *p = g; return p[i]; }\n"
                    "void fill(int *a, int n) { for (int i = 0; i < n; i++) a[i] = get(i); }\n";
    Linked safe = linkSources({{"a.c", "int g[4] = {1, 2, 3, 4};\nint get(int i);\nvoid fill(int *a, int n);\n"
                                       "int main(void) { if (get(0) != 1) return 1; int buf[3]; fill(buf, 3); return buf[2]; }\n"},
                               {"b.c", b}},
                              fo);
    ASSERT_TRUE(safe.project.errors.empty()) << safe.project.errors[0];
    EXPECT_EQ(safe.project.link.program->objectBits, frontend::DataModel::LP64 == dm ? 33u : 20u);
    std::string property;
    EXPECT_EQ(verdict(safe, &property), result::Verdict::True) << property;
    // an out-of-bounds write in the callee of the other unit
    Linked bad = linkSources({{"a.c", "int g[4] = {1, 2, 3, 4};\nint get(int i);\nvoid fill(int *a, int n);\n"
                                      "int main(void) { if (get(0) != 1) return 1; int buf[3]; fill(buf, 4); return buf[2]; }\n"},
                              {"b.c", b}},
                             fo);
    ASSERT_TRUE(bad.project.errors.empty()) << bad.project.errors[0];
    property.clear();
    EXPECT_EQ(verdict(bad, &property), result::Verdict::False);
    EXPECT_EQ(property, "valid-deref");
  }
}

}  // namespace
}  // namespace argus
