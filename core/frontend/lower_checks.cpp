// Lowering: property checks (issue 26). With FrontendOptions::properties naming a
// property beside reachability, the operations it constrains get a *check edge* before
// them: an Assume of the violation condition leading to an Error edge that carries the
// property (Edge::property), what was checked (Edge::check, Edge::args) and the source
// range of the operation. Every algorithm asks whether an Error edge is reachable, so
// the properties need no code of their own anywhere else; the replay interpreter
// confirms a violation independently from Edge::check and the operands' concrete values
// (core/result/replay.cpp) before a counterexample is reported.
//
//  - no-overflow (SV-COMP): + - * / and unary - (so also ++, --, compound assignments)
//    whose result type is a signed integer type of at least int's rank (the operands are
//    already promoted), when the mathematical result is outside the type's range.
//    Conversions are not overflows.
//  - div-by-zero: the divisor of / and % (integer types) is 0.
//  - shift: the amount of << or >> is negative or not less than the width of the
//    (promoted) left operand.
// Checks are made in user code only: not in the libc models (__argus_*), functions from
// system headers, or the global initialisers (constant expressions Clang evaluates).
#include <clang/AST/ASTContext.h>

#include <algorithm>
#include <cstdint>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::CheckKind;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

bool Lowerer::checking(const char* prop) const {
  if (checks.empty() || !checks.count(prop) || !fn) return false;
  if (fn->systemHeader || fn->name.rfind("__argus", 0) == 0) return false;
  return true;
}

bool Lowerer::hasCheckedOp(const clang::Expr* e) const {
  if (checks.empty() || !e) return false;
  // conservative: any arithmetic a check may apply to
  std::vector<const Stmt*> todo{e};
  while (!todo.empty()) {
    const Stmt* s = todo.back();
    todo.pop_back();
    if (!s) continue;
    if (const auto* bo = dyn_cast<BinaryOperator>(s)) {
      switch (bo->getOpcode()) {
        case BO_Add: case BO_Sub: case BO_Mul: case BO_Div: case BO_Rem: case BO_Shl: case BO_Shr:
        case BO_AddAssign: case BO_SubAssign: case BO_MulAssign: case BO_DivAssign: case BO_RemAssign:
        case BO_ShlAssign: case BO_ShrAssign:
          return true;
        default: break;
      }
    }
    if (const auto* uo = dyn_cast<UnaryOperator>(s))
      if (uo->getOpcode() == UO_Minus || uo->isIncrementDecrementOp()) return true;
    for (const Stmt* c : s->children()) todo.push_back(c);
  }
  return false;
}

void Lowerer::checkEdge(ExprPtr violated, const char* prop, CheckKind kind, std::vector<ExprPtr> operands,
                        const Stmt* at) {
  if (violated->kind == cfa::ExprKind::Const && violated->value == 0) return;
  const Stmt* saved = curStmt;
  if (at) curStmt = at;
  cfa::LocId ok = newLoc(), bad = newLoc();
  Edge no = edge(EdgeKind::Assume);
  no.cond = violated;
  no.positive = false;
  emitTo(no, ok);
  Edge yes = edge(EdgeKind::Assume);
  yes.cond = std::move(violated);
  emitTo(yes, bad);
  cur = bad;
  Edge err = edge(EdgeKind::Error);
  err.property = prop;
  err.check = kind;
  err.args = std::move(operands);
  emitTo(err, fn->error);
  cur = ok;
  curStmt = saved;
}

namespace {

// Bits that hold every value `x` can take as a signed number: k for a sign extension
// from k bits, k + 1 for a zero extension, the constant's own for a constant, else
// the width. (short * short cannot overflow int: 16 + 16 <= 32; no check is needed.)
uint32_t signedBits(const ExprPtr& x) {
  if (x->kind == cfa::ExprKind::Cast && !x->ops.empty()) {
    if (x->cast == cfa::CastKind::SExt) return x->ops[0]->width;
    if (x->cast == cfa::CastKind::ZExt) return x->ops[0]->width + 1;
  }
  if (x->kind == cfa::ExprKind::Const && x->width <= 64 && x->width > 0) {
    uint64_t v = x->value;
    if (x->width < 64 && ((v >> (x->width - 1)) & 1)) v |= ~uint64_t(0) << x->width;  // sign-extend
    if (x->width < 64 && !((v >> (x->width - 1)) & 1)) v &= (uint64_t(1) << x->width) - 1;
    uint64_t m = (v >> 63) ? ~v : v;  // magnitude bits of a non-negative number
    uint32_t k = 1;
    while (k < 64 && (m >> (k - 1)) != 0) ++k;  // m < 2^(k-1)
    return std::min(k, x->width);
  }
  return x->width;
}

}  // namespace

void Lowerer::checkArith(BinaryOperatorKind op, ExprPtr& a, QualType ta, ExprPtr& b, QualType tb, QualType rt,
                         const Stmt* at) {
  ta = ta.getCanonicalType();
  tb = tb.getCanonicalType();
  rt = rt.getCanonicalType();
  if (!ta->isIntegerType() || !tb->isIntegerType() || !rt->isIntegerType()) return;
  bool divLike = op == BO_Div || op == BO_Rem, shiftLike = op == BO_Shl || op == BO_Shr;
  bool ovf = (op == BO_Add || op == BO_Sub || op == BO_Mul || op == BO_Div) && isSignedT(rt) &&
             !rt->isBooleanType() && widthOf(rt) >= widthOf(ctx.IntTy) && checking("no-overflow");
  if (ovf && (a->width != b->width || a->width != widthOf(rt) || a->width > 64)) {
    unsupported("signed arithmetic on operands of different widths (no-overflow check)", at);
    ovf = false;
  }
  bool dz = divLike && checking("div-by-zero");
  bool sh = shiftLike && checking("shift");
  if (!ovf && !dz && !sh) return;
  if (ovf) {  // operands too narrow to overflow (after the promotions): nothing to check
    uint32_t ba = signedBits(a), bb = signedBits(b), w = a->width;
    if (((op == BO_Add || op == BO_Sub) && std::max(ba, bb) + 1 <= w) || (op == BO_Mul && ba + bb <= w)) ovf = false;
  }
  if (!ovf && !dz && !sh) return;
  auto isSimple = [](const ExprPtr& x) { return x->kind == cfa::ExprKind::Const || x->kind == cfa::ExprKind::Var; };
  // operands used more than once are evaluated once
  if (!isSimple(a)) a = materialize(a, isSignedT(ta));
  if (!isSimple(b)) b = materialize(b, isSignedT(tb));
  if (dz) {
    checkEdge(Expr::mkBinary(BinOp::Eq, b, Expr::mkConst(0, b->width), 1), "div-by-zero", CheckKind::DivByZero, {b},
              at);
  }
  if (sh) {
    uint32_t w = a->width;
    // negative amounts are >= w as unsigned numbers
    ExprPtr violated = Expr::mkBinary(BinOp::ULe, Expr::mkConst(w, b->width), b, 1);
    checkEdge(violated, "shift", isSignedT(tb) ? CheckKind::ShiftSigned : CheckKind::ShiftUnsigned,
              {b, Expr::mkConst(w, 32)}, at);
  }
  if (!ovf) return;
  uint32_t w = a->width;
  ExprPtr zero = Expr::mkConst(0, w);
  ExprPtr minV = Expr::mkConst(uint64_t(1) << (w - 1), w), minusOne = Expr::mkConst(~uint64_t(0), w);
  auto negative = [&](ExprPtr x) { return Expr::mkBinary(BinOp::SLt, std::move(x), zero, 1); };
  auto eq = [](ExprPtr x, ExprPtr y) { return Expr::mkBinary(BinOp::Eq, std::move(x), std::move(y), 1); };
  auto land = [](ExprPtr x, ExprPtr y) { return Expr::mkBinary(BinOp::LAnd, std::move(x), std::move(y), 1); };
  ExprPtr violated;
  CheckKind kind = CheckKind::None;
  switch (op) {
    case BO_Add: {  // both operands' signs differ from the wrapped sum's
      ExprPtr r = Expr::mkBinary(BinOp::Add, a, b);
      violated = negative(Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::Xor, a, r), Expr::mkBinary(BinOp::Xor, b, r)));
      kind = CheckKind::SignedAdd;
      break;
    }
    case BO_Sub: {  // operands of different signs, and the difference's sign is not a's
      ExprPtr r = Expr::mkBinary(BinOp::Sub, a, b);
      violated = negative(Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::Xor, a, b), Expr::mkBinary(BinOp::Xor, a, r)));
      kind = CheckKind::SignedSub;
      break;
    }
    case BO_Mul: {
      kind = CheckKind::SignedMul;
      if (w <= 32) {  // exact in twice the width
        ExprPtr wide = Expr::mkBinary(BinOp::Mul, Expr::convert(a, 2 * w, true), Expr::convert(b, 2 * w, true));
        violated = Expr::mkBinary(BinOp::Ne, Expr::convert(Expr::convert(wide, w, true), 2 * w, true), wide, 1);
        break;
      }
      std::optional<ExprPtr> byConstant = mulOverflowByConstant(a, b, true, 1);
      if (!byConstant) byConstant = mulOverflowByConstant(b, a, true, 1);
      if (byConstant) {
        violated = *byConstant;
        break;
      }
      // a != 0 and (r / a != b or a == -1 and b == MIN): the truncated quotient of a
      // wrapped product never equals b, except for -1 * MIN, where the division wraps too
      ExprPtr r = Expr::mkBinary(BinOp::Mul, a, b);
      ExprPtr differs = Expr::mkBinary(BinOp::Ne, Expr::mkBinary(BinOp::SDiv, r, a), b, 1);
      differs = Expr::mkBinary(BinOp::LOr, differs, land(eq(a, minusOne), eq(b, minV)), 1);
      violated = land(Expr::mkBinary(BinOp::Ne, a, zero, 1), differs);
      break;
    }
    case BO_Div:  // MIN / -1
      violated = land(eq(a, minV), eq(b, minusOne));
      kind = CheckKind::SignedDiv;
      break;
    default:
      return;
  }
  checkEdge(violated, "no-overflow", kind, {a, b}, at);
}

void Lowerer::checkNeg(ExprPtr& a, QualType t, const Stmt* at) {
  t = t.getCanonicalType();
  if (!t->isIntegerType() || !isSignedT(t) || t->isBooleanType() || widthOf(t) < widthOf(ctx.IntTy) ||
      a->width != widthOf(t) || !checking("no-overflow"))
    return;
  if (a->kind != cfa::ExprKind::Const && a->kind != cfa::ExprKind::Var) a = materialize(a, true);
  checkEdge(Expr::mkBinary(BinOp::Eq, a, Expr::mkConst(uint64_t(1) << (a->width - 1), a->width), 1), "no-overflow",
            CheckKind::SignedNeg, {a}, at);
}

}  // namespace argus::frontend
