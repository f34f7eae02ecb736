// Lowering: compiler builtins with their exact semantics (GCC's manual, "Other Built-in
// Functions" and "Built-in Functions to Perform Arithmetic with Overflow Checking"),
// expressed in the CFA's bit-vector expressions, so the SMT encoding and the replay
// interpreter compute them alike.
//
//  - __builtin_{clz,ctz,clrsb,ffs,popcount,parity}{,s,l,ll} on the parameter's type
//    (unsigned short for the `s` forms, unsigned int / long / long long otherwise); the
//    generic `g` forms (GCC 14) on the argument's own type; __builtin_bswap{16,32,64};
//    and <strings.h>'s ffs, ffsl, ffsll. clz and ctz of 0 are undefined: without the
//    `g` forms' second argument, the path where the operand is 0 is unsupported.
//  - __builtin_{add,sub,mul}_overflow and the typed __builtin_[us]{add,sub,mul}[l,ll]_overflow:
//    the mathematically exact result, stored to *res truncated to its type; the result
//    says whether it did not fit. Exact in a wider bit-vector when the operand and
//    result types fit in 64 bits together; otherwise (64-bit operands) by the
//    wrap-around identities when all three types are the same (a multiplication by a
//    constant compares with precomputed bounds), else unsupported.
#include <clang/AST/ASTContext.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::CastKind;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;
using cfa::UnOp;

namespace {

enum class BitOp { Clz, Ctz, Clrsb, Ffs, Popcount, Parity, Bswap };

struct BitBuiltin {
  BitOp op;
  bool generic;  // the `g` forms: the operand keeps its type; clz/ctz take a value for 0
};

std::optional<BitBuiltin> parseBitBuiltin(const std::string& name) {
  std::string n = name;
  if (n.rfind("__builtin_", 0) == 0) n = n.substr(std::strlen("__builtin_"));
  else if (n != "ffs" && n != "ffsl" && n != "ffsll") return std::nullopt;
  static const std::pair<const char*, BitOp> bases[] = {
      {"clrsb", BitOp::Clrsb}, {"clz", BitOp::Clz},       {"ctz", BitOp::Ctz},     {"ffs", BitOp::Ffs},
      {"popcount", BitOp::Popcount}, {"parity", BitOp::Parity}, {"bswap", BitOp::Bswap}};
  for (const auto& [base, op] : bases) {
    size_t len = std::strlen(base);
    if (n.compare(0, len, base) != 0) continue;
    std::string suffix = n.substr(len);
    if (op == BitOp::Bswap) {
      if (suffix == "16" || suffix == "32" || suffix == "64") return BitBuiltin{op, false};
      return std::nullopt;
    }
    if (suffix.empty() || suffix == "s" || suffix == "l" || suffix == "ll") return BitBuiltin{op, false};
    if (suffix == "g") return BitBuiltin{op, true};
    return std::nullopt;
  }
  return std::nullopt;
}

ExprPtr bitAt(const ExprPtr& x, uint32_t i) {  // (x >> i) & 1, at x's width
  uint32_t w = x->width;
  return Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::LShr, x, Expr::mkConst(i, w)), Expr::mkWideConst(1, w));
}

// Position-indexed choice over the bits of x: the value for the first set bit met when
// scanning from `highFirst` ? the top : the bottom, and `none` when no bit is set.
ExprPtr firstSetBit(const ExprPtr& x, bool highFirst, uint32_t rw, const std::function<uint64_t(uint32_t)>& value,
                    uint64_t none) {
  uint32_t w = x->width;
  ExprPtr r = Expr::mkConst(none, rw);
  // Built from the last bit scanned to the first, so the first one decides.
  for (uint32_t k = 0; k < w; ++k) {
    uint32_t i = highFirst ? k : w - 1 - k;
    r = Expr::mkIte(bitAt(x, i), Expr::mkConst(value(i), rw), r);
  }
  return r;
}

ExprPtr popcount(const ExprPtr& x, uint32_t rw) {
  ExprPtr sum = Expr::mkWideConst(0, rw);
  for (uint32_t i = 0; i < x->width; ++i)
    sum = Expr::mkBinary(BinOp::Add, sum, Expr::convert(bitAt(x, i), rw, false));
  return sum;
}

ExprPtr byteSwap(const ExprPtr& x) {
  uint32_t w = x->width;
  ExprPtr r = Expr::mkWideConst(0, w);
  for (uint32_t b = 0; b < w / 8; ++b) {
    ExprPtr byte = Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::LShr, x, Expr::mkConst(8 * b, w)),
                                  Expr::mkConst(0xff, w));
    r = Expr::mkBinary(BinOp::Or, r, Expr::mkBinary(BinOp::Shl, byte, Expr::mkConst(w - 8 - 8 * b, w)));
  }
  return r;
}

enum class OvfOp { Add, Sub, Mul };

std::optional<OvfOp> parseOverflowBuiltin(const std::string& name) {
  // __builtin_{add,sub,mul}_overflow and __builtin_[us]{add,sub,mul}{,l,ll}_overflow
  const std::string pre = "__builtin_", post = "_overflow";
  if (name.size() <= pre.size() + post.size() || name.rfind(pre, 0) != 0 ||
      name.compare(name.size() - post.size(), post.size(), post) != 0)
    return std::nullopt;
  std::string core = name.substr(pre.size(), name.size() - pre.size() - post.size());
  auto base = [](const std::string& s) -> std::optional<OvfOp> {
    if (s == "add") return OvfOp::Add;
    if (s == "sub") return OvfOp::Sub;
    if (s == "mul") return OvfOp::Mul;
    return std::nullopt;
  };
  if (auto o = base(core)) return o;
  if (core.size() < 4 || (core[0] != 's' && core[0] != 'u')) return std::nullopt;
  std::string typed = core.substr(1);
  for (const char* suffix : {"", "l", "ll"})
    if (typed.size() == 3 + std::strlen(suffix) && typed.compare(3, std::string::npos, suffix) == 0)
      return base(typed.substr(0, 3));
  return std::nullopt;
}


}  // namespace

// Overflow of a * c for a constant c, by comparing a with bounds computed here (no
// division in the formula): unsigned a * c overflows iff a > MAX / c; signed, with C's
// truncating division, iff a > MAX / c or a < MIN / c for c > 0, iff a < MAX / c or
// a > MIN / c for c < -1, iff a == MIN for c == -1, never for c == 0. nullopt when c is
// not a constant.
std::optional<ExprPtr> mulOverflowByConstant(const ExprPtr& a, const ExprPtr& c, bool isSigned, uint32_t rw) {
  if (c->kind != cfa::ExprKind::Const) return std::nullopt;
  uint32_t w = a->width;
  uint64_t mask = w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  auto k = [w](uint64_t v) { return Expr::mkConst(v, w); };
  auto cmp = [rw](BinOp op, ExprPtr x, ExprPtr y) { return Expr::mkBinary(op, std::move(x), std::move(y), rw); };
  if (!isSigned) {
    if (c->value == 0) return Expr::mkWideConst(0, rw);
    return cmp(BinOp::ULt, k(mask / c->value), a);
  }
  // the constant as a signed number of w bits
  int64_t cv = w == 64 ? static_cast<int64_t>(c->value)
                       : static_cast<int64_t>(c->value << (64 - w)) >> (64 - w);
  int64_t max = w == 64 ? INT64_MAX : (int64_t(1) << (w - 1)) - 1, min = -max - 1;
  if (cv == 0) return Expr::mkWideConst(0, rw);
  if (cv == -1) return cmp(BinOp::Eq, a, k(static_cast<uint64_t>(min)));
  ExprPtr hi = k(static_cast<uint64_t>(max / cv)), lo = k(static_cast<uint64_t>(min / cv));
  if (cv > 0)
    return Expr::mkBinary(BinOp::LOr, cmp(BinOp::SLt, hi, a), cmp(BinOp::SLt, a, lo), rw);
  return Expr::mkBinary(BinOp::LOr, cmp(BinOp::SLt, a, hi), cmp(BinOp::SLt, lo, a), rw);
}

// Assigns `v` to a fresh temporary and returns the temporary (evaluated once, shared by
// the several uses the builtins make of their operands).
ExprPtr Lowerer::materialize(ExprPtr v, bool isSigned) {
  cfa::VarId t = newTemp(v->width, isSigned);
  Edge a = edge(EdgeKind::Assign);
  a.lhs = t;
  a.rhs = std::move(v);
  emit(a);
  return Expr::mkVar(t, prog.vars[t].width);
}

// The path goes on where `cond` is 0; where it is not, it ends in an Unsupported edge.
void Lowerer::unsupportedIf(ExprPtr cond, const std::string& what, const Stmt* s) {
  cfa::LocId ok = newLoc();
  Edge no = edge(EdgeKind::Assume);
  no.cond = cond;
  no.positive = false;
  emitTo(no, ok);
  Edge yes = edge(EdgeKind::Assume);
  yes.cond = std::move(cond);
  emit(yes);
  unsupported(what, s);
  cur = ok;
}

ExprPtr Lowerer::bitBuiltin(const CallExpr* ce, const std::string& name, bool& handled) {
  std::optional<BitBuiltin> bb = parseBitBuiltin(name);
  QualType rt = ce->getType();
  unsigned minArgs = 1, maxArgs = bb && bb->generic && (bb->op == BitOp::Clz || bb->op == BitOp::Ctz) ? 2 : 1;
  if (!bb || ce->getNumArgs() < minArgs || ce->getNumArgs() > maxArgs || !isScalar(rt)) {
    handled = false;
    return nullptr;
  }
  handled = true;
  // The operand's type: the parameter's (Clang has converted the argument), or for the
  // generic forms, which take any unsigned type, the argument's own.
  const clang::Expr* arg = ce->getArg(0);
  QualType at = bb->generic ? arg->IgnoreParenImpCasts()->getType() : arg->getType();
  uint32_t rw = widthOf(rt);
  if (!isScalar(at) || at->isPointerType() || widthOf(at) > 64 || widthOf(at) % 8 != 0) {
    for (unsigned i = 0; i < ce->getNumArgs(); ++i) rvalue(ce->getArg(i));
    unsupported("call to '" + name + "' on an operand of type '" + at.getAsString() + "'", ce);
    return Expr::mkWideConst(0, rw);
  }
  ExprPtr x = materialize(convertScalar(rvalue(arg), arg->getType(), at), isSignedT(at));
  uint32_t w = x->width;
  ExprPtr isZero = Expr::mkBinary(BinOp::Eq, x, Expr::mkWideConst(0, w), 1);
  ExprPtr r;
  switch (bb->op) {
    case BitOp::Clz:
    case BitOp::Ctz: {
      bool clz = bb->op == BitOp::Clz;
      auto count = [w, clz](uint32_t i) -> uint64_t { return clz ? w - 1 - i : i; };
      r = firstSetBit(x, clz, rw, count, 0);
      if (ce->getNumArgs() == 2) {
        ExprPtr fallback = convertScalar(rvalue(ce->getArg(1)), ce->getArg(1)->getType(), rt);
        r = Expr::mkIte(isZero, fallback, r);
      } else {
        unsupportedIf(isZero, "'" + name + "' of 0 (undefined)", ce);
      }
      break;
    }
    case BitOp::Clrsb: {
      // leading bits equal to the sign bit, not counting the sign bit: clz(x < 0 ? ~x : x) - 1
      ExprPtr neg = Expr::mkBinary(BinOp::SLt, x, Expr::mkWideConst(0, w), 1);
      ExprPtr y = Expr::mkIte(neg, Expr::mkUnary(UnOp::BitNot, x), x);
      r = firstSetBit(y, true, rw, [w](uint32_t i) -> uint64_t { return w - 2 - i; }, w - 1);
      break;
    }
    case BitOp::Ffs:
      r = firstSetBit(x, false, rw, [](uint32_t i) -> uint64_t { return i + 1; }, 0);
      break;
    case BitOp::Popcount:
      r = popcount(x, rw);
      break;
    case BitOp::Parity:
      r = Expr::mkBinary(BinOp::And, popcount(x, rw), Expr::mkWideConst(1, rw));
      break;
    case BitOp::Bswap:
      r = Expr::convert(byteSwap(x), rw, false);
      break;
  }
  return r;
}

ExprPtr Lowerer::overflowBuiltin(const CallExpr* ce, const std::string& name, bool& handled) {
  std::optional<OvfOp> op = parseOverflowBuiltin(name);
  QualType rt = ce->getType();
  if (!op || ce->getNumArgs() != 3 || !isScalar(rt)) {
    handled = false;
    return nullptr;
  }
  handled = true;
  uint32_t rw = widthOf(rt);
  // Operand types: the typed forms convert to their parameters; the generic ones keep
  // the arguments' own types.
  const clang::Expr* ea = ce->getArg(0);
  const clang::Expr* eb = ce->getArg(1);
  QualType ta = ea->IgnoreParenImpCasts()->getType(), tb = eb->IgnoreParenImpCasts()->getType();
  if (ce->getDirectCallee() && ce->getDirectCallee()->getNumParams() == 3) {
    ta = ce->getDirectCallee()->getParamDecl(0)->getType();
    tb = ce->getDirectCallee()->getParamDecl(1)->getType();
  }
  QualType pt = ce->getArg(2)->IgnoreParenImpCasts()->getType();
  QualType tr = pt->isPointerType() ? pt->getPointeeType() : QualType();
  auto integral = [&](QualType t) {
    return !t.isNull() && isScalar(t) && t->isIntegerType() && !t->isBooleanType() && !t->isEnumeralType() &&
           widthOf(t) <= 64;
  };
  ExprPtr a = rvalue(ea), b = rvalue(eb), p = rvalue(ce->getArg(2));
  if (!integral(ta) || !integral(tb) || !integral(tr)) {
    unsupported("call to '" + name + "' with operand or result types other than integers of at most 64 bits", ce);
    return Expr::mkWideConst(0, rw);
  }
  a = convertScalar(a, ea->getType(), ta);
  b = convertScalar(b, eb->getType(), tb);
  bool sa = isSignedT(ta), sb = isSignedT(tb), sr = isSignedT(tr);
  uint32_t wa = widthOf(ta), wb = widthOf(tb), wr = widthOf(tr);
  // Bits that hold every value of a type as a signed number.
  auto bits = [](uint32_t w, bool s) { return w + (s ? 0 : 1); };
  uint32_t need = *op == OvfOp::Mul ? bits(wa, sa) + bits(wb, sb) : std::max(bits(wa, sa), bits(wb, sb)) + 1;
  need = std::max(need, bits(wr, sr) + 1);
  ExprPtr stored, overflow;
  if (need <= 64) {
    // Exact: both operands as signed numbers of `n` bits, where the operation cannot wrap.
    uint32_t n = need <= 16 ? 16 : need <= 32 ? 32 : 64;
    ExprPtr A = materialize(Expr::convert(a, n, sa), true), B = materialize(Expr::convert(b, n, sb), true);
    BinOp bop = *op == OvfOp::Add ? BinOp::Add : *op == OvfOp::Sub ? BinOp::Sub : BinOp::Mul;
    ExprPtr R = materialize(Expr::mkBinary(bop, A, B), true);
    stored = Expr::convert(R, wr, sr);
    // fits iff converting back to n bits gives R again (sign- or zero-extension)
    overflow = Expr::mkBinary(BinOp::Ne, Expr::convert(stored, n, sr), R, rw);
  } else if (wa == wb && wb == wr && sa == sb && sb == sr) {
    uint32_t w = wr;
    ExprPtr A = materialize(a, sa), B = materialize(b, sb);
    BinOp bop = *op == OvfOp::Add ? BinOp::Add : *op == OvfOp::Sub ? BinOp::Sub : BinOp::Mul;
    ExprPtr R = materialize(Expr::mkBinary(bop, A, B), sr);
    stored = R;
    ExprPtr zero = Expr::mkWideConst(0, w);
    auto ne = [&](ExprPtr x, ExprPtr y) { return Expr::mkBinary(BinOp::Ne, std::move(x), std::move(y), rw); };
    auto land = [&](ExprPtr x, ExprPtr y) { return Expr::mkBinary(BinOp::LAnd, std::move(x), std::move(y), rw); };
    auto lor = [&](ExprPtr x, ExprPtr y) { return Expr::mkBinary(BinOp::LOr, std::move(x), std::move(y), rw); };
    auto negative = [&](ExprPtr x) { return Expr::mkBinary(BinOp::SLt, std::move(x), zero, rw); };
    switch (*op) {
      case OvfOp::Add:  // signed: both operands' signs differ from the result's
        overflow = sr ? negative(Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::Xor, A, R), Expr::mkBinary(BinOp::Xor, B, R)))
                      : Expr::mkBinary(BinOp::ULt, R, A, rw);
        break;
      case OvfOp::Sub:  // signed: operands of different signs and the result's sign is not a's
        overflow = sr ? negative(Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::Xor, A, B), Expr::mkBinary(BinOp::Xor, A, R)))
                      : Expr::mkBinary(BinOp::ULt, A, B, rw);
        break;
      case OvfOp::Mul: {
        std::optional<ExprPtr> byConstant = mulOverflowByConstant(A, b, sr, rw);
        if (!byConstant) byConstant = mulOverflowByConstant(B, a, sr, rw);
        if (byConstant) {
          overflow = *byConstant;
          break;
        }
        // a != 0 and r / a != b (the truncated quotient of a wrapped product never equals
        // b), and for signed operands the one case the division wraps too: -1 * MIN.
        ExprPtr quotientDiffers = ne(Expr::mkBinary(sr ? BinOp::SDiv : BinOp::UDiv, R, A), B);
        if (sr) {
          ExprPtr minusOneTimesMin = land(Expr::mkBinary(BinOp::Eq, A, Expr::mkConst(~uint64_t(0), w), rw),
                                          Expr::mkBinary(BinOp::Eq, B, Expr::mkConst(uint64_t(1) << (w - 1), w), rw));
          quotientDiffers = lor(quotientDiffers, minusOneTimesMin);
        }
        overflow = land(ne(A, zero), quotientDiffers);
        break;
      }
    }
  } else {
    unsupported("call to '" + name + "' with 64-bit operands of different types", ce);
    return Expr::mkWideConst(0, rw);
  }
  Edge st = edge(EdgeKind::Store);
  st.addr = p;
  st.value = stored;
  st.bytes = wr / 8;
  emit(st);
  return overflow;
}

}  // namespace argus::frontend
