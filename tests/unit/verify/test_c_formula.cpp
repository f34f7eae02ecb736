// SMT formulas as C expressions (core/algorithms/common/c_formula.h): exact where C can
// say it with the same meaning, weaker (never stronger) where it cannot.
#include <gtest/gtest.h>

#include "core/algorithms/common/c_formula.h"
#include "core/frontend/frontend.h"

namespace {

using argus::smt::Term;
using argus::smt::TermManager;

struct Fixture {
  argus::frontend::ParseResult pr;
  argus::cfa::FuncId main = 0;
  Fixture() {
    pr = argus::frontend::parseSource(
        "int g; int main(void) { int x = g; unsigned char c = 1; short s = 2; long long w = 3; "
        "{ int y = 1; x += y; } { int y = 2; x += y; } return x + c + s + (int)w; }",
        "f.c", {});
    EXPECT_TRUE(pr.ok()) << pr.diagnostics;
    main = pr.program->funcByName.at("main");
  }
  Term var(TermManager& tm, const std::string& cName, uint32_t width) {
    for (const auto& v : pr.program->vars)
      if (v.cName == cName && (v.func == main || v.func == argus::cfa::kNoFunc)) return tm.var(v.name, tm.bvSort(width));
    ADD_FAILURE() << cName;
    return tm.var(cName, tm.bvSort(width));
  }
  std::string c(Term t) { return argus::algorithms::cFormula(*pr.program, main, t); }
};

TEST(CFormula, ComparisonsAndArithmeticKeepTheirBitVectorMeaning) {
  Fixture f;
  TermManager tm;
  Term x = f.var(tm, "x", 32), g = f.var(tm, "g", 32);
  EXPECT_EQ(f.c(tm.bvSlt(x, tm.bvVal(5, 32))), "((int)(unsigned int)x < (int)(unsigned int)5u)");
  EXPECT_EQ(f.c(tm.mkEq(tm.bvAdd(x, g), tm.bvVal(7, 32))),
            "((unsigned int)7u == (unsigned int)((unsigned int)(unsigned int)x + (unsigned int)(unsigned int)g))");
  // 8-bit arithmetic wraps at 8 bits: computed in unsigned int, cast back
  Term cc = f.var(tm, "c", 8);
  EXPECT_EQ(f.c(tm.bvUle(tm.bvMul(cc, cc), tm.bvVal(200, 8))),
            "((unsigned char)((unsigned int)(unsigned char)c * (unsigned int)(unsigned char)c) <= (unsigned char)200u)");
  Term w = f.var(tm, "w", 64);
  EXPECT_EQ(f.c(tm.mkEq(w, tm.bvVal(3, 64))), "((unsigned long long)w == 3ull)");
}

TEST(CFormula, WhatCIsNotGivenIsWeakenedNeverStrengthened) {
  Fixture f;
  TermManager tm;
  Term x = f.var(tm, "x", 32);
  Term y = tm.var("main::y", tm.bvSort(32));  // ambiguous: two block-scoped y
  Term div = tm.mkEq(tm.bvSDiv(x, tm.bvVal(3, 32)), tm.bvVal(1, 32));  // signed division: not written
  Term ok = tm.bvUlt(x, tm.bvVal(9, 32));
  EXPECT_EQ(f.c(tm.mkAnd(ok, div)), "(((unsigned int)x < (unsigned int)9u) && 1)");
  EXPECT_EQ(f.c(tm.mkNot(div)), "!(0)");
  EXPECT_EQ(f.c(tm.mkOr(tm.mkNot(ok), tm.mkNot(tm.mkEq(y, x)))), "(!(((unsigned int)x < (unsigned int)9u)) || !(0))");
  // an if-then-else condition is used both ways: only written when exact
  Term ite = tm.mkIte(div, tm.bvVal(1, 32), tm.bvVal(0, 32));
  Term ite2 = tm.mkIte(ok, tm.bvVal(1, 32), tm.bvVal(0, 32));
  EXPECT_EQ(f.c(tm.mkEq(ite, x)), "1");
  EXPECT_EQ(f.c(tm.mkEq(ite2, x)),
            "((unsigned int)x == (unsigned int)(((unsigned int)x < (unsigned int)9u) ? (unsigned int)1u : (unsigned int)0u))");
  // compared with a constant, the term manager folds the tree to its branch conditions
  // (`ite(c, 1, 0) == 0` is `!c`), and the weakening works on the condition
  EXPECT_EQ(f.c(tm.mkEq(ite, tm.bvVal(0, 32))), "!(0)");
  EXPECT_EQ(f.c(tm.mkEq(ite2, tm.bvVal(0, 32))), "!(((unsigned int)x < (unsigned int)9u))");
}

}  // namespace
