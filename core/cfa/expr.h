// Side-effect-free expressions on CFA edges.
//
// The frontend lowers C into a small bit-vector language: every value is a bit-vector
// of a fixed width (a C scalar of N bytes is 8*N bits; _Bool is 8 bits holding 0/1;
// pointers are bit-vectors of the data model's pointer width). C's implicit
// conversions, integer promotions and pointer-arithmetic scaling are already explicit
// in the tree: operands of a binary operator have the same width, and signedness is a
// property of the operator (SDiv vs UDiv), not of the value.
//
// Semantics (shared by the SMT encoding and the concrete interpreter, which must
// agree): arithmetic wraps modulo 2^width; division and remainder by zero follow
// SMT-LIB (x/0 = all ones for unsigned, x%0 = x); shifts by >= width follow SMT-LIB
// (shl/lshr give 0, ashr gives the sign fill); comparisons and logical operators yield
// 0 or 1 in the result width.
//
// Memory is one flat, byte-addressed, little-endian array. `Load` reads `bytes`
// consecutive bytes starting at an address expression.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace argus::cfa {

using VarId = uint32_t;

enum class ExprKind : uint8_t { Const, Var, Load, Unary, Binary, Cast, Ite };

enum class UnOp : uint8_t { Neg, BitNot, LogNot /* x == 0 ? 1 : 0 */ };

enum class BinOp : uint8_t {
  Add, Sub, Mul, SDiv, UDiv, SRem, URem,
  Shl, LShr, AShr, And, Or, Xor,
  Eq, Ne, SLt, SLe, ULt, ULe,   // result: 0/1 in the expression's width
  LAnd, LOr,                    // non-short-circuit logical and/or on pure operands: 0/1
};

enum class CastKind : uint8_t { ZExt, SExt, Trunc, ToBool /* x != 0 ? 1 : 0 */ };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind;
  uint32_t width;        // result width in bits
  uint64_t value = 0;    // Const (width <= 64)
  VarId var = 0;         // Var
  UnOp unop = UnOp::Neg;
  BinOp binop = BinOp::Add;
  CastKind cast = CastKind::ZExt;
  std::vector<ExprPtr> ops;  // Load: {addr}; Unary: {a}; Binary: {a, b}; Cast: {a}; Ite: {c, t, e}

  static ExprPtr mkConst(uint64_t v, uint32_t width);
  static ExprPtr mkVar(VarId v, uint32_t width);
  static ExprPtr mkLoad(ExprPtr addr, uint32_t bytes);
  static ExprPtr mkUnary(UnOp op, ExprPtr a);
  // For comparisons and LAnd/LOr the result width is `width`; for the others it must
  // equal the operands' width (pass 0 to take it from the operands).
  static ExprPtr mkBinary(BinOp op, ExprPtr a, ExprPtr b, uint32_t width = 0);
  static ExprPtr mkCast(CastKind k, ExprPtr a, uint32_t width);
  // Converts `a` to `width` bits: truncation, or zero/sign extension by `isSigned`.
  static ExprPtr convert(ExprPtr a, uint32_t width, bool isSigned);
  // c != 0 ? t : e; t and e have the same width.
  static ExprPtr mkIte(ExprPtr c, ExprPtr t, ExprPtr e);
};

const char* binOpName(BinOp op);
std::string toString(const ExprPtr& e, const std::vector<std::string>* varNames = nullptr);

}  // namespace argus::cfa
