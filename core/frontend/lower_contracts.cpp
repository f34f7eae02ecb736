// Lowering: contracts (issue 29 item 5; README "Contracts"). A function's contract is
// the calls at the start of its body that core/frontend/contracts.h inserted for its
// `/*@ requires e; */` clauses (`__argus_requires(e, i)`), and its leading
// __VERIFIER_assume(e) calls. Each becomes a check:
//
//   branch e: true -> on;  false -> Assume gate (cfa::ContractGate) -> Error "precondition
//   of f (f.c:L) violated at call site: ..."
//
// and the engine sets each gate per run (cfa::applyContracts in core/cfa/entry_harness.h):
// a closed gate ends the failing path (the contract is assumed), an open one reports it.
// `\valid(p + (0 .. hi))` of a pointer parameter also gets an entry-only object: when f is
// the verified entry, p is set to a fresh object of hi + 1 elements (the harness's own is
// one element), so the assumption describes what callers pass instead of cutting every
// path with hi > 0.
#include <clang/AST/ASTContext.h>
#include <clang/Lex/Lexer.h>

#include "core/cfa/memlayout.h"
#include "core/frontend/contracts.h"
#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

namespace {

const CallExpr* asCall(const Stmt* s) {
  if (const auto* e = dyn_cast_or_null<clang::Expr>(s)) return dyn_cast<CallExpr>(e->IgnoreParenCasts());
  return nullptr;
}

std::string calleeName(const CallExpr* ce) {
  const FunctionDecl* fd = ce ? ce->getDirectCallee() : nullptr;
  return fd ? fd->getNameAsString() : "";
}

bool isLeadingAssume(const CallExpr* ce) {
  std::string n = calleeName(ce);
  return (n == "__VERIFIER_assume" || n == "__CPROVER_assume" || n == "__ESBMC_assume") && ce->getNumArgs() == 1 &&
         !ce->getDirectCallee()->getDefinition();
}

ExprPtr band(ExprPtr a, ExprPtr b) { return Expr::mkBinary(BinOp::LAnd, std::move(a), std::move(b), 32); }
ExprPtr c64(uint64_t v) { return Expr::mkConst(v, 64); }

}  // namespace

void Lowerer::findContractCalls(const FunctionDecl* fd) {
  contractCalls.clear();
  leadingAsserts.clear();
  const auto* body = dyn_cast_or_null<CompoundStmt>(fd->getBody());
  if (!body || fn->systemHeader) return;
  for (const Stmt* s : body->body()) {
    const CallExpr* ce = asCall(s);
    if (!ce) break;
    std::string n = calleeName(ce);
    if (n == "__argus_requires" && contracts && ce->getNumArgs() == 2) contractCalls.insert(ce);
    else if (isLeadingAssume(ce)) contractCalls.insert(ce);
    else break;
  }
  // Leading assertions: the `assert(e)` statements before the body's first statement with
  // an effect. Declarations whose initialisers have no side effect, empty statements,
  // `(void)x;` and the contract calls above may come between them; a constant condition
  // (`assert(0)`: "never called") is no precondition and ends them.
  for (const Stmt* s : body->body()) {
    if (contractCalls.count(asCall(s))) continue;
    if (isa<NullStmt>(s)) continue;
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      bool pure = true;
      for (const Decl* d : ds->decls())
        if (const auto* vd = dyn_cast<VarDecl>(d))
          pure = pure && !vd->isStaticLocal() && !vd->getType()->isVariablyModifiedType() &&
                 (!vd->getInit() || !vd->getInit()->HasSideEffects(ctx));
      if (!pure) break;
      continue;
    }
    const auto* e = dyn_cast<clang::Expr>(s);
    if (!e) break;
    if (const clang::Expr* cond = assertCondition(e)) {
      if (cond->isValueDependent() || cond->isEvaluatable(ctx)) break;
      leadingAsserts.insert(s);
      continue;
    }
    if (e->HasSideEffects(ctx)) break;
  }
}

// The condition of `assert(e)` as C's <assert.h> expands it (`(e) ? (void)0 :
// __assert_fail(...)`, glibc's `((void) sizeof ((e) ? 1 : 0), __extension__ ({ if (e) ;
// else __assert_fail (...); }))`), or of a call of an undefined function `assert`; null
// for anything else. The statement must be one whole expansion of a macro named assert.
const clang::Expr* Lowerer::assertCondition(const clang::Expr* e) const {
  const SourceManager& sm = ctx.getSourceManager();
  if (const CallExpr* ce = asCall(e); ce && calleeName(ce) == "assert" && ce->getNumArgs() == 1 &&
                                      !ce->getDirectCallee()->getDefinition())
    return ce->getArg(0);
  SourceLocation b = e->getBeginLoc(), en = e->getEndLoc();
  if (!b.isMacroID() || !en.isMacroID()) return nullptr;
  if (Lexer::getImmediateMacroName(b, sm, ctx.getLangOpts()) != "assert") return nullptr;
  CharSourceRange rb = sm.getImmediateExpansionRange(b), re = sm.getImmediateExpansionRange(en);
  if (rb.getBegin() != re.getBegin() || rb.getEnd() != re.getEnd()) return nullptr;
  auto failCall = [](const Stmt* s) {
    std::vector<const Stmt*> todo{s};
    while (!todo.empty()) {
      const Stmt* t = todo.back();
      todo.pop_back();
      if (!t) continue;
      if (const auto* c = dyn_cast<CallExpr>(t)) {
        if (isAssertFailure(calleeName(c))) return true;
      }
      for (const Stmt* k : t->children()) todo.push_back(k);
    }
    return false;
  };
  // the `?:` or `if` whose failing branch calls __assert_fail
  std::vector<const Stmt*> todo{e};
  while (!todo.empty()) {
    const Stmt* t = todo.back();
    todo.pop_back();
    if (!t) continue;
    if (const auto* co = dyn_cast<ConditionalOperator>(t); co && failCall(co->getFalseExpr()) && !failCall(co->getCond()))
      return co->getCond();
    if (const auto* is = dyn_cast<IfStmt>(t); is && is->getElse() && failCall(is->getElse()) && !failCall(is->getCond()))
      return is->getCond();
    if (const auto* se = dyn_cast<StmtExpr>(t)) {
      todo.push_back(se->getSubStmt());
      continue;
    }
    for (const Stmt* k : t->children()) todo.push_back(k);
  }
  return nullptr;
}

// A leading assertion (findContractCalls): lowered as written, its condition's branches
// marked (the replay does not count them as input decisions where the assertion is
// assumed) and its failure behind a ContractGate::LeadingAssert gate (leadingAssertGate).
void Lowerer::lowerLeadingAssert(const Stmt* s) {
  const size_t before = fn->edges.size();
  inLeadingAssert = true;
  lowerStmt(s);
  inLeadingAssert = false;
  // (not the property checks inside the condition, `assert(p->n)`'s dereference: their
  // branches stay decisions, so a finding there is latent exactly when it was before)
  auto propertyCheck = [&](const Edge& a) {
    if (a.check != cfa::CheckKind::None) return true;
    for (uint32_t o : fn->locs[a.to].out)
      if (fn->edges[o].kind == EdgeKind::Error && (fn->edges[o].check != cfa::CheckKind::None || !fn->edges[o].property.empty()))
        return true;
    return false;
  };
  for (size_t i = before; i < fn->edges.size(); ++i)
    if (fn->edges[i].kind == EdgeKind::Assume && fn->edges[i].gate == cfa::ContractGate::None &&
        !propertyCheck(fn->edges[i]))
      fn->edges[i].gate = cfa::ContractGate::AssertCondition;
    else if (fn->edges[i].kind == EdgeKind::Call && fn->edges[i].gate == cfa::ContractGate::None)
      fn->edges[i].gate = cfa::ContractGate::AssertCondition;  // its assertions belong to the precondition
}

void Lowerer::leadingAssertGate() {
  if (!inLeadingAssert || !errorCallsAreErrors) return;
  Edge g = edge(EdgeKind::Assume);
  g.cond = Expr::mkConst(1, 32);
  g.gate = cfa::ContractGate::LeadingAssert;
  g.text = "leading assertion: " + fn->name + "'s precondition, checked at the call";
  emit(std::move(g));
}

void Lowerer::contractCheck(const CallExpr* ce, const std::string& what, const cfa::SourceRange& where,
                            cfa::ContractGate gate) {
  cfa::LocId ok = newLoc(), bad = newLoc();
  const size_t before = fn->edges.size();
  branch(ce->getArg(0)->IgnoreImpCasts(), ok, bad);
  for (size_t i = before; i < fn->edges.size(); ++i)
    if (fn->edges[i].kind == EdgeKind::Assume && fn->edges[i].gate == cfa::ContractGate::None)
      fn->edges[i].gate = cfa::ContractGate::Condition;
  cur = bad;
  Edge g = edge(EdgeKind::Assume);
  g.cond = Expr::mkConst(gate == cfa::ContractGate::Requires ? 1 : 0, 32);
  g.gate = gate;
  g.text = "contract: " + fn->name + " is called here, not verified as the entry";
  emit(std::move(g));
  if (errorCallsAreErrors) {
    Edge e = edge(EdgeKind::Error);
    e.text = what;
    e.range = where;
    e.gate = gate;  // (on the Error edge: names it a contract check for the trace)
    emitTo(std::move(e), fn->error);
  } else {
    // unreach-call is not checked: an open gate lets the call go on as C runs it (the
    // other properties are checked on what follows), a closed one assumes the contract
    emitTo(edge(EdgeKind::Blank), ok);
  }
  cur = ok;
}

ExprPtr Lowerer::validExpr(const CallExpr* ce) {
  if (!memLayout()) {
    unsupported("\\valid outside the memory-safety layout", ce);
    return Expr::mkConst(0, 32);
  }
  const uint64_t limit = uint64_t(1) << prog.objectBits;
  bool range = ce->getNumArgs() == 4;
  ExprPtr p = rvalue(ce->getArg(0));
  if (p->width != ptrWidth) p = Expr::convert(p, ptrWidth, false);
  ExprPtr sz = Expr::convert(rvalue(ce->getArg(range ? 3 : 1)), 64, false);
  auto valid = [&](ExprPtr a, ExprPtr bytes) {  // [a, a + bytes) inside a live object
    ExprPtr off = objOff(a);
    ExprPtr size = metaLoad(objId(a), 0, ptrWidth / 8);
    return band(liveObject(a), band(Expr::mkBinary(BinOp::ULe, off, size, 32),
                                     Expr::mkBinary(BinOp::ULe, bytes, Expr::mkBinary(BinOp::Sub, size, off), 32)));
  };
  if (!range) return valid(p, Expr::convert(sz, ptrWidth, false));
  ExprPtr lo = Expr::convert(rvalue(ce->getArg(1)), 64, true), hi = Expr::convert(rvalue(ce->getArg(2)), 64, true);
  ExprPtr empty = Expr::mkBinary(BinOp::SLt, hi, lo, 32);
  // every product below stays within 64 bits: an offset or a length beyond the layout's
  // `limit` bytes cannot lie inside one object, so the range is then not valid (exactly)
  ExprPtr perElem = Expr::mkBinary(BinOp::UDiv, c64(limit), sz);
  ExprPtr absLo = Expr::mkIte(Expr::mkBinary(BinOp::SLt, lo, c64(0), 32), Expr::mkBinary(BinOp::Sub, c64(0), lo), lo);
  ExprPtr cnt = Expr::mkBinary(BinOp::Add, Expr::mkBinary(BinOp::Sub, hi, lo), c64(1));
  ExprPtr fits = band(Expr::mkBinary(BinOp::ULe, absLo, perElem, 32), Expr::mkBinary(BinOp::ULe, cnt, perElem, 32));
  ExprPtr start = Expr::mkBinary(BinOp::Add, p, Expr::convert(Expr::mkBinary(BinOp::Mul, lo, sz), ptrWidth, true));
  ExprPtr bytes = Expr::convert(Expr::mkBinary(BinOp::Mul, cnt, sz), ptrWidth, false);
  ExprPtr inside = band(valid(start, bytes), Expr::mkBinary(BinOp::Eq, objId(start), provId(p), 32));
  return Expr::mkBinary(BinOp::LOr, empty, band(fits, inside), 32);
}

void Lowerer::contractEntryObject(const CallExpr* vr) {
  // \valid(p + (0 .. hi)) with p a pointer parameter held in a register
  const auto* dr = dyn_cast<DeclRefExpr>(vr->getArg(0)->IgnoreParenImpCasts());
  const auto* pd = dr ? dyn_cast<ParmVarDecl>(dr->getDecl()) : nullptr;
  clang::Expr::EvalResult lo;
  if (!pd || !pd->getType()->isPointerType() || !memLayout() ||
      !vr->getArg(1)->EvaluateAsInt(lo, ctx) || lo.Val.getInt() != 0)
    return;
  VarRef& ref = varFor(pd);
  if (ref.inMemory) return;
  const uint64_t limit = cfa::memlayout::maxObjectSize(prog.objectBits);
  const std::string name = pd->getNameAsString();
  cfa::LocId fork = cur, join = newLoc();
  Edge skip = edge(EdgeKind::Assume);
  skip.cond = Expr::mkConst(1, 32);
  skip.gate = cfa::ContractGate::NotEntry;
  skip.text = "contract: " + fn->name + " is not the verified entry";
  emitTo(std::move(skip), join);
  cur = fork;
  Edge g = edge(EdgeKind::Assume);
  g.cond = Expr::mkConst(0, 32);
  g.gate = cfa::ContractGate::EntryOnly;
  g.text = "contract: " + fn->name + " is the verified entry";
  emit(std::move(g));
  ExprPtr hi = Expr::convert(rvalue(vr->getArg(2)), 64, true);
  ExprPtr sz = Expr::convert(rvalue(vr->getArg(3)), 64, false);
  // hi + 1 elements when they fit the layout, else an empty object (the contract then
  // fails and the path ends: no caller can pass such an object either)
  ExprPtr fits = band(Expr::mkBinary(BinOp::SLe, c64(0), hi, 32),
                      Expr::mkBinary(BinOp::ULt, hi, Expr::mkBinary(BinOp::UDiv, c64(limit), sz), 32));
  ExprPtr size = Expr::convert(
      Expr::mkIte(fits, Expr::mkBinary(BinOp::Mul, Expr::mkBinary(BinOp::Add, hi, c64(1)), sz), c64(0)), ptrWidth,
      false);
  size = materialize(size, false);
  cfa::VarId t = newTemp(ptrWidth, false);
  Edge a = edge(EdgeKind::Alloc);
  a.lhs = t;
  a.rhs = size;
  a.size = constPtr(uint64_t(1) << prog.objectBits);  // the whole id
  a.bytes = cfa::memlayout::kHeap;
  a.text = "entry model (contract): " + name + " = fresh object of its \\valid range";
  emit(std::move(a));
  // its metadata, as the harness writes it (a live heap block the caller owns, not
  // counted as allocated by this run)
  ExprPtr id = objId(Expr::mkVar(t, ptrWidth));
  metaStore(id, 0, size);
  metaStore(id, 8, Expr::mkConst(cfa::memlayout::kLive | (uint64_t(cfa::memlayout::kHeap) << 8), 16));
  Edge next = edge(EdgeKind::Store);
  next.addr = constPtr(cfa::memlayout::kNextId);
  next.value = Expr::mkBinary(BinOp::Add, id, constPtr(1));
  next.bytes = ptrWidth / 8;
  emit(std::move(next));
  Edge set = edge(EdgeKind::Assign);
  set.lhs = ref.reg;
  set.rhs = Expr::mkVar(t, ptrWidth);
  set.text = "entry model (contract): " + name + " points to it";
  emit(std::move(set));
  emitTo(edge(EdgeKind::Blank), join);
  cur = join;
}

ExprPtr Lowerer::contractCall(const CallExpr* ce, const std::string& name, bool& handled) {
  handled = true;
  const Stmt* saved = curStmt;
  curStmt = ce;
  if (name == "__argus_valid" || name == "__argus_valid_range") {
    ExprPtr r = validExpr(ce);
    curStmt = saved;
    return r;
  }
  if (!contractCalls.count(ce)) {
    handled = false;  // not at the start of a body: an ordinary call
    curStmt = saved;
    return nullptr;
  }
  std::string file = rangeOf(ce).file;
  if (name == "__argus_requires") {
    clang::Expr::EvalResult idx;
    if (!ce->getArg(1)->EvaluateAsInt(idx, ctx) || !contracts ||
        idx.Val.getInt().getZExtValue() >= contracts->clauses.size())
      throw std::logic_error("__argus_requires without its clause");
    const ContractClause& c = contracts->clauses[idx.Val.getInt().getZExtValue()];
    // the \valid ranges of pointer parameters: the entry's objects first
    std::vector<const Stmt*> todo{ce->getArg(0)};
    while (!todo.empty()) {
      const Stmt* s = todo.back();
      todo.pop_back();
      if (const CallExpr* v = asCall(s); v && calleeName(v) == "__argus_valid_range" && v->getNumArgs() == 4)
        contractEntryObject(v);
      if (s)
        for (const Stmt* k : s->children()) todo.push_back(k);
    }
    cfa::SourceRange where = rangeOf(ce);
    if (!c.file.empty()) where.file = file = c.file;  // a prototype's contract in a header
    where.line = where.endLine = c.line;
    where.column = where.endColumn = 1;
    contractCheck(ce, "precondition of " + fn->name + " (" + file + ":" + std::to_string(c.line) +
                          ") violated at call site: " + c.text,
                  where, cfa::ContractGate::Requires);
  } else {
    cfa::SourceRange where = rangeOf(ce);
    contractCheck(ce, "precondition of " + fn->name + " (" + file + ":" + std::to_string(where.line) +
                          ") violated at call site: " + textOf(ce),
                  where, cfa::ContractGate::LeadingAssume);
  }
  curStmt = saved;
  return Expr::mkConst(0, 32);
}

}  // namespace argus::frontend
