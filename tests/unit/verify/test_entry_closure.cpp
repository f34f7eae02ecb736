// Verification works on the entry's closure (core/cfa/closure.h): verdicts stay right
// when globals, initialisers and functions outside it are dropped, a function the
// frontend could not lower costs only the entries that reach it, and an entry without
// a body is an input error.
#include <gtest/gtest.h>

#include "core/engine/verify.h"
#include "tests/unit/verify/verify_helpers.h"

using namespace argus;
using argus::result::Verdict;
using argus::testing::verifySource;

namespace {

const engine::Algorithm kAlgorithms[] = {engine::Algorithm::Bmc, engine::Algorithm::Ibmc, engine::Algorithm::Kind,
                                         engine::Algorithm::Pred};

std::string prelude() { return argus::testing::kPrelude; }

TEST(EntryClosure, InitialisersReachedThroughAddressesCount) {
  const std::string ok = prelude() + "int b = 5; int *pb = &b; int unrelated[50] = {9, 9, 9};\n"
                                     "int main(void) { if (*pb != 5) reach_error(); return 0; }\n";
  const std::string bad = prelude() + "int b = 4; int *pb = &b; int unrelated[50] = {9, 9, 9};\n"
                                      "int main(void) { if (*pb != 5) reach_error(); return 0; }\n";
  for (auto alg : kAlgorithms) {
    EXPECT_EQ(verifySource(ok, alg, smt::SolverKind::Z3).result.verdict, Verdict::True) << engine::algorithmName(alg);
    EXPECT_EQ(verifySource(bad, alg, smt::SolverKind::Z3).result.verdict, Verdict::False) << engine::algorithmName(alg);
  }
}

TEST(EntryClosure, AddressesOfKeptGlobalsDoNotMove) {
  // the distance between two kept globals spans a dropped one
  const std::string code = prelude() + "char a[10]; char dropped[100]; char c[4];\n"
                                       "int main(void) { if ((unsigned long)c - (unsigned long)a != 16 + 104) reach_error(); return 0; }\n";
  for (auto alg : kAlgorithms)
    EXPECT_EQ(verifySource(code, alg, smt::SolverKind::Z3).result.verdict, Verdict::True) << engine::algorithmName(alg);
}

TEST(EntryClosure, IndirectCallsStillDispatch) {
  const std::string code = prelude() + "int inc(int x) { return x + 1; } int boom(int x) { reach_error(); return x; }\n"
                                       "int (*fp)(int) = inc;\n"
                                       "int other(void) { fp = boom; return 0; }\n"
                                       "int f(int x) { return fp(x); }\n";
  // entry f: globals are nondeterministic, fp may point to boom (its address is taken)
  for (auto alg : kAlgorithms)
    EXPECT_EQ(verifySource(code, alg, smt::SolverKind::Z3, frontend::DataModel::LP64, "f").result.verdict,
              Verdict::False)
        << engine::algorithmName(alg);
}

TEST(EntryClosure, AFunctionThatFailedToLowerCostsOnlyItsCallers) {
  const std::string code = prelude() + "typedef int v4 __attribute__((vector_size(16)));\n"
                                       "int f(int x) { v4 a = {x, 1, 2, 3}; return a[1] == 1; }\n"
                                       "int g(int x) { if (x + 1 == x) reach_error(); return x; }\n"
                                       "int h(int x) { return f(x); }\n";
  for (auto alg : kAlgorithms) {
    auto g = verifySource(code, alg, smt::SolverKind::Z3, frontend::DataModel::LP64, "g");
    EXPECT_FALSE(g.inputError) << g.error;
    EXPECT_EQ(g.result.verdict, Verdict::True) << engine::algorithmName(alg) << ": " << g.result.reason;
    for (const char* entry : {"f", "h"}) {
      auto f = verifySource(code, alg, smt::SolverKind::Z3, frontend::DataModel::LP64, entry);
      EXPECT_EQ(f.result.verdict, Verdict::Unknown) << engine::algorithmName(alg) << " " << entry;
      EXPECT_NE(f.result.reason.find("internal error lowering f"), std::string::npos) << f.result.reason;
    }
  }
}

TEST(EntryClosure, AnEntryWithoutABodyIsAnInputError) {
  const std::string code = prelude() + "int declared(int x);\nint main(void) { return 0; }\n";
  for (const char* name : {"declared", "nosuch", "__argus_init"}) {
    auto o = verifySource(code, engine::Algorithm::Bmc, smt::SolverKind::Z3, frontend::DataModel::LP64, name);
    EXPECT_TRUE(o.inputError) << name;
    EXPECT_NE(o.error.find(name), std::string::npos) << o.error;
  }
}

TEST(EntryClosure, StatisticsShowTheSlice) {
  std::string code = prelude();
  for (int i = 0; i < 200; ++i) code += "int f" + std::to_string(i) + "(int x) { return x + " + std::to_string(i) + "; }\n";
  code += "int main(void) { return 0; }\n";
  auto o = verifySource(code, engine::Algorithm::Ibmc, smt::SolverKind::Z3, frontend::DataModel::LP64, "f7");
  EXPECT_EQ(o.result.verdict, Verdict::True);
  ASSERT_TRUE(o.result.stats.extra.count("slice_functions"));
  EXPECT_LE(o.result.stats.extra.at("slice_functions"), 3);  // f7 and the two init functions
  EXPECT_GE(o.result.stats.extra.at("program_functions"), 200);
}

// Issue 29 (precise indirect calls): a call through `int (*)(int)` reaches only the
// address-taken functions of a compatible type, or of a type a cast in the program joins
// with it; ten address-taken functions of the same arity but another type (each calling
// the previous one three times) do not enter the closure.
std::string tenUnrelated(bool castJoins) {
  std::string code = prelude() + "int inc(int x) { return x + 1; }\n"
                                 "int (*fp)(int) = inc;\n";
  code += "long g0(long *p) { return *p; }\n";
  for (int i = 1; i < 10; ++i) {
    std::string prev = "g" + std::to_string(i - 1);
    code += "long g" + std::to_string(i) + "(long *p) { return " + prev + "(p) + " + prev + "(p) + " + prev + "(p); }\n";
  }
  code += "long (*table[10])(long *) = {g0, g1, g2, g3, g4, g5, g6, g7, g8, g9};\n";
  if (castJoins) code += "void join(void) { fp = (int (*)(int))table[9]; }\n";
  code += "int f(int x) { int r = fp(x); if (r == x + 1 || x == 2147483647) return r; reach_error(); return 0; }\n";
  return code;
}

TEST(EntryClosure, IndirectCallsReachOnlyCompatibleTypes) {
  auto o = verifySource(tenUnrelated(false), engine::Algorithm::Ibmc, smt::SolverKind::Z3, frontend::DataModel::LP64, "f");
  ASSERT_FALSE(o.inputError) << o.error;
  ASSERT_TRUE(o.result.stats.extra.count("slice_functions"));
  EXPECT_LE(o.result.stats.extra.at("slice_functions"), 4) << "f, inc and the two init functions";
  // fp is a nondeterministic global at entry f: inc or a pointer to no candidate
  // (unsupported, never a wrong verdict)
  EXPECT_NE(o.result.verdict, Verdict::False) << o.result.reason;
  // the same through a cast: g9 (and its callees) become possible targets
  auto j = verifySource(tenUnrelated(true), engine::Algorithm::Ibmc, smt::SolverKind::Z3, frontend::DataModel::LP64, "f");
  ASSERT_TRUE(j.result.stats.extra.count("slice_functions"));
  EXPECT_GE(j.result.stats.extra.at("slice_functions"), 12) << "g0..g9 joined by the cast";
}

TEST(EntryClosure, ACastFunctionPointerStillReachesItsTarget) {
  // through void * and back, and through a typedef'd generic callback type
  const std::string viaVoid = prelude() + "struct S { int v; };\n"
                              "static int getv(struct S *s) { if (s->v == 7) reach_error(); return s->v; }\n"
                              "int main(void) { struct S s = {7}; void *vp = (void *)getv;\n"
                              "  int (*f)(struct S *) = (int (*)(struct S *))vp; return f(&s); }\n";
  const std::string viaTypedef = prelude() + "struct S { int v; };\n"
                                 "static int getv(struct S *s) { return s->v; }\n"
                                 "typedef int (*anyfn)(void *);\n"
                                 "int call(anyfn f, void *p) { return f(p); }\n"
                                 "int main(void) { struct S s = {7}; if (call((anyfn)getv, &s) != 8) reach_error(); return 0; }\n";
  for (auto alg : kAlgorithms) {
    EXPECT_EQ(verifySource(viaVoid, alg, smt::SolverKind::Z3).result.verdict, Verdict::False) << engine::algorithmName(alg);
    EXPECT_EQ(verifySource(viaTypedef, alg, smt::SolverKind::Z3).result.verdict, Verdict::False) << engine::algorithmName(alg);
  }
}

}  // namespace
