// Lowering: translation unit, functions, statements, declarations, globals.
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecordLayout.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <optional>

#include "core/frontend/contracts.h"
#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

namespace {

// Finds address-taken variables, string literals and function addresses.
class PrePass : public RecursiveASTVisitor<PrePass> {
public:
  explicit PrePass(Lowerer& l) : L(l) {}
  bool VisitUnaryOperator(UnaryOperator* uo) {
    VisitUnaryOperatorForFields(uo);
    if (uo->getOpcode() == UO_AddrOf) {
      const clang::Expr* sub = uo->getSubExpr()->IgnoreParens();
      if (auto* dr = dyn_cast<DeclRefExpr>(sub))
        if (auto* vd = dyn_cast<VarDecl>(dr->getDecl())) L.addressTaken.insert(vd->getCanonicalDecl());
    }
    return true;
  }
  bool VisitStringLiteral(StringLiteral* s) {
    if (!L.literalAddr.count(s)) {
      L.literals.push_back(s);
      L.literalAddr[s] = 0;
    }
    return true;
  }
  // pre-order: a call is visited before the DeclRefExpr of its callee
  bool VisitCallExpr(CallExpr* ce) {
    VisitCallExprForFields(ce);
    if (const FieldDecl* f = Lowerer::calleeField(ce)) L.calledFields.insert(f);
    if (auto* dre = dyn_cast<DeclRefExpr>(ce->getCallee()->IgnoreParenImpCasts())) L.directCallees.insert(dre);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr* dre) {
    if (auto* fd = dyn_cast<FunctionDecl>(dre->getDecl()))
      if (!L.directCallees.count(dre)) L.addressTakenFuncs.insert(fd->getCanonicalDecl());
    return true;
  }
  // casts between function pointer types, or between one and a non-function type
  bool VisitCastExpr(CastExpr* c) {
    switch (c->getCastKind()) {
      case CK_FunctionToPointerDecay:
      case CK_LValueToRValue:
      case CK_NoOp:
      case CK_NullToPointer:
        return true;
      default:
        break;
    }
    QualType from = c->getSubExpr()->getType(), to = c->getType();
    auto fnish = [](QualType t) { return t->isFunctionPointerType() || t->isFunctionType(); };
    if (fnish(from) || fnish(to)) L.joinFnTypes(from, to);
    return true;
  }
  // function-pointer fields (Lowerer::fieldFuncs): what the unit stores in them
  // (the visitor walks the syntactic forms; their semantic forms line up with the fields)
  bool VisitInitListExpr(InitListExpr* ile) {
    const InitListExpr* sem = ile->isSemanticForm() ? ile : ile->getSemanticForm();
    if (sem) semanticInit(sem);
    return true;
  }
  void semanticInit(const InitListExpr* ile) {
    QualType t = ile->getType();
    if (t->isArrayType()) {
      for (unsigned i = 0; i < ile->getNumInits(); ++i)
        if (auto* sub = dyn_cast<InitListExpr>(ile->getInit(i)->IgnoreParenImpCasts())) semanticInit(sub);
      return;
    }
    const RecordDecl* rd = t->getAsRecordDecl();
    if (!rd) return;
    if (rd->isUnion()) {
      L.openRecords.insert(rd->getCanonicalDecl());
      return;
    }
    unsigned i = 0;
    for (const FieldDecl* f : rd->fields()) {
      if (f->isUnnamedBitfield()) continue;  // no initialiser of its own
      if (i >= ile->getNumInits()) break;
      const clang::Expr* init = ile->getInit(i++);
      if (auto* sub = dyn_cast<InitListExpr>(init->IgnoreParenImpCasts())) semanticInit(sub);
      else L.storeInField(f, init);
    }
  }
  bool VisitBinaryOperator(BinaryOperator* bo) {
    if (bo->getOpcode() != BO_Assign) return true;
    if (auto* me = dyn_cast<MemberExpr>(bo->getLHS()->IgnoreParenImpCasts()))
      if (auto* f = dyn_cast<FieldDecl>(me->getMemberDecl())) L.storeInField(f, bo->getRHS());
    return true;
  }
  bool VisitUnaryOperatorForFields(UnaryOperator* uo) {
    if (uo->getOpcode() != UO_AddrOf) return true;
    if (auto* me = dyn_cast<MemberExpr>(uo->getSubExpr()->IgnoreParens()))
      if (auto* f = dyn_cast<FieldDecl>(me->getMemberDecl())) L.openFields.insert(f);
    return true;
  }
  bool VisitCallExprForFields(CallExpr* ce) {
    // a struct written as bytes: every function-pointer field of it (and of the structs
    // inside it) is open
    const FunctionDecl* fd = ce->getDirectCallee();
    if (!fd || ce->getNumArgs() == 0) return true;
    std::string n = fd->getNameAsString();
    if (n.rfind("__builtin_", 0) == 0) n = n.substr(10);
    if (n.rfind("__", 0) == 0 && n.size() > 6 && n.compare(n.size() - 4, 4, "_chk") == 0) n = n.substr(2, n.size() - 6);
    if (n != "memcpy" && n != "memmove" && n != "bcopy" && n != "mempcpy" && n != "read" && n != "fread") return true;
    const clang::Expr* dst = ce->getArg(n == "bcopy" ? 1 : n == "read" ? 1 : 0)->IgnoreParenImpCasts();
    if (n == "fread") dst = ce->getArg(0)->IgnoreParenImpCasts();
    QualType t = dst->getType();
    if (t->isPointerType()) t = t->getPointeeType();
    else if (t->isArrayType()) t = QualType(t->getPointeeOrArrayElementType(), 0);
    openRecordTree(t);
    return true;
  }
  void openRecordTree(QualType t) {
    while (t->isArrayType()) t = QualType(t->getPointeeOrArrayElementType(), 0);
    const RecordDecl* rd = t->getAsRecordDecl();
    if (!rd || !L.openRecords.insert(rd->getCanonicalDecl()).second) return;
    for (const FieldDecl* f : rd->fields()) openRecordTree(f->getType());
  }
  bool VisitPredefinedExpr(PredefinedExpr* p) {
    if (StringLiteral* s = p->getFunctionName()) VisitStringLiteral(s);
    return true;
  }
  bool VisitVarDecl(VarDecl* vd) {
    if (vd->hasGlobalStorage() && !vd->isStaticDataMember()) {
      const VarDecl* c = vd->getCanonicalDecl();
      if (std::find(L.globals.begin(), L.globals.end(), c) == L.globals.end()) L.globals.push_back(c);
    }
    return true;
  }
  Lowerer& L;
};

}  // namespace

Lowerer::Lowerer(ASTContext& c, cfa::Program& p) : ctx(c), prog(p) {
  ptrWidth = static_cast<uint32_t>(ctx.getTypeSize(ctx.VoidPtrTy));
  prog.ptrWidth = ptrWidth;
}

std::unique_ptr<cfa::Program> lowerTranslationUnit(ASTUnit& ast, const std::string& file, const FrontendOptions* opts,
                                                   const ContractRewrite* contracts) {
  auto prog = std::make_unique<cfa::Program>();
  prog->mainFile = file;
  Lowerer l(ast.getASTContext(), *prog);
  l.linkOpts = opts;
  if (contracts && !contracts->clauses.empty()) l.contracts = contracts;
  if (l.contracts && l.contracts->usesValid && !prog->objectBits) {
    // \valid is decided on the memory-safety layout's object table (no check is added
    // for it: the properties stay those requested)
    prog->objectBits = cfa::memlayout::offsetBits(prog->ptrWidth);
    prog->heapBase = uint64_t(1) << prog->objectBits;
  }
  if (opts) {
    l.checks = opts->properties;
    l.errorCallsAreErrors = opts->properties.empty() || opts->properties.count("unreach-call") > 0;
    if (l.checks.count("valid-memsafety")) {
      l.checks.erase("valid-memsafety");
      l.checks.insert({"valid-deref", "valid-free", "valid-memtrack"});
    }
    for (const char* m : {"valid-deref", "valid-free", "valid-memtrack", "valid-memcleanup"})
      if (l.checks.count(m)) {  // the memory-safety layout (cfa::memlayout)
        prog->objectBits = cfa::memlayout::offsetBits(prog->ptrWidth);
        prog->heapBase = uint64_t(1) << prog->objectBits;
      }
  }
  // the flat layout's zero page under LP64 (cfa::zeroPageEnd): 1 TiB
  if (!prog->objectBits && prog->ptrWidth == 64) prog->heapBase = cfa::kFlatHeapBase64;
  l.unitFile = file;
  l.run();
  prog->markLoopHeads();
  return prog;
}

void Lowerer::run() {
  TranslationUnitDecl* tu = ctx.getTranslationUnitDecl();
  prepass(tu);
  collectNullTests(tu);
  // Create one CFA per defined function first, so calls can refer to any of them.
  std::vector<const FunctionDecl*> defs;
  for (Decl* d : tu->decls()) {
    auto* fd = dyn_cast<FunctionDecl>(d);
    if (!fd || !fd->doesThisDeclarationHaveABody() || skipModelDecl(fd)) continue;
    const FunctionDecl* canon = fd->getCanonicalDecl();
    if (funcIds.count(canon)) continue;
    cfa::Function f;
    f.id = static_cast<cfa::FuncId>(prog.functions.size());
    f.name = fd->getNameAsString();
    f.range = rangeOfDecl(fd);
    f.variadic = fd->isVariadic();
    if (linkMode()) f.linkage = linkageOf(fd);
    f.systemHeader = ctx.getSourceManager().isInSystemHeader(fd->getLocation());
    funcIds[canon] = f.id;
    prog.funcByName[f.name] = f.id;
    prog.functions.push_back(std::move(f));
    defs.push_back(fd);
  }
  // Every defined function has an address, so indirect calls can dispatch to any of them.
  for (const FunctionDecl* fd : defs) addrOfFunction(fd);
  for (const FunctionDecl* fd : defs) declareSignature(fd);
  declareLinkStubs(tu);
  declareAtexit(tu);
  declareLiveHeap();
  for (const FunctionDecl* fd : defs) lowerFunctionIsolated(fd);
  lowerAtexitRunner();
  buildInit(false);
  buildInit(true);
}

void Lowerer::prepass(TranslationUnitDecl* tu) {
  findModels(tu);
  PrePass pp(*this);
  for (Decl* d : tu->decls())
    if (!skipModelDecl(d)) pp.TraverseDecl(d);
  directCallees.clear();
}

// ---------------------------------------------------------------- types

// _Atomic T behaves as T for sequential programs.
static QualType stripAtomic(QualType t) {
  t = t.getCanonicalType();
  if (const auto* at = t->getAs<AtomicType>()) return at->getValueType().getCanonicalType();
  return t;
}

bool Lowerer::isScalar(QualType t) const {
  t = stripAtomic(t);
  return t->isIntegerType() || t->isPointerType() || t->isNullPtrType() ||
         (t->isEnumeralType()) || isFloatT(t);
}

bool Lowerer::isFloatT(QualType t) const {
  t = stripAtomic(t);
  const auto* bt = t->getAs<BuiltinType>();
  if (!bt || (bt->getKind() != BuiltinType::Float && bt->getKind() != BuiltinType::Double)) return false;
  const llvm::fltSemantics& sem = ctx.getFloatTypeSemantics(t);
  return &sem == &llvm::APFloat::IEEEsingle() || &sem == &llvm::APFloat::IEEEdouble();
}

bool Lowerer::isFloating(QualType t) const {
  t = stripAtomic(t);
  return (t->isRealFloatingType() || t->isAnyComplexType()) && !isFloatT(t);
}

cfa::ValueShape Lowerer::shapeOf(QualType t) const {
  if (t.isNull()) return cfa::ValueShape::Integer;
  t = stripAtomic(t);
  if (t->isPointerType() || t->isArrayType() || t->isFunctionType() || t->isNullPtrType()) return cfa::ValueShape::Pointer;
  if (isFloatT(t)) return cfa::ValueShape::Float;
  return cfa::ValueShape::Integer;
}

std::string Lowerer::floatTypeName(QualType t) const {
  t = stripAtomic(t);
  std::string n = t.getUnqualifiedType().getAsString();
  if (const auto* bt = t->getAs<BuiltinType>(); bt && bt->getKind() == BuiltinType::LongDouble)
    n += " (" + std::to_string(ctx.getTypeSize(t)) + "-bit x87 extended precision, not modelled)";
  return n;
}

uint32_t Lowerer::widthOf(QualType t) const {
  t = stripAtomic(t);
  if (t->isVoidType()) return 32;
  if (t->isEnumeralType()) {
    const EnumDecl* ed = t->castAs<EnumType>()->getDecl();
    if (ed->getIntegerType().isNull()) return 32;
  }
  return static_cast<uint32_t>(ctx.getTypeSize(t));
}

uint64_t Lowerer::sizeOf(QualType t) const {
  t = t.getCanonicalType();
  if (t->isIncompleteType() || t->isVariableArrayType() || t->isDependentType()) return 0;
  return ctx.getTypeSizeInChars(t).getQuantity();
}

bool Lowerer::isSignedT(QualType t) const {
  return stripAtomic(t)->isSignedIntegerOrEnumerationType();
}

// ---------------------------------------------------------------- CFA building

cfa::LocId Lowerer::newLoc() { return fn->addLoc(); }

Edge Lowerer::edge(EdgeKind k) const {
  Edge e;
  e.kind = k;
  if (curStmt) {
    e.range = rangeOf(curStmt);
    e.text = textOf(curStmt);
  }
  return e;
}

void Lowerer::emit(Edge e) {
  cfa::LocId to = newLoc();
  e.from = cur;
  e.to = to;
  fn->addEdge(std::move(e));
  cur = to;
}

void Lowerer::emitTo(Edge e, cfa::LocId to) {
  e.from = cur;
  e.to = to;
  fn->addEdge(std::move(e));
}

void Lowerer::jump(cfa::LocId to) {
  emitTo(edge(EdgeKind::Blank), to);
  cur = newLoc();  // whatever follows is dead code
}

void Lowerer::unsupported(const std::string& what, const Stmt* s) {
  const Stmt* saved = curStmt;
  if (s) curStmt = s;
  Edge e = edge(EdgeKind::Unsupported);
  e.text = what;
  emit(std::move(e));
  curStmt = saved;
}

cfa::VarId Lowerer::newTemp(uint32_t width, bool isSigned) {
  cfa::Variable v;
  v.name = fn->name + "::$t" + std::to_string(tempCounter++);
  v.width = width;
  v.isSigned = isSigned;
  v.kind = cfa::VarKind::Temp;
  v.func = fn->id;
  return prog.addVar(std::move(v));
}

cfa::SourceRange Lowerer::rangeOf(const Stmt* s) const {
  cfa::SourceRange r;
  const SourceManager& sm = ctx.getSourceManager();
  SourceLocation b = sm.getExpansionLoc(s->getBeginLoc());
  SourceLocation e = sm.getExpansionLoc(s->getEndLoc());
  if (b.isValid()) {
    r.file = prog.mainFile;
    if (auto fe = sm.getFileEntryForID(sm.getFileID(b))) {
      if (sm.getFileID(b) != sm.getMainFileID()) r.file = std::string(fe->getName());
    }
    r.line = sm.getExpansionLineNumber(b);
    r.column = sm.getExpansionColumnNumber(b);
  }
  if (e.isValid()) {
    r.endLine = sm.getExpansionLineNumber(e);
    r.endColumn = sm.getExpansionColumnNumber(e);
  }
  return r;
}

cfa::SourceRange Lowerer::rangeOfDecl(const Decl* d) const {
  cfa::SourceRange r;
  const SourceManager& sm = ctx.getSourceManager();
  SourceLocation b = sm.getExpansionLoc(d->getLocation());
  if (b.isValid()) {
    r.file = prog.mainFile;
    r.line = sm.getExpansionLineNumber(b);
    r.column = sm.getExpansionColumnNumber(b);
  }
  SourceLocation e = sm.getExpansionLoc(d->getEndLoc());
  if (e.isValid()) {
    r.endLine = sm.getExpansionLineNumber(e);
    r.endColumn = sm.getExpansionColumnNumber(e);
  }
  return r;
}

namespace {

// The file location a macro location `loc` is written at when it lies in a macro's
// argument (`x` of `assert(x)` is spelled in the file), else nullopt (a token of a macro's
// own body). A nested invocation inside the argument counts as written there: at the
// start (`begin`, `sqlite3GlobalConfig` in `assert( sqlite3GlobalConfig.mutex.xMutexInit
// )`), the first token of its body maps to the invocation's first token; at the `end`
// (`ArraySize(a)` in `assert(op < ArraySize(a))`), to the invocation's end.
std::optional<SourceLocation> writtenAt(const SourceManager& sm, SourceLocation loc, bool end) {
  bool sawArg = false;
  while (loc.isMacroID()) {
    if (sm.isMacroArgExpansion(loc)) {
      sawArg = true;
      loc = sm.getImmediateSpellingLoc(loc);
      continue;
    }
    // a token of a macro's body whose invocation is written in an argument: only its first
    // token stands for a begin
    if (!end && sawArg && !sm.isAtStartOfImmediateMacroExpansion(loc)) return std::nullopt;
    loc = end ? sm.getImmediateExpansionRange(loc).getEnd() : sm.getImmediateExpansionRange(loc).getBegin();
  }
  // (the end of a nested invocation inside the argument reaches the file through its
  // expansion: textOf checks that the text in between is balanced)
  if ((!sawArg && !end) || !loc.isValid()) return std::nullopt;
  return loc;
}

bool balanced(llvm::StringRef t) {
  int depth = 0;
  for (char c : t) {
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && --depth < 0) return false;
  }
  return depth == 0;
}

}  // namespace

std::string Lowerer::textOf(const Stmt* s) const {
  const SourceManager& sm = ctx.getSourceManager();
  CharSourceRange cr = CharSourceRange::getTokenRange(sm.getExpansionRange(s->getSourceRange()).getAsRange());
  // An expression written as a macro's argument (SQLite's `assert(op>=0 &&
  // op<ArraySize(x))`): the text as the user wrote it, not the whole invocation.
  if (s->getBeginLoc().isMacroID()) {
    // Clang's own mapping first: a range within one argument, nested invocations in it
    // included (`FIELD(cfg)` in `assert( FIELD(cfg) )`), innermost first: of what
    // parentheses enclose (`x` of `#define assert(x) ((x) ? … )`), else of the
    // parenthesised whole (a macro whose body is the condition: SQLite's
    // `ExprUseXList(pExpr)`, `(((E)->flags&EP_xIsSelect)==0)`)
    std::vector<const Stmt*> chain{s};  // s, then inward through parentheses and implicit casts
    while (true) {
      const Stmt* c = chain.back();
      if (const auto* pe = dyn_cast<clang::ParenExpr>(c)) chain.push_back(pe->getSubExpr());
      else if (const auto* ic = dyn_cast<clang::ImplicitCastExpr>(c)) chain.push_back(ic->getSubExpr());
      else break;
    }
    const Stmt* inner = chain.back();
    bool found = false;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Stmt* c = *it;
      CharSourceRange inFile = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(c->getSourceRange()), sm, ctx.getLangOpts());
      if (!inFile.isValid()) continue;
      bool bad = false;
      StringRef t = Lexer::getSourceText(inFile, sm, ctx.getLangOpts(), &bad);
      if (bad || !balanced(t)) continue;
      cr = inFile;
      found = true;
      break;
    }
    std::optional<SourceLocation> b = writtenAt(sm, inner->getBeginLoc(), false), e = writtenAt(sm, inner->getEndLoc(), true);
    if (!found && b && e && sm.getFileID(*b) == sm.getFileID(*e) && sm.getFileOffset(*b) <= sm.getFileOffset(*e)) {
      CharSourceRange written = CharSourceRange::getTokenRange(*b, *e);
      bool bad = false;
      StringRef t = Lexer::getSourceText(written, sm, ctx.getLangOpts(), &bad);
      if (!bad && balanced(t)) cr = written;
    }
  }
  bool invalid = false;
  StringRef txt = Lexer::getSourceText(cr, sm, ctx.getLangOpts(), &invalid);
  if (invalid) return {};
  std::string out;
  bool space = false;
  for (char c : txt) {  // collapse white space
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() > 120) {
      out += "...";
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------- variables

Lowerer::VarRef& Lowerer::varFor(const VarDecl* vd) {
  vd = vd->getCanonicalDecl();
  auto it = vars.find(vd);
  if (it != vars.end()) return it->second;
  VarRef ref;
  QualType t = vd->getType();
  bool global = vd->hasGlobalStorage();
  // Values wider than 128 bits (_BitInt(N), N > 128) are never registers; any use is unsupported.
  ref.inMemory = !isScalar(t) || addressTaken.count(vd) || isFloating(t) || widthOf(t) > cfa::kMaxWidth;
  cfa::Variable v;
  if (linkMode() && global && vd->hasLinkage()) {
    // link mode: every unit must see an external global the same way, in memory
    v.linkage = vd->hasExternalFormalLinkage() ? cfa::Linkage::External : cfa::Linkage::Internal;
    if (v.linkage == cfa::Linkage::External) ref.inMemory = true;
  }
  std::string cname = vd->getNameAsString();
  const DeclContext* dc = vd->getDeclContext();
  std::string owner;
  if (auto* f = dyn_cast<FunctionDecl>(dc)) owner = f->getNameAsString();
  if (global && owner.empty()) {
    v.name = cname;
  } else {
    v.name = (owner.empty() ? (fn ? fn->name : std::string("?")) : owner) + "::" + cname;
  }
  // Disambiguate shadowed names (against every variable so far, whoever added it; the
  // index catches up with Program::vars here, so this stays linear in the program).
  for (; namedVars < prog.vars.size(); ++namedVars) varNames.insert(prog.vars[namedVars].name);
  if (varNames.count(v.name) || varNames.count(v.name + "$addr")) v.name += "#" + std::to_string(prog.vars.size());
  v.cName = cname;
  v.func = global ? cfa::kNoFunc : (fn ? fn->id : cfa::kNoFunc);
  v.kind = global ? cfa::VarKind::Global : (isa<ParmVarDecl>(vd) ? cfa::VarKind::Param : cfa::VarKind::Local);
  if (ref.inMemory) {
    v.name += "$addr";
    v.width = ptrWidth;
    v.isSigned = false;
    v.kind = cfa::VarKind::Address;
    v.shape = cfa::ValueShape::Pointer;
  } else {
    v.width = widthOf(t);
    v.isSigned = isSignedT(t);
    v.shape = shapeOf(t);
  }
  ref.reg = prog.addVar(std::move(v));
  return vars.emplace(vd, ref).first->second;
}

ExprPtr Lowerer::addrOfFunction(const FunctionDecl* fd) {
  const FunctionDecl* c = fd->getCanonicalDecl();
  auto it = funcAddrs.find(c);
  uint64_t a;
  if (it == funcAddrs.end()) {
    // Function addresses live at the top of the address space, away from objects.
    uint64_t top = ptrWidth == 32 ? 0xF0000000ull : 0x7F0000000000ull;
    a = linkMode() ? linkAddress(c) : top + 16 * (funcAddrs.size() + 1);
    funcAddrs[c] = a;
  } else {
    a = it->second;
  }
  return constPtr(a);
}

// ---------------------------------------------------------------- functions

// C11 5.1.2.2.1: argv[0..argc-1] point to strings (any length, any contents) and
// argv[argc] is a null pointer. The slots from kArgvUnrolled on are filled by a loop
// over argc, so a large argc is simply beyond the unwinding bound; the first
// kArgvUnrolled slots and the terminating null are written after that loop, without
// one. The order is not observable (the program starts after all of it), and it lets
// the proof engines see argv[0], argv[1], ... and argv[argc] whatever state the loop
// ends in: a k-induction step or an abstraction at the loop head starts from an
// arbitrary memory, and the stores after the loop overwrite it.
static constexpr uint64_t kArgvUnrolled = 4;
// Linux's MAX_ARG_STRLEN (32 pages of 4 KiB): no argument string, its NUL included, is
// longer (execve fails with E2BIG). A bound keeps the strings' addresses small numbers,
// which the solvers separate far faster than sums of unbounded 64-bit lengths.
static constexpr uint64_t kArgMaxStrlen = 131072;

void Lowerer::lowerMainArgv(const FunctionDecl* fd) {
  const ParmVarDecl* argcD = fd->getParamDecl(0);
  const ParmVarDecl* argvD = fd->getParamDecl(1);
  if (!isScalar(argcD->getType()) || !argvD->getType()->isPointerType() || argvD->getName().empty()) return;
  curStmt = fd->getBody();
  VarRef& argcRef = varFor(argcD);
  LValue argcLv;
  argcLv.isReg = !argcRef.inMemory;
  argcLv.reg = argcRef.reg;
  argcLv.addr = argcRef.inMemory ? Expr::mkVar(argcRef.reg, ptrWidth) : nullptr;
  argcLv.type = argcD->getType();
  ExprPtr n = Expr::convert(load(argcLv), ptrWidth, false);
  cfa::VarId table = newTemp(ptrWidth, false), i = newTemp(ptrWidth, false);
  auto assignTemp = [&](cfa::VarId v, ExprPtr e, const std::string& text) {
    Edge a = edge(EdgeKind::Assign);
    a.lhs = v;
    a.rhs = e;
    a.text = text;
    emit(a);
  };
  // argc itself, not a copy: a proof that starts in an arbitrary state at the loop
  // head would not know that a copy still equals argc
  ExprPtr nv = n;
  ExprPtr ps = constPtr(ptrWidth / 8);
  Edge at = edge(EdgeKind::Alloc);
  at.lhs = table;
  at.size = Expr::mkBinary(cfa::BinOp::Mul, Expr::mkBinary(cfa::BinOp::Add, nv, constPtr(1)), ps);
  at.text = "argv";
  allocObject(std::move(at), cfa::memlayout::kGlobal);
  ExprPtr tv = Expr::mkVar(table, ptrWidth);
  // Branches on `index < argc`: to `yes` (returned), and to `no` (or a new location),
  // which becomes the current one after the caller has emitted the `yes` part.
  auto branchBelowArgc = [&](ExprPtr index, const std::string& what) {
    cfa::LocId yes = newLoc(), no = newLoc();
    Edge more = edge(EdgeKind::Assume);
    more.cond = Expr::mkBinary(cfa::BinOp::ULt, index, nv, 32);
    more.text = what + " < argc";
    Edge done = more;
    done.positive = false;
    done.text = what + " >= argc";
    emitTo(more, yes);
    emitTo(done, no);
    return std::pair{yes, no};
  };
  // a fresh string of any length and contents, NUL-terminated
  auto freshString = [&](const std::string& name) {
    cfa::VarId len = newTemp(ptrWidth, false), str = newTemp(ptrWidth, false);
    Edge hl = edge(EdgeKind::Havoc);
    hl.lhs = len;
    hl.isNondetCall = true;
    hl.text = name + ": length + 1";
    emit(hl);
    ExprPtr lv = Expr::mkVar(len, ptrWidth);
    Edge pos = edge(EdgeKind::Assume);
    pos.cond = Expr::mkBinary(cfa::BinOp::ULe, constPtr(1), lv, 32);
    emit(pos);
    Edge max = edge(EdgeKind::Assume);
    max.cond = Expr::mkBinary(cfa::BinOp::ULe, lv, constPtr(kArgMaxStrlen), 32);
    emit(max);
    Edge as = edge(EdgeKind::Alloc);
    as.lhs = str;
    as.size = lv;
    as.text = name;
    allocObject(std::move(as), cfa::memlayout::kGlobal);
    ExprPtr sv = Expr::mkVar(str, ptrWidth);
    Edge nul = edge(EdgeKind::Store);
    nul.addr = Expr::mkBinary(cfa::BinOp::Sub, Expr::mkBinary(cfa::BinOp::Add, sv, lv), constPtr(1));
    nul.value = Expr::mkConst(0, 8);
    nul.bytes = 1;
    nul.text = name + ": terminating NUL";
    emit(nul);
    return sv;
  };
  // argv[index] = str
  auto storeSlot = [&](ExprPtr index, ExprPtr sv, const std::string& name) {
    Edge slot = edge(EdgeKind::Store);
    slot.addr = Expr::mkBinary(cfa::BinOp::Add, tv, Expr::mkBinary(cfa::BinOp::Mul, index, ps));
    slot.value = sv;
    slot.bytes = ptrWidth / 8;
    slot.text = name + " = string";
    emit(slot);
  };
  // the slots from kArgvUnrolled on: a loop
  assignTemp(i, constPtr(kArgvUnrolled), "argv: i = " + std::to_string(kArgvUnrolled));
  ExprPtr iv = Expr::mkVar(i, ptrWidth);
  cfa::LocId head = newLoc();
  emitTo(edge(EdgeKind::Blank), head);
  cur = head;
  auto [body, after] = branchBelowArgc(iv, "argv: i");
  cur = body;
  storeSlot(iv, freshString("argv[i]"), "argv[i]");
  assignTemp(i, Expr::mkBinary(cfa::BinOp::Add, iv, constPtr(1)), "argv: i++");
  emitTo(edge(EdgeKind::Blank), head);
  cur = after;
  // The first slots: their strings, then the stores into the table, so that no string's
  // NUL can land on a slot already written even where the proof does not know that the
  // strings lie apart from the table (a state at the loop head that is arbitrary).
  std::vector<ExprPtr> strings;
  for (uint64_t j = 0; j < kArgvUnrolled; ++j) {
    const std::string name = "argv[" + std::to_string(j) + "]";
    auto [yes, next] = branchBelowArgc(constPtr(j), name);
    cur = yes;
    strings.push_back(freshString(name));
    emitTo(edge(EdgeKind::Blank), next);
    cur = next;
  }
  for (uint64_t j = 0; j < kArgvUnrolled; ++j) {
    const std::string name = "argv[" + std::to_string(j) + "]";
    auto [yes, next] = branchBelowArgc(constPtr(j), name);
    cur = yes;
    storeSlot(constPtr(j), strings[j], name);
    emitTo(edge(EdgeKind::Blank), next);
    cur = next;
  }
  Edge last = edge(EdgeKind::Store);
  last.addr = Expr::mkBinary(cfa::BinOp::Add, tv, Expr::mkBinary(cfa::BinOp::Mul, nv, ps));
  last.value = constPtr(0);
  last.bytes = ptrWidth / 8;
  last.text = "argv[argc] = NULL";
  emit(last);
  VarRef& argvRef = varFor(argvD);
  LValue argvLv;
  argvLv.isReg = !argvRef.inMemory;
  argvLv.reg = argvRef.reg;
  argvLv.addr = argvRef.inMemory ? Expr::mkVar(argvRef.reg, ptrWidth) : nullptr;
  argvLv.type = argvD->getType();
  store(argvLv, tv);
}

// Return variable and incoming parameter registers, created for every function before
// any body is lowered, so calls can be lowered in any order.
void Lowerer::declareSignature(const FunctionDecl* fd) {
  fn = &prog.functions[funcIds.at(fd->getCanonicalDecl())];
  QualType rt = fd->getReturnType();
  if (!rt->isVoidType()) {
    cfa::Variable v;
    v.name = fn->name + "::$ret";
    v.kind = cfa::VarKind::Return;
    v.func = fn->id;
    if (isScalar(rt) && widthOf(rt) <= cfa::kMaxWidth) {
      v.width = widthOf(rt);
      v.isSigned = isSignedT(rt);
      v.shape = shapeOf(rt);
    } else {
      v.width = ptrWidth;  // aggregates are returned by address
      v.shape = cfa::ValueShape::Pointer;
    }
    fn->retVar = prog.addVar(std::move(v));
  }
  for (const ParmVarDecl* pd : fd->parameters()) {
    QualType t = pd->getType();
    cfa::Variable in;
    in.cName = pd->getNameAsString();
    in.name = fn->name + "::" + (in.cName.empty() ? "$p" + std::to_string(fn->params.size()) : in.cName) + "$in";
    in.kind = cfa::VarKind::Param;
    in.func = fn->id;
    bool aggregate = !isScalar(t) || widthOf(t) > cfa::kMaxWidth || isFloating(t);
    in.width = aggregate ? ptrWidth : widthOf(t);
    in.isSigned = !aggregate && isSignedT(t);
    in.shape = aggregate ? cfa::ValueShape::Pointer : shapeOf(t);
    fn->params.push_back(prog.addVar(std::move(in)));
  }
  if (fd->isVariadic()) {
    // The arguments after the named ones: one hidden pointer parameter to the block the
    // caller stores them in (Lowerer::variadicArea), read by va_arg (vaArg).
    cfa::Variable in;
    in.cName = "__argus_va";
    in.name = fn->name + "::__argus_va$in";
    in.kind = cfa::VarKind::Param;
    in.func = fn->id;
    in.width = ptrWidth;
    in.shape = cfa::ValueShape::Pointer;
    fn->params.push_back(prog.addVar(std::move(in)));
  }
  fn = nullptr;
}

void Lowerer::lowerFunctionIsolated(const FunctionDecl* fd) {
  try {
    lowerFunction(fd);
  } catch (const std::exception& e) {
    // Start the function again: whatever was emitted before the failure is dropped (its
    // temporaries stay in Program::vars, unused), and the body is one Unsupported edge
    // at the statement being lowered when it failed.
    cfa::SourceRange r = curStmt ? rangeOf(curStmt) : rangeOfDecl(fd);
    std::string what = curStmt ? textOf(curStmt) : std::string();
    cfa::Function& f = prog.functions[funcIds.at(fd->getCanonicalDecl())];
    f.locs.clear();
    f.edges.clear();
    fn = &f;
    fnDecl = fd;
    switches.clear();
    breakTargets.clear();
    continueTargets.clear();
    labels.clear();
    addressOnly_ = false;
    f.entry = newLoc();
    f.exit = newLoc();
    f.error = newLoc();
    f.sink = newLoc();
    cur = f.entry;
    curStmt = nullptr;
    Edge u;
    u.kind = EdgeKind::Unsupported;
    u.range = r;
    u.text = "internal error lowering " + f.name + (what.empty() ? "" : " at '" + what + "'") + ": " + e.what();
    emit(std::move(u));
    fn = nullptr;
    fnDecl = nullptr;
  }
}

void Lowerer::lowerFunction(const FunctionDecl* fd) {
  cfa::FuncId id = funcIds.at(fd->getCanonicalDecl());
  fn = &prog.functions[id];
  fnDecl = fd;
  labels.clear();
  breakTargets.clear();
  continueTargets.clear();
  fn->entry = newLoc();
  fn->exit = newLoc();
  fn->error = newLoc();
  fn->sink = newLoc();
  cur = fn->entry;
  curStmt = fd->getBody();
  declareStackObjects(fd->getBody());
  std::vector<cfa::VarId> paramObjects;

  if (!fd->isMain()) buildEntryModel(fd);
  for (size_t i = 0; i < fd->getNumParams(); ++i) {
    const ParmVarDecl* pd = fd->getParamDecl(i);
    QualType t = pd->getType();
    cfa::VarId inId = fn->params[i];
    bool aggregate = !isScalar(t) || widthOf(t) > cfa::kMaxWidth;
    if (isFloating(t)) unsupported("parameter of type '" + floatTypeName(t) + "'", fd->getBody());
    else if (isScalar(t) && widthOf(t) > cfa::kMaxWidth) unsupported("parameter wider than 128 bits", fd->getBody());
    if (pd->getName().empty()) continue;
    VarRef& ref = varFor(pd);
    curStmt = fd->getBody();
    if (!ref.inMemory) {
      // The parameter itself: copy the incoming register into the variable.
      Edge e = edge(EdgeKind::Assign);
      e.lhs = ref.reg;
      e.rhs = Expr::mkVar(inId, prog.vars[inId].width);
      e.text = "parameter " + pd->getNameAsString();
      emit(std::move(e));
    } else {
      uint64_t sz = sizeOf(t);
      Edge a = edge(EdgeKind::Alloc);
      a.lhs = ref.reg;
      a.size = constPtr(sz);
      a.text = "parameter " + pd->getNameAsString();
      allocObject(std::move(a), cfa::memlayout::kStack);
      paramObjects.push_back(ref.reg);
      ExprPtr dst = Expr::mkVar(ref.reg, ptrWidth);
      if (aggregate) {
        if (!isFloating(t)) copyBytes(dst, Expr::mkVar(inId, ptrWidth), sz, fd->getBody());
      } else if (!isFloating(t)) {
        Edge st = edge(EdgeKind::Store);
        st.addr = dst;
        st.value = Expr::mkVar(inId, widthOf(t));
        st.bytes = static_cast<uint32_t>(sz);
        emit(std::move(st));
      }
    }
  }

  if (fd->isMain() && fd->getNumParams() >= 1 && isScalar(fd->getParamDecl(0)->getType())) {
    // C11 5.1.2.2.1: argc is nonnegative
    VarRef& argc = varFor(fd->getParamDecl(0));
    if (!argc.inMemory) {
      Edge e = edge(EdgeKind::Assume);
      uint32_t w = prog.vars[argc.reg].width;
      e.cond = Expr::mkBinary(cfa::BinOp::SLe, Expr::mkWideConst(0, w), Expr::mkVar(argc.reg, w), 32);
      e.text = "argc >= 0";
      emit(std::move(e));
    }
  }
  stackObjects.insert(stackObjects.end(), paramObjects.begin(), paramObjects.end());
  // Parameters of variably modified type (int a[][n] is int (*a)[n]): sizes at entry.
  for (const ParmVarDecl* pd : fd->parameters())
    if (pd->getType()->isVariablyModifiedType()) {
      curStmt = fd->getBody();
      evalVlaSizes(pd->getType());
    }
  // Only when argv is used: its model loops over argc, which no bound covers completely.
  if (fd->isMain() && fd->getNumParams() >= 2 && fd->getParamDecl(1)->isReferenced()) lowerMainArgv(fd);
  findContractCalls(fd);
  lowerStmt(fd->getBody());
  contractCalls.clear();
  leadingAsserts.clear();
  // Falling off the end: main returns 0, other functions an unspecified value.
  curStmt = fd->getBody();
  if (fn->retVar) {
    if (fn->name == "main") {
      Edge e = edge(EdgeKind::Assign);
      e.lhs = fn->retVar;
      e.rhs = Expr::mkWideConst(0, prog.vars[*fn->retVar].width);
      e.text = "return 0 (end of main)";
      emit(std::move(e));
    } else {
      Edge e = edge(EdgeKind::Havoc);
      e.lhs = fn->retVar;
      e.text = "end of function";
      emit(std::move(e));
    }
  }
  emitReturn();
  stackObjects.clear();
  fn = nullptr;
}

void Lowerer::lowerStmt(const Stmt* s) {
  if (!s) return;
  const Stmt* savedStmt = curStmt;
  curStmt = s;
  switch (s->getStmtClass()) {
    case Stmt::CompoundStmtClass:
      for (const Stmt* c : cast<CompoundStmt>(s)->body()) {
        if (!inLeadingAssert && leadingAsserts.count(c)) lowerLeadingAssert(c);
        else lowerStmt(c);
      }
      break;
    case Stmt::NullStmtClass:
      break;
    case Stmt::DeclStmtClass:
      for (const Decl* d : cast<DeclStmt>(s)->decls()) {
        if (auto* vd = dyn_cast<VarDecl>(d)) lowerDecl(vd);
      }
      break;
    case Stmt::IfStmtClass: {
      auto* is = cast<IfStmt>(s);
      if (is->getInit()) lowerStmt(is->getInit());
      cfa::LocId thenL = newLoc(), elseL = newLoc(), after = newLoc();
      branch(is->getCond(), thenL, elseL);
      cur = thenL;
      lowerStmt(is->getThen());
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), after);
      cur = elseL;
      if (is->getElse()) lowerStmt(is->getElse());
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), after);
      cur = after;
      break;
    }
    case Stmt::WhileStmtClass: {
      auto* ws = cast<WhileStmt>(s);
      cfa::LocId head = newLoc(), body = newLoc(), after = newLoc();
      fn->locs[head].range = rangeOf(s);
      emitTo(edge(EdgeKind::Blank), head);
      cur = head;
      curStmt = ws->getCond();
      branch(ws->getCond(), body, after);
      cur = body;
      breakTargets.push_back(after);
      continueTargets.push_back(head);
      lowerStmt(ws->getBody());
      breakTargets.pop_back();
      continueTargets.pop_back();
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), head);
      cur = after;
      break;
    }
    case Stmt::DoStmtClass: {
      auto* ds = cast<DoStmt>(s);
      cfa::LocId body = newLoc(), condL = newLoc(), after = newLoc();
      fn->locs[body].range = rangeOf(s);
      emitTo(edge(EdgeKind::Blank), body);
      cur = body;
      breakTargets.push_back(after);
      continueTargets.push_back(condL);
      lowerStmt(ds->getBody());
      breakTargets.pop_back();
      continueTargets.pop_back();
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), condL);
      cur = condL;
      curStmt = ds->getCond();
      branch(ds->getCond(), body, after);
      cur = after;
      break;
    }
    case Stmt::ForStmtClass: {
      auto* fs = cast<ForStmt>(s);
      if (fs->getInit()) lowerStmt(fs->getInit());
      curStmt = s;
      cfa::LocId head = newLoc(), body = newLoc(), inc = newLoc(), after = newLoc();
      fn->locs[head].range = rangeOf(s);
      emitTo(edge(EdgeKind::Blank), head);
      cur = head;
      if (fs->getCond()) {
        curStmt = fs->getCond();
        branch(fs->getCond(), body, after);
      } else {
        emitTo(edge(EdgeKind::Blank), body);
      }
      cur = body;
      breakTargets.push_back(after);
      continueTargets.push_back(inc);
      lowerStmt(fs->getBody());
      breakTargets.pop_back();
      continueTargets.pop_back();
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), inc);
      cur = inc;
      if (fs->getInc()) {
        curStmt = fs->getInc();
        rvalue(fs->getInc());
      }
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), head);
      cur = after;
      break;
    }
    case Stmt::BreakStmtClass:
      if (breakTargets.empty()) unsupported("break outside loop/switch", s);
      else jump(breakTargets.back());
      break;
    case Stmt::ContinueStmtClass:
      if (continueTargets.empty()) unsupported("continue outside loop", s);
      else jump(continueTargets.back());
      break;
    case Stmt::ReturnStmtClass: {
      auto* rs = cast<ReturnStmt>(s);
      if (const clang::Expr* rv = rs->getRetValue()) {
        ExprPtr v = rvalue(rv);
        if (fn->retVar) {
          Edge e = edge(EdgeKind::Assign);
          e.lhs = fn->retVar;
          QualType rt = fnDecl->getReturnType();
          e.rhs = isScalar(rt) ? convertScalar(v, rv->getType(), rt) : v;
          emit(std::move(e));
        }
      } else if (fn->retVar) {
        Edge e = edge(EdgeKind::Havoc);
        e.lhs = fn->retVar;
        emit(std::move(e));
      }
      emitReturn();
      cur = newLoc();
      break;
    }
    case Stmt::LabelStmtClass: {
      auto* ls = cast<LabelStmt>(s);
      auto [it, fresh] = labels.emplace(ls->getDecl(), 0);
      if (fresh) it->second = newLoc();
      emitTo(edge(EdgeKind::Blank), it->second);
      cur = it->second;
      lowerStmt(ls->getSubStmt());
      break;
    }
    case Stmt::GotoStmtClass: {
      auto* gs = cast<GotoStmt>(s);
      auto [it, fresh] = labels.emplace(gs->getLabel(), 0);
      if (fresh) it->second = newLoc();
      jump(it->second);
      break;
    }
    case Stmt::IndirectGotoStmtClass:
      unsupported("computed goto", s);
      break;
    case Stmt::SwitchStmtClass: {
      auto* ss = cast<SwitchStmt>(s);
      if (ss->getInit()) lowerStmt(ss->getInit());
      curStmt = ss->getCond();
      ExprPtr v = rvalue(ss->getCond());
      QualType ct = ss->getCond()->getType();
      if (v->kind != cfa::ExprKind::Const && v->kind != cfa::ExprKind::Var) {
        cfa::VarId t = newTemp(v->width, isSignedT(ct));
        Edge e = edge(EdgeKind::Assign);
        e.lhs = t;
        e.rhs = v;
        emit(std::move(e));
        v = Expr::mkVar(t, v->width);
      }
      SwitchCtx sw;
      collectCases(ss->getBody(), sw);
      cfa::LocId after = newLoc();
      cfa::LocId defaultL = after;
      // Dispatch chain: case i taken iff v == value_i; default when none matches.
      ExprPtr none;
      for (const SwitchCase* sc = ss->getSwitchCaseList(); sc; sc = sc->getNextSwitchCase()) {
        if (isa<DefaultStmt>(sc)) {
          defaultL = sw.caseLocs.at(sc);
          continue;
        }
        auto* cs = cast<CaseStmt>(sc);
        clang::Expr::EvalResult lo;
        if (!cs->getLHS()->EvaluateAsInt(lo, ctx)) {
          unsupported("non-constant case label", cs);
          continue;
        }
        ExprPtr match;
        ExprPtr lov = constOf(lo.Val.getInt(), v->width);
        if (cs->getRHS()) {
          clang::Expr::EvalResult hi;
          if (!cs->getRHS()->EvaluateAsInt(hi, ctx)) {
            unsupported("non-constant case range", cs);
            continue;
          }
          ExprPtr hiv = constOf(hi.Val.getInt(), v->width);
          bool sg = isSignedT(ct);
          match = Expr::mkBinary(cfa::BinOp::LAnd,
                                 Expr::mkBinary(sg ? cfa::BinOp::SLe : cfa::BinOp::ULe, lov, v, 32),
                                 Expr::mkBinary(sg ? cfa::BinOp::SLe : cfa::BinOp::ULe, v, hiv, 32), 32);
        } else {
          match = Expr::mkBinary(cfa::BinOp::Eq, v, lov, 32);
        }
        curStmt = cs;
        Edge yes = edge(EdgeKind::Assume);
        yes.cond = match;
        yes.positive = true;
        yes.text = "case " + textOf(cs->getLHS());
        emitTo(yes, sw.caseLocs.at(sc));
        none = none ? Expr::mkBinary(cfa::BinOp::LOr, none, match, 32) : match;
      }
      curStmt = ss;
      if (none) {
        Edge no = edge(EdgeKind::Assume);
        no.cond = none;
        no.positive = false;
        no.text = "default";
        emitTo(no, defaultL);
      } else {
        emitTo(edge(EdgeKind::Blank), defaultL);
      }
      cur = newLoc();  // the body before the first label is dead
      switches.push_back(&sw);
      breakTargets.push_back(after);
      lowerStmt(ss->getBody());
      breakTargets.pop_back();
      switches.pop_back();
      curStmt = s;
      emitTo(edge(EdgeKind::Blank), after);
      cur = after;
      break;
    }
    case Stmt::CaseStmtClass:
    case Stmt::DefaultStmtClass: {
      auto* sc = cast<SwitchCase>(s);
      cfa::LocId l = 0;
      bool found = false;
      for (auto it = switches.rbegin(); it != switches.rend(); ++it) {
        auto f = (*it)->caseLocs.find(sc);
        if (f != (*it)->caseLocs.end()) {
          l = f->second;
          found = true;
          break;
        }
      }
      if (!found) {
        unsupported("case label outside switch", s);
        break;
      }
      emitTo(edge(EdgeKind::Blank), l);  // fall-through from the previous case
      cur = l;
      lowerStmt(sc->getSubStmt());
      break;
    }
    case Stmt::AttributedStmtClass:
      lowerStmt(cast<AttributedStmt>(s)->getSubStmt());
      break;
    case Stmt::GCCAsmStmtClass:
    case Stmt::MSAsmStmtClass:
      unsupported("inline assembly", s);
      break;
    default:
      if (auto* e = dyn_cast<clang::Expr>(s)) {
        rvalue(e);
      } else {
        unsupported(std::string("statement ") + s->getStmtClassName(), s);
      }
  }
  curStmt = savedStmt;
}

void Lowerer::collectCases(const Stmt* s, SwitchCtx& sw) {
  if (!s) return;
  if (isa<SwitchStmt>(s)) return;  // nested switch has its own labels
  if (auto* sc = dyn_cast<SwitchCase>(s)) sw.caseLocs[sc] = newLoc();
  for (const Stmt* c : s->children()) collectCases(c, sw);
}

void Lowerer::lowerDecl(const VarDecl* vd) {
  if (vd->hasGlobalStorage() || vd->hasExternalStorage()) return;  // initialised in __argus_init
  QualType t = vd->getType();
  VarRef& ref = varFor(vd);
  const clang::Expr* init = vd->getInit();
  if (!ref.inMemory) {
    if (init) {
      LValue lv;
      lv.isReg = true;
      lv.reg = ref.reg;
      lv.type = t;
      assignTo(lv, init);
    } else {
      Edge e = edge(EdgeKind::Havoc);
      e.lhs = ref.reg;
      e.text = "uninitialised " + vd->getNameAsString();
      emit(std::move(e));
    }
    return;
  }
  if (isFloating(t) && !init) {
    // Floats are never read without an Unsupported edge first; keep the object anyway.
  }
  ExprPtr size;
  uint64_t constSize = sizeOf(t);
  if (t->isVariablyModifiedType()) {
    // the sizes of all its dimensions, evaluated now (C evaluates them once)
    evalVlaSizes(t);
    size = runtimeSize(t);
    if (!size) {
      unsupported("variable-length array of this type", vd->getInit() ? (const Stmt*)vd->getInit() : curStmt);
      return;
    }
  } else {
    size = constPtr(constSize);
  }
  Edge a = edge(EdgeKind::Alloc);
  a.lhs = ref.reg;
  a.size = size;
  a.zeroInit = init != nullptr && !isScalar(t);
  a.text = "declare " + vd->getNameAsString();
  if (const clang::ConstantArrayType* cat = ctx.getAsConstantArrayType(t)) a.elemBytes = sizeOf(cat->getElementType());
  if (memLayout() && std::find(stackObjects.begin(), stackObjects.end(), ref.reg) != stackObjects.end()) {
    // a declaration reached again (a loop body): the previous object's lifetime has ended
    ExprPtr prev = Expr::mkVar(ref.reg, ptrWidth);
    ExprPtr id = objId(prev);
    ExprPtr mine = Expr::mkBinary(cfa::BinOp::LAnd, liveObject(prev),
                                  Expr::mkBinary(cfa::BinOp::Eq, metaLoad(id, 9, 1),
                                                 Expr::mkConst(cfa::memlayout::kStack, 8), 32), 32);
    Edge f = edge(EdgeKind::Free);
    f.addr = prev;
    f.bytes = 1;
    f.text = "end of the lifetime of the previous " + vd->getNameAsString();
    emit(std::move(f));
    metaStore(id, 8, Expr::mkIte(mine, Expr::mkConst(cfa::memlayout::kDead, 8), metaLoad(id, 8, 1)));
  }
  allocObject(std::move(a), vd->hasLocalStorage() ? cfa::memlayout::kStack : cfa::memlayout::kGlobal);
  if (init) initObject(Expr::mkVar(ref.reg, ptrWidth), t, init, !isScalar(t));
}

// Short-circuit branching on a condition.
void Lowerer::branch(const clang::Expr* c, cfa::LocId onTrue, cfa::LocId onFalse) {
  const clang::Expr* written = c;  // with its parentheses: a macro's body may be all of it
  c = c->IgnoreParens();
  if (auto* bo = dyn_cast<BinaryOperator>(c)) {
    if (bo->getOpcode() == BO_LAnd) {
      cfa::LocId mid = newLoc();
      branch(bo->getLHS(), mid, onFalse);
      cur = mid;
      branch(bo->getRHS(), onTrue, onFalse);
      return;
    }
    if (bo->getOpcode() == BO_LOr) {
      cfa::LocId mid = newLoc();
      branch(bo->getLHS(), onTrue, mid);
      cur = mid;
      branch(bo->getRHS(), onTrue, onFalse);
      return;
    }
    if (bo->getOpcode() == BO_Comma) {
      rvalue(bo->getLHS());
      branch(bo->getRHS(), onTrue, onFalse);
      return;
    }
  }
  if (auto* uo = dyn_cast<UnaryOperator>(c)) {
    if (uo->getOpcode() == UO_LNot) {
      branch(uo->getSubExpr(), onFalse, onTrue);
      return;
    }
  }
  if (auto* ic = dyn_cast<ImplicitCastExpr>(c)) {
    if (ic->getCastKind() == CK_IntegralToBoolean || ic->getCastKind() == CK_PointerToBoolean) {
      branch(ic->getSubExpr(), onTrue, onFalse);
      return;
    }
  }
  const Stmt* saved = curStmt;
  curStmt = c;
  if (isFloating(c->getType())) {
    unsupported("condition of type '" + floatTypeName(c->getType()) + "'", c);
    curStmt = saved;
    return;
  }
  ExprPtr v = rvalue(c);
  if (isFloatT(c->getType())) v = floatTruth(v, 32);
  if (v->kind == cfa::ExprKind::Const) {
    emitTo(edge(EdgeKind::Blank), v->value != 0 ? onTrue : onFalse);
  } else {
    Edge t = edge(EdgeKind::Assume);
    t.cond = v;
    t.positive = true;
    // (SQLite's `ExprUseXList(p)` is `(((p)->flags&EP_xIsSelect)==0)`: the parenthesised
    // condition is the invocation as written; textOf looks inside the parentheses first)
    if (written != c && written->getBeginLoc().isMacroID())
      if (std::string w = textOf(written); !w.empty()) t.text = w;
    Edge f = t;
    f.positive = false;
    f.text = "!(" + t.text + ")";
    emitTo(std::move(t), onTrue);
    emitTo(std::move(f), onFalse);
  }
  curStmt = saved;
}

// ---------------------------------------------------------------- globals

void Lowerer::markLiterals(const Stmt* s) {
  if (!s) return;
  if (auto* sl = dyn_cast<StringLiteral>(s)) {
    auto it = literalAddr.find(sl);
    if (it != literalAddr.end() && it->second == 0) {
      cfa::Variable v;
      v.name = "$str" + std::to_string(prog.vars.size());
      v.width = ptrWidth;
      v.kind = cfa::VarKind::Address;
      it->second = prog.addVar(std::move(v));
    }
  }
  for (const Stmt* c : s->children()) markLiterals(c);
}

void Lowerer::buildInit(bool nondet) {
  cfa::Function f;
  f.id = static_cast<cfa::FuncId>(prog.functions.size());
  f.name = nondet ? "__argus_init_nondet" : "__argus_init";
  prog.functions.push_back(std::move(f));
  fn = &prog.functions.back();
  fnDecl = nullptr;
  if (nondet) prog.initNondetFunc = fn->id;
  else prog.initFunc = fn->id;
  fn->entry = newLoc();
  fn->exit = newLoc();
  fn->error = newLoc();
  fn->sink = newLoc();
  cur = fn->entry;
  curStmt = nullptr;
  if (memLayout()) {  // the memory-safety layout's counters (cfa::memlayout)
    Edge n = edge(EdgeKind::Store);
    n.addr = constPtr(cfa::memlayout::kNextId);
    n.value = constPtr(1);
    n.bytes = ptrWidth / 8;
    n.text = "memory safety: no object yet";
    emit(n);
    setLiveHeap(constPtr(0));
  }
  // Every piece below is recorded as a Program::InitPart (what it defines, its edges).
  uint32_t partEdge = 0;
  cfa::LocId partFrom = cur;
  auto beginPart = [&] {
    partEdge = static_cast<uint32_t>(fn->edges.size());
    partFrom = cur;
  };
  auto endPart = [&](std::vector<cfa::VarId> defines) {
    if (fn->edges.size() == partEdge) return;
    if (memLayout()) return;  // the metadata ties every piece to the others: kept whole
    cfa::InitPart part;
    part.func = fn->id;
    part.firstEdge = partEdge;
    part.endEdge = static_cast<uint32_t>(fn->edges.size());
    part.from = partFrom;
    part.to = cur;
    part.defines = std::move(defines);
    prog.initParts.push_back(std::move(part));
  };

  // A global of a const-qualified type with an initialiser holds its initial value on
  // every entry (C forbids changing it): the nondeterministic initialisation keeps it.
  auto constInit = [&](const VarDecl* vd) {
    for (const VarDecl* r : vd->redecls())
      if (r->getInit()) return r->getType().isConstant(ctx) && !r->getType().isVolatileQualified();
    return false;
  };
  // 1. allocate every global in memory (register globals need no allocation)
  for (const VarDecl* vd : globals) {
    VarRef& ref = varFor(vd);
    curStmt = nullptr;
    if (!ref.inMemory || definedElsewhere(vd)) continue;
    beginPart();
    QualType t = vd->getType();
    if (const VarDecl* def = vd->getDefinition()) t = def->getType();
    else if (const VarDecl* tent = vd->getActingDefinition()) t = tent->getType();
    Edge a;
    a.kind = EdgeKind::Alloc;
    a.lhs = ref.reg;
    uint64_t sz = sizeOf(t);
    if (sz == 0 && vd->hasExternalStorage()) sz = 8;  // extern object of unknown size
    a.size = constPtr(sz);
    a.zeroInit = !nondet || constInit(vd);
    a.range = rangeOfDecl(vd);
    a.text = "global " + vd->getNameAsString();
    if (const clang::ConstantArrayType* cat = ctx.getAsConstantArrayType(t)) a.elemBytes = sizeOf(cat->getElementType());
    allocObject(std::move(a), cfa::memlayout::kGlobal);
    endPart({ref.reg});
  }
  // the atexit table: empty, also for a harness entry (no handlers registered before it)
  if (atexitRunner != cfa::kNoFunc) {
    beginPart();
    Edge a;
    a.kind = EdgeKind::Alloc;
    a.lhs = atexitTable;
    a.size = constPtr(uint64_t(kAtexitSlots) * (ptrWidth / 8));
    // Not zero-filled: the runner reads only the slots below the count, each written by
    // atexit. (Filled, the table was 512 one-byte stores in every query of pred, which
    // spent 12 s on a three-line program.)
    a.zeroInit = false;
    a.text = "atexit handler table";
    allocObject(std::move(a), cfa::memlayout::kGlobal);
    Edge n;
    n.kind = EdgeKind::Assign;
    n.lhs = atexitCount;
    n.rhs = Expr::mkConst(0, 32);
    n.text = "no atexit handlers";
    emit(std::move(n));
    endPart({atexitTable, atexitCount});
  }
  // 2. string literals that some lowered code or a global initialiser refers to
  //    (constant contents in both modes). Literals only passed to error functions, such
  //    as the message arguments of glibc's assert, are never materialised.
  for (const VarDecl* vd : globals) {
    const VarDecl* withInit = nullptr;
    for (const VarDecl* r : vd->redecls())
      if (r->getInit()) withInit = r;
    if (withInit) markLiterals(withInit->getInit());
  }
  for (const StringLiteral* sl : literals) {
    if (literalAddr[sl] == 0) continue;
    cfa::VarId id = literalAddr[sl];
    beginPart();
    uint64_t n = sl->getByteLength() + sl->getCharByteWidth();
    Edge a;
    a.kind = EdgeKind::Alloc;
    a.lhs = id;
    a.size = constPtr(n);
    a.zeroInit = true;
    a.text = "string literal";
    allocObject(std::move(a), cfa::memlayout::kGlobal);
    StringRef bytes = sl->getBytes();
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] == 0) continue;
      Edge s;
      s.kind = EdgeKind::Store;
      s.addr = addOffset(Expr::mkVar(id, ptrWidth), i);
      s.value = Expr::mkConst(static_cast<uint8_t>(bytes[i]), 8);
      s.bytes = 1;
      s.text = "string literal";
      emit(std::move(s));
    }
    endPart({id});
  }
  // 3. initialisers
  for (const VarDecl* vd : globals) {
    VarRef& ref = varFor(vd);
    if (definedElsewhere(vd)) continue;
    const VarDecl* withInit = nullptr;
    for (const VarDecl* r : vd->redecls())
      if (r->getInit()) withInit = r;
    QualType t = withInit ? withInit->getType() : vd->getType();
    beginPart();
    if (nondet && !constInit(vd)) {
      if (!ref.inMemory) {
        Edge e;
        e.kind = EdgeKind::Havoc;
        e.lhs = ref.reg;
        e.range = rangeOfDecl(vd);
        e.text = "global " + vd->getNameAsString() + " (nondeterministic)";
        emit(std::move(e));
      }
      endPart({ref.reg});
      continue;
    }
    curStmt = withInit ? withInit->getInit() : nullptr;
    try {
    if (!ref.inMemory) {
      if (withInit) {
        LValue lv;
        lv.isReg = true;
        lv.reg = ref.reg;
        lv.type = t;
        assignTo(lv, withInit->getInit());
      } else {
        Edge e;
        e.kind = EdgeKind::Assign;
        e.lhs = ref.reg;
        e.rhs = Expr::mkWideConst(0, prog.vars[ref.reg].width);
        e.range = rangeOfDecl(vd);
        e.text = vd->getNameAsString() + " = 0";
        emit(std::move(e));
      }
    } else if (withInit) {
      initObject(Expr::mkVar(ref.reg, ptrWidth), t, withInit->getInit(), true);
    }
    } catch (const std::exception& e) {
      // An internal error in one initialiser: drop what it emitted and stop the path
      // there with an Unsupported edge. Only entries whose closure needs this global
      // keep the piece (core/cfa/closure.h); the others never see it.
      cfa::SourceRange r = curStmt ? rangeOf(curStmt) : rangeOfDecl(vd);
      for (cfa::Location& l : fn->locs) {
        std::erase_if(l.out, [&](uint32_t i) { return i >= partEdge; });
        std::erase_if(l.in, [&](uint32_t i) { return i >= partEdge; });
      }
      fn->edges.resize(partEdge);
      cur = partFrom;
      Edge u;
      u.kind = EdgeKind::Unsupported;
      u.range = r;
      u.text = "internal error lowering the initialiser of " + vd->getNameAsString() + ": " + e.what();
      emit(std::move(u));
    }
    endPart({ref.reg});
  }
  // 4. the globals' entry model (lower_entry_model.cpp): each global's pointer slots
  //    point to fresh objects, one piece per global (what names the global needs it)
  if (nondet && !memLayout()) {
    for (const VarDecl* vd : globals) {
      VarRef& ref = varFor(vd);
      if (definedElsewhere(vd) || constInit(vd)) continue;
      QualType t = vd->getType();
      if (const VarDecl* def = vd->getDefinition()) t = def->getType();
      else if (const VarDecl* tent = vd->getActingDefinition()) t = tent->getType();
      curStmt = nullptr;
      beginPart();
      if (buildGlobalModel(vd, ref, t)) endPart({ref.reg});
    }
  }
  curStmt = nullptr;
  Edge r;
  r.kind = EdgeKind::Return;
  emitTo(std::move(r), fn->exit);
  fn = nullptr;
}

void Lowerer::evalVlaSizes(QualType t) {
  t = t.getCanonicalType();
  while (true) {
    if (const auto* pt = t->getAs<PointerType>()) {
      t = pt->getPointeeType().getCanonicalType();
      continue;
    }
    if (const VariableArrayType* vla = ctx.getAsVariableArrayType(t)) {
      if (vla->getSizeExpr() && !vlaCounts.count(vla->getSizeExpr())) {
        const clang::Expr* se = vla->getSizeExpr();
        ExprPtr n = convertScalar(rvalue(se), se->getType(), ctx.getSizeType());
        cfa::VarId c = newTemp(ptrWidth, false);
        Edge e = edge(EdgeKind::Assign);
        e.lhs = c;
        e.rhs = n;
        e.text = "array size " + textOf(se);
        emit(std::move(e));
        vlaCounts[se] = c;
      }
      t = vla->getElementType().getCanonicalType();
      continue;
    }
    if (const ArrayType* at = ctx.getAsArrayType(t)) {
      t = at->getElementType().getCanonicalType();
      continue;
    }
    return;
  }
}

ExprPtr Lowerer::runtimeSize(QualType t) {
  if (!t->isVariablyModifiedType()) {
    uint64_t s = sizeOf(t);
    return s ? constPtr(s) : nullptr;
  }
  if (const VariableArrayType* vla = ctx.getAsVariableArrayType(t)) {
    auto it = vlaCounts.find(vla->getSizeExpr());
    ExprPtr inner = runtimeSize(vla->getElementType());
    if (it == vlaCounts.end() || !inner) return nullptr;
    return Expr::mkBinary(cfa::BinOp::Mul, Expr::mkVar(it->second, ptrWidth), inner);
  }
  if (const ConstantArrayType* cat = ctx.getAsConstantArrayType(t)) {
    ExprPtr inner = runtimeSize(cat->getElementType());
    if (!inner) return nullptr;
    return Expr::mkBinary(cfa::BinOp::Mul, constPtr(cat->getSize().getZExtValue()), inner);
  }
  return nullptr;
}

}  // namespace argus::frontend
