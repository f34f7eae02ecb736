// Lowering: the entry model of each function (issue 29 item 3, README "Entry models").
// When a function other than main is verified as its own entry, the engine's harness
// (core/cfa/entry_harness.h) starts it from objects this file describes, from the C
// types of its parameters (cfa::EntryParam, cfa::EntryObject):
//
//  - a pointer parameter points to a fresh object of its pointee type (contents
//    nondeterministic); a pointee of type void, char (signed/unsigned) or an incomplete
//    type gets a buffer of kEntryBufferBytes — except a `void *` parameter, or a pointer
//    to an incomplete (opaque) type, that the body casts to a pointer to a complete struct
//    or union (`(RowSet *)pArg`, SQLite's `(Vdbe *)pStmt` of a `sqlite3_stmt *`): the
//    object has that type (its first such cast; VoidParamUse);
//  - the pointer slots inside such an object (struct fields, array elements up to
//    kEntryArraySlots, a pointee that is itself a pointer) point to further fresh objects
//    up to depth kEntryDepth (the parameter's own object is depth 1); beyond it they are
//    null, except a pointer to the type of an enclosing object other than the one that
//    holds it (entryAncestors), which points back to the nearest such object (null too
//    where tested), and a pointer to a method table (isMethodTable: a struct of scalars and
//    function pointers some call calls through, SQLite's pMethods), whose object holds
//    the functions a call through it needs. At most kEntryMaxObjects objects per
//    function; slots beyond that are null (every pointer parameter still gets its own
//    object).
//    A union the function's body reads exactly one member of is modelled as that member
//    (UnionUse); other unions' contents are left nondeterministic;
//  - a function pointer (a slot, a parameter, a global variable) holds one of the
//    functions a call through it dispatches to (Lowerer::entryFunctionChoices,
//    cfa::EntryFunctions), null only where tested; nondeterministic when there is none,
//    and in a project of several units;
//  - a parameter may be null only when the function itself tests it against NULL
//    (`p == NULL`, `p != 0`, `!p`, `if (p)`, `p ? :`, `p && …`, assert(p)) or it is
//    declared _Nullable; a pointer field may be null only when some function of the
//    translation unit tests that field (`x->next == NULL`, ...);
//  - a struct passed by value is a fresh object like a pointee (its register holds the
//    address of its bytes);
//  - a pointer parameter may be the same pointer as an earlier one of the same pointee
//    type (qualifiers aside; neither `restrict`): cfa::EntryParam::mayAlias. Otherwise
//    parameters never alias: each gets objects of its own.
//
// Globals (buildGlobalModel, in the nondeterministic initialisation that starts every
// entry other than main): the pointer slots of each global (its own value for a pointer
// variable) follow the same rules as a by-value struct parameter's fields — fresh objects
// to kEntryDepth, null only where tested (a global pointer variable: when some function
// compares it with NULL), function pointers as above, union members left nondeterministic;
// scalars stay nondeterministic. A global of a const-qualified type keeps its initialiser
// (C forbids changing it), in every entry model. --entry-model arbitrary closes the fork
// (cfa::ContractGate::GlobalModel) in front of each global's model.
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecordLayout.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <cstdint>
#include <functional>

#include "core/cfa/entry_harness.h"
#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;

namespace {

// The declaration a null test is about: a parameter or a global (DeclRefExpr), or a field
// (MemberExpr).
const Decl* testedDecl(const Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (!e->getType()->isPointerType()) return nullptr;
  if (auto* dr = dyn_cast<DeclRefExpr>(e)) {
    if (auto* pd = dyn_cast<ParmVarDecl>(dr->getDecl())) return pd;
    if (auto* vd = dyn_cast<VarDecl>(dr->getDecl()); vd && vd->hasGlobalStorage()) return vd;  // static locals too
    return nullptr;
  }
  if (auto* me = dyn_cast<MemberExpr>(e)) return dyn_cast<FieldDecl>(me->getMemberDecl());
  return nullptr;
}

class NullTests : public RecursiveASTVisitor<NullTests> {
 public:
  NullTests(ASTContext& ctx, std::set<const Decl*>& out) : ctx_(ctx), out_(out) {}
  void add(const Expr* e) {
    if (const Decl* d = testedDecl(e)) out_.insert(d->getCanonicalDecl());
  }
  bool VisitBinaryOperator(BinaryOperator* bo) {
    if (bo->getOpcode() == BO_EQ || bo->getOpcode() == BO_NE) {
      const Expr* l = bo->getLHS();
      const Expr* r = bo->getRHS();
      if (r->isNullPointerConstant(ctx_, Expr::NPC_ValueDependentIsNotNull)) add(l);
      if (l->isNullPointerConstant(ctx_, Expr::NPC_ValueDependentIsNotNull)) add(r);
    } else if (bo->getOpcode() == BO_LAnd || bo->getOpcode() == BO_LOr) {
      add(bo->getLHS());
      add(bo->getRHS());
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator* uo) {
    if (uo->getOpcode() == UO_LNot) add(uo->getSubExpr());
    return true;
  }
  bool VisitIfStmt(IfStmt* s) { add(s->getCond()); return true; }
  bool VisitWhileStmt(WhileStmt* s) { add(s->getCond()); return true; }
  bool VisitDoStmt(DoStmt* s) { add(s->getCond()); return true; }
  bool VisitForStmt(ForStmt* s) { add(s->getCond()); return true; }
  bool VisitConditionalOperator(ConditionalOperator* c) { add(c->getCond()); return true; }
  bool VisitBinaryConditionalOperator(BinaryConditionalOperator* c) { add(c->getCommon()); return true; }

 private:
  ASTContext& ctx_;
  std::set<const Decl*>& out_;
};

}  // namespace

void Lowerer::collectNullTests(TranslationUnitDecl* tu) {
  NullTests v(ctx, nullTested);
  for (Decl* d : tu->decls())
    if (auto* fd = dyn_cast<FunctionDecl>(d))
      if (fd->doesThisDeclarationHaveABody() && !skipModelDecl(fd)) v.TraverseStmt(fd->getBody());
}

int32_t Lowerer::entryObjectFor(QualType pointee, unsigned depth, std::vector<cfa::EntryObject>& objs, bool root) {
  if (!root && objs.size() >= kEntryMaxObjects) return -1;
  pointee = pointee.getCanonicalType();
  auto idx = static_cast<int32_t>(objs.size());
  objs.emplace_back();
  const Type* t = pointee.getTypePtr();
  uint64_t size = sizeOf(pointee);
  if (t->isVoidType() || t->isCharType() || size == 0) {
    objs[idx].size = kEntryBufferBytes;
    return idx;
  }
  objs[idx].size = size;
  std::vector<cfa::EntryObject::Slot> slots;
  entryAncestors.emplace_back(pointee.getUnqualifiedType(), idx);
  entrySlots(pointee, 0, depth, slots, objs);
  entryAncestors.pop_back();
  objs[idx].pointers = std::move(slots);
  return idx;
}

void Lowerer::entrySlots(QualType t, uint64_t offset, unsigned depth, std::vector<cfa::EntryObject::Slot>& slots,
                         std::vector<cfa::EntryObject>& objs, const FieldDecl* field) {
  t = t.getCanonicalType();
  if (t->isAtomicType()) t = t->castAs<AtomicType>()->getValueType().getCanonicalType();
  if (const auto* pt = t->getAs<PointerType>()) {
    cfa::EntryObject::Slot s;
    s.offset = offset;
    QualType pointee = pt->getPointeeType();
    if (pointee->isFunctionType()) {
      // a function pointer: one of the functions a call through it dispatches to. A field
      // no call calls through stays nondeterministic (nothing dispatches on it), and so
      // does an open field in a global's model: its type-based choice costs more than it
      // brings there (SQLite's FuncDef tables, nearly 700 slots of 65 functions each, in
      // every slice that reaches sqlite3_initialize).
      if (!field || (calledFields.count(field) && (!inGlobalModel || fieldClosed(field))))
        s.functions = entryFunctionChoices(t, field);
      if (field && !s.functions.empty()) {
        s.functions.field = fieldKeyOf(field);
        s.functions.type = fnTypeKeyOf(t);
      }
      s.nullable = field && nullTested.count(field->getCanonicalDecl());
      s.keep = s.functions.empty();
    } else {
      s.nullable = field && nullTested.count(field->getCanonicalDecl());
      // a method table's functions are what a call through it needs: its object too past
      // the depth bound (its own slots hold functions only)
      if (depth < kEntryDepth || isMethodTable(pointee)) {
        s.object = entryObjectFor(pointee, depth + 1, objs);
      } else if (!entryAncestors.empty()) {
        // at the depth bound: back to the nearest enclosing object of the pointee's type
        // (`db->pParse == pParse`), not the slot's own object nor one of its type (a list's
        // `next`: a cycle no walk of the list would leave)
        QualType want = pointee.getCanonicalType().getUnqualifiedType();
        if (want != entryAncestors.back().first)
          for (size_t k = entryAncestors.size() - 1; k-- > 0;)
            if (entryAncestors[k].first == want) {
              s.back = entryAncestors[k].second;
              break;
            }
      }
    }
    slots.push_back(s);
    return;
  }
  if (const auto* rt = t->getAs<RecordType>()) {
    const RecordDecl* rd = rt->getDecl()->getDefinition();
    if (!rd) return;
    if (rd->isUnion()) {
      // the one member the entry's body reads, as if the union were that member
      // (UC-KLEE types lazily initialised memory by its use); other unions' contents are
      // left nondeterministic
      auto it = unionUse.find(cast<RecordDecl>(rd->getCanonicalDecl()));
      if (it != unionUse.end()) entrySlots(it->second->getType(), offset, depth, slots, objs, it->second);
      return;
    }
    const ASTRecordLayout& layout = ctx.getASTRecordLayout(rd);
    for (const FieldDecl* fd : rd->fields()) {
      if (fd->isBitField()) continue;
      uint64_t off = offset + layout.getFieldOffset(fd->getFieldIndex()) / 8;
      entrySlots(fd->getType(), off, depth, slots, objs, fd);
    }
    return;
  }
  if (const auto* at = dyn_cast<ConstantArrayType>(t.getTypePtr())) {
    uint64_t n = at->getSize().getZExtValue();
    uint64_t es = sizeOf(at->getElementType());
    if (es == 0) return;
    for (uint64_t i = 0; i < n && i < kEntryArraySlots; ++i)
      entrySlots(at->getElementType(), offset + i * es, depth, slots, objs, field);
  }
}

bool Lowerer::isMethodTable(QualType t) {
  const auto* rt = t.getCanonicalType()->getAs<RecordType>();
  const RecordDecl* rd = rt ? rt->getDecl()->getDefinition() : nullptr;
  if (!rd || rd->isUnion()) return false;
  auto [it, fresh] = methodTables.emplace(rd, false);
  if (!fresh) return it->second;
  bool called = false;
  for (const FieldDecl* fd : rd->fields()) {
    QualType ft = fd->getType().getCanonicalType();
    if (const auto* pt = ft->getAs<PointerType>()) {
      if (!pt->getPointeeType()->isFunctionType()) return false;
      called = called || calledFields.count(fd) > 0;
    } else if (!ft->isScalarType()) {
      return false;
    }
  }
  it->second = called;
  return called;
}

namespace {
// The member of each union the body reads, for the unions it reads exactly one member of
// (Lowerer::unionUse): a body that reads two (a tagged union, `p->eType == A ? p->u.pA :
// p->u.n`) may meet either, and the union keeps nondeterministic contents.
class UnionUse : public RecursiveASTVisitor<UnionUse> {
 public:
  explicit UnionUse(std::map<const RecordDecl*, const FieldDecl*>& out) : out_(out) {}
  bool VisitMemberExpr(MemberExpr* me) {
    const auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
    if (!fd || !fd->getParent()->isUnion()) return true;
    const auto* rd = cast<RecordDecl>(fd->getParent()->getCanonicalDecl());
    auto [it, fresh] = out_.emplace(rd, fd);
    if (fd->isBitField() || (!fresh && it->second != fd)) it->second = nullptr;
    return true;
  }
  void finish() {
    for (auto it = out_.begin(); it != out_.end();) it = it->second ? std::next(it) : out_.erase(it);
  }

 private:
  std::map<const RecordDecl*, const FieldDecl*>& out_;
};

// The object type a `void *` parameter (or a pointer to an opaque type) is used as: the
// pointee of the first cast of the parameter itself (`(RowSet *)pArg`, `RowSet *p = pArg;`)
// to a pointer to a complete struct or union type in the function's body (UC-KLEE's lazy
// initialisation types an object by its first use). Null type when the body never casts
// it so.
class VoidParamUse : public RecursiveASTVisitor<VoidParamUse> {
 public:
  explicit VoidParamUse(const ParmVarDecl* pd) : pd_(pd) {}
  QualType type;
  bool VisitCastExpr(CastExpr* ce) {
    if (!type.isNull() || (ce->getCastKind() != CK_BitCast && ce->getCastKind() != CK_NoOp)) return true;
    const auto* dr = dyn_cast<DeclRefExpr>(ce->getSubExpr()->IgnoreParenImpCasts());
    if (!dr || dr->getDecl() != pd_) return true;
    if (const auto* pt = ce->getType().getCanonicalType()->getAs<PointerType>()) {
      QualType pointee = pt->getPointeeType();
      if (pointee->isRecordType() && !pointee->isIncompleteType()) type = pointee;
    }
    return true;
  }

 private:
  const ParmVarDecl* pd_;
};
}  // namespace

void Lowerer::buildEntryModel(const FunctionDecl* fd) {
  struct UseScope {
    std::map<const RecordDecl*, const FieldDecl*>& m;
    ~UseScope() { m.clear(); }
  } useScope{unionUse};
  if (const FunctionDecl* def = fd->getDefinition(); def && def->getBody()) {
    UnionUse use(unionUse);
    use.TraverseStmt(def->getBody());
    use.finish();
  }
  std::vector<cfa::EntryParam> params(fn->params.size());
  std::vector<cfa::EntryObject> objs;
  bool any = false;
  for (size_t i = 0; i < fd->getNumParams(); ++i) {
    const ParmVarDecl* pd = fd->getParamDecl(i);
    QualType t = pd->getType();
    QualType canon = t.getCanonicalType();
    if (const auto* pt = canon->getAs<PointerType>()) {
      if (auto n = t->getNullability(ctx); n && *n == NullabilityKind::Nullable) params[i].nullable = true;
      if (nullTested.count(pd->getCanonicalDecl())) params[i].nullable = true;
      if (pt->getPointeeType()->isFunctionType()) {
        // a callback: one of the functions a call through its type dispatches to
        params[i].functions = entryFunctionChoices(canon, nullptr);
        any = any || !params[i].functions.empty();
        continue;
      }
      QualType pointee = pt->getPointeeType();
      const FunctionDecl* def = fd->getDefinition();
      if ((pointee->isVoidType() || pointee->isIncompleteType()) && def && def->getBody() && i < def->getNumParams()) {
        VoidParamUse use(def->getParamDecl(i));  // the body names the definition's parameters
        use.TraverseStmt(def->getBody());
        if (!use.type.isNull()) pointee = use.type;
      }
      params[i].object = entryObjectFor(pointee, 1, objs, true);
      any = any || params[i].object >= 0;
    } else if (canon->isRecordType()) {
      params[i].object = entryObjectFor(canon, 0, objs, true);  // by value: its fields are depth 1
      any = any || params[i].object >= 0;
    }
  }
  // parameters of the same pointee type may be the same pointer (neither `restrict`)
  for (size_t i = 0; i < fd->getNumParams() && i < params.size(); ++i) {
    QualType ti = fd->getParamDecl(i)->getType().getCanonicalType();
    const auto* pi = ti->getAs<PointerType>();
    if (params[i].object < 0 || !pi || ti.isRestrictQualified()) continue;
    for (size_t j = 0; j < i; ++j) {
      QualType tj = fd->getParamDecl(j)->getType().getCanonicalType();
      const auto* pj = tj->getAs<PointerType>();
      if (params[j].object < 0 || !pj || tj.isRestrictQualified()) continue;
      if (ctx.hasSameUnqualifiedType(pi->getPointeeType(), pj->getPointeeType()))
        params[i].mayAlias.push_back(static_cast<uint32_t>(j));
    }
  }
  if (fd->isVariadic() && fn->params.size() == fd->getNumParams() + 1) {
    // The variadic arguments (the hidden parameter, Lowerer::declareSignature): a buffer
    // of nondeterministic bytes, as for a `void *` parameter.
    params.back().object = entryObjectFor(ctx.CharTy, 1, objs, true);
    any = true;
  }
  if (!any) return;
  fn->entryParams = std::move(params);
  fn->entryObjects = std::move(objs);
}

// One global's entry model as edges of the nondeterministic initialisation, behind a
// GlobalModel fork (open by default); false when it has no pointer slot to model.
bool Lowerer::buildGlobalModel(const VarDecl* vd, const VarRef& ref, QualType t) {
  struct Flag {
    bool& b;
    explicit Flag(bool& x) : b(x) { b = true; }
    ~Flag() { b = false; }
  } inGlobal(inGlobalModel);
  std::vector<cfa::EntryObject> objs;
  int32_t object = -1;
  bool nullable = false;
  QualType canon = t.getCanonicalType();
  if (ref.inMemory) {
    object = entryObjectFor(canon, 0, objs, true);  // the global's own bytes: its fields are depth 1
    if (object < 0 || objs[object].pointers.empty() ||
        std::all_of(objs[object].pointers.begin(), objs[object].pointers.end(),
                    [](const cfa::EntryObject::Slot& s) { return s.keep; }))
      return false;
  } else if (const auto* pt = canon->getAs<PointerType>()) {
    if (prog.vars[ref.reg].width != ptrWidth) return false;
    if (pt->getPointeeType()->isFunctionType()) return buildGlobalFunctionModel(vd, ref, canon);
    object = entryObjectFor(pt->getPointeeType(), 1, objs, true);
    nullable = nullTested.count(vd->getCanonicalDecl()) > 0;
  } else {
    return false;
  }
  if (object < 0) return false;
  globalModelGate(vd, [&] {
    cfa::emitEntryObject(prog, *fn, cur, rangeOfDecl(vd), objs, object, ref.reg, vd->getNameAsString(),
                         !ref.inMemory, nullable);
  });
  return true;
}

// A global function-pointer variable (in a register): one of the functions a call through
// its type dispatches to (cfa::EntryFunctions), or null where some function tests it.
bool Lowerer::buildGlobalFunctionModel(const VarDecl* vd, const VarRef& ref, QualType t) {
  cfa::EntryFunctions fs = entryFunctionChoices(t, nullptr);
  if (fs.empty()) return false;
  bool nullable = nullTested.count(vd->getCanonicalDecl()) > 0;
  globalModelGate(vd, [&] {
    cfa::emitFunctionChoice(prog, *fn, cur, rangeOfDecl(vd), fs, nullable, ref.reg, vd->getNameAsString());
  });
  return true;
}

// `model`'s edges behind the global's GlobalModel fork (open by default; --entry-model
// arbitrary closes it: the global keeps arbitrary contents).
void Lowerer::globalModelGate(const VarDecl* vd, const std::function<void()>& model) {
  cfa::LocId join = newLoc();
  cfa::Edge on = edge(cfa::EdgeKind::Assume);
  on.cond = cfa::Expr::mkConst(1, 32);
  on.gate = cfa::ContractGate::GlobalModel;
  on.range = rangeOfDecl(vd);
  on.text = "entry model: global " + vd->getNameAsString();
  cfa::Edge off = on;
  off.positive = false;
  off.text = "entry model: global " + vd->getNameAsString() + " left arbitrary";
  emitTo(std::move(off), join);
  emit(std::move(on));
  model();
  emitTo(edge(cfa::EdgeKind::Blank), join);
  cur = join;
}

}  // namespace argus::frontend
