// Link mode (FrontendOptions::linkMode): what this unit tells cfa::link (core/cfa/link.h)
// about linkage, function addresses that agree across units, stubs for functions
// defined in other units, and globals another unit defines.
#include <clang/AST/Decl.h>

#include "core/cfa/cfa_hash.h"
#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::Edge;
using cfa::EdgeKind;

cfa::Linkage Lowerer::linkageOf(const FunctionDecl* fd) const {
  if (!fd->hasExternalFormalLinkage()) return cfa::Linkage::Internal;  // static
  // C99 `inline` without `extern`: an inline definition, not the external one; each
  // unit keeps its own copy (equivalent to the external definition by 6.7.4).
  if (fd->isInlineSpecified() && !fd->isInlineDefinitionExternallyVisible()) return cfa::Linkage::Internal;
  return cfa::Linkage::External;
}

uint64_t Lowerer::linkAddress(const FunctionDecl* fd) {
  const FunctionDecl* def = fd->getDefinition();
  std::string name = fd->getNameAsString();
  std::string linkName = linkageOf(def ? def : fd) == cfa::Linkage::Internal ? name + "@" + unitFile : name;
  cfa::Hasher h;
  h.add(linkName);
  uint64_t slot = std::stoull(h.hex().substr(0, 16), nullptr, 16) % (1u << 22);
  uint64_t top = ptrWidth == 32 ? 0xF0000000ull : 0x7F0000000000ull;
  uint64_t a = top + 16 * (slot + 1);
  prog.link.functionAddresses[linkName] = a;  // cfa::link rejects two names on one address
  return a;
}

std::optional<cfa::FuncId> Lowerer::linkStub(const FunctionDecl* callee) {
  if (auto it = funcIds.find(callee->getCanonicalDecl()); it != funcIds.end()) return it->second;
  if (linkageOf(callee) == cfa::Linkage::External) prog.link.undefinedFunctions.push_back(callee->getNameAsString());
  return std::nullopt;
}

// Before any function is lowered (prog.functions must not grow under a lowering): one
// stub per body-less, prototyped, external function named in linkFunctions.
void Lowerer::declareLinkStubs(TranslationUnitDecl* tu) {
  if (!linkMode()) return;
  for (Decl* d : tu->decls()) {
    auto* callee = dyn_cast<FunctionDecl>(d);
    if (!callee || callee->getDefinition()) continue;
    const FunctionDecl* canon = callee->getCanonicalDecl();
    std::string name = callee->getNameAsString();
    // only with a prototype: the stub's parameters must be the definition's
    // (a variadic one too: its hidden parameter, declareSignature, is the definition's)
    if (funcIds.count(canon) || !linkOpts->linkFunctions.count(name) || !callee->hasPrototype() ||
        linkageOf(callee) != cfa::Linkage::External)
      continue;
    cfa::Function f;
    f.id = static_cast<cfa::FuncId>(prog.functions.size());
    f.name = name;
    f.range = rangeOfDecl(callee);
    f.linkage = cfa::Linkage::External;
    f.linkStub = true;
    funcIds[canon] = f.id;
    prog.funcByName[f.name] = f.id;
    prog.functions.push_back(std::move(f));
    declareSignature(callee);
    fn = &prog.functions[funcIds.at(canon)];
    fnDecl = nullptr;
    curStmt = nullptr;
    fn->entry = newLoc();
    fn->exit = newLoc();
    fn->error = newLoc();
    fn->sink = newLoc();
    cur = fn->entry;
    // Until cfa::link puts the definition here: unknown, never a claim about the body.
    Edge u = edge(EdgeKind::Unsupported);
    u.range = fn->range;
    u.text = "call to '" + name + "', defined in another translation unit that was not linked";
    emitTo(u, fn->sink);
    fn = nullptr;
  }
}

bool Lowerer::definedElsewhere(const VarDecl* vd) {
  if (!linkMode() || !vd->hasExternalFormalLinkage() || !vd->hasGlobalStorage() || vd->getParentFunctionOrMethod())
    return false;
  std::string name = vd->getNameAsString();
  int kind = 0;
  switch (vd->hasDefinition()) {
    case VarDecl::DeclarationOnly: kind = 0; break;
    case VarDecl::TentativeDefinition: kind = 1; break;
    case VarDecl::Definition: kind = 2; break;
  }
  prog.link.globalDefs[name] = kind;
  return linkOpts->linkGlobals.count(name) > 0;
}

}  // namespace argus::frontend
