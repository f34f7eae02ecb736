// Lowering: floating point (float and double as IEEE 754 bit images, core/cfa/expr.h)
// and the math.h functions and floating-point builtins SV-COMP programs use.
//
// Conversions follow C11 6.3.1.4/6.3.1.5: integer -> float rounds to nearest even,
// float -> integer truncates toward zero; a float -> integer conversion of NaN or of a
// value outside the target's range is undefined, so that path ends in an Unsupported
// edge (the verdict is unknown if it is reachable) instead of picking a value.
// long double, complex and the other formats stay unsupported (isFloating).
#include <clang/AST/ASTContext.h>

#include <cmath>
#include <cstring>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::CastKind;
using cfa::Expr;
using cfa::ExprPtr;
using cfa::UnOp;

namespace {

uint64_t signMask(uint32_t w) { return uint64_t{1} << (w - 1); }
uint64_t expMask(uint32_t w) { return w == 32 ? 0x7f800000ull : 0x7ff0000000000000ull; }
uint64_t fracMask(uint32_t w) { return w == 32 ? 0x007fffffull : 0x000fffffffffffffull; }

ExprPtr c(uint64_t v, uint32_t w) { return Expr::mkConst(v, w); }
ExprPtr bin(BinOp op, ExprPtr a, ExprPtr b, uint32_t w = 0) { return Expr::mkBinary(op, std::move(a), std::move(b), w); }

}  // namespace

ExprPtr Lowerer::floatConst(double x, uint32_t width) {
  if (width == 32) {
    float f = static_cast<float>(x);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return Expr::mkConst(b, 32);
  }
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return Expr::mkConst(b, 64);
}

ExprPtr Lowerer::floatTruth(ExprPtr v, uint32_t width) {
  return Expr::mkUnary(UnOp::LogNot, bin(BinOp::FEq, v, floatConst(0.0, v->width), width));
}

ExprPtr Lowerer::convertFloat(ExprPtr v, QualType from, QualType to) {
  bool ff = isFloatT(from), tf = isFloatT(to);
  if (ff && tf) {
    uint32_t w = widthOf(to);
    return v->width == w ? v : Expr::mkCast(CastKind::FToF, v, w);
  }
  if (tf) {  // integer (bool, enum) -> float
    if (to.getCanonicalType()->isBooleanType()) return v;
    return Expr::mkCast(isSignedT(from) ? CastKind::SToF : CastKind::UToF, v, widthOf(to));
  }
  // float -> integer
  if (to.getCanonicalType()->isBooleanType()) return floatTruth(v, widthOf(to));
  uint32_t w = widthOf(to), fw = v->width;
  bool sg = isSignedT(to);
  uint32_t rangeBits = bitIntBits(to) ? bitIntBits(to) : w;  // _ExtInt(N): N bits
  ExprPtr ok;
  if (sg) {
    double lo = -std::ldexp(1.0, static_cast<int>(rangeBits) - 1), hi = std::ldexp(1.0, static_cast<int>(rangeBits) - 1);
    ok = bin(BinOp::LAnd, bin(BinOp::FLe, floatConst(lo, fw), Expr::mkUnary(UnOp::FTrunc, v), 1),
             bin(BinOp::FLt, v, floatConst(hi, fw), 1), 1);
  } else {
    ok = bin(BinOp::LAnd, bin(BinOp::FLt, floatConst(-1.0, fw), v, 1),
             bin(BinOp::FLt, v, floatConst(std::ldexp(1.0, static_cast<int>(rangeBits)), fw), 1), 1);
  }
  unsupportedIf(Expr::mkUnary(UnOp::LogNot, ok),
                "conversion of a floating-point value that is NaN or out of the range of '" +
                    to.getUnqualifiedType().getAsString() + "' (undefined)",
                curStmt);
  return Expr::mkCast(sg ? CastKind::FToS : CastKind::FToU, v, w);
}

ExprPtr Lowerer::floatArith(BinaryOperatorKind op, ExprPtr a, ExprPtr b, uint32_t rw, const clang::Expr* at) {
  if (a->width != b->width) {
    unsupported("floating-point operands of different types", at);
    return Expr::mkWideConst(0, rw);
  }
  switch (op) {
    case BO_Add: return bin(BinOp::FAdd, a, b);
    case BO_Sub: return bin(BinOp::FSub, a, b);
    case BO_Mul: return bin(BinOp::FMul, a, b);
    case BO_Div: return bin(BinOp::FDiv, a, b);
    case BO_EQ: return bin(BinOp::FEq, a, b, rw);
    case BO_NE: return Expr::mkUnary(UnOp::LogNot, bin(BinOp::FEq, a, b, rw));
    case BO_LT: return bin(BinOp::FLt, a, b, rw);
    case BO_GT: return bin(BinOp::FLt, b, a, rw);
    case BO_LE: return bin(BinOp::FLe, a, b, rw);
    case BO_GE: return bin(BinOp::FLe, b, a, rw);
    default:
      unsupported("floating-point binary operator", at);
      return Expr::mkWideConst(0, rw);
  }
}

// ---------------------------------------------------------------- math.h

namespace {

enum class MathOp {
  Fabs, Sqrt, Floor, Ceil, Round, Trunc, Rint, Fmin, Fmax, Copysign, Remainder,
  IsNan, IsInf, IsInfSign, IsFinite, IsNormal, SignBit, Fpclassify,
};

struct MathFn {
  MathOp op;
  unsigned args;
};

// The name without a `__builtin_` prefix; the f/l suffix variants differ only in type,
// which the call's (converted) argument carries.
std::optional<MathFn> parseMath(std::string n) {
  if (n.rfind("__builtin_", 0) == 0) n = n.substr(10);
  static const std::pair<const char*, MathFn> table[] = {
      {"fabs", {MathOp::Fabs, 1}},         {"sqrt", {MathOp::Sqrt, 1}},
      {"floor", {MathOp::Floor, 1}},       {"ceil", {MathOp::Ceil, 1}},
      {"round", {MathOp::Round, 1}},       {"trunc", {MathOp::Trunc, 1}},
      {"rint", {MathOp::Rint, 1}},         {"nearbyint", {MathOp::Rint, 1}},
      {"fmin", {MathOp::Fmin, 2}},         {"fmax", {MathOp::Fmax, 2}},
      {"copysign", {MathOp::Copysign, 2}}, {"remainder", {MathOp::Remainder, 2}},
  };
  for (const auto& [name, fn] : table) {
    std::string s(name);
    if (n == s || n == s + "f" || n == s + "l") return fn;
  }
  // classification: the type-generic builtins (glibc's macros expand to them) and
  // glibc's own functions behind the macros
  static const std::pair<const char*, MathFn> cls[] = {
      {"isnan", {MathOp::IsNan, 1}},       {"__isnan", {MathOp::IsNan, 1}},
      {"__isnanf", {MathOp::IsNan, 1}},    {"isinf", {MathOp::IsInf, 1}},
      {"__isinf", {MathOp::IsInfSign, 1}}, {"__isinff", {MathOp::IsInfSign, 1}},
      {"isinf_sign", {MathOp::IsInfSign, 1}},
      {"isfinite", {MathOp::IsFinite, 1}}, {"finite", {MathOp::IsFinite, 1}},
      {"finitef", {MathOp::IsFinite, 1}},  {"__finite", {MathOp::IsFinite, 1}},
      {"__finitef", {MathOp::IsFinite, 1}}, {"isnormal", {MathOp::IsNormal, 1}},
      {"signbit", {MathOp::SignBit, 1}},   {"signbitf", {MathOp::SignBit, 1}},
      {"__signbit", {MathOp::SignBit, 1}}, {"__signbitf", {MathOp::SignBit, 1}},
      {"fpclassify", {MathOp::Fpclassify, 6}},
  };
  for (const auto& [name, fn] : cls)
    if (n == name) return fn;
  return std::nullopt;
}

}  // namespace

ExprPtr Lowerer::mathBuiltin(const CallExpr* ce, const std::string& name, bool& handled) {
  std::optional<MathFn> fn = parseMath(name);
  if (!fn || ce->getNumArgs() != fn->args) {
    handled = false;
    return nullptr;
  }
  handled = true;
  QualType rt = ce->getType();
  uint32_t rw = isScalar(rt) ? widthOf(rt) : 32;
  // the floating-point operand(s): the last argument of fpclassify, else all
  unsigned first = fn->op == MathOp::Fpclassify ? 5 : 0;
  std::vector<ExprPtr> x;
  for (unsigned i = first; i < ce->getNumArgs(); ++i) {
    // type-generic builtins see the argument's own type (a float stays a float)
    const clang::Expr* a = ce->getArg(i);
    QualType at = a->getType();
    if (!isFloatT(at)) {
      const clang::Expr* inner = a->IgnoreParenImpCasts();
      if (isFloating(at) || isFloating(inner->getType()))
        unsupported("call to '" + name + "' on type '" + floatTypeName(isFloating(at) ? at : inner->getType()) +
                        "' (not modelled)",
                    ce);
      else
        unsupported("call to '" + name + "' on an operand of type '" + at.getAsString() + "'", ce);
      return Expr::mkWideConst(0, rw);
    }
    x.push_back(rvalue(a));
  }
  if (x.size() == 2 && x[0]->width != x[1]->width) {
    unsupported("call to '" + name + "' on operands of different types", ce);
    return Expr::mkWideConst(0, rw);
  }
  ExprPtr v = x[0];
  uint32_t w = v->width;
  auto isNan = [&](ExprPtr e) { return Expr::mkUnary(UnOp::LogNot, bin(BinOp::FEq, e, e, 1)); };
  ExprPtr mag = bin(BinOp::And, v, c(~signMask(w) & (w == 32 ? 0xffffffffull : ~0ull), w));
  ExprPtr expBits = bin(BinOp::And, v, c(expMask(w), w));
  auto toInt = [&](ExprPtr b1) { return Expr::convert(b1, rw, false); };  // 0/1 of width 1 -> rw
  switch (fn->op) {
    case MathOp::Fabs: return mag;
    case MathOp::Sqrt: return Expr::mkUnary(UnOp::FSqrt, v);
    case MathOp::Floor: return Expr::mkUnary(UnOp::FFloor, v);
    case MathOp::Ceil: return Expr::mkUnary(UnOp::FCeil, v);
    case MathOp::Round: return Expr::mkUnary(UnOp::FRound, v);
    case MathOp::Trunc: return Expr::mkUnary(UnOp::FTrunc, v);
    case MathOp::Rint: return Expr::mkUnary(UnOp::FRint, v);
    case MathOp::Fmin:
    case MathOp::Fmax: {
      // C11 F.10.9.2/3: a NaN operand gives the other one; otherwise the smaller
      // (larger) one. Which zero fmin(-0, +0) gives is unspecified (glibc's library
      // function and GCC's inline expansion differ), so that case is Unsupported.
      ExprPtr y = x[1];
      ExprPtr bothZero = bin(BinOp::LAnd, bin(BinOp::Eq, mag, c(0, w), 1),
                             bin(BinOp::Eq, bin(BinOp::And, y, c(~signMask(w) & (w == 32 ? 0xffffffffull : ~0ull), w)), c(0, w), 1), 1);
      unsupportedIf(bin(BinOp::LAnd, bothZero, bin(BinOp::Ne, v, y, 1), 1),
                    "call to '" + name + "' with a +0 and a -0 operand (which one it gives is unspecified)", ce);
      ExprPtr pick = fn->op == MathOp::Fmin ? bin(BinOp::FLt, v, y, 1) : bin(BinOp::FLt, y, v, 1);
      ExprPtr r = Expr::mkIte(pick, v, y);
      r = Expr::mkIte(isNan(y), v, r);
      return Expr::mkIte(isNan(v), y, r);
    }
    case MathOp::Remainder:
      // IEEE 754 remainder, exact (C11 7.12.10.2, F.10.7.2): x - n*y with n = x/y
      // rounded to nearest even; NaN for y == 0 or infinite x (errno is not modelled)
      return bin(BinOp::FRem, v, x[1]);
    case MathOp::Copysign:
      return bin(BinOp::Or, mag, bin(BinOp::And, x[1], c(signMask(w), w)));
    case MathOp::IsNan: return toInt(isNan(v));
    case MathOp::IsInf: return toInt(bin(BinOp::Eq, mag, c(expMask(w), w), 1));
    case MathOp::IsInfSign: {
      ExprPtr inf = bin(BinOp::Eq, mag, c(expMask(w), w), 1);
      ExprPtr neg = bin(BinOp::Ne, bin(BinOp::And, v, c(signMask(w), w)), c(0, w), 1);
      return Expr::mkIte(inf, Expr::mkIte(neg, c(~uint64_t{0}, rw), c(1, rw)), c(0, rw));
    }
    case MathOp::IsFinite: return toInt(bin(BinOp::Ne, expBits, c(expMask(w), w), 1));
    case MathOp::IsNormal:
      return toInt(bin(BinOp::LAnd, bin(BinOp::Ne, expBits, c(expMask(w), w), 1), bin(BinOp::Ne, expBits, c(0, w), 1), 1));
    case MathOp::SignBit: return toInt(bin(BinOp::Ne, bin(BinOp::And, v, c(signMask(w), w)), c(0, w), 1));
    case MathOp::Fpclassify: {
      // __builtin_fpclassify(nan, inf, normal, subnormal, zero, x)
      std::vector<ExprPtr> k;
      for (unsigned i = 0; i < 5; ++i) k.push_back(convertScalar(rvalue(ce->getArg(i)), ce->getArg(i)->getType(), rt));
      ExprPtr isZeroExp = bin(BinOp::Eq, expBits, c(0, w), 1);
      ExprPtr isMaxExp = bin(BinOp::Eq, expBits, c(expMask(w), w), 1);
      ExprPtr fracZero = bin(BinOp::Eq, bin(BinOp::And, v, c(fracMask(w), w)), c(0, w), 1);
      ExprPtr special = Expr::mkIte(fracZero, k[1], k[0]);    // inf : nan
      ExprPtr small = Expr::mkIte(fracZero, k[4], k[3]);      // zero : subnormal
      return Expr::mkIte(isMaxExp, special, Expr::mkIte(isZeroExp, small, k[2]));
    }
  }
  handled = false;
  return nullptr;
}

}  // namespace argus::frontend
