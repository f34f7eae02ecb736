// Expression construction, printing and evaluation.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "core/cfa/expr.h"
#include "core/result/replay.h"
#include "tests/unit/cfa/builder.h"

using namespace argus::cfa;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::result::evalBinary;
using argus::result::evalCast;
using argus::result::evalExpr;
using argus::result::evalUnary;

namespace {

constexpr uint64_t M32 = 0xFFFFFFFFull;
constexpr uint64_t INTMIN32 = 0x80000000ull;
constexpr uint64_t M64 = ~uint64_t{0};
constexpr uint64_t M17 = 0x1FFFFull;

uint64_t ev(const ExprPtr& e) { return evalExpr(*e, nullptr, nullptr, 64); }

}  // namespace

TEST(ExprFactory, ConstMasksToWidth) {
  EXPECT_EQ(Expr::mkConst(0x1FFFFF, 17)->value, M17);
  EXPECT_EQ(Expr::mkConst(0x1FF, 8)->value, 0xFFu);
  EXPECT_EQ(Expr::mkConst(3, 1)->value, 1u);
  EXPECT_EQ(Expr::mkConst(M64, 64)->value, M64);
  EXPECT_EQ(Expr::mkConst(5, 17)->width, 17u);
  EXPECT_THROW(Expr::mkConst(0, 0), std::invalid_argument);
  EXPECT_THROW(Expr::mkConst(0, 65), std::invalid_argument);
}

TEST(ExprFactory, BinaryWidthRules) {
  auto a = Expr::mkVar(1, 32), b = Expr::mkVar(2, 32);
  EXPECT_EQ(Expr::mkBinary(BinOp::Add, a, b)->width, 32u);
  EXPECT_EQ(Expr::mkBinary(BinOp::Add, a, b, 32)->width, 32u);
  EXPECT_EQ(Expr::mkBinary(BinOp::SLt, a, b, 8)->width, 8u);
  EXPECT_EQ(Expr::mkBinary(BinOp::LAnd, a, b, 1)->width, 1u);
  EXPECT_EQ(Expr::mkBinary(BinOp::Eq, a, b)->width, 32u);  // 0: operand width
  EXPECT_THROW(Expr::mkBinary(BinOp::Add, a, b, 8), std::invalid_argument);
  EXPECT_THROW(Expr::mkBinary(BinOp::Add, a, Expr::mkVar(3, 8)), std::invalid_argument);
  auto e = Expr::mkBinary(BinOp::Sub, a, b);
  EXPECT_EQ(e->kind, ExprKind::Binary);
  EXPECT_EQ(e->binop, BinOp::Sub);
  ASSERT_EQ(e->ops.size(), 2u);
  EXPECT_EQ(e->ops[0], a);
  EXPECT_EQ(e->ops[1], b);
}

TEST(ExprFactory, UnaryLoadCastIte) {
  auto a = Expr::mkVar(1, 17);
  EXPECT_EQ(Expr::mkUnary(UnOp::Neg, a)->width, 17u);
  EXPECT_EQ(Expr::mkLoad(Expr::mkVar(2, 64), 4)->width, 32u);
  EXPECT_EQ(Expr::mkCast(CastKind::SExt, a, 32)->width, 32u);
  EXPECT_THROW(Expr::mkCast(CastKind::ZExt, a, 8), std::invalid_argument);
  EXPECT_THROW(Expr::mkCast(CastKind::Trunc, a, 32), std::invalid_argument);
  auto ite = Expr::mkIte(Expr::mkVar(3, 8), C(1), C(2));
  EXPECT_EQ(ite->kind, ExprKind::Ite);
  EXPECT_EQ(ite->width, 32u);
  EXPECT_THROW(Expr::mkIte(C(1), C(1, 8), C(2, 16)), std::invalid_argument);
}

TEST(ExprFactory, Convert) {
  auto a = Expr::mkVar(1, 16);
  EXPECT_EQ(Expr::convert(a, 16, true), a);  // same width: unchanged
  auto t = Expr::convert(a, 8, true);
  EXPECT_EQ(t->cast, CastKind::Trunc);
  EXPECT_EQ(t->width, 8u);
  EXPECT_EQ(Expr::convert(a, 32, true)->cast, CastKind::SExt);
  EXPECT_EQ(Expr::convert(a, 32, false)->cast, CastKind::ZExt);
  EXPECT_EQ(ev(Expr::convert(C(0x8000, 16), 32, true)), 0xFFFF8000u);
  EXPECT_EQ(ev(Expr::convert(C(0x8000, 16), 32, false)), 0x8000u);
  EXPECT_EQ(ev(Expr::convert(C(0x12345678, 32), 8, true)), 0x78u);
}

TEST(ExprPrint, Readable) {
  std::vector<std::string> names = {"x", "y"};
  auto e = B(BinOp::Add, Expr::mkVar(0, 32), C(1));
  EXPECT_EQ(toString(e, &names), "(x + 1)");
  EXPECT_EQ(toString(e), "(v0 + 1)");
  EXPECT_EQ(toString(C(M32)), "-1");
  EXPECT_EQ(toString(C(INTMIN32)), "-2147483648");
  EXPECT_EQ(toString(C(1, 1)), "1");
  auto cmp = B(BinOp::SLt, Expr::mkVar(1, 32), C(5), 8);
  EXPECT_EQ(toString(cmp, &names), "(y <s 5)");
  EXPECT_EQ(toString(Expr::mkLoad(Expr::mkVar(5, 64), 4)), "mem32[v5]");
  EXPECT_EQ(toString(Expr::mkCast(CastKind::SExt, Expr::mkVar(0, 8), 32), &names), "sext32(x)");
  EXPECT_EQ(toString(Expr::mkIte(Expr::mkVar(0, 32), C(1), Expr::mkUnary(UnOp::Neg, C(2))), &names),
            "(x ? 1 : -2)");
  EXPECT_STREQ(binOpName(BinOp::SDiv), "/s");
  EXPECT_STREQ(binOpName(BinOp::LOr), "||");
}

// ---- evaluation table -------------------------------------------------------------

struct BinCase {
  BinOp op;
  uint64_t a, b;
  uint32_t w;
  uint64_t expect;
  uint32_t rw = 0;  // result width (0: = w)
};

class BinaryEval : public ::testing::TestWithParam<BinCase> {};

TEST_P(BinaryEval, MatchesSmtLib) {
  const BinCase& c = GetParam();
  uint32_t rw = c.rw ? c.rw : c.w;
  EXPECT_EQ(evalBinary(c.op, c.a, c.b, c.w, rw), c.expect)
      << binOpName(c.op) << " a=" << c.a << " b=" << c.b << " w=" << c.w;
  // The same through an expression tree.
  auto e = Expr::mkBinary(c.op, Expr::mkConst(c.a, c.w), Expr::mkConst(c.b, c.w), rw);
  EXPECT_EQ(ev(e), c.expect);
}

INSTANTIATE_TEST_SUITE_P(
    Table, BinaryEval,
    ::testing::Values(
        // wraparound
        BinCase{BinOp::Add, M32, 1, 32, 0}, BinCase{BinOp::Add, M64, 2, 64, 1},
        BinCase{BinOp::Sub, 0, 1, 32, M32}, BinCase{BinOp::Sub, 0, 1, 64, M64},
        BinCase{BinOp::Mul, 0x10000, 0x10000, 32, 0},
        BinCase{BinOp::Mul, 0x8000000000000000ull, 2, 64, 0},
        BinCase{BinOp::Mul, M32, M32, 32, 1},  // (-1)*(-1)
        // signed division, truncating toward zero
        BinCase{BinOp::SDiv, 7, 2, 32, 3}, BinCase{BinOp::SDiv, (uint64_t)-7 & M32, 2, 32, (uint64_t)-3 & M32},
        BinCase{BinOp::SDiv, 7, (uint64_t)-2 & M32, 32, (uint64_t)-3 & M32},
        BinCase{BinOp::SDiv, (uint64_t)-7 & M32, (uint64_t)-2 & M32, 32, 3},
        BinCase{BinOp::SRem, 7, 2, 32, 1}, BinCase{BinOp::SRem, (uint64_t)-7 & M32, 2, 32, M32},
        BinCase{BinOp::SRem, 7, (uint64_t)-2 & M32, 32, 1},
        BinCase{BinOp::SRem, (uint64_t)-7 & M32, (uint64_t)-2 & M32, 32, M32},
        // INT_MIN / -1 wraps, remainder 0
        BinCase{BinOp::SDiv, INTMIN32, M32, 32, INTMIN32}, BinCase{BinOp::SRem, INTMIN32, M32, 32, 0},
        BinCase{BinOp::SDiv, 0x8000000000000000ull, M64, 64, 0x8000000000000000ull},
        BinCase{BinOp::SRem, 0x8000000000000000ull, M64, 64, 0},
        BinCase{BinOp::SDiv, INTMIN32, 2, 32, 0xC0000000ull},
        // division by zero (SMT-LIB)
        BinCase{BinOp::SDiv, 5, 0, 32, M32}, BinCase{BinOp::SDiv, 0, 0, 32, M32},
        BinCase{BinOp::SDiv, (uint64_t)-5 & M32, 0, 32, 1}, BinCase{BinOp::SDiv, INTMIN32, 0, 32, 1},
        BinCase{BinOp::SRem, 5, 0, 32, 5}, BinCase{BinOp::SRem, (uint64_t)-5 & M32, 0, 32, (uint64_t)-5 & M32},
        BinCase{BinOp::UDiv, 5, 0, 32, M32}, BinCase{BinOp::UDiv, 5, 0, 64, M64},
        BinCase{BinOp::URem, 7, 0, 32, 7}, BinCase{BinOp::UDiv, M32, 2, 32, 0x7FFFFFFF},
        BinCase{BinOp::URem, M32, 10, 32, 5}, BinCase{BinOp::UDiv, (uint64_t)-7 & M32, 2, 32, 0x7FFFFFFC},
        // shifts
        BinCase{BinOp::Shl, 1, 31, 32, INTMIN32}, BinCase{BinOp::Shl, 1, 32, 32, 0},
        BinCase{BinOp::Shl, 1, 33, 32, 0}, BinCase{BinOp::Shl, 1, M32, 32, 0},
        BinCase{BinOp::Shl, 0xFF, 28, 32, 0xF0000000ull}, BinCase{BinOp::Shl, 1, 63, 64, 1ull << 63},
        BinCase{BinOp::Shl, 1, 64, 64, 0}, BinCase{BinOp::Shl, 1, 0x100000001ull, 64, 0},
        BinCase{BinOp::LShr, INTMIN32, 31, 32, 1}, BinCase{BinOp::LShr, INTMIN32, 32, 32, 0},
        BinCase{BinOp::LShr, M64, 64, 64, 0}, BinCase{BinOp::LShr, M64, 63, 64, 1},
        BinCase{BinOp::AShr, INTMIN32, 31, 32, M32}, BinCase{BinOp::AShr, INTMIN32, 32, 32, M32},
        BinCase{BinOp::AShr, INTMIN32, 1000, 32, M32}, BinCase{BinOp::AShr, 0x40000000, 32, 32, 0},
        BinCase{BinOp::AShr, 0x40000000, 30, 32, 1}, BinCase{BinOp::AShr, 0xF0, 4, 32, 0xF},
        BinCase{BinOp::AShr, 1ull << 63, 64, 64, M64}, BinCase{BinOp::AShr, 1ull << 63, 62, 64, M64 - 1},
        // bitwise
        BinCase{BinOp::And, 0xF0F0, 0xFF00, 32, 0xF000}, BinCase{BinOp::Or, 0xF0F0, 0x0F00, 32, 0xFFF0},
        BinCase{BinOp::Xor, 0xFF, 0x0F, 32, 0xF0},
        // comparisons (result width may differ from the operand width)
        BinCase{BinOp::Eq, 5, 5, 32, 1, 8}, BinCase{BinOp::Eq, 5, 6, 32, 0, 8},
        BinCase{BinOp::Ne, 5, 6, 32, 1, 32}, BinCase{BinOp::Ne, 5, 5, 32, 0},
        BinCase{BinOp::SLt, M32, 0, 32, 1, 8}, BinCase{BinOp::ULt, M32, 0, 32, 0, 8},
        BinCase{BinOp::SLt, 0, M32, 32, 0, 8}, BinCase{BinOp::ULt, 0, M32, 32, 1, 8},
        BinCase{BinOp::SLe, INTMIN32, INTMIN32, 32, 1}, BinCase{BinOp::SLe, 0x7FFFFFFF, INTMIN32, 32, 0},
        BinCase{BinOp::ULe, 0x7FFFFFFF, INTMIN32, 32, 1}, BinCase{BinOp::ULe, 3, 2, 32, 0},
        BinCase{BinOp::SLt, 1ull << 63, 0, 64, 1, 1}, BinCase{BinOp::ULt, 1ull << 63, 0, 64, 0, 1},
        // logical
        BinCase{BinOp::LAnd, 2, 4, 32, 1}, BinCase{BinOp::LAnd, 2, 0, 32, 0},
        BinCase{BinOp::LOr, 0, 0, 32, 0}, BinCase{BinOp::LOr, 0, 0x80000000, 32, 1, 8},
        // 1-bit: values 0 and 1 (= -1 signed)
        BinCase{BinOp::Add, 1, 1, 1, 0}, BinCase{BinOp::Sub, 0, 1, 1, 1},
        BinCase{BinOp::Mul, 1, 1, 1, 1}, BinCase{BinOp::SDiv, 1, 1, 1, 1},
        BinCase{BinOp::SRem, 1, 1, 1, 0}, BinCase{BinOp::SDiv, 0, 0, 1, 1},
        BinCase{BinOp::SDiv, 1, 0, 1, 1}, BinCase{BinOp::SRem, 1, 0, 1, 1},
        BinCase{BinOp::UDiv, 1, 0, 1, 1}, BinCase{BinOp::URem, 0, 0, 1, 0},
        BinCase{BinOp::Shl, 1, 1, 1, 0}, BinCase{BinOp::Shl, 1, 0, 1, 1},
        BinCase{BinOp::LShr, 1, 1, 1, 0}, BinCase{BinOp::AShr, 1, 1, 1, 1},
        BinCase{BinOp::SLt, 1, 0, 1, 1}, BinCase{BinOp::ULt, 1, 0, 1, 0},
        BinCase{BinOp::SLe, 0, 1, 1, 0},
        // 17-bit: sign bit is bit 16
        BinCase{BinOp::Add, M17, 1, 17, 0}, BinCase{BinOp::Mul, 0x100, 0x200, 17, 0},
        BinCase{BinOp::Mul, 0x100, 0x1FF, 17, 0x1FF00},
        BinCase{BinOp::SDiv, 0x10000, M17, 17, 0x10000}, BinCase{BinOp::SRem, 0x10000, M17, 17, 0},
        BinCase{BinOp::SDiv, M17 - 6, 2, 17, M17 - 2},  // -7 / 2 = -3
        BinCase{BinOp::SRem, M17 - 6, 2, 17, M17},      // -7 % 2 = -1
        BinCase{BinOp::SDiv, 3, 0, 17, M17}, BinCase{BinOp::SDiv, 0x10000, 0, 17, 1},
        BinCase{BinOp::UDiv, 3, 0, 17, M17},
        BinCase{BinOp::AShr, 0x10000, 4, 17, 0x1F000}, BinCase{BinOp::AShr, 0x10000, 17, 17, M17},
        BinCase{BinOp::AShr, 0x10000, 16, 17, M17}, BinCase{BinOp::LShr, 0x10000, 16, 17, 1},
        BinCase{BinOp::Shl, 1, 16, 17, 0x10000}, BinCase{BinOp::Shl, 1, 17, 17, 0},
        BinCase{BinOp::SLt, 0x10000, 1, 17, 1}, BinCase{BinOp::ULt, 0x10000, 1, 17, 0},
        BinCase{BinOp::SLe, 0xFFFF, 0x10000, 17, 0, 32}));

TEST(UnaryEval, Table) {
  EXPECT_EQ(evalUnary(UnOp::Neg, 0, 32), 0u);
  EXPECT_EQ(evalUnary(UnOp::Neg, 1, 32), M32);
  EXPECT_EQ(evalUnary(UnOp::Neg, INTMIN32, 32), INTMIN32);
  EXPECT_EQ(evalUnary(UnOp::Neg, 1, 17), M17);
  EXPECT_EQ(evalUnary(UnOp::Neg, 1, 1), 1u);
  EXPECT_EQ(evalUnary(UnOp::Neg, 1, 64), M64);
  EXPECT_EQ(evalUnary(UnOp::BitNot, 0, 17), M17);
  EXPECT_EQ(evalUnary(UnOp::BitNot, 0xF0, 8), 0x0Fu);
  EXPECT_EQ(evalUnary(UnOp::BitNot, 1, 1), 0u);
  EXPECT_EQ(evalUnary(UnOp::LogNot, 0, 32), 1u);
  EXPECT_EQ(evalUnary(UnOp::LogNot, 5, 32), 0u);
  EXPECT_EQ(evalUnary(UnOp::LogNot, INTMIN32, 32), 0u);
  EXPECT_EQ(ev(Expr::mkUnary(UnOp::Neg, C(5, 17))), M17 - 4);
}

TEST(CastEval, Table) {
  EXPECT_EQ(evalCast(CastKind::ZExt, 0x80, 8, 32), 0x80u);
  EXPECT_EQ(evalCast(CastKind::SExt, 0x80, 8, 32), 0xFFFFFF80u);
  EXPECT_EQ(evalCast(CastKind::SExt, 0x7F, 8, 32), 0x7Fu);
  EXPECT_EQ(evalCast(CastKind::SExt, 1, 1, 8), 0xFFu);
  EXPECT_EQ(evalCast(CastKind::ZExt, 1, 1, 8), 1u);
  EXPECT_EQ(evalCast(CastKind::SExt, 0x10000, 17, 32), 0xFFFF0000u);
  EXPECT_EQ(evalCast(CastKind::SExt, 0xFFFF, 17, 32), 0xFFFFu);
  EXPECT_EQ(evalCast(CastKind::SExt, INTMIN32, 32, 64), 0xFFFFFFFF80000000ull);
  EXPECT_EQ(evalCast(CastKind::Trunc, 0x1234, 32, 8), 0x34u);
  EXPECT_EQ(evalCast(CastKind::Trunc, M64, 64, 17), M17);
  EXPECT_EQ(evalCast(CastKind::Trunc, 2, 32, 1), 0u);
  EXPECT_EQ(evalCast(CastKind::ToBool, 0x100, 32, 8), 1u);
  EXPECT_EQ(evalCast(CastKind::ToBool, 0, 32, 8), 0u);
  EXPECT_EQ(evalCast(CastKind::ToBool, 1ull << 63, 64, 1), 1u);
  EXPECT_EQ(ev(Expr::mkCast(CastKind::SExt, C(0x10000, 17), 64)), 0xFFFFFFFFFFFF0000ull);
  EXPECT_EQ(ev(Expr::mkCast(CastKind::ToBool, C(0x100, 32), 8)), 1u);
}

TEST(ExprEval, VarsLoadsAndIte) {
  std::map<VarId, uint64_t> regs = {{0, 10}, {1, 0x1FFFF}};
  std::map<uint64_t, uint8_t> mem = {{0x100, 0x44}, {0x101, 0x33}, {0x102, 0x22}, {0x103, 0x11}};
  auto var = [&](VarId v) { return regs.count(v) ? regs[v] : 0; };
  auto byte = [&](uint64_t a) -> uint8_t { return mem.count(a) ? mem[a] : 0; };
  auto x = Expr::mkVar(0, 32);
  EXPECT_EQ(evalExpr(*B(BinOp::Mul, x, C(3)), var, byte), 30u);
  // A 17-bit variable holding all ones compares below zero.
  EXPECT_EQ(evalExpr(*B(BinOp::SLt, Expr::mkVar(1, 17), C(0, 17), 8), var, byte), 1u);
  auto addr = C(0x100, 64);
  EXPECT_EQ(evalExpr(*Expr::mkLoad(addr, 4), var, byte), 0x11223344u);
  EXPECT_EQ(evalExpr(*Expr::mkLoad(addr, 2), var, byte), 0x3344u);
  EXPECT_EQ(evalExpr(*Expr::mkLoad(C(0x102, 64), 1), var, byte), 0x22u);
  // Addresses wrap at the pointer width: 0xFFFFFFFF + 0x101 in 32 bits is 0x100.
  auto wrapped = Expr::mkLoad(B(BinOp::Add, C(M32, 32), C(0x101, 32)), 1);
  EXPECT_EQ(evalExpr(*wrapped, var, byte, 32), 0x44u);
  EXPECT_EQ(evalExpr(*Expr::mkIte(B(BinOp::Eq, x, C(10)), C(7), C(8)), var, byte), 7u);
  EXPECT_EQ(evalExpr(*Expr::mkIte(B(BinOp::Eq, x, C(11)), C(7), C(8)), var, byte), 8u);
}

// 128-bit values (__int128, _BitInt up to 128): a Const holds at most 64 bits, wider
// constants are expressions over 64-bit ones; widths above 128 are rejected; the
// evaluator computes in 128 bits.
namespace {
Value ev128(const ExprPtr& e) { return evalExpr(*e, nullptr, nullptr, 64); }
std::string dec(Value v, uint32_t w = 128, bool sg = false) { return valueToString(v, w, sg); }
}  // namespace

TEST(Expr128, WideConstantsAndWidthLimits) {
  EXPECT_THROW(Expr::mkVar(1, 129), std::invalid_argument);
  EXPECT_THROW(Expr::mkLoad(Expr::mkVar(2, 64), 17), std::invalid_argument);
  EXPECT_EQ(Expr::mkLoad(Expr::mkVar(2, 64), 16)->width, 128u);
  const Value big = (Value{0x0123456789abcdefull} << 64) | 0xfedcba9876543210ull;
  for (Value v : {Value{0}, Value{5}, ~Value{0}, big, Value{1} << 127, (Value{1} << 64) - 1, ~Value{0} << 63, ~big}) {
    ExprPtr c = Expr::mkWideConst(v, 128);
    EXPECT_NE(c->kind, ExprKind::Const);
    EXPECT_EQ(dec(ev128(c)), dec(v));
  }
  EXPECT_EQ(Expr::mkWideConst(7, 64)->kind, ExprKind::Const);
  EXPECT_EQ(dec(ev128(Expr::mkWideConst(~Value{0}, 100)), 128), dec((Value{1} << 100) - 1));
}

TEST(Expr128, EvaluationWrapsAt128Bits) {
  const Value ones = ~Value{0};
  EXPECT_EQ(dec(evalBinary(BinOp::Add, ones, 1, 128, 128)), "0");
  EXPECT_EQ(dec(evalBinary(BinOp::Mul, M64, M64, 128, 128)), "340282366920938463426481119284349108225");
  EXPECT_EQ(dec(evalBinary(BinOp::Shl, 1, 100, 128, 128)), "1267650600228229401496703205376");
  EXPECT_EQ(dec(evalBinary(BinOp::Shl, 1, 128, 128, 128)), "0");
  EXPECT_EQ(dec(evalBinary(BinOp::AShr, Value{1} << 127, 126, 128, 128), 128, true), "-2");
  EXPECT_EQ(dec(evalBinary(BinOp::SDiv, ones - 4, 2, 128, 128), 128, true), "-2");  // -5 / 2
  EXPECT_EQ(dec(evalBinary(BinOp::SRem, ones - 4, 3, 128, 128), 128, true), "-2");  // -5 % 3
  EXPECT_EQ(dec(evalBinary(BinOp::SLt, ones, 0, 128, 1)), "1");
  EXPECT_EQ(dec(evalBinary(BinOp::ULt, ones, 0, 128, 1)), "0");
  EXPECT_EQ(dec(evalCast(CastKind::SExt, M64, 64, 128)), dec(ones));
  EXPECT_EQ(dec(evalCast(CastKind::ZExt, M64, 64, 128)), "18446744073709551615");
  EXPECT_EQ(dec(evalCast(CastKind::Trunc, ones, 128, 100)), dec((Value{1} << 100) - 1));
  EXPECT_EQ(dec(evalUnary(UnOp::Neg, 1, 128)), "340282366920938463463374607431768211455");
  EXPECT_EQ(dec(ones, 128, true), "-1");
  EXPECT_EQ(dec(Value{1} << 127, 128, true), "-170141183460469231731687303715884105728");
  EXPECT_EQ(parseValue("340282366920938463463374607431768211455"), ones);
  EXPECT_FALSE(parseValue("340282366920938463463374607431768211456").has_value());
  EXPECT_FALSE(parseValue("12a").has_value());
  // 16-byte loads are little-endian like any other
  std::map<uint64_t, uint8_t> mem;
  for (uint64_t i = 0; i < 16; ++i) mem[0x100 + i] = static_cast<uint8_t>(i + 1);
  Value loaded = evalExpr(*Expr::mkLoad(Expr::mkConst(0x100, 64), 16), nullptr,
                          [&](uint64_t a) { return mem.count(a) ? mem[a] : uint8_t{0}; }, 64);
  EXPECT_EQ(static_cast<uint64_t>(loaded >> 120), 16u);
  EXPECT_EQ(static_cast<uint64_t>(loaded & 0xff), 1u);
}
