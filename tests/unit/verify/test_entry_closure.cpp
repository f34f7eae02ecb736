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

}  // namespace
