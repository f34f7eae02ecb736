// Lowering: calls of the C library functions whose models are written in C
// (core/frontend/models/libc_models.c, embedded at build time).
//
// frontend.cpp adds the models' source to every translation unit (an -include of an
// in-memory file marked as a system header). A call of a body-less function NAME (or
// __builtin_NAME) for which the models define __argus_NAME becomes an ordinary call of
// that definition; only the models a program needs (and those they call) are lowered,
// so a program that calls none of them gets exactly the CFAs it had before.
//
// glibc's <ctype.h> macros index the tables of __ctype_b_loc(), __ctype_tolower_loc()
// and __ctype_toupper_loc(); such an element read `(*__ctype_b_loc())[c]` becomes a call
// of the model that computes the "C" locale's entry. Any other use of those functions
// stays an unmodelled library call (unknown, named).
//
// The models' intrinsics: __argus_nondet_int() (a value C leaves unspecified),
// __argus_assume(c) and __argus_undefined("what") (an Unsupported edge naming `what`).
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

const char* const kLibcModelsPath = "/argus/libc_models.c";

std::string_view libcModelsSource() {
  static const char* text =
#include "libc_models.inc"
      ;
  return text;
}

namespace {

constexpr std::string_view kModelPrefix = "__argus_";

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The table functions of glibc's <ctype.h> macros, and the model of an element read.
const char* ctypeTableModel(const std::string& fn) {
  if (fn == "__ctype_b_loc") return "__argus_ctype_b";
  if (fn == "__ctype_tolower_loc") return "__argus_ctype_tolower";
  if (fn == "__ctype_toupper_loc") return "__argus_ctype_toupper";
  return nullptr;
}

// Finds the models a set of declarations calls (directly, through the <ctype.h> table
// pattern, or model to model).
class ModelUses : public RecursiveASTVisitor<ModelUses> {
public:
  explicit ModelUses(Lowerer& l) : L(l) {}
  bool VisitCallExpr(CallExpr* ce) {
    const FunctionDecl* fd = ce->getDirectCallee();
    if (!fd) return true;
    std::string name = fd->getNameAsString();
    if (fd->getDefinition()) {
      if (L.isModelDecl(fd)) add(fd->getDefinition());
      return true;
    }
    if (const FunctionDecl* m = L.modelFor(name)) add(m);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr* as) {
    if (const char* m = L.ctypeTableCall(as))
      if (auto it = L.models.find(m); it != L.models.end()) add(it->second);
    return true;
  }
  void add(const FunctionDecl* m) {
    if (L.neededModels.insert(m->getCanonicalDecl()).second) pending.push_back(m);
  }
  Lowerer& L;
  std::vector<const FunctionDecl*> pending;
};

}  // namespace

bool Lowerer::isModelDecl(const Decl* d) const {
  const auto* nd = dyn_cast<NamedDecl>(d);
  if (!nd || !nd->getIdentifier() || !startsWith(nd->getName(), kModelPrefix)) return false;
  const SourceManager& sm = ctx.getSourceManager();
  SourceLocation loc = sm.getExpansionLoc(d->getLocation());
  if (loc.isInvalid()) return false;
  const FileEntry* fe = sm.getFileEntryForID(sm.getFileID(loc));
  return fe && fe->getName() == kLibcModelsPath;
}

const FunctionDecl* Lowerer::modelFor(const std::string& name) const {
  std::string n = startsWith(name, "__builtin_") ? name.substr(10) : name;
  if (startsWith(n, kModelPrefix)) return nullptr;
  auto it = models.find(std::string(kModelPrefix) + n);
  if (it == models.end()) return nullptr;
  // In link mode a function another unit of the project defines is called through its stub.
  if (linkMode() && linkOpts->linkFunctions.count(name)) return nullptr;
  return it->second;
}

const char* Lowerer::ctypeTableCall(const ArraySubscriptExpr* as) const {
  const auto* deref = dyn_cast<UnaryOperator>(as->getBase()->IgnoreParenImpCasts());
  if (!deref || deref->getOpcode() != UO_Deref) return nullptr;
  const auto* call = dyn_cast<CallExpr>(deref->getSubExpr()->IgnoreParenImpCasts());
  if (!call || call->getNumArgs() != 0) return nullptr;
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd || fd->getDefinition()) return nullptr;
  return ctypeTableModel(fd->getNameAsString());
}

// Collects the model definitions and decides which of them the program needs: those it
// calls, then, to a fixpoint, those the needed models call.
void Lowerer::findModels(TranslationUnitDecl* tu) {
  for (Decl* d : tu->decls())
    if (auto* fd = dyn_cast<FunctionDecl>(d); fd && fd->doesThisDeclarationHaveABody() && isModelDecl(fd))
      models[fd->getNameAsString()] = fd;
  if (models.empty()) return;
  ModelUses uses(*this);
  for (Decl* d : tu->decls())
    if (!isModelDecl(d)) uses.TraverseDecl(d);
  while (!uses.pending.empty()) {
    const FunctionDecl* m = uses.pending.back();
    uses.pending.pop_back();
    uses.TraverseDecl(const_cast<FunctionDecl*>(m));
  }
}

// A model's global (errno's storage) is part of the program only when a model is.
bool Lowerer::skipModelDecl(const Decl* d) const {
  if (!isModelDecl(d)) return false;
  if (const auto* fd = dyn_cast<FunctionDecl>(d)) return !neededModels.count(fd->getCanonicalDecl());
  return neededModels.empty();
}

ExprPtr Lowerer::callModel(const FunctionDecl* model, std::vector<ExprPtr> args, QualType resultType) {
  const cfa::Function& target = prog.functions[funcIds.at(model->getCanonicalDecl())];
  Edge c = edge(EdgeKind::Call);
  c.callee = target.id;
  for (size_t i = 0; i < target.params.size() && i < args.size(); ++i) {
    const cfa::Variable& p = prog.vars[target.params[i]];
    c.args.push_back(args[i]->width == p.width ? args[i] : Expr::convert(args[i], p.width, p.isSigned));
  }
  const cfa::Variable& rv = prog.vars[*target.retVar];
  cfa::VarId tmp = newTemp(rv.width, rv.isSigned);
  c.lhs = tmp;
  emit(std::move(c));
  ExprPtr v = Expr::mkVar(tmp, rv.width);
  uint32_t w = widthOf(resultType);
  return v->width == w ? v : Expr::convert(v, w, rv.isSigned);
}

ExprPtr Lowerer::ctypeTableRead(const ArraySubscriptExpr* as) {
  const char* m = ctypeTableCall(as);
  if (!m) return nullptr;
  auto it = models.find(m);
  if (it == models.end() || !funcIds.count(it->second->getCanonicalDecl())) return nullptr;
  const clang::Expr* idx = as->getIdx();  // getBase() is the pointer operand, also in c[table]
  ExprPtr i = convertScalar(rvalue(idx), idx->getType(), ctx.IntTy);
  return callModel(it->second, {i}, as->getType());
}

ExprPtr Lowerer::libcCall(const CallExpr* ce, const std::string& name, bool& handled) {
  handled = true;
  QualType rt = ce->getType();
  if (name == "__argus_nondet_int" && ce->getNumArgs() == 0) {
    cfa::VarId t = newTemp(widthOf(rt), true);
    Edge h = edge(EdgeKind::Havoc);
    h.lhs = t;
    h.text = "a value the C standard leaves unspecified";
    emit(h);
    return Expr::mkVar(t, widthOf(rt));
  }
  if (name == "__argus_assume" && ce->getNumArgs() == 1) {
    cfa::LocId ok = newLoc(), stop = newLoc();
    branch(ce->getArg(0), ok, stop);
    cur = ok;  // the false branch has no successor: the path ends
    return Expr::mkConst(0, 32);
  }
  if (name == "__argus_undefined" && ce->getNumArgs() == 1) {
    std::string what = "undefined behaviour in a C library function";
    if (const auto* sl = dyn_cast<StringLiteral>(ce->getArg(0)->IgnoreParenImpCasts())) what = sl->getString().str();
    unsupported(what, ce);
    return Expr::mkConst(0, 32);
  }
  const FunctionDecl* model = modelFor(name);
  if (!model || !funcIds.count(model->getCanonicalDecl()) || ce->getNumArgs() != model->getNumParams()) {
    handled = false;
    return nullptr;
  }
  return directCall(ce, model);
}

}  // namespace argus::frontend
