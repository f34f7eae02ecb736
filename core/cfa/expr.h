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
//
// Widths: 1..128 bits (__int128 and _BitInt up to 128 bits are values like any other),
// but a `Const` holds at most 64 bits: a wider constant is built from 64-bit ones by
// mkWideConst (zero/sign extension, or (hi << 64) | lo), so every reader of
// Expr::value sees the whole constant. Concrete values of any width are `Value`
// (unsigned __int128) holding the low `width` bits.
//
// Floating point: a `float` / `double` value is carried as its IEEE 754 bit image
// (binary32 in 32 bits, binary64 in 64 bits), so memory, unions, copies and
// assignments need nothing new. The F* operators interpret their operands' bits as
// IEEE values of the operand width (32: binary32, 64: binary64; other widths are
// rejected) and give the result's bits: FAdd..FDiv and FSqrt round to nearest even;
// FRint/FFloor/FCeil/FTrunc/FRound round to an integral value (to nearest even,
// toward -inf, toward +inf, toward zero, to nearest with ties away from zero).
// FEq/FLt/FLe are IEEE comparisons (false on NaN, -0 == +0), 0/1 in the result width.
// A NaN result's bits are unspecified: the SMT encoding leaves them free (any NaN
// pattern), the interpreter gives the host's; a program that looks at them is
// decided only if the verdict does not depend on them (a counterexample is replayed).
// Casts: FToF converts between binary32 and binary64 (rounding to nearest even);
// SToF/UToF convert a signed/unsigned integer to the float of the result width
// (rounding to nearest even); FToS/FToU truncate toward zero to a signed/unsigned
// integer of the result width; the frontend guards them so they are never evaluated
// on NaN or out-of-range values (undefined in C; those paths are Unsupported).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace argus::cfa {

using VarId = uint32_t;

// A concrete value of up to 128 bits (the low `width` bits of an expression's value).
using Value = unsigned __int128;
constexpr uint32_t kMaxWidth = 128;
inline Value valueMask(uint32_t w) { return w >= 128 ? ~Value{0} : (Value{1} << w) - 1; }
// Decimal rendering of the low `width` bits, as a two's-complement signed number if
// `isSigned`.
std::string valueToString(Value v, uint32_t width, bool isSigned);
// Parses an unsigned decimal numeral of at most 128 bits; nullopt otherwise.
std::optional<Value> parseValue(const std::string& s);

enum class ExprKind : uint8_t { Const, Var, Load, Unary, Binary, Cast, Ite };

enum class UnOp : uint8_t {
  Neg, BitNot, LogNot /* x == 0 ? 1 : 0 */,
  FSqrt, FRint, FFloor, FCeil, FTrunc, FRound,  // floating point (see above)
};

enum class BinOp : uint8_t {
  Add, Sub, Mul, SDiv, UDiv, SRem, URem,
  Shl, LShr, AShr, And, Or, Xor,
  Eq, Ne, SLt, SLe, ULt, ULe,   // result: 0/1 in the expression's width
  LAnd, LOr,                    // non-short-circuit logical and/or on pure operands: 0/1
  FAdd, FSub, FMul, FDiv,       // floating point (see above)
  FEq, FLt, FLe,                // floating-point comparisons: 0/1 in the expression's width
  FRem,                         // IEEE 754 remainder (C's remainder()): x - n*y, n = x/y rounded to nearest even; exact
};

enum class CastKind : uint8_t {
  ZExt, SExt, Trunc, ToBool /* x != 0 ? 1 : 0 */,
  FToF, SToF, UToF, FToS, FToU,  // floating point (see above)
};

// Operators and casts on floating-point bit images.
bool isFloatOp(UnOp op);
bool isFloatOp(BinOp op);
bool isFloatOp(CastKind k);


struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind;
  uint32_t width;        // result width in bits
  uint64_t value = 0;    // Const (width <= 64; wider constants: mkWideConst)
  VarId var = 0;         // Var
  UnOp unop = UnOp::Neg;
  BinOp binop = BinOp::Add;
  CastKind cast = CastKind::ZExt;
  std::vector<ExprPtr> ops;  // Load: {addr}; Unary: {a}; Binary: {a, b}; Cast: {a}; Ite: {c, t, e}

  static ExprPtr mkConst(uint64_t v, uint32_t width);
  // The constant v (low `width` bits, width <= 128): a Const when width <= 64, else an
  // expression over 64-bit constants (ZExt/SExt of one, or (hi << 64) | lo).
  static ExprPtr mkWideConst(Value v, uint32_t width);
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

// True when the expression contains a floating-point operator or cast.
bool hasFloatOp(const Expr& e);
const char* binOpName(BinOp op);
const char* unOpName(UnOp op);
std::string toString(const ExprPtr& e, const std::vector<std::string>* varNames = nullptr);

}  // namespace argus::cfa
