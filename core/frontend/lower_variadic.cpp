// Lowering: variadic functions (definitions, calls, va_start / va_arg / va_copy / va_end).
// The model is described at Lowerer::vaSlot in lower.h.
#include <clang/AST/ASTContext.h>
#include <clang/Basic/TargetInfo.h>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

// The block of a call's arguments after the `named` ones (their values in `args`, as
// lowerArgs evaluated them): each at the next multiple of 8 bytes.
ExprPtr Lowerer::variadicArea(const CallExpr* ce, unsigned named, const std::vector<ExprPtr>& args,
                              const std::string& callee) {
  struct Slot {
    uint64_t offset, bytes;
    bool scalar, store;
  };
  std::vector<Slot> slots;
  uint64_t total = 0;
  for (unsigned i = named; i < ce->getNumArgs() && i < args.size(); ++i) {
    QualType t = ce->getArg(i)->getType();
    uint64_t bytes = isScalar(t) ? (args[i]->width + 7) / 8 : sizeOf(t);
    bool store = true;
    if (isFloating(t)) {
      store = false;  // lowerArgs made the path unsupported
    } else if (bytes == 0) {
      unsupported("variadic argument of incomplete or variable size", ce->getArg(i));
      store = false;
      bytes = 1;
    }
    slots.push_back({total, bytes, isScalar(t), store});
    total += vaSlot(bytes);
  }
  cfa::VarId area = newTemp(ptrWidth, false);
  Edge a = edge(EdgeKind::Alloc);
  a.lhs = area;
  a.size = constPtr(std::max<uint64_t>(total, 8));
  a.text = "variadic arguments of " + callee;
  // Like the temporaries of compound values (lowerExpr, InitListExpr): not a stack object
  // whose lifetime the memory-safety checks end at the caller's return.
  allocObject(std::move(a), cfa::memlayout::kGlobal);
  ExprPtr base = Expr::mkVar(area, ptrWidth);
  for (size_t k = 0; k < slots.size(); ++k) {
    unsigned i = named + static_cast<unsigned>(k);
    if (!slots[k].store) continue;
    ExprPtr dst = addOffset(base, slots[k].offset);
    if (slots[k].scalar) {
      ExprPtr v = args[i];
      uint32_t w = static_cast<uint32_t>(slots[k].bytes * 8);
      if (v->width != w) v = Expr::convert(v, w, isSignedT(ce->getArg(i)->getType()));
      Edge st = edge(EdgeKind::Store);
      st.addr = dst;
      st.value = v;
      st.bytes = static_cast<uint32_t>(slots[k].bytes);
      st.text = "variadic argument " + std::to_string(k + 1) + " of " + callee;
      emit(std::move(st));
    } else {
      copyBytes(dst, args[i], slots[k].bytes, ce->getArg(i));  // a struct passed by value
    }
  }
  return base;
}

// Where the cursor of the va_list `ap` lives.
bool Lowerer::vaCursor(const clang::Expr* ap, LValue& out) {
  const clang::Expr* s = ap->IgnoreParenImpCasts();
  QualType st = s->getType().getCanonicalType();
  switch (ctx.getTargetInfo().getBuiltinVaListKind()) {
    case TargetInfo::X86_64ABIBuiltinVaList:
      // va_list is __va_list_tag[1]; a va_list parameter or argument is a pointer to it.
      // The cursor takes the tag's first pointer-size bytes (it has 24).
      out = LValue();
      out.type = ctx.VoidPtrTy;
      if (st->isArrayType()) {
        LValue arr = lvalue(s);
        if (arr.isReg || !arr.addr) break;
        out.addr = arr.addr;
        out.direct = arr.direct;
        return true;
      }
      if (st->isPointerType()) {
        out.addr = rvalue(s);
        return true;
      }
      break;
    case TargetInfo::CharPtrBuiltinVaList:
    case TargetInfo::VoidPtrBuiltinVaList:
      // va_list is a pointer: the variable is the cursor
      if (st->isPointerType() && s->isGLValue()) {
        out = lvalue(s);
        return true;
      }
      break;
    default:
      break;
  }
  unsupported("va_list of this target", ap);
  return false;
}

ExprPtr Lowerer::vaArg(const VAArgExpr* va) {
  QualType t = va->getType();
  uint64_t bytes = sizeOf(t);
  ExprPtr none = isScalar(t) ? Expr::mkWideConst(0, widthOf(t)) : constPtr(0);
  if (isFloating(t) || bytes == 0) {
    unsupported("va_arg of type '" + t.getAsString() + "'", va);
    return none;
  }
  LValue cursor;
  if (!vaCursor(va->getSubExpr(), cursor)) return none;
  ExprPtr at = materialize(load(cursor), false);
  LValue slot;
  slot.addr = at;
  slot.type = t;
  ExprPtr v = load(slot);  // an aggregate: its address in the block
  if (isScalar(t)) v = materialize(v, isSignedT(t));
  store(cursor, Expr::mkBinary(BinOp::Add, at, constPtr(vaSlot(bytes)), ptrWidth));
  return v;
}

ExprPtr Lowerer::vaBuiltin(const CallExpr* ce, const std::string& name, bool& handled) {
  handled = false;
  bool start = name == "__builtin_va_start" || name == "__builtin_stdarg_start";
  if (!start && name != "__builtin_va_end" && name != "__builtin_va_copy") return nullptr;
  if (ce->getDirectCallee()->getDefinition()) return nullptr;
  handled = true;
  ExprPtr done = Expr::mkConst(0, 32);
  if (name == "__builtin_va_end" || ce->getNumArgs() < 1) return done;
  LValue cursor;
  if (!vaCursor(ce->getArg(0), cursor)) return done;
  if (start) {
    if (!fn || !fnDecl || !fnDecl->isVariadic() || fn->params.size() != fnDecl->getNumParams() + 1) {
      unsupported("va_start outside a variadic function", ce);
      return done;
    }
    store(cursor, Expr::mkVar(fn->params.back(), ptrWidth));
    return done;
  }
  // va_copy(dst, src)
  LValue src;
  if (ce->getNumArgs() < 2 || !vaCursor(ce->getArg(1), src)) return done;
  store(cursor, load(src));
  return done;
}

}  // namespace argus::frontend
