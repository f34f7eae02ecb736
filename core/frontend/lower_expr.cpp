// Lowering: expressions (values, lvalues, casts, operators, initialisers).
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecordLayout.h>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::CastKind;
using cfa::CheckKind;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

// Objects larger than this are not copied or zeroed byte-wise (unsupported instead).
static constexpr uint64_t kMaxByteOps = 1 << 16;

ExprPtr Lowerer::addOffset(ExprPtr addr, uint64_t off) {
  if (off == 0) return addr;
  return Expr::mkBinary(BinOp::Add, addr, constPtr(off));
}

bool Lowerer::isPure(const clang::Expr* e) const {
  return !e->HasSideEffects(ctx, /*IncludePossibleEffects=*/true);
}

ExprPtr Lowerer::load(const LValue& lv) {
  if (lv.isReg) return Expr::mkVar(lv.reg, prog.vars[lv.reg].width);
  if (!lv.direct && memLayout() && (lv.bitWidth || isScalar(lv.type)))
    checkDeref(lv.addr, lv.bitWidth ? lv.spanBytes : sizeOf(lv.type), curStmt, lv.base);
  if (lv.bitWidth) {
    uint32_t sw = lv.spanBytes * 8;
    ExprPtr raw = Expr::mkLoad(lv.addr, lv.spanBytes);
    if (lv.bitOffset) raw = Expr::mkBinary(BinOp::LShr, raw, Expr::mkConst(lv.bitOffset, sw));
    ExprPtr field = Expr::convert(raw, lv.bitWidth, false);
    return Expr::convert(field, widthOf(lv.type), isSignedT(lv.type));
  }
  if (!isScalar(lv.type)) return lv.addr;  // aggregates are handled by address
  return Expr::mkLoad(lv.addr, static_cast<uint32_t>(sizeOf(lv.type)));
}

void Lowerer::store(const LValue& lv, ExprPtr v) {
  if (lv.isReg) {
    Edge e = edge(EdgeKind::Assign);
    e.lhs = lv.reg;
    e.rhs = v;
    emit(std::move(e));
    return;
  }
  if (!lv.direct && memLayout()) checkDeref(lv.addr, lv.bitWidth ? lv.spanBytes : v->width / 8, curStmt, lv.base);
  if (lv.bitWidth) {
    // read-modify-write of the bytes that hold the field
    uint32_t sw = lv.spanBytes * 8;
    uint64_t ones = lv.bitWidth >= 64 ? ~uint64_t(0) : (uint64_t(1) << lv.bitWidth) - 1;
    uint64_t mask = ones << lv.bitOffset;
    if (sw < 64) mask &= (uint64_t(1) << sw) - 1;
    ExprPtr field = Expr::convert(Expr::convert(v, lv.bitWidth, false), sw, false);
    if (lv.bitOffset) field = Expr::mkBinary(BinOp::Shl, field, Expr::mkConst(lv.bitOffset, sw));
    ExprPtr old = Expr::mkLoad(lv.addr, lv.spanBytes);
    ExprPtr kept = Expr::mkBinary(BinOp::And, old, Expr::mkConst(~mask & (sw < 64 ? (uint64_t(1) << sw) - 1 : ~uint64_t(0)), sw));
    Edge e = edge(EdgeKind::Store);
    e.addr = lv.addr;
    e.value = Expr::mkBinary(BinOp::Or, kept, field);
    e.bytes = lv.spanBytes;
    emit(std::move(e));
    return;
  }
  Edge e = edge(EdgeKind::Store);
  e.addr = lv.addr;
  e.value = v;
  e.bytes = v->width / 8;
  e.storeShape = shapeOf(lv.type);
  e.storeSigned = !lv.type.isNull() && e.storeShape == cfa::ValueShape::Integer && isSignedT(lv.type);
  emit(std::move(e));
}

Lowerer::LValue Lowerer::bitFieldLValue(ExprPtr base, const FieldDecl* fd, const Stmt* at) {
  LValue lv;
  lv.type = fd->getType();
  uint64_t bitOff = ctx.getASTRecordLayout(fd->getParent()).getFieldOffset(fd->getFieldIndex());
  uint32_t w = fd->getBitWidthValue(ctx);
  uint32_t shift = static_cast<uint32_t>(bitOff % 8);
  uint32_t span = (shift + w + 7) / 8;
  if (w == 0 || span > 8 || widthOf(lv.type) > 64 || !isScalar(lv.type)) {
    unsupported("bit-field of this width or type", at);
    lv.addr = constPtr(0);
    return lv;
  }
  lv.addr = addOffset(base, bitOff / 8);
  lv.bitOffset = shift;
  lv.bitWidth = w;
  lv.spanBytes = span;
  return lv;
}

void Lowerer::assignTo(const LValue& lv, const clang::Expr* rhs) {
  if (!isScalar(lv.type)) {
    if (isFloating(lv.type)) {
      unsupported("assignment of type '" + floatTypeName(lv.type) + "'", rhs);
      return;
    }
    // aggregate copy (struct assignment / initialisation from a struct value)
    ExprPtr src = rvalue(rhs);
    if (memLayout()) {
      if (!lv.direct) checkDeref(lv.addr, sizeOf(lv.type), rhs, lv.base);
      const clang::Expr* r = rhs->IgnoreParenImpCasts();
      if (!isa<DeclRefExpr>(r) && !isa<InitListExpr>(r) && !isa<CompoundLiteralExpr>(r) && !isa<CallExpr>(r))
        checkDeref(src, sizeOf(lv.type), rhs);
    }
    copyBytes(lv.addr, src, sizeOf(lv.type), rhs);
    return;
  }
  if (widthOf(lv.type) > cfa::kMaxWidth) {
    unsupported("integer type '" + lv.type.getUnqualifiedType().getAsString() + "' wider than 128 bits", rhs);
    return;
  }
  ExprPtr v = rvalue(rhs);
  v = convertScalar(v, rhs->getType(), lv.type);
  store(lv, v);
}

ExprPtr Lowerer::convertScalar(ExprPtr v, QualType from, QualType to) {
  to = to.getCanonicalType();
  from = from.getCanonicalType();
  if (to->isVoidType()) return v;
  if (isFloatT(from) || isFloatT(to)) return normalizeBitInt(convertFloat(v, from, to), to);
  if (to->isBooleanType()) return Expr::mkCast(CastKind::ToBool, v, widthOf(to));
  uint32_t w = widthOf(to);
  if (v->width == w) return normalizeBitInt(v, to);
  bool srcSigned = from->isSignedIntegerOrEnumerationType();
  return normalizeBitInt(Expr::convert(v, w, srcSigned), to);
}

void Lowerer::copyBytes(ExprPtr dst, ExprPtr src, uint64_t bytes, const Stmt* at) {
  if (bytes > kMaxByteOps) {
    unsupported("copy of an object of " + std::to_string(bytes) + " bytes", at);
    return;
  }
  cfa::forEachChunk(bytes, [&](uint64_t off, uint32_t chunk) {
    Edge e = edge(EdgeKind::Store);
    e.addr = addOffset(dst, off);
    e.value = Expr::mkLoad(addOffset(src, off), chunk);
    e.bytes = chunk;
    emit(std::move(e));
  });
}

void Lowerer::zeroBytes(ExprPtr dst, uint64_t bytes, const Stmt* at) {
  if (bytes > kMaxByteOps) {
    unsupported("zeroing an object of " + std::to_string(bytes) + " bytes", at);
    return;
  }
  cfa::forEachChunk(bytes, [&](uint64_t off, uint32_t chunk) {
    Edge e = edge(EdgeKind::Store);
    e.addr = addOffset(dst, off);
    e.value = Expr::mkWideConst(0, chunk * 8);
    e.bytes = chunk;
    emit(std::move(e));
  });
}

static bool isZeroInit(const clang::Expr* e, ASTContext& ctx) {
  e = e->IgnoreParenImpCasts();
  if (isa<ImplicitValueInitExpr>(e)) return true;
  if (auto* il = dyn_cast<InitListExpr>(e)) {
    for (const clang::Expr* i : il->inits())
      if (!isZeroInit(i, ctx)) return false;
    if (il->hasArrayFiller() && !isZeroInit(il->getArrayFiller(), ctx)) return false;
    return true;
  }
  clang::Expr::EvalResult r;
  if (e->getType()->isIntegerType() && e->EvaluateAsInt(r, ctx)) return r.Val.getInt() == 0;
  return false;
}

// Initialises the object at `addr` of type t from `init`. When `alreadyZero`, the
// object's bytes are known to be 0 and zero-valued parts are skipped.
void Lowerer::initObject(ExprPtr addr, QualType t, const clang::Expr* init, bool alreadyZero) {
  t = t.getCanonicalType();
  const clang::Expr* e = init->IgnoreParens();
  if (alreadyZero && isZeroInit(e, ctx)) return;
  if (auto* il = dyn_cast<InitListExpr>(e)) {
    if (const ConstantArrayType* at = ctx.getAsConstantArrayType(t)) {
      QualType et = at->getElementType();
      uint64_t es = sizeOf(et);
      uint64_t n = at->getSize().getZExtValue();
      if (!alreadyZero) {
        zeroBytes(addr, sizeOf(t), init);
        alreadyZero = true;
      }
      for (uint64_t i = 0; i < n; ++i) {
        const clang::Expr* ei = i < il->getNumInits() ? il->getInit(i)
                                : il->hasArrayFiller() ? il->getArrayFiller() : nullptr;
        if (!ei) break;
        initObject(addOffset(addr, i * es), et, ei, alreadyZero);
      }
      return;
    }
    if (const RecordType* rt = t->getAs<RecordType>()) {
      const RecordDecl* rd = rt->getDecl()->getDefinition();
      if (!rd) {
        unsupported("initialiser of an incomplete struct", init);
        return;
      }
      const ASTRecordLayout& layout = ctx.getASTRecordLayout(rd);
      if (!alreadyZero) {
        zeroBytes(addr, sizeOf(t), init);
        alreadyZero = true;
      }
      if (rd->isUnion()) {
        const FieldDecl* fd = il->getInitializedFieldInUnion();
        if (fd && il->getNumInits() > 0) {
          if (fd->isBitField()) {
            LValue lv = bitFieldLValue(addr, fd, il->getInit(0));
            if (lv.bitWidth) assignTo(lv, il->getInit(0));
          } else {
            initObject(addr, fd->getType(), il->getInit(0), true);
          }
        }
        return;
      }
      unsigned idx = 0;
      for (const FieldDecl* fd : rd->fields()) {
        if (fd->isUnnamedBitfield()) continue;  // not initialised (C11 6.7.9p9)
        if (idx >= il->getNumInits()) break;
        const clang::Expr* fi = il->getInit(idx);
        if (fd->isBitField()) {
          if (!isZeroInit(fi, ctx)) {
            LValue lv = bitFieldLValue(addr, fd, fi);
            if (lv.bitWidth) assignTo(lv, fi);
          }
        } else {
          uint64_t off = layout.getFieldOffset(fd->getFieldIndex()) / 8;
          initObject(addOffset(addr, off), fd->getType(), fi, true);
        }
        ++idx;
      }
      return;
    }
    // scalar in braces: int x = {5};
    if (il->getNumInits() == 0) {
      if (!alreadyZero) zeroBytes(addr, sizeOf(t), init);
      return;
    }
    initObject(addr, t, il->getInit(0), alreadyZero);
    return;
  }
  if (auto* sl = dyn_cast<StringLiteral>(e)) {
    if (const ConstantArrayType* at = ctx.getAsConstantArrayType(t)) {
      uint64_t n = at->getSize().getZExtValue();
      uint64_t es = sizeOf(at->getElementType());
      if (!alreadyZero) zeroBytes(addr, sizeOf(t), init);
      StringRef bytes = sl->getBytes();
      for (uint64_t i = 0; i < bytes.size() && i < n * es; ++i) {
        if (bytes[i] == 0) continue;
        Edge s = edge(EdgeKind::Store);
        s.addr = addOffset(addr, i);
        s.value = Expr::mkConst(static_cast<uint8_t>(bytes[i]), 8);
        s.bytes = 1;
        emit(std::move(s));
      }
      return;
    }
  }
  if (isa<ImplicitValueInitExpr>(e)) {
    if (!alreadyZero) zeroBytes(addr, sizeOf(t), init);
    return;
  }
  if (isFloating(t)) {
    unsupported("initialiser of type '" + floatTypeName(t) + "'", init);
    return;
  }
  LValue lv;
  lv.isReg = false;
  lv.addr = addr;
  lv.type = t;
  assignTo(lv, init);
}

uint32_t Lowerer::bitIntBits(QualType t) const {
  const auto* xt = t.getCanonicalType()->getAs<BitIntType>();
  if (!xt || xt->getNumBits() >= widthOf(t) || widthOf(t) > cfa::kMaxWidth) return 0;
  return xt->getNumBits();
}

ExprPtr Lowerer::normalizeBitInt(ExprPtr v, QualType t) const {
  uint32_t n = bitIntBits(t);
  if (!n || v->width != widthOf(t)) return v;
  bool sg = isSignedT(t);
  return Expr::convert(Expr::convert(v, n, sg), v->width, sg);
}

void Lowerer::checkBitIntOverflow(ExprPtr v, QualType t, const Stmt* at) {
  uint32_t n = bitIntBits(t);
  if (!n || !isSignedT(t) || v->width != widthOf(t) || v->kind == cfa::ExprKind::Const) return;
  unsupportedIf(Expr::mkBinary(BinOp::Ne, normalizeBitInt(v, t), v, 1),
                "overflow of signed '" + t.getUnqualifiedType().getAsString() + "' arithmetic (undefined)", at);
}

ExprPtr Lowerer::rvalue(const clang::Expr* e) {
  ExprPtr v = rvalueRaw(e);
  if (v && bitIntBits(e->getType())) v = normalizeBitInt(v, e->getType());
  return v;
}

ExprPtr Lowerer::constOf(const llvm::APSInt& v, uint32_t width) {
  // the value extended to 128 bits by its own signedness, then cut to `width`
  llvm::APInt x = v.isSigned() ? v.sextOrTrunc(128) : v.zextOrTrunc(128);
  cfa::Value val = (cfa::Value{x.extractBitsAsZExtValue(64, 64)} << 64) | x.extractBitsAsZExtValue(64, 0);
  return Expr::mkWideConst(val, width);
}

ExprPtr Lowerer::rvalueRaw(const clang::Expr* e) {
  const Stmt* saved = curStmt;
  ExprPtr result;
  e = e->IgnoreParens();
  QualType t = e->getType();

  if (isScalar(t) && widthOf(t) > cfa::kMaxWidth) {
    unsupported("integer type '" + t.getUnqualifiedType().getAsString() + "' wider than 128 bits", e);
    return Expr::mkConst(0, 64);
  }
  // Integer constant expressions (sizeof, enum constants, literals, ...) fold here.
  if (t->isIntegerType() && !t->isDependentType() && isPure(e)) {
    clang::Expr::EvalResult r;
    // (Clang folds a signed overflow by wrapping around and says so: with a property
    // check on, such an expression is lowered for the check to see it)
    if (e->EvaluateAsInt(r, ctx) && !(r.HasUndefinedBehavior && !checks.empty())) {
      return constOf(r.Val.getInt(), widthOf(t));
    }
  }
  if (isFloating(t)) {
    unsupported("expression of type '" + floatTypeName(t) + "'", e);
    return Expr::mkConst(0, 32);
  }
  if (isFloatT(t) && !t->isDependentType()) {
    // literals, INFINITY, NAN, HUGE_VAL and other constant expressions: Clang's IEEE
    // evaluation (round to nearest even), kept as the bit image. A NaN computed by an
    // operation (0.0 / 0.0) is not folded: its bits are the hardware's, left free by
    // the encoding; __builtin_nan("") (the NAN macro) is a defined quiet NaN.
    llvm::APFloat f(0.0);
    if (isPure(e) && e->EvaluateAsFloat(f, ctx) && (!f.isNaN() || isa<CallExpr>(e->IgnoreParenImpCasts())))
      return Expr::mkConst(f.bitcastToAPInt().getZExtValue(), widthOf(t));
  }

  switch (e->getStmtClass()) {
    case Stmt::IntegerLiteralClass:
      return Expr::mkConst(cast<IntegerLiteral>(e)->getValue().getZExtValue(), widthOf(t));
    case Stmt::CharacterLiteralClass:
      return Expr::mkConst(cast<CharacterLiteral>(e)->getValue(), widthOf(t));
    case Stmt::ConstantExprClass:
      return rvalue(cast<ConstantExpr>(e)->getSubExpr());
    case Stmt::DeclRefExprClass: {
      const ValueDecl* d = cast<DeclRefExpr>(e)->getDecl();
      if (auto* ec = dyn_cast<EnumConstantDecl>(d))
        return Expr::mkConst(ec->getInitVal().getExtValue(), widthOf(t));
      if (auto* fd = dyn_cast<FunctionDecl>(d)) return addrOfFunction(fd);
      return load(lvalue(e));
    }
    case Stmt::MemberExprClass:
    case Stmt::ArraySubscriptExprClass:
    case Stmt::CompoundLiteralExprClass:
      return load(lvalue(e));
    case Stmt::StringLiteralClass:
      return load(lvalue(e));
    case Stmt::PredefinedExprClass: {
      if (const StringLiteral* sl = cast<PredefinedExpr>(e)->getFunctionName()) return rvalue(sl);
      unsupported("predefined expression", e);
      return constPtr(0);
    }
    case Stmt::ImplicitCastExprClass:
    case Stmt::CStyleCastExprClass:
      return castExpr(cast<CastExpr>(e));
    case Stmt::UnaryOperatorClass: {
      auto* uo = cast<UnaryOperator>(e);
      curStmt = e;
      switch (uo->getOpcode()) {
        case UO_PreInc: case UO_PreDec: case UO_PostInc: case UO_PostDec:
          result = incDec(uo);
          break;
        case UO_AddrOf: {
          const clang::Expr* sub = uo->getSubExpr()->IgnoreParens();
          if (auto* dr = dyn_cast<DeclRefExpr>(sub))
            if (auto* fd = dyn_cast<FunctionDecl>(dr->getDecl())) {
              result = addrOfFunction(fd);
              break;
            }
          bool saved = addressOnly_;
          addressOnly_ = true;
          LValue lv = lvalue(sub);
          addressOnly_ = saved;
          if (lv.isReg) {
            unsupported("address of a register variable", e);
            result = constPtr(0);
          } else {
            result = lv.addr;
          }
          break;
        }
        case UO_Deref:
          if (uo->getSubExpr()->getType()->isFunctionPointerType()) {
            result = rvalue(uo->getSubExpr());  // (*fp)(...) calls fp
            break;
          }
          result = load(lvalue(e));
          break;
        case UO_Plus:
          result = rvalue(uo->getSubExpr());
          break;
        case UO_Minus:
          if (isFloatT(t)) {  // IEEE negation flips the sign bit (also of NaN and 0)
            ExprPtr a = rvalue(uo->getSubExpr());
            result = Expr::mkBinary(BinOp::Xor, a, Expr::mkWideConst(cfa::Value{1} << (a->width - 1), a->width));
            break;
          }
          {
            ExprPtr a = rvalue(uo->getSubExpr());
            if (!checks.empty()) checkNeg(a, t, uo);
            result = Expr::mkUnary(cfa::UnOp::Neg, a);
          }
          checkBitIntOverflow(result, t, uo);
          break;
        case UO_Not:
          result = Expr::mkUnary(cfa::UnOp::BitNot, rvalue(uo->getSubExpr()));
          break;
        case UO_LNot: {
          ExprPtr a = rvalue(uo->getSubExpr());
          if (isFloatT(uo->getSubExpr()->getType())) {
            result = Expr::mkBinary(BinOp::FEq, a, floatConst(0.0, a->width), widthOf(t));
            break;
          }
          result = Expr::convert(Expr::mkUnary(cfa::UnOp::LogNot, a), widthOf(t), false);
          break;
        }
        case UO_Extension:
          result = rvalue(uo->getSubExpr());
          break;
        default:
          unsupported("unary operator " + std::string(UnaryOperator::getOpcodeStr(uo->getOpcode())), e);
          result = Expr::mkWideConst(0, widthOf(t));
      }
      curStmt = saved;
      return result;
    }
    case Stmt::BinaryOperatorClass:
    case Stmt::CompoundAssignOperatorClass:
      curStmt = e;
      result = binaryExpr(cast<BinaryOperator>(e));
      curStmt = saved;
      return result;
    case Stmt::ConditionalOperatorClass:
    case Stmt::BinaryConditionalOperatorClass:
      return conditional(cast<AbstractConditionalOperator>(e));
    case Stmt::CallExprClass:
      curStmt = e;
      result = call(cast<CallExpr>(e));
      curStmt = saved;
      return result;
    case Stmt::StmtExprClass:
      return stmtExpr(cast<StmtExpr>(e));
    case Stmt::VAArgExprClass:
      curStmt = e;
      result = vaArg(cast<VAArgExpr>(e));
      curStmt = saved;
      return result;
    case Stmt::UnaryExprOrTypeTraitExprClass: {
      auto* ut = cast<UnaryExprOrTypeTraitExpr>(e);
      if (ut->getKind() == UETT_SizeOf) {
        QualType at = ut->getTypeOfArgument();
        if (at->isVariablyModifiedType()) {
          // a declared VLA's sizes were evaluated at its declaration; a type name's now
          if (ut->isArgumentType()) evalVlaSizes(at);
          if (ExprPtr sz = runtimeSize(at)) return Expr::convert(sz, widthOf(t), false);
        }
      }
      unsupported("sizeof/alignof of this type", e);
      return Expr::mkWideConst(0, widthOf(t));
    }
    case Stmt::InitListExprClass: {
      auto* il = cast<InitListExpr>(e);
      if (isScalar(t) && il->getNumInits() == 1) return convertScalar(rvalue(il->getInit(0)), il->getInit(0)->getType(), t);
      if (isScalar(t) && il->getNumInits() == 0) return Expr::mkWideConst(0, widthOf(t));
      // aggregate value: materialise a temporary object
      cfa::VarId tmp = newTemp(ptrWidth, false);
      Edge a = edge(EdgeKind::Alloc);
      a.lhs = tmp;
      a.size = constPtr(sizeOf(t));
      a.zeroInit = true;
      allocObject(std::move(a), cfa::memlayout::kGlobal);
      initObject(Expr::mkVar(tmp, ptrWidth), t, e, true);
      return Expr::mkVar(tmp, ptrWidth);
    }
    case Stmt::ImplicitValueInitExprClass:
      if (isScalar(t)) return Expr::mkWideConst(0, widthOf(t));
      break;
    case Stmt::OpaqueValueExprClass:
      return rvalue(cast<OpaqueValueExpr>(e)->getSourceExpr());
    default:
      break;
  }
  unsupported(std::string("expression ") + e->getStmtClassName(), e);
  return Expr::mkWideConst(0, isScalar(t) ? widthOf(t) : ptrWidth);
}

Lowerer::LValue Lowerer::lvalue(const clang::Expr* e) {
  e = e->IgnoreParens();
  LValue lv;
  lv.type = e->getType();
  switch (e->getStmtClass()) {
    case Stmt::DeclRefExprClass: {
      auto* vd = dyn_cast<VarDecl>(cast<DeclRefExpr>(e)->getDecl());
      if (!vd) break;
      VarRef& ref = varFor(vd);
      if (ref.inMemory) {
        lv.addr = Expr::mkVar(ref.reg, ptrWidth);
        lv.direct = true;
      } else {
        lv.isReg = true;
        lv.reg = ref.reg;
      }
      return lv;
    }
    case Stmt::UnaryOperatorClass: {
      auto* uo = cast<UnaryOperator>(e);
      if (uo->getOpcode() == UO_Deref) {
        if (uo->getSubExpr()->getType()->isFunctionPointerType()) break;
        lv.addr = rvalue(uo->getSubExpr());
        return lv;
      }
      if (uo->getOpcode() == UO_Extension) return lvalue(uo->getSubExpr());
      break;
    }
    case Stmt::ArraySubscriptExprClass: {
      auto* as = cast<ArraySubscriptExpr>(e);
      const clang::Expr* base = as->getBase();
      const clang::Expr* idx = as->getIdx();
      if (!base->getType()->isPointerType()) std::swap(base, idx);  // 2[a]
      uint64_t es = sizeOf(e->getType());
      ExprPtr b = rvalue(base);
      if (es == 0) {
        // an element of variable size (a row of a multi-dimensional VLA)
        ExprPtr esz = e->getType()->isVariablyModifiedType() ? runtimeSize(e->getType()) : nullptr;
        if (!esz) {
          unsupported("indexing into an element type of unknown size", e);
          lv.addr = b;
          return lv;
        }
        ExprPtr iv = Expr::convert(rvalue(idx), ptrWidth, isSignedT(idx->getType()));
        lv.addr = Expr::mkBinary(BinOp::Add, b, Expr::mkBinary(BinOp::Mul, iv, esz));
        return lv;
      }
      // the index is read, even under & (`&zKWText[aKWOffset[i]]` reads aKWOffset[i])
      bool savedAddressOnly = addressOnly_;
      addressOnly_ = false;
      ExprPtr iv = rvalue(idx);
      addressOnly_ = savedAddressOnly;
      bool clampedIndex = false;  // iv is the in-bounds index of pointer width (below)
      // Indexing an array of known size out of bounds is undefined behaviour: such a
      // path is cut (Unsupported), so no verdict ever depends on it. `&a[N]` is allowed.
      const clang::Expr* arr = base->IgnoreParenImpCasts();
      if (const ConstantArrayType* cat = ctx.getAsConstantArrayType(arr->getType())) {
        uint64_t n = cat->getSize().getZExtValue();
        bool flexibleMember = n <= 1 && isa<MemberExpr>(arr);
        // memory safety: an element of an array variable out of its bounds is a
        // valid-deref violation (a member array's stays unsupported: the address may
        // still be inside the enclosing object)
        const auto* arrVar = dyn_cast<DeclRefExpr>(arr);
        bool wholeObject = arrVar && isa<VarDecl>(arrVar->getDecl()) && derefChecked() && !addressOnly_;
        if (!flexibleMember && wholeObject) {
          if (iv->kind != cfa::ExprKind::Const && iv->kind != cfa::ExprKind::Var) iv = materialize(iv, isSignedT(idx->getType()));
          ExprPtr wide = Expr::convert(iv, ptrWidth, isSignedT(idx->getType()));
          checkEdge(Expr::mkBinary(BinOp::ULe, constPtr(n), wide, 32), "valid-deref", CheckKind::Index,
                    {wide, constPtr(n)}, e);
          lv.direct = !e->getType()->isArrayType();
        } else if (!flexibleMember) {
          uint64_t limit = addressOnly_ ? n + 1 : n;
          ExprPtr wide = Expr::convert(iv, ptrWidth, isSignedT(idx->getType()));
          ExprPtr ok = Expr::mkBinary(BinOp::ULt, wide, constPtr(limit), 32);
          if (!(ok->kind == cfa::ExprKind::Const && ok->value == 1)) {
            cfa::LocId inside = newLoc(), outside = newLoc();
            Edge yes = edge(EdgeKind::Assume);
            yes.cond = ok;
            yes.text = "index in bounds: " + textOf(e);
            Edge no = yes;
            no.positive = false;
            no.text = "index out of bounds: " + textOf(e);
            emitTo(yes, inside);
            emitTo(no, outside);
            cur = outside;
            unsupported("array index out of bounds (undefined behaviour)", e);
            cur = inside;
            // The element is read only where the index is in bounds, so its address is
            // written `a + (i < N ? i : 0)`: equal on every path that reads it, and its
            // value ranges (core/smt/ranges.h) are the array's own, so the encoder of the
            // flat memory compares the read with the array's stores only
            if (!addressOnly_) iv = Expr::mkIte(ok, wide, constPtr(0)), clampedIndex = true;
          }
        }
      }
      const QualType ivType = clampedIndex ? ctx.getUIntPtrType() : idx->getType();
      if (derefChecked() && !addressOnly_ && !e->getType()->isArrayType() && !lv.direct) {
        if (b->kind != cfa::ExprKind::Const && b->kind != cfa::ExprKind::Var) b = materialize(b, false);
        lv.addr = ptrOffset(b, iv, ivType, es, false, false);
        lv.base = b;
        return lv;
      }
      lv.addr = ptrOffset(b, iv, ivType, es, false, !lv.direct);
      return lv;
    }
    case Stmt::MemberExprClass: {
      auto* me = cast<MemberExpr>(e);
      auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
      if (!fd) break;
      bool direct = false;
      ExprPtr base;
      if (me->isArrow()) {
        base = rvalue(me->getBase());
      } else {
        LValue b = lvalue(me->getBase());
        base = b.addr;
        direct = b.direct;
      }
      lv.direct = direct;
      if (!base) {
        unsupported("member of a non-memory object", e);
        lv.addr = constPtr(0);
        return lv;
      }
      if (fd->isBitField()) {
        LValue bf = bitFieldLValue(base, fd, e);
        bf.direct = direct;
        return bf;
      }
      const RecordDecl* rd = fd->getParent();
      uint64_t off = ctx.getASTRecordLayout(rd).getFieldOffset(fd->getFieldIndex()) / 8;
      lv.addr = addOffset(base, off);
      return lv;
    }
    case Stmt::StringLiteralClass: {
      auto* sl = cast<StringLiteral>(e);
      auto it = literalAddr.find(sl);
      if (it == literalAddr.end()) break;
      if (it->second == 0) {
        cfa::Variable v;
        v.name = "$str" + std::to_string(prog.vars.size());
        v.width = ptrWidth;
        v.kind = cfa::VarKind::Address;
        it->second = prog.addVar(std::move(v));
      }
      lv.addr = Expr::mkVar(it->second, ptrWidth);
      return lv;
    }
    case Stmt::CompoundLiteralExprClass: {
      auto* cl = cast<CompoundLiteralExpr>(e);
      cfa::VarId tmp = newTemp(ptrWidth, false);
      Edge a = edge(EdgeKind::Alloc);
      a.lhs = tmp;
      a.size = constPtr(sizeOf(e->getType()));
      a.zeroInit = true;
      allocObject(std::move(a), cfa::memlayout::kGlobal);
      initObject(Expr::mkVar(tmp, ptrWidth), e->getType(), cl->getInitializer(), true);
      lv.addr = Expr::mkVar(tmp, ptrWidth);
      return lv;
    }
    case Stmt::ImplicitCastExprClass:
    case Stmt::CStyleCastExprClass: {
      auto* ce = cast<CastExpr>(e);
      if (ce->getCastKind() == CK_NoOp || ce->getCastKind() == CK_LValueBitCast) {
        LValue inner = lvalue(ce->getSubExpr());
        inner.type = e->getType();
        return inner;
      }
      break;
    }
    case Stmt::CallExprClass:
    case Stmt::VAArgExprClass:
    case Stmt::StmtExprClass:
    case Stmt::ConditionalOperatorClass:
    case Stmt::BinaryOperatorClass:
    case Stmt::CompoundAssignOperatorClass:
      if (!isScalar(e->getType())) {
        lv.addr = rvalue(e);  // aggregate results are addresses
        return lv;
      }
      break;
    case Stmt::OpaqueValueExprClass:
      return lvalue(cast<OpaqueValueExpr>(e)->getSourceExpr());
    default:
      break;
  }
  unsupported(std::string("lvalue ") + e->getStmtClassName(), e);
  lv.addr = constPtr(0);
  return lv;
}

ExprPtr Lowerer::ptrOffset(ExprPtr base, ExprPtr idx, QualType idxType, uint64_t elemSize, bool negate,
                           bool guardCarry) {
  ExprPtr i = Expr::convert(idx, ptrWidth, isSignedT(idxType));
  if (elemSize != 1) i = Expr::mkBinary(BinOp::Mul, i, constPtr(elemSize));
  ExprPtr r = Expr::mkBinary(negate ? BinOp::Sub : BinOp::Add, base, i);
  if (memLayout() && guardCarry && fn && i->kind != cfa::ExprKind::Const) {
    // (a constant step stays inside its object's range unless the pointer was already
    // at its edge, which only an unsupported step could make it)
    if (base->kind != cfa::ExprKind::Const && base->kind != cfa::ExprKind::Var) base = materialize(base, false);
    if (i->kind != cfa::ExprKind::Var) i = materialize(i, false);
    r = Expr::mkBinary(negate ? BinOp::Sub : BinOp::Add, base, i);
    // (a pointer may leave its object as long as it is not dereferenced: only a result
    // of another provenance, cfa::memlayout, would be read as a pointer into another object)
    unsupportedIf(Expr::mkBinary(BinOp::Ne, provId(r), provId(base), 32),
                  "pointer arithmetic leaving the object's range (memory-safety layout)", curStmt);
  }
  return r;
}

ExprPtr Lowerer::castExpr(const CastExpr* ce) {
  const clang::Expr* sub = ce->getSubExpr();
  QualType to = ce->getType();
  switch (ce->getCastKind()) {
    case CK_LValueToRValue:
      if (isFloating(to)) {
        unsupported("value of type '" + floatTypeName(to) + "'", ce);
        return Expr::mkConst(0, 32);
      }
      if (const auto* as = dyn_cast<ArraySubscriptExpr>(sub->IgnoreParens()))
        if (ExprPtr r = ctypeTableRead(as)) return r;  // glibc's <ctype.h> macros (lower_libc.cpp)
      return load(lvalue(sub));
    case CK_NoOp:
    case CK_BitCast:
    case CK_LValueBitCast:
    case CK_AtomicToNonAtomic:
    case CK_NonAtomicToAtomic:
      return rvalue(sub);
    case CK_ArrayToPointerDecay: {
      LValue lv = lvalue(sub);
      return lv.isReg ? constPtr(0) : lv.addr;
    }
    case CK_FunctionToPointerDecay:
      return rvalue(sub);
    case CK_NullToPointer:
      rvalue(sub);
      return constPtr(0);
    case CK_IntegralCast:
    case CK_IntegralToPointer:
    case CK_PointerToIntegral:
    case CK_IntegralToBoolean:
    case CK_PointerToBoolean:
    case CK_BooleanToSignedIntegral:
    case CK_FloatingCast:
    case CK_IntegralToFloating:
    case CK_FloatingToIntegral:
    case CK_FloatingToBoolean: {
      ExprPtr v = rvalue(sub);
      if (ce->getCastKind() == CK_BooleanToSignedIntegral)
        return Expr::mkUnary(cfa::UnOp::Neg, Expr::convert(v, widthOf(to), false));
      return convertScalar(v, sub->getType(), to);
    }
    case CK_ToVoid:
      if (!isScalar(sub->getType()) && !sub->getType()->isVoidType() && isFloating(sub->getType())) {
        if (!isPure(sub)) unsupported("expression of type '" + floatTypeName(sub->getType()) + "'", sub);
        return Expr::mkConst(0, 32);
      }
      if (isPure(sub)) return Expr::mkConst(0, 32);
      rvalue(sub);
      return Expr::mkConst(0, 32);
    case CK_ToUnion: {
      unsupported("cast to union", ce);
      return constPtr(0);
    }
    default:
      unsupported(std::string("cast ") + ce->getCastKindName(), ce);
      return Expr::mkWideConst(0, isScalar(to) ? widthOf(to) : ptrWidth);
  }
}

ExprPtr Lowerer::incDec(const UnaryOperator* uo) {
  const clang::Expr* sub = uo->getSubExpr();
  QualType t = sub->getType();
  if (isFloating(t)) {
    unsupported("increment of type '" + floatTypeName(t) + "'", uo);
    return Expr::mkConst(0, 32);
  }
  bool fl = isFloatT(t);
  auto step = [&](bool inc, ExprPtr x) {  // x + 1 or x - 1 (x of an integer or float type)
    if (fl) return Expr::mkBinary(inc ? BinOp::FAdd : BinOp::FSub, x, floatConst(1.0, x->width));
    return Expr::mkBinary(inc ? BinOp::Add : BinOp::Sub, x, Expr::mkWideConst(1, x->width));
  };
  LValue lv = lvalue(sub);
  ExprPtr old = load(lv);
  if (!lv.isReg || !old) {
    // snapshot the old value: the store below changes memory
  }
  bool inc = uo->isIncrementOp();
  ExprPtr nv;
  if (t->isPointerType()) {
    uint64_t es = sizeOf(t->getPointeeType());
    if (es == 0) es = 1;  // void* arithmetic (GNU)
    nv = Expr::mkBinary(inc ? BinOp::Add : BinOp::Sub, old, constPtr(es));
  } else if (t->isBooleanType()) {
    nv = inc ? Expr::mkWideConst(1, old->width) : Expr::mkCast(CastKind::ToBool, Expr::mkBinary(BinOp::Sub, old, Expr::mkWideConst(1, old->width)), old->width);
  } else {
    if (!checks.empty()) {
      ExprPtr one = Expr::mkWideConst(1, old->width);
      checkArith(inc ? BO_Add : BO_Sub, old, t, one, t, t, uo);
    }
    nv = step(inc, old);
  }
  checkBitIntOverflow(nv, t, uo);
  nv = normalizeBitInt(nv, t);
  if (uo->isPrefix()) {
    store(lv, nv);
    return load(lv);
  }
  // postfix: keep the old value in a temporary
  cfa::VarId tmp = newTemp(old->width, isSignedT(t));
  Edge e = edge(EdgeKind::Assign);
  e.lhs = tmp;
  e.rhs = old;
  emit(std::move(e));
  ExprPtr oldv = Expr::mkVar(tmp, old->width);
  if (t->isPointerType()) {
    uint64_t es = sizeOf(t->getPointeeType());
    if (es == 0) es = 1;
    nv = Expr::mkBinary(inc ? BinOp::Add : BinOp::Sub, oldv, constPtr(es));
  } else if (t->isBooleanType()) {
    nv = inc ? Expr::mkWideConst(1, old->width) : Expr::mkCast(CastKind::ToBool, Expr::mkBinary(BinOp::Sub, oldv, Expr::mkWideConst(1, old->width)), old->width);
  } else {
    nv = step(inc, oldv);
  }
  checkBitIntOverflow(nv, t, uo);
  store(lv, normalizeBitInt(nv, t));
  return oldv;
}

// Arithmetic on already-converted operands (the usual arithmetic conversions are
// explicit in Clang's AST, except for pointer arithmetic and shifts).
ExprPtr Lowerer::arith(BinaryOperatorKind op, ExprPtr a, QualType ta, ExprPtr b, QualType tb,
                       QualType resultType, const clang::Expr* at) {
  ta = ta.getCanonicalType();
  tb = tb.getCanonicalType();
  bool aPtr = ta->isPointerType(), bPtr = tb->isPointerType();
  uint32_t rw = widthOf(resultType);
  if (isFloatT(ta) || isFloatT(tb)) return floatArith(op, a, b, rw, at);
  if (!checks.empty() && !aPtr && !bPtr) checkArith(op, a, ta, b, tb, resultType, at);
  switch (op) {
    case BO_Add:
    case BO_Sub:
      if (aPtr && !bPtr) {
        uint64_t es = sizeOf(ta->getPointeeType());
        if (es == 0) es = 1;
        return ptrOffset(a, b, tb, es, op == BO_Sub);
      }
      if (bPtr && !aPtr && op == BO_Add) {
        uint64_t es = sizeOf(tb->getPointeeType());
        if (es == 0) es = 1;
        return ptrOffset(b, a, ta, es, false);
      }
      if (aPtr && bPtr && op == BO_Sub) {
        uint64_t es = sizeOf(ta->getPointeeType());
        if (es == 0) es = 1;
        ExprPtr d = Expr::mkBinary(BinOp::Sub, a, b);
        if (es != 1) d = Expr::mkBinary(BinOp::SDiv, d, constPtr(es));
        return Expr::convert(d, rw, true);
      }
      return Expr::mkBinary(op == BO_Add ? BinOp::Add : BinOp::Sub, a, b);
    case BO_Mul: return Expr::mkBinary(BinOp::Mul, a, b);
    case BO_Div: return Expr::mkBinary(isSignedT(ta) ? BinOp::SDiv : BinOp::UDiv, a, b);
    case BO_Rem: return Expr::mkBinary(isSignedT(ta) ? BinOp::SRem : BinOp::URem, a, b);
    case BO_Shl:
    case BO_Shr: {
      ExprPtr amount = Expr::convert(b, a->width, false);
      if (b->width > a->width) {
        // an amount that does not fit is >= width anyway: saturate to width
        ExprPtr big = Expr::mkBinary(BinOp::ULe, Expr::mkWideConst(a->width, b->width), b, 1);
        amount = Expr::mkIte(big, Expr::mkWideConst(a->width, a->width), amount);
      }
      if (op == BO_Shl) return Expr::mkBinary(BinOp::Shl, a, amount);
      return Expr::mkBinary(isSignedT(ta) ? BinOp::AShr : BinOp::LShr, a, amount);
    }
    case BO_And: return Expr::mkBinary(BinOp::And, a, b);
    case BO_Or: return Expr::mkBinary(BinOp::Or, a, b);
    case BO_Xor: return Expr::mkBinary(BinOp::Xor, a, b);
    case BO_EQ:
    case BO_NE:
    case BO_LT:
    case BO_GT:
    case BO_LE:
    case BO_GE: {
      if (a->width != b->width) {  // pointer vs integer comparisons
        uint32_t w = std::max(a->width, b->width);
        a = Expr::convert(a, w, !aPtr && isSignedT(ta));
        b = Expr::convert(b, w, !bPtr && isSignedT(tb));
      }
      bool sg = !aPtr && !bPtr && isSignedT(ta);
      switch (op) {
        case BO_EQ: return Expr::mkBinary(BinOp::Eq, a, b, rw);
        case BO_NE: return Expr::mkBinary(BinOp::Ne, a, b, rw);
        case BO_LT: return Expr::mkBinary(sg ? BinOp::SLt : BinOp::ULt, a, b, rw);
        case BO_GT: return Expr::mkBinary(sg ? BinOp::SLt : BinOp::ULt, b, a, rw);
        case BO_LE: return Expr::mkBinary(sg ? BinOp::SLe : BinOp::ULe, a, b, rw);
        default: return Expr::mkBinary(sg ? BinOp::SLe : BinOp::ULe, b, a, rw);
      }
    }
    default:
      unsupported("binary operator", at);
      return Expr::mkWideConst(0, rw);
  }
}

ExprPtr Lowerer::binaryExpr(const BinaryOperator* bo) {
  BinaryOperatorKind op = bo->getOpcode();
  const clang::Expr* lhs = bo->getLHS();
  const clang::Expr* rhs = bo->getRHS();
  if (isFloating(lhs->getType()) || isFloating(rhs->getType())) {
    unsupported("arithmetic on type '" + floatTypeName(isFloating(lhs->getType()) ? lhs->getType() : rhs->getType()) + "'", bo);
    return Expr::mkConst(0, 32);
  }
  switch (op) {
    case BO_Comma:
      rvalue(lhs);
      return rvalue(rhs);
    case BO_LAnd:
    case BO_LOr:
      return logical(bo);
    case BO_Assign: {
      LValue lv = lvalue(lhs);
      assignTo(lv, rhs);
      return load(lv);
    }
    default:
      break;
  }
  if (auto* ca = dyn_cast<CompoundAssignOperator>(bo)) {
    // x op= y: computed in the computation type, converted back to x's type.
    QualType lt = lhs->getType();
    QualType compLhsT = ca->getComputationLHSType();
    QualType compResT = ca->getComputationResultType();
    ExprPtr r = rvalue(rhs);
    LValue lv = lvalue(lhs);
    ExprPtr cur0 = load(lv);
    ExprPtr a = lt->isPointerType() ? cur0 : convertScalar(cur0, lt, compLhsT);
    BinaryOperatorKind base = BinaryOperator::getOpForCompoundAssignment(op);
    ExprPtr v = arith(base, a, lt->isPointerType() ? lt : compLhsT, r, rhs->getType(),
                      lt->isPointerType() ? lt : compResT, bo);
    if (!lt->isPointerType()) checkBitIntOverflow(v, compResT, bo);
    if (!lt->isPointerType()) v = convertScalar(v, compResT, lt);
    store(lv, v);
    return load(lv);
  }
  ExprPtr a = rvalue(lhs);
  ExprPtr b = rvalue(rhs);
  ExprPtr v = arith(op, a, lhs->getType(), b, rhs->getType(), bo->getType(), bo);
  if (op == BO_Add || op == BO_Sub || op == BO_Mul || op == BO_Div || op == BO_Shl) checkBitIntOverflow(v, bo->getType(), bo);
  return v;
}

ExprPtr Lowerer::logical(const BinaryOperator* bo) {
  uint32_t w = widthOf(bo->getType());
  bool isAnd = bo->getOpcode() == BO_LAnd;
  if (isPure(bo->getRHS()) && !hasCheckedOp(bo->getRHS())) {
    ExprPtr a = rvalue(bo->getLHS());
    ExprPtr b = rvalue(bo->getRHS());
    if (isFloatT(bo->getLHS()->getType())) a = floatTruth(a, w);
    if (isFloatT(bo->getRHS()->getType())) b = floatTruth(b, w);
    if (a->width != b->width) {
      // scalars of different types (int && pointer, long || char): each compared with 0
      a = Expr::mkCast(cfa::CastKind::ToBool, a, w);
      b = Expr::mkCast(cfa::CastKind::ToBool, b, w);
    }
    return Expr::mkBinary(isAnd ? BinOp::LAnd : BinOp::LOr, a, b, w);
  }
  // short-circuit with side effects in the right operand
  cfa::VarId tmp = newTemp(w, true);
  cfa::LocId tL = newLoc(), fL = newLoc(), after = newLoc();
  branch(bo, tL, fL);
  cur = tL;
  Edge e1 = edge(EdgeKind::Assign);
  e1.lhs = tmp;
  e1.rhs = Expr::mkWideConst(1, w);
  emit(e1);
  emitTo(edge(EdgeKind::Blank), after);
  cur = fL;
  Edge e0 = edge(EdgeKind::Assign);
  e0.lhs = tmp;
  e0.rhs = Expr::mkWideConst(0, w);
  emit(e0);
  emitTo(edge(EdgeKind::Blank), after);
  cur = after;
  return Expr::mkVar(tmp, w);
}

ExprPtr Lowerer::conditional(const AbstractConditionalOperator* co) {
  QualType t = co->getType();
  const clang::Expr* te = co->getTrueExpr();
  const clang::Expr* fe = co->getFalseExpr();
  bool scalar = isScalar(t);
  bool isVoid = t->isVoidType();
  if (!isVoid && isPure(co->getCond()) && isPure(te) && isPure(fe) && scalar && !hasCheckedOp(te) &&
      !hasCheckedOp(fe) &&
      !isa<BinaryConditionalOperator>(co)) {
    ExprPtr c = rvalue(co->getCond());
    if (isFloatT(co->getCond()->getType())) c = floatTruth(c, 32);
    ExprPtr a = convertScalar(rvalue(te), te->getType(), t);
    ExprPtr b = convertScalar(rvalue(fe), fe->getType(), t);
    return Expr::mkIte(c, a, b);
  }
  uint32_t w = isVoid ? 32 : scalar ? widthOf(t) : ptrWidth;
  cfa::VarId tmp = newTemp(w, scalar && isSignedT(t));
  cfa::LocId tL = newLoc(), fL = newLoc(), after = newLoc();
  if (auto* bc = dyn_cast<BinaryConditionalOperator>(co)) {
    // x ?: y — x is evaluated once
    ExprPtr c = rvalue(bc->getCommon());
    Edge keep = edge(EdgeKind::Assign);
    keep.lhs = tmp;
    keep.rhs = scalar ? convertScalar(c, bc->getCommon()->getType(), t) : c;
    emit(keep);
    Edge yes = edge(EdgeKind::Assume);
    yes.cond = isFloatT(bc->getCommon()->getType()) ? floatTruth(c, 32) : c;
    yes.positive = true;
    Edge no = yes;
    no.positive = false;
    emitTo(yes, after);
    emitTo(no, fL);
    cur = fL;
    ExprPtr b = rvalue(fe);
    Edge e = edge(EdgeKind::Assign);
    e.lhs = tmp;
    e.rhs = scalar ? convertScalar(b, fe->getType(), t) : b;
    emit(e);
    emitTo(edge(EdgeKind::Blank), after);
    cur = after;
    return Expr::mkVar(tmp, w);
  }
  branch(co->getCond(), tL, fL);
  for (int side = 0; side < 2; ++side) {
    cur = side == 0 ? tL : fL;
    const clang::Expr* x = side == 0 ? te : fe;
    ExprPtr v = rvalue(x);
    if (!isVoid) {
      Edge e = edge(EdgeKind::Assign);
      e.lhs = tmp;
      e.rhs = scalar ? convertScalar(v, x->getType(), t) : v;
      emit(e);
    }
    emitTo(edge(EdgeKind::Blank), after);
  }
  cur = after;
  return Expr::mkVar(tmp, w);
}

ExprPtr Lowerer::stmtExpr(const StmtExpr* se) {
  const CompoundStmt* cs = se->getSubStmt();
  ExprPtr last = Expr::mkConst(0, 32);
  auto body = cs->body();
  size_t n = cs->size(), i = 0;
  for (const Stmt* s : body) {
    ++i;
    if (i == n) {
      if (auto* e = dyn_cast<clang::Expr>(s)) {
        curStmt = s;
        last = rvalue(e);
        // keep the value across later statements (none follow, but be safe)
        if (last->kind != cfa::ExprKind::Const && !e->getType()->isVoidType()) {
          cfa::VarId tmp = newTemp(last->width, isSignedT(e->getType()));
          Edge a = edge(EdgeKind::Assign);
          a.lhs = tmp;
          a.rhs = last;
          emit(a);
          last = Expr::mkVar(tmp, last->width);
        }
        continue;
      }
    }
    lowerStmt(s);
  }
  return last;
}

}  // namespace argus::frontend
