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
#include <clang/AST/RecordLayout.h>

#include <algorithm>
#include <cstdint>

#include "core/cfa/memlayout.h"
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
      if (uo->getOpcode() == UO_Minus || uo->isIncrementDecrementOp() ||
          (uo->getOpcode() == UO_Deref && checks.count("valid-deref")))
        return true;
    if (checks.count("valid-deref") && (isa<ArraySubscriptExpr>(s) || (isa<MemberExpr>(s) && cast<MemberExpr>(s)->isArrow())))
      return true;
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
  if (kind == CheckKind::Deref || kind == CheckKind::Index || kind == CheckKind::Free ||
      (kind == CheckKind::Leak && operands.empty())) {
    // memory safety: the interpreter also checks the path that passes (its object table
    // must agree that nothing is violated here, core/result/replay.cpp)
    no.check = kind;
    no.args = operands;
  }
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
  if (ovf && (a->width != b->width || a->width != widthOf(rt))) {
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
    checkEdge(Expr::mkBinary(BinOp::Eq, b, Expr::mkWideConst(0, b->width), 1), "div-by-zero", CheckKind::DivByZero, {b},
              at);
  }
  if (sh) {
    uint32_t w = a->width;
    // negative amounts are >= w as unsigned numbers
    ExprPtr violated = Expr::mkBinary(BinOp::ULe, Expr::mkWideConst(w, b->width), b, 1);
    checkEdge(violated, "shift", isSignedT(tb) ? CheckKind::ShiftSigned : CheckKind::ShiftUnsigned,
              {b, Expr::mkConst(w, 32)}, at);
  }
  if (!ovf) return;
  uint32_t w = a->width;
  ExprPtr zero = Expr::mkWideConst(0, w);
  ExprPtr minV = Expr::mkWideConst(cfa::Value{1} << (w - 1), w), minusOne = Expr::mkWideConst(~cfa::Value{0}, w);
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
  checkEdge(Expr::mkBinary(BinOp::Eq, a, Expr::mkWideConst(cfa::Value{1} << (a->width - 1), a->width), 1), "no-overflow",
            CheckKind::SignedNeg, {a}, at);
}


// ---------------------------------------------------------------- memory safety
//
// The memory-safety layout (cfa::memlayout; Program::objectBits set in
// lowerTranslationUnit when valid-deref, valid-free, valid-memtrack or valid-memcleanup
// is checked). Objects carry their metadata in id 0's range of the memory; the checks
// below read it with plain Load expressions, the allocation, free and lifetime ends write
// it with plain Store edges, so no algorithm needs code of its own. The replay
// interpreter decides the checks from its own object table (core/result/replay.cpp).
//  - valid-deref: every load and store the program's code makes (including the libc
//    models' own accesses, and the byte ranges of memcpy/memset/memmove) is inside an
//    allocated object whose state is live; an array index of a whole array object out
//    of its bounds.
//  - valid-free: free(p) and realloc(p, n) with p null or the start of a live heap block.
//  - valid-memcleanup: no heap block is allocated when the program terminates (main's
//    return, exit(), abort(), an error call or failed assertion when unreach-call is not
//    checked).
//  - valid-memtrack: when main returns with heap blocks allocated and no global can hold
//    a pointer (by its type), they are unreachable: a violation; when globals can, but
//    hold pointers only in fixed places (globalPointerSlots) none of which points into a
//    live heap block, likewise; otherwise (a global points to a block, or holds pointers
//    where no fixed place says), or at exit()/abort() with blocks allocated, the path is
//    unsupported (unknown).

namespace {
ExprPtr band(ExprPtr a, ExprPtr b) { return Expr::mkBinary(BinOp::LAnd, std::move(a), std::move(b), 32); }
ExprPtr bnot(ExprPtr a) { return Expr::mkUnary(cfa::UnOp::LogNot, std::move(a)); }
}  // namespace

ExprPtr Lowerer::objId(const ExprPtr& p) { return Expr::mkBinary(BinOp::LShr, p, constPtr(prog.objectBits)); }

ExprPtr Lowerer::provId(const ExprPtr& p) {
  return objId(Expr::mkBinary(BinOp::Add, p, constPtr(cfa::memlayout::belowRoom(prog.objectBits))));
}

ExprPtr Lowerer::objOff(const ExprPtr& p) {
  return Expr::mkBinary(BinOp::And, p, constPtr((uint64_t(1) << prog.objectBits) - 1));
}

ExprPtr Lowerer::metaLoad(const ExprPtr& id, uint32_t field, uint32_t bytes) {
  ExprPtr a = Expr::mkBinary(BinOp::Add, Expr::mkBinary(BinOp::Shl, id, constPtr(4)),
                             constPtr(cfa::memlayout::kMetaBase + field));
  return Expr::mkLoad(a, bytes);
}

void Lowerer::metaStore(const ExprPtr& id, uint32_t field, ExprPtr value) {
  Edge s = edge(EdgeKind::Store);
  s.addr = Expr::mkBinary(BinOp::Add, Expr::mkBinary(BinOp::Shl, id, constPtr(4)),
                          constPtr(cfa::memlayout::kMetaBase + field));
  s.bytes = value->width / 8;
  s.value = std::move(value);
  emit(std::move(s));
}

void Lowerer::declareLiveHeap() {
  if (!memLayout()) return;
  cfa::Variable v;
  v.name = v.cName = std::string(cfa::memlayout::kLiveHeapVar);
  v.width = ptrWidth;
  v.kind = cfa::VarKind::Global;
  // one counter for the whole program when units are linked (cfa::link joins external
  // globals by their C name)
  if (linkMode()) v.linkage = cfa::Linkage::External;
  liveHeapVar = prog.addVar(std::move(v));
}

ExprPtr Lowerer::liveHeap() { return Expr::mkVar(liveHeapVar, ptrWidth); }

void Lowerer::setLiveHeap(ExprPtr v) {
  Edge s = edge(EdgeKind::Assign);
  s.lhs = liveHeapVar;
  s.rhs = std::move(v);
  s.text = "";  // bookkeeping: not a step of the C program (counterexample.cpp skips it)
  emit(std::move(s));
}

ExprPtr Lowerer::liveObject(const ExprPtr& p) {
  ExprPtr id = objId(p);
  ExprPtr allocated = band(Expr::mkBinary(BinOp::Ne, id, constPtr(0), 32),
                           Expr::mkBinary(BinOp::ULt, id, Expr::mkLoad(constPtr(cfa::memlayout::kNextId), ptrWidth / 8), 32));
  return band(allocated, Expr::mkBinary(BinOp::Eq, metaLoad(id, 8, 1), Expr::mkConst(cfa::memlayout::kLive, 8), 32));
}

void Lowerer::allocObject(Edge a, uint8_t kind) {
  if (!memLayout()) {
    emit(std::move(a));
    return;
  }
  const Stmt* at = curStmt;
  ExprPtr size = a.size;
  bool zero = a.zeroInit;
  if (size->kind != cfa::ExprKind::Const && size->kind != cfa::ExprKind::Var) size = materialize(size, false);
  uint64_t limit = cfa::memlayout::maxObjectSize(prog.objectBits);
  if (size->kind == cfa::ExprKind::Const && size->value > limit) {
    unsupported("object of " + std::to_string(size->value) + " bytes (beyond the memory-safety layout's " +
                    std::to_string(limit) + ")", at);
    return;
  }
  if (size->kind != cfa::ExprKind::Const)
    unsupportedIf(Expr::mkBinary(BinOp::ULt, constPtr(limit), size, 32),
                  "object larger than the memory-safety layout's " + std::to_string(limit) + " bytes", at);
  cfa::VarId lhs = *a.lhs;
  a.rhs = size;
  a.bytes = kind;
  a.size = constPtr(uint64_t(1) << prog.objectBits);  // the whole id
  a.zeroInit = false;
  emit(std::move(a));
  ExprPtr p = Expr::mkVar(lhs, ptrWidth);
  ExprPtr id = objId(p);
  unsupportedIf(Expr::mkBinary(BinOp::LOr, Expr::mkBinary(BinOp::Eq, id, constPtr(0), 32),
                               Expr::mkBinary(BinOp::ULe, constPtr(cfa::memlayout::maxIds(ptrWidth)), id, 32), 32),
                "more than " + std::to_string(cfa::memlayout::maxIds(ptrWidth) - 1) +
                    " objects (memory-safety layout)", at);
  metaStore(id, 0, size);
  metaStore(id, 8, Expr::mkConst(cfa::memlayout::kLive | (uint64_t(kind) << 8), 16));
  Edge next = edge(EdgeKind::Store);
  next.addr = constPtr(cfa::memlayout::kNextId);
  next.value = Expr::mkBinary(BinOp::Add, id, constPtr(1));
  next.bytes = ptrWidth / 8;
  emit(std::move(next));
  if (kind == cfa::memlayout::kHeap) setLiveHeap(Expr::mkBinary(BinOp::Add, liveHeap(), constPtr(1)));
  if (zero) {
    if (size->kind == cfa::ExprKind::Const) zeroBytes(p, size->value, at);
    else byteLoop(p, size, [](ExprPtr) { return Expr::mkConst(0, 8); }, "zero the new object");
  }
}

bool Lowerer::derefChecked() const {
  return memLayout() && checks.count("valid-deref") && fn && !fn->systemHeader &&
         fn->name.rfind("__argus_init", 0) != 0 && fn->id != atexitRunner;
}

void Lowerer::checkDeref(ExprPtr addr, ExprPtr bytes, const Stmt* at, ExprPtr base) {
  if (!derefChecked()) return;
  if (addr->kind != cfa::ExprKind::Const && addr->kind != cfa::ExprKind::Var) addr = materialize(addr, false);
  if (base && base->kind != cfa::ExprKind::Const && base->kind != cfa::ExprKind::Var) base = materialize(base, false);
  if (bytes->kind != cfa::ExprKind::Const && bytes->kind != cfa::ExprKind::Var) bytes = materialize(bytes, false);
  if (bytes->kind == cfa::ExprKind::Const && bytes->value == 0) return;
  ExprPtr off = objOff(addr);
  ExprPtr size = metaLoad(objId(addr), 0, ptrWidth / 8);
  ExprPtr inside = band(Expr::mkBinary(BinOp::ULe, off, size, 32),
                        Expr::mkBinary(BinOp::ULe, bytes, Expr::mkBinary(BinOp::Sub, size, off), 32));
  ExprPtr ok = band(liveObject(addr), inside);
  std::vector<ExprPtr> args{addr, bytes};
  if (base) {  // p[i]: the address must stay in p's object (its provenance: p may point below it)
    ok = band(ok, Expr::mkBinary(BinOp::Eq, objId(addr), provId(base), 32));
    args.push_back(base);
  }
  checkEdge(bnot(ok), "valid-deref", CheckKind::Deref, std::move(args), at);
}

void Lowerer::freeObject(ExprPtr p, const Stmt* at) {
  if (!memLayout()) {
    Edge f = edge(EdgeKind::Free);
    f.addr = std::move(p);
    emit(std::move(f));
    return;
  }
  if (p->kind != cfa::ExprKind::Const && p->kind != cfa::ExprKind::Var) p = materialize(p, false);
  ExprPtr id = objId(p);
  ExprPtr heapBlockStart = band(band(liveObject(p), Expr::mkBinary(BinOp::Eq, objOff(p), constPtr(0), 32)),
                                Expr::mkBinary(BinOp::Eq, metaLoad(id, 9, 1), Expr::mkConst(cfa::memlayout::kHeap, 8), 32));
  if (checking("valid-free"))
    checkEdge(band(Expr::mkBinary(BinOp::Ne, p, constPtr(0), 32), bnot(heapBlockStart)), "valid-free", CheckKind::Free,
              {p}, at);
  // the counter first (it reads the state the block had)
  setLiveHeap(Expr::mkBinary(BinOp::Sub, liveHeap(), Expr::convert(heapBlockStart, ptrWidth, false)));
  Edge f = edge(EdgeKind::Free);
  f.addr = p;
  f.bytes = 0;
  emit(std::move(f));
  // state := freed (null writes id 0's entry, which no check reads)
  metaStore(id, 8, Expr::mkIte(heapBlockStart, Expr::mkConst(cfa::memlayout::kFreed, 8), metaLoad(id, 8, 1)));
}

void Lowerer::declareStackObjects(const Stmt* body) {
  stackObjects.clear();
  if (!memLayout() || !body) return;
  std::vector<const Stmt*> todo{body};
  while (!todo.empty()) {
    const Stmt* s = todo.back();
    todo.pop_back();
    if (!s) continue;
    if (const auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (const auto* vd = dyn_cast<VarDecl>(d))
          if (vd->hasLocalStorage() && !isa<ParmVarDecl>(vd)) {
            VarRef& ref = varFor(vd);
            if (!ref.inMemory) continue;
            if (std::find(stackObjects.begin(), stackObjects.end(), ref.reg) != stackObjects.end()) continue;
            stackObjects.push_back(ref.reg);
            Edge z = edge(EdgeKind::Assign);  // not allocated yet
            z.lhs = ref.reg;
            z.rhs = constPtr(0);
            z.text = "(no object yet) " + vd->getNameAsString();
            emit(std::move(z));
          }
    for (const Stmt* c : s->children()) todo.push_back(c);
  }
}

void Lowerer::endStackObjects() {
  if (!memLayout()) return;
  for (cfa::VarId v : stackObjects) {
    ExprPtr p = Expr::mkVar(v, ptrWidth);
    ExprPtr id = objId(p);
    ExprPtr mine = band(liveObject(p), Expr::mkBinary(BinOp::Eq, metaLoad(id, 9, 1),
                                                      Expr::mkConst(cfa::memlayout::kStack, 8), 32));
    Edge f = edge(EdgeKind::Free);
    f.addr = p;
    f.bytes = 1;
    f.text = "end of the lifetime of " + prog.vars[v].cName;
    emit(std::move(f));
    metaStore(id, 8, Expr::mkIte(mine, Expr::mkConst(cfa::memlayout::kDead, 8), metaLoad(id, 8, 1)));
  }
}

bool Lowerer::typeMayHoldPointer(QualType t) {
  t = t.getCanonicalType();
  if (t->isPointerType() || t->isBlockPointerType()) return !t->isFunctionPointerType();
  if (t->isIntegerType()) return widthOf(t) >= ptrWidth;  // (u)intptr_t
  if (const auto* at = ctx.getAsArrayType(t)) {
    QualType et = at->getElementType().getCanonicalType();
    if (et->isCharType() || et->isIntegerType()) {  // bytes a pointer may be copied into
      const auto* cat = ctx.getAsConstantArrayType(t);
      return !cat || sizeOf(t) >= ptrWidth / 8 || typeMayHoldPointer(et);
    }
    return typeMayHoldPointer(et);
  }
  if (const auto* rt = t->getAs<RecordType>()) {
    if (rt->getDecl()->isUnion()) return sizeOf(t) >= ptrWidth / 8;
    for (const FieldDecl* f : rt->getDecl()->fields())
      if (typeMayHoldPointer(f->getType())) return true;
    return false;
  }
  return false;
}

bool Lowerer::globalsHoldPointers() {
  if (!globalsHoldPointers_) {
    bool any = false;
    for (const VarDecl* vd : globals) {
      if (ctx.getSourceManager().isInSystemHeader(vd->getLocation())) continue;
      std::string n = vd->getNameAsString();
      if (n.rfind("__argus", 0) == 0) continue;
      // a const object never holds a heap address: its initializer is a constant
      // expression (no malloc result) and modifying it is undefined (C11 6.7.3p6)
      if (ctx.getBaseElementType(vd->getType()).isConstQualified()) continue;
      if (typeMayHoldPointer(vd->getType())) any = true;
    }
    globalsHoldPointers_ = any;
  }
  return *globalsHoldPointers_;
}

// The places a global can hold a data pointer in (the globals globalsHoldPointers counts):
// a register global's value, else a load of each pointer-typed (or pointer-wide integer)
// member or element at its offset. false when a global can hold one where no such place
// says (a byte array, a union, a wider integer, an array of unknown size) or there are
// more than kMaxPointerSlots places.
static constexpr size_t kMaxPointerSlots = 64;

bool Lowerer::pointerSlotsOf(QualType t, const ExprPtr& base, uint64_t off, std::vector<ExprPtr>& out) {
  t = t.getCanonicalType();
  if (!typeMayHoldPointer(t)) return true;
  if (t->isPointerType() || (t->isIntegerType() && widthOf(t) == ptrWidth)) {
    out.push_back(Expr::mkLoad(addOffset(base, off), ptrWidth / 8));
    return out.size() <= kMaxPointerSlots;
  }
  if (const auto* cat = ctx.getAsConstantArrayType(t)) {
    QualType et = cat->getElementType().getCanonicalType();
    if (et->isCharType() || (et->isIntegerType() && widthOf(et) != ptrWidth)) return false;  // bytes
    uint64_t n = cat->getSize().getZExtValue(), es = sizeOf(et);
    if (n > kMaxPointerSlots || es == 0) return false;
    for (uint64_t i = 0; i < n; ++i)
      if (!pointerSlotsOf(et, base, off + i * es, out)) return false;
    return true;
  }
  if (const auto* rt = t->getAs<RecordType>()) {
    const RecordDecl* rd = rt->getDecl()->getDefinition();
    if (!rd || rd->isUnion()) return false;
    const ASTRecordLayout& layout = ctx.getASTRecordLayout(rd);
    for (const FieldDecl* f : rd->fields()) {
      if (f->isBitField()) {
        if (typeMayHoldPointer(f->getType())) return false;
        continue;
      }
      if (!pointerSlotsOf(f->getType(), base, off + layout.getFieldOffset(f->getFieldIndex()) / 8, out)) return false;
    }
    return true;
  }
  return false;
}

bool Lowerer::globalPointerSlots(std::vector<ExprPtr>& out) {
  for (const VarDecl* vd : globals) {
    if (ctx.getSourceManager().isInSystemHeader(vd->getLocation())) continue;
    std::string n = vd->getNameAsString();
    if (n.rfind("__argus", 0) == 0) continue;
    if (ctx.getBaseElementType(vd->getType()).isConstQualified()) continue;  // as globalsHoldPointers
    if (!typeMayHoldPointer(vd->getType())) continue;
    VarRef& ref = varFor(vd);
    if (!ref.inMemory) {
      QualType t = vd->getType().getCanonicalType();
      if (!(t->isPointerType() || t->isIntegerType()) || prog.vars[ref.reg].width != ptrWidth) return false;
      out.push_back(Expr::mkVar(ref.reg, ptrWidth));
    } else if (!pointerSlotsOf(vd->getType(), Expr::mkVar(ref.reg, ptrWidth), 0, out)) {
      return false;
    }
    if (out.size() > kMaxPointerSlots) return false;
  }
  return true;
}

// v points into (or, by its provenance, just before) a live heap block
ExprPtr Lowerer::pointsIntoLiveHeap(const ExprPtr& v) {
  auto liveHeapId = [&](ExprPtr id) {
    ExprPtr allocated = band(Expr::mkBinary(BinOp::Ne, id, constPtr(0), 32),
                             Expr::mkBinary(BinOp::ULt, id, Expr::mkLoad(constPtr(cfa::memlayout::kNextId), ptrWidth / 8), 32));
    return band(allocated, band(Expr::mkBinary(BinOp::Eq, metaLoad(id, 8, 1), Expr::mkConst(cfa::memlayout::kLive, 8), 32),
                                Expr::mkBinary(BinOp::Eq, metaLoad(id, 9, 1), Expr::mkConst(cfa::memlayout::kHeap, 8), 32)));
  };
  return Expr::mkBinary(BinOp::LOr, liveHeapId(objId(v)), liveHeapId(provId(v)), 32);
}

void Lowerer::endOfProgram(bool mainReturn, bool isExit) {
  if (!memLayout() || !fn || fn->name.rfind("__argus", 0) == 0) return;
  bool cleanup = checks.count("valid-memcleanup") > 0, track = checks.count("valid-memtrack") > 0;
  if (!cleanup && !track) return;
  const Stmt* at = curStmt;
  ExprPtr leaked = Expr::mkBinary(BinOp::Ne, liveHeap(), constPtr(0), 32);
  // every termination counts: main's return, exit(), abort() and an error call or failed
  // assertion that ends the run (ESBMC and SV-COMP's valid-memcleanup tasks agree)
  if (cleanup) checkEdge(leaked, "valid-memcleanup", CheckKind::Leak, {}, at);
  std::vector<ExprPtr> slots;
  if (track) {
    if (mainReturn && !globalsHoldPointers()) {
      checkEdge(leaked, "valid-memtrack", CheckKind::Leak, {}, at);
    } else if (mainReturn && globalPointerSlots(slots)) {
      // main's frame is gone: a block is reachable only from the globals, so when no
      // global points into a live heap block, every allocated block is lost (the
      // interpreter confirms with its own reachability from all global memory; the
      // argument marks this check, CheckKind::Leak)
      ExprPtr held = Expr::mkConst(0, 32);
      for (const ExprPtr& v : slots) held = Expr::mkBinary(BinOp::LOr, held, pointsIntoLiveHeap(v), 32);
      checkEdge(band(leaked, bnot(held)), "valid-memtrack", CheckKind::Leak, {constPtr(1)}, at);
      unsupportedIf(band(leaked, held),
                    "heap memory allocated at the end of main while a global points to a heap block (valid-memtrack)", at);
    } else
      unsupportedIf(leaked,
                    mainReturn ? "heap memory allocated at the end of main while a global may point to it "
                                 "(valid-memtrack)"
                               : std::string(isExit ? "exit()" : "abort()") +
                                     " with heap memory allocated (valid-memtrack)",
                    at);
  }
}

}  // namespace argus::frontend
