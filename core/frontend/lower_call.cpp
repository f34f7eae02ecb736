// Lowering: function calls, SV-COMP builtins and the C library functions we model.
#include <algorithm>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "core/frontend/lower.h"

namespace argus::frontend {

using namespace clang;
using cfa::BinOp;
using cfa::CheckKind;
using cfa::Edge;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprPtr;

namespace {

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Library functions without a body that do not write through their arguments: a call
// evaluates its arguments and returns a nondeterministic value.
bool isOpaqueReadOnly(const std::string& n) {
  static const char* names[] = {"printf", "puts", "putchar", "fprintf", "fputs", "fputc",
                                "fflush", "perror", "srand"};
  for (const char* x : names)
    if (n == x) return true;
  return false;
}

// Functions of the C library and compiler builtins, recognised by name whether the
// program includes the header or declares the function itself (Clang marks a declaration
// that matches a library builtin: getBuiltinID), and anything declared in a system
// header. Their results are determined by their arguments or restricted in range, so a
// nondeterministic result would admit behaviour the real function never shows: calls to
// those not modelled are unsupported.
bool isBuiltinName(const std::string& n) {
  return startsWith(n, "__builtin_") || startsWith(n, "__sync_") || startsWith(n, "__atomic_");
}

bool isLibraryFunction(const std::string& n, const clang::FunctionDecl* fd, const clang::ASTContext& ctx) {
  if (fd->getBuiltinID() != 0 || isBuiltinName(n) || isCLibraryName(n)) return true;
  const clang::SourceManager& sm = ctx.getSourceManager();
  return fd->getLocation().isValid() && sm.isInSystemHeader(sm.getExpansionLoc(fd->getLocation()));
}

}  // namespace

ExprPtr Lowerer::call(const CallExpr* ce) {
  const FunctionDecl* callee = ce->getDirectCallee();
  QualType rt = ce->getType();
  uint32_t rw = isScalar(rt) ? widthOf(rt) : rt->isVoidType() ? 32 : ptrWidth;
  if (!callee) {
    // Indirect call: dispatch over the defined functions whose address is known.
    ExprPtr fp = rvalue(ce->getCallee());
    // Through an unprototyped pointer (`void (*)()`) any defined function may be called.
    bool noProto = false;
    if (const auto* pt = ce->getCallee()->getType()->getAs<PointerType>())
      noProto = pt->getPointeeType()->getAs<FunctionNoProtoType>() != nullptr;
    cfa::VarId tmp = newTemp(rw, isScalar(rt) && isSignedT(rt));
    cfa::LocId after = newLoc();
    // the field it calls through, for the entry model (cfa::Function::callsThrough)
    {
      const FieldDecl* through = calleeField(ce);
      uint64_t k = through ? fieldKeyOf(through) : fnTypeKeyOf(ce->getCallee()->getType());
      auto& ks = fn->callsThrough;
      if (auto it = std::lower_bound(ks.begin(), ks.end(), k); it == ks.end() || *it != k) ks.insert(it, k);
    }
    // through a closed function-pointer field: only the functions stored in it
    const FieldDecl* field = closedCalleeField(ce);
    const std::set<const FunctionDecl*>* stored = nullptr;
    static const std::set<const FunctionDecl*> kNone;
    if (field) {
      auto it = fieldFuncs.find(field);
      stored = it == fieldFuncs.end() ? &kNone : &it->second;
    }
    dispatchOverFunctions(
        fp,
        [&](const FunctionDecl* def) {
          if (stored && !stored->count(def->getCanonicalDecl())) return false;
          return noProto || mayCallThrough(def, ce->getCallee()->getType()->getPointeeType(), ce->getNumArgs());
        },
        [&](const FunctionDecl* def, cfa::FuncId) {
          ExprPtr r = directCall(ce, def);
          if (!rt->isVoidType()) {
            Edge a = edge(EdgeKind::Assign);
            a.lhs = tmp;
            a.rhs = r->width == rw ? r : Expr::convert(r, rw, false);
            emit(a);
          }
          emitTo(edge(EdgeKind::Blank), after);
        },
        textOf(ce) + " [calls ");
    unsupported("call through a function pointer to an unknown function", ce);
    emitTo(edge(EdgeKind::Blank), after);
    cur = after;
    return Expr::mkVar(tmp, rw);
  }
  std::string name = callee->getNameAsString();
  bool handled = false;
  ExprPtr r = builtinCall(ce, name, handled);
  if (handled) return r;
  return directCall(ce, callee);
}

// scanf family with a literal format of numeric/char conversions: each conversion either
// stores a nondeterministic value of its target's size or (input failure) leaves the
// target unchanged; the result is nondeterministic. %s and %[ write unbounded strings and
// stay unsupported.
ExprPtr Lowerer::scanfCall(const CallExpr* ce, unsigned fmtIndex, bool& handled) {
  handled = false;
  if (ce->getNumArgs() <= fmtIndex) return nullptr;
  const auto* fmt = dyn_cast<StringLiteral>(ce->getArg(fmtIndex)->IgnoreParenImpCasts());
  if (!fmt || fmt->getCharByteWidth() != 1) return nullptr;
  std::string f = fmt->getString().str();
  std::vector<uint64_t> sizes;  // bytes written per assigned conversion
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (++i >= f.size()) return nullptr;
    if (f[i] == '%') continue;
    bool suppress = false;
    if (f[i] == '*') {
      suppress = true;
      ++i;
    }
    uint64_t width = 0;
    while (i < f.size() && isdigit(static_cast<unsigned char>(f[i]))) width = width * 10 + (f[i++] - '0');
    while (i < f.size() && std::string("hljztL").find(f[i]) != std::string::npos) ++i;
    if (i >= f.size()) return nullptr;
    char c = f[i];
    if (c == 's' || c == '[') return nullptr;
    if (std::string("diouxXnaAeEfFgGpc").find(c) == std::string::npos) return nullptr;
    if (suppress) continue;
    sizes.push_back(c == 'c' ? (width ? width : 1) : 0);  // 0: the pointee's size
  }
  if (ce->getNumArgs() != fmtIndex + 1 + sizes.size()) return nullptr;
  handled = true;
  for (unsigned i = 0; i < fmtIndex; ++i) rvalue(ce->getArg(i));  // the stream / source string
  for (size_t k = 0; k < sizes.size(); ++k) {
    const clang::Expr* a = ce->getArg(fmtIndex + 1 + k);
    QualType pt = a->IgnoreParenImpCasts()->getType();
    if (!pt->isPointerType()) {
      unsupported("scanf argument that is not a pointer", a);
      return Expr::mkConst(0, 32);
    }
    uint64_t bytes = sizes[k] ? sizes[k] * std::max<uint64_t>(1, sizeOf(pt->getPointeeType()))
                              : sizeOf(pt->getPointeeType());
    ExprPtr p = rvalue(a);
    cfa::VarId pv = newTemp(ptrWidth, false);
    Edge keep = edge(EdgeKind::Assign);
    keep.lhs = pv;
    keep.rhs = p;
    emit(keep);
    // assigned or not: a nondeterministic choice
    cfa::VarId flag = newTemp(8, false);
    Edge hf = edge(EdgeKind::Havoc);
    hf.lhs = flag;
    hf.text = "scanf: conversion " + std::to_string(k + 1) + " succeeds?";
    emit(hf);
    cfa::LocId yes = newLoc(), after = newLoc();
    Edge ay = edge(EdgeKind::Assume);
    ay.cond = Expr::mkVar(flag, 8);
    Edge an = ay;
    an.positive = false;
    emitTo(ay, yes);
    emitTo(an, after);
    cur = yes;
    havocBytes(Expr::mkVar(pv, ptrWidth), bytes, "scanf input", "", sizes[k] ? QualType() : pt->getPointeeType());
    emitTo(edge(EdgeKind::Blank), after);
    cur = after;
  }
  QualType rt = ce->getType();
  cfa::VarId r = newTemp(widthOf(rt), true);
  Edge hr = edge(EdgeKind::Havoc);
  hr.lhs = r;
  hr.isNondetCall = true;
  emit(hr);
  return Expr::mkVar(r, widthOf(rt));
}

// Fills `bytes` bytes at `addr` with nondeterministic values (8/4/2/1-byte chunks).
void Lowerer::havocBytes(ExprPtr addr, uint64_t bytes, const std::string& text, const std::string& external,
                         QualType type) {
  cfa::forEachChunk(bytes, [&](uint64_t off, uint32_t chunk) {
    cfa::VarId v = newTemp(chunk * 8, false);
    Edge h = edge(EdgeKind::Havoc);
    h.lhs = v;
    h.isNondetCall = true;
    h.text = text;
    h.externalCallee = external;
    emit(h);
    Edge st = edge(EdgeKind::Store);
    st.addr = addOffset(addr, off);
    st.value = Expr::mkVar(v, chunk * 8);
    st.bytes = chunk;
    if (!type.isNull() && chunk == bytes) {  // one store of the whole object: shown in its C type
      st.storeShape = shapeOf(type);
      st.storeSigned = st.storeShape == cfa::ValueShape::Integer && isSignedT(type);
    }
    emit(st);
  });
}

// A nondeterministic value of the call's result type (a _Bool result is 0 or 1).
ExprPtr Lowerer::nondetResult(const CallExpr* ce, const std::string& what, const std::string& external) {
  QualType rt = ce->getType();
  if (rt->isVoidType()) return Expr::mkConst(0, 32);
  if (!isScalar(rt) && !isFloating(rt) && sizeOf(rt) > 0 && sizeOf(rt) <= 4096) {
    // a struct or union: a fresh object with nondeterministic bytes; its address is the value
    cfa::VarId obj = newTemp(ptrWidth, false);
    Edge a = edge(EdgeKind::Alloc);
    a.lhs = obj;
    a.size = constPtr(sizeOf(rt));
    allocObject(std::move(a), cfa::memlayout::kGlobal);
    havocBytes(Expr::mkVar(obj, ptrWidth), sizeOf(rt), "nondeterministic value", external);
    return Expr::mkVar(obj, ptrWidth);
  }
  if (isFloating(rt) || !isScalar(rt) || widthOf(rt) > cfa::kMaxWidth) {
    unsupported(isFloating(rt) ? what + " of type '" + floatTypeName(rt) + "'" : "aggregate or wide " + what, ce);
    return isScalar(rt) || isFloating(rt) ? Expr::mkConst(0, 32) : constPtr(0);
  }
  uint32_t rw = widthOf(rt);
  cfa::VarId t = newTemp(rw, isSignedT(rt));
  Edge h = edge(EdgeKind::Havoc);
  h.lhs = t;
  h.isNondetCall = true;
  h.externalCallee = external;
  if (const clang::FunctionDecl* fd = ce->getDirectCallee()) h.nondetFunction = fd->getNameAsString();
  emit(h);
  ExprPtr v = Expr::mkVar(t, rw);
  if (rt->isBooleanType()) {
    Edge a = edge(EdgeKind::Assign);
    a.lhs = t;
    a.rhs = Expr::mkCast(cfa::CastKind::ToBool, v, rw);
    emit(a);
  }
  return v;
}

// for (i = 0; i < n; i++) dst[i] = byteAt(i);  — a CFA loop, unwound like any other
void Lowerer::byteLoop(ExprPtr dst, ExprPtr n, const std::function<ExprPtr(ExprPtr)>& byteAt,
                       const std::string& what) {
  cfa::VarId i = newTemp(ptrWidth, false);
  Edge z = edge(EdgeKind::Assign);
  z.lhs = i;
  z.rhs = constPtr(0);
  emit(z);
  cfa::LocId head = newLoc(), body = newLoc(), after = newLoc();
  emitTo(edge(EdgeKind::Blank), head);
  cur = head;
  ExprPtr iv = Expr::mkVar(i, ptrWidth);
  Edge more = edge(EdgeKind::Assume);
  more.cond = Expr::mkBinary(BinOp::ULt, iv, n, 32);
  more.text = what + ": i < n";
  Edge done = more;
  done.positive = false;
  done.text = what + ": done";
  emitTo(more, body);
  emitTo(done, after);
  cur = body;
  Edge st = edge(EdgeKind::Store);
  st.addr = Expr::mkBinary(BinOp::Add, dst, iv);
  st.value = byteAt(iv);
  st.bytes = 1;
  emit(st);
  Edge inc = edge(EdgeKind::Assign);
  inc.lhs = i;
  inc.rhs = Expr::mkBinary(BinOp::Add, iv, constPtr(1));
  emit(inc);
  emitTo(edge(EdgeKind::Blank), head);
  cur = after;
}

std::vector<ExprPtr> Lowerer::lowerArgs(const CallExpr* ce, const FunctionDecl* callee) {
  std::vector<ExprPtr> args;
  for (unsigned i = 0; i < ce->getNumArgs(); ++i) {
    const clang::Expr* a = ce->getArg(i);
    if (isFloating(a->getType())) {
      unsupported("argument of type '" + floatTypeName(a->getType()) + "'", a);
      args.push_back(Expr::mkConst(0, 32));
      continue;
    }
    ExprPtr v = rvalue(a);
    if (callee && i < callee->getNumParams()) {
      QualType pt = callee->getParamDecl(i)->getType();
      if (isScalar(pt)) v = convertScalar(v, a->getType(), pt);
    }
    // Keep each argument's value in a temporary: later arguments may have side effects.
    if (v->kind != cfa::ExprKind::Const && i + 1 < ce->getNumArgs()) {
      cfa::VarId t = newTemp(v->width, isScalar(a->getType()) && isSignedT(a->getType()));
      Edge e = edge(EdgeKind::Assign);
      e.lhs = t;
      e.rhs = v;
      emit(e);
      v = Expr::mkVar(t, v->width);
    }
    args.push_back(v);
  }
  return args;
}

ExprPtr Lowerer::directCall(const CallExpr* ce, const FunctionDecl* callee) {
  QualType rt = ce->getType();
  uint32_t rw = isScalar(rt) ? widthOf(rt) : rt->isVoidType() ? 32 : ptrWidth;
  const FunctionDecl* def = callee->getDefinition();
  auto it = def ? funcIds.find(def->getCanonicalDecl()) : funcIds.end();
  std::string name = callee->getNameAsString();
  if (it == funcIds.end() && !def && linkMode()) {
    if (linkStub(callee)) {  // defined in another unit of the project: call its stub
      def = callee;
      it = funcIds.find(callee->getCanonicalDecl());
    }
  }
  if (it == funcIds.end()) {
    // No body: arguments are evaluated, the result is nondeterministic.
    std::vector<ExprPtr> args = lowerArgs(ce, callee);
    (void)args;
    bool writes = false;
    for (unsigned i = 0; i < ce->getNumArgs(); ++i) {
      QualType at = ce->getArg(i)->IgnoreParenImpCasts()->getType();
      if (at->isPointerType() && !at->getPointeeType().isConstQualified() &&
          !at->getPointeeType()->isFunctionType())
        writes = true;
    }
    bool callsBack = false;
    for (unsigned i = 0; i < ce->getNumArgs(); ++i)
      if (ce->getArg(i)->IgnoreParenImpCasts()->getType()->isFunctionPointerType() ||
          ce->getArg(i)->IgnoreParenImpCasts()->getType()->isFunctionType())
        callsBack = true;
    if (isLibraryFunction(name, callee, ctx) && !isOpaqueReadOnly(name)) {
      unsupported(std::string(isBuiltinName(name) ? "call to compiler builtin '" : "call to C library function '") + name +
                      "' (not modelled)",
                  ce);
    } else if (callsBack) {
      unsupported("call to external function '" + name + "' that may call its function-pointer argument", ce);
    } else if (writes && !isOpaqueReadOnly(name) && !startsWith(name, "__VERIFIER_") && !startsWith(name, "nondet")) {
      unsupported("call to external function '" + name + "' that may write through a pointer argument", ce);
    }
    // Its result is an assumption a counterexample names ("NAME() may return any value"),
    // unless the function is an input by convention (__VERIFIER_*, nondet*).
    bool input = startsWith(name, "__VERIFIER_") || startsWith(name, "nondet") || startsWith(name, "__nondet");
    return nondetResult(ce, "result of external function '" + name + "'", input ? "" : name);
  }
  const cfa::Function& target = prog.functions[it->second];
  std::vector<ExprPtr> args = lowerArgs(ce, def);
  ExprPtr vaArea;  // the variadic arguments' block: the hidden last parameter
  if (def->isVariadic()) {
    if (target.params.size() != def->getNumParams() + 1 || ce->getNumArgs() < def->getNumParams()) {
      unsupported("call to variadic function '" + name + "'", ce);
      return Expr::mkWideConst(0, rw);
    }
    vaArea = variadicArea(ce, def->getNumParams(), args, name);
  }
  // Unprototyped calls may pass more or fewer arguments than parameters.
  std::vector<ExprPtr> passed;
  for (size_t i = 0; i < target.params.size(); ++i) {
    uint32_t pw = prog.vars[target.params[i]].width;
    if (vaArea && i + 1 == target.params.size()) {
      passed.push_back(vaArea);
    } else if (i < args.size()) {
      ExprPtr a = args[i];
      if (a->width != pw && i < ce->getNumArgs() && isFloatT(ce->getArg(i)->getType()))
        unsupported("floating-point argument of another size than the parameter (unprototyped call)", ce->getArg(i));
      passed.push_back(a->width == pw ? a : Expr::convert(a, pw, prog.vars[target.params[i]].isSigned));
    } else {
      // a missing argument (unprototyped call): its value is indeterminate
      cfa::VarId t = newTemp(pw, prog.vars[target.params[i]].isSigned);
      Edge h = edge(EdgeKind::Havoc);
      h.lhs = t;
      h.text = "missing argument " + std::to_string(i + 1) + " of " + name;
      emit(h);
      passed.push_back(Expr::mkVar(t, pw));
    }
  }
  Edge c = edge(EdgeKind::Call);
  c.callee = target.id;
  c.args = std::move(passed);
  std::optional<cfa::VarId> tmp;
  if (target.retVar) {
    uint32_t w = prog.vars[*target.retVar].width;
    tmp = newTemp(w, prog.vars[*target.retVar].isSigned);
    c.lhs = tmp;
  }
  emit(std::move(c));
  if (!tmp) return Expr::mkConst(0, 32);
  ExprPtr v = Expr::mkVar(*tmp, prog.vars[*tmp].width);
  if (isScalar(rt) && v->width != rw) v = Expr::convert(v, rw, isSignedT(rt));
  return v;
}

ExprPtr Lowerer::builtinCall(const CallExpr* ce, const std::string& name, bool& handled) {
  handled = true;
  QualType rt = ce->getType();
  uint32_t rw = isScalar(rt) ? widthOf(rt) : 32;
  auto argv = [&](unsigned i) { return rvalue(ce->getArg(i)); };
  if ((name == "__argus_requires" || name == "__argus_valid" || name == "__argus_valid_range" ||
       contractCalls.count(ce)) &&
      !ce->getDirectCallee()->getDefinition()) {
    bool mine = false;
    if (ExprPtr r = contractCall(ce, name, mine); mine) return r;
  }
  if (!ce->getDirectCallee()->getDefinition()) {
    bool mine = false;
    if (ExprPtr r = vaBuiltin(ce, name, mine); mine) return r;
    if (ExprPtr r = bitBuiltin(ce, name, mine); mine) return r;
    if (ExprPtr r = overflowBuiltin(ce, name, mine); mine) return r;
    if (ExprPtr r = mathBuiltin(ce, name, mine); mine) return r;
  }

  if (name == "reach_error" || name == "__VERIFIER_error" || isAssertFailure(name)) {
    // (not checking unreach-call: the call ends the execution, as __assert_fail does)
    if (!errorCallsAreErrors) endOfProgram(false, false);
    if (name != "reach_error" && name != "__VERIFIER_error") leadingAssertGate();
    Edge e = edge(errorCallsAreErrors ? EdgeKind::Error : EdgeKind::Abort);
    emitTo(e, errorCallsAreErrors ? fn->error : fn->sink);
    cur = newLoc();
    return Expr::mkWideConst(0, rw);
  }
  if ((name == "__VERIFIER_assert" || name == "assert") && ce->getNumArgs() == 1 &&
      !(ce->getDirectCallee()->getDefinition())) {
    cfa::LocId ok = newLoc(), bad = newLoc();
    branch(ce->getArg(0), ok, bad);
    cur = bad;
    if (errorCallsAreErrors) {
      emitTo(edge(EdgeKind::Error), fn->error);
    } else {
      endOfProgram(false, false);
      emitTo(edge(EdgeKind::Abort), fn->sink);
    }
    cur = ok;
    return Expr::mkWideConst(0, rw);
  }
  if ((name == "__VERIFIER_assume" || name == "__ESBMC_assume" || name == "__CPROVER_assume" ||
       name == "assume_abort_if_not") &&
      ce->getNumArgs() == 1 && !(ce->getDirectCallee()->getDefinition())) {
    cfa::LocId ok = newLoc(), stop = newLoc();
    branch(ce->getArg(0), ok, stop);
    cur = stop;
    if (name == "assume_abort_if_not") emitTo(edge(EdgeKind::Abort), fn->sink);
    // for __VERIFIER_assume the false branch has no successor: the path ends
    cur = ok;
    return Expr::mkWideConst(0, rw);
  }
  if (name == "atexit" && atexitRunner != cfa::kNoFunc && ce->getNumArgs() == 1 && isScalar(rt)) {
    // table[count++] = handler; a full table is unsupported (glibc has no limit)
    ExprPtr h = rvalue(ce->getArg(0));
    ExprPtr n = Expr::mkVar(atexitCount, 32);
    ExprPtr full = Expr::mkBinary(BinOp::ULe, Expr::mkConst(kAtexitSlots, 32), n, 32);
    cfa::LocId ok = newLoc();
    Edge room = edge(EdgeKind::Assume);
    room.cond = full;
    room.positive = false;
    emitTo(room, ok);
    Edge over = edge(EdgeKind::Assume);
    over.cond = full;
    emit(over);
    unsupported("more than " + std::to_string(kAtexitSlots) + " handlers registered with atexit", ce);
    cur = ok;
    Edge st = edge(EdgeKind::Store);
    st.addr = Expr::mkBinary(BinOp::Add, Expr::mkVar(atexitTable, ptrWidth),
                             Expr::mkBinary(BinOp::Mul, Expr::convert(n, ptrWidth, false),
                                            constPtr(ptrWidth / 8), ptrWidth),
                             ptrWidth);
    st.value = h->width == ptrWidth ? h : Expr::convert(h, ptrWidth, false);
    st.bytes = ptrWidth / 8;
    emit(st);
    Edge inc = edge(EdgeKind::Assign);
    inc.lhs = atexitCount;
    inc.rhs = Expr::mkBinary(BinOp::Add, n, Expr::mkConst(1, 32), 32);
    emit(inc);
    return Expr::mkWideConst(0, rw);
  }
  if (name == "abort" || name == "exit" || name == "_Exit" || name == "__builtin_unreachable" ||
      name == "__builtin_trap") {
    for (unsigned i = 0; i < ce->getNumArgs(); ++i) rvalue(ce->getArg(i));
    if (name == "exit") emitRunAtexit();  // exit runs the handlers; abort and _Exit do not
    if (name != "__builtin_unreachable") endOfProgram(false, name == "exit");
    emitTo(edge(EdgeKind::Abort), fn->sink);
    cur = newLoc();
    return Expr::mkWideConst(0, rw);
  }
  if (startsWith(name, "__VERIFIER_nondet_") || ((startsWith(name, "nondet_") || startsWith(name, "__nondet")) &&
                                                 !ce->getDirectCallee()->getDefinition())) {
    for (unsigned i = 0; i < ce->getNumArgs(); ++i) rvalue(ce->getArg(i));
    return nondetResult(ce, "nondeterministic value");
  }
  if (ce->getDirectCallee()->getDefinition()) {
    handled = false;  // the program defines it: call the body
    return nullptr;
  }
  if ((name == "strlen" || name == "__builtin_strlen") && ce->getNumArgs() == 1 && isScalar(rt)) {
    // n = 0; while (s[n] != 0) n++;   — an ordinary loop, unwound like any other. Inline
    // rather than a call of a C model: predicate abstraction handles it faster.
    cfa::VarId p = newTemp(ptrWidth, false);
    Edge keep = edge(EdgeKind::Assign);
    keep.lhs = p;
    keep.rhs = argv(0);
    emit(keep);
    cfa::VarId n = newTemp(rw, false);
    Edge zero = edge(EdgeKind::Assign);
    zero.lhs = n;
    zero.rhs = Expr::mkWideConst(0, rw);
    emit(zero);
    cfa::LocId head = newLoc(), body = newLoc(), after = newLoc();
    emitTo(edge(EdgeKind::Blank), head);
    cur = head;
    ExprPtr addr = Expr::mkBinary(BinOp::Add, Expr::mkVar(p, ptrWidth), Expr::convert(Expr::mkVar(n, rw), ptrWidth, false));
    checkDeref(addr, 1, ce, Expr::mkVar(p, ptrWidth));  // memory safety: each byte read
    ExprPtr c = Expr::mkLoad(addr, 1);
    Edge more = edge(EdgeKind::Assume);
    more.cond = c;
    more.positive = true;
    more.text = "strlen: s[n] != 0";
    Edge end = more;
    end.positive = false;
    end.text = "strlen: s[n] == 0";
    emitTo(more, body);
    emitTo(end, after);
    cur = body;
    Edge inc = edge(EdgeKind::Assign);
    inc.lhs = n;
    inc.rhs = Expr::mkBinary(BinOp::Add, Expr::mkVar(n, rw), Expr::mkWideConst(1, rw));
    inc.text = "strlen: n++";
    emit(inc);
    emitTo(edge(EdgeKind::Blank), head);
    cur = after;
    return Expr::mkVar(n, rw);
  }
  // the C models (lower_libc.cpp): strcmp, ..., <ctype.h>, strtol, ...
  if (ExprPtr r = libcCall(ce, name, handled); handled) return r;
  handled = true;
  if ((name == "rand" || name == "random") && ce->getNumArgs() == 0 && isScalar(rt)) {
    // glibc: a value in [0, RAND_MAX] with RAND_MAX = 2^31 - 1
    ExprPtr v = nondetResult(ce, "result of '" + name + "'");
    Edge inRange = edge(EdgeKind::Assume);
    inRange.cond = Expr::mkBinary(BinOp::ULe, v, Expr::mkConst(0x7fffffff, rw), 32);
    emit(inRange);
    return v;
  }
  if ((name == "scanf" || name == "fscanf" || name == "sscanf" || name == "__isoc99_scanf" ||
       name == "__isoc99_fscanf" || name == "__isoc99_sscanf") && isScalar(rt)) {
    bool handledScanf = false;
    ExprPtr r = scanfCall(ce, name.find("scanf") != std::string::npos && name.find("fscanf") == std::string::npos &&
                                      name.find("sscanf") == std::string::npos ? 0u : 1u,
                          handledScanf);
    if (handledScanf) return r;
  }
  if (name == "malloc" || name == "alloca" || name == "__builtin_alloca" || name == "calloc") {
    ExprPtr size;
    if (name == "calloc" && ce->getNumArgs() == 2) {
      // n * size beyond SIZE_MAX: no object can have that size, calloc returns null
      // (C11 7.22.3.2; glibc: ENOMEM). Otherwise a zeroed object (allocation never fails).
      ExprPtr n = convertScalar(argv(0), ce->getArg(0)->getType(), ctx.getSizeType());
      ExprPtr m = convertScalar(argv(1), ce->getArg(1)->getType(), ctx.getSizeType());
      if (n->kind != cfa::ExprKind::Const) n = materialize(n, false);
      if (m->kind != cfa::ExprKind::Const) m = materialize(m, false);
      uint64_t max = ptrWidth == 64 ? ~uint64_t(0) : (uint64_t(1) << ptrWidth) - 1;
      ExprPtr overflow;
      if (m->kind == cfa::ExprKind::Const || n->kind == cfa::ExprKind::Const) {
        const ExprPtr& c = m->kind == cfa::ExprKind::Const ? m : n;
        const ExprPtr& x = m->kind == cfa::ExprKind::Const ? n : m;
        overflow = c->value == 0 ? Expr::mkConst(0, 32) : Expr::mkBinary(BinOp::ULt, constPtr(max / c->value), x, 32);
      } else {
        ExprPtr prod = Expr::mkBinary(BinOp::Mul, n, m);
        overflow = Expr::mkBinary(BinOp::LAnd, Expr::mkBinary(BinOp::Ne, m, constPtr(0), 32),
                                  Expr::mkBinary(BinOp::Ne, Expr::mkBinary(BinOp::UDiv, prod, m), n, 32), 32);
      }
      cfa::VarId t = newTemp(ptrWidth, false);
      cfa::LocId fits = newLoc(), after = newLoc();
      Edge ok = edge(EdgeKind::Assume);
      ok.cond = overflow;
      ok.positive = false;
      emitTo(ok, fits);
      Edge tooBig = edge(EdgeKind::Assume);
      tooBig.cond = overflow;
      tooBig.text = "calloc: n * size exceeds SIZE_MAX";
      emit(tooBig);
      Edge null = edge(EdgeKind::Assign);
      null.lhs = t;
      null.rhs = constPtr(0);
      emitTo(null, after);
      cur = fits;
      Edge a = edge(EdgeKind::Alloc);
      a.lhs = t;
      a.size = Expr::mkBinary(BinOp::Mul, n, m);
      a.zeroInit = true;
      if (memLayout()) {
        allocObject(std::move(a), cfa::memlayout::kHeap);
        emitTo(edge(EdgeKind::Blank), after);
      } else {
        emitTo(a, after);
      }
      cur = after;
      return Expr::mkVar(t, ptrWidth);
    } else if (ce->getNumArgs() == 1) {
      size = convertScalar(argv(0), ce->getArg(0)->getType(), ctx.getSizeType());
    } else {
      handled = false;
      return nullptr;
    }
    cfa::VarId t = newTemp(ptrWidth, false);
    Edge a = edge(EdgeKind::Alloc);
    a.lhs = t;
    a.size = size;
    a.zeroInit = name == "calloc";
    bool stack = name == "alloca" || name == "__builtin_alloca";
    allocObject(std::move(a), stack ? cfa::memlayout::kStack : cfa::memlayout::kHeap);
    return Expr::mkVar(t, ptrWidth);
  }
  if (((name == "aligned_alloc" || name == "memalign") && ce->getNumArgs() == 2) ||
      (name == "valloc" && ce->getNumArgs() == 1)) {
    // An object aligned to `align` (a constant power of two; valloc: the page size, 4096):
    // align - 1 bytes more than asked for, and the address rounded up. Allocation never
    // fails (as malloc); C11 allows aligned_alloc to return null, never a misaligned block.
    uint64_t align = 4096;
    const clang::Expr* sizeArg = ce->getArg(ce->getNumArgs() - 1);
    if (name != "valloc") {
      clang::Expr::EvalResult ev;
      align = ce->getArg(0)->EvaluateAsInt(ev, ctx) && ev.Val.getInt().isStrictlyPositive()
                  ? ev.Val.getInt().getLimitedValue()
                  : 0;
      argv(0);
    }
    ExprPtr size = convertScalar(argv(ce->getNumArgs() - 1), sizeArg->getType(), ctx.getSizeType());
    if (align == 0 || (align & (align - 1)) != 0) {
      unsupported("call to '" + name + "' with an alignment that is not a constant power of two", ce);
      return constPtr(0);
    }
    cfa::VarId t = newTemp(ptrWidth, false);
    Edge a = edge(EdgeKind::Alloc);
    a.lhs = t;
    a.size = align <= 8 || memLayout() ? size : Expr::mkBinary(BinOp::Add, size, constPtr(align - 1));
    allocObject(std::move(a), cfa::memlayout::kHeap);
    ExprPtr p = Expr::mkVar(t, ptrWidth);
    if (align <= 8) return p;  // the allocator's own alignment
    return Expr::mkBinary(BinOp::And, Expr::mkBinary(BinOp::Add, p, constPtr(align - 1)), constPtr(~(align - 1)));
  }
  if (name == "realloc" && ce->getNumArgs() == 2) {
    // a new block; the old contents are copied (bytes past the old object's end are
    // indeterminate in the new block anyway, so copying `size` bytes is faithful)
    cfa::VarId old = newTemp(ptrWidth, false), sz = newTemp(ptrWidth, false), fresh = newTemp(ptrWidth, false);
    Edge ko = edge(EdgeKind::Assign);
    ko.lhs = old;
    ko.rhs = argv(0);
    emit(ko);
    Edge ks = edge(EdgeKind::Assign);
    ks.lhs = sz;
    ks.rhs = convertScalar(argv(1), ce->getArg(1)->getType(), ctx.getSizeType());
    emit(ks);
    // realloc(p, 0) with p not null frees p and returns null (glibc; C17 leaves it to
    // the implementation); realloc(NULL, n) is malloc(n).
    cfa::LocId grow = newLoc(), after = newLoc();
    ExprPtr freeing = Expr::mkBinary(BinOp::LAnd, Expr::mkBinary(BinOp::Eq, Expr::mkVar(sz, ptrWidth), constPtr(0), 32),
                                     Expr::mkBinary(BinOp::Ne, Expr::mkVar(old, ptrWidth), constPtr(0), 32), 32);
    Edge notFreeing = edge(EdgeKind::Assume);
    notFreeing.cond = freeing;
    notFreeing.positive = false;
    emitTo(notFreeing, grow);
    Edge isFreeing = edge(EdgeKind::Assume);
    isFreeing.cond = freeing;
    isFreeing.text = "realloc(p, 0): frees p, returns null";
    emit(isFreeing);
    freeObject(Expr::mkVar(old, ptrWidth), ce);
    Edge nul = edge(EdgeKind::Assign);
    nul.lhs = fresh;
    nul.rhs = constPtr(0);
    emitTo(nul, after);
    cur = grow;
    Edge a = edge(EdgeKind::Alloc);
    a.lhs = fresh;
    a.size = Expr::mkVar(sz, ptrWidth);
    if (memLayout() && checking("valid-free")) {  // realloc of an invalid pointer
      ExprPtr o = Expr::mkVar(old, ptrWidth);
      ExprPtr start = Expr::mkBinary(BinOp::LAnd, Expr::mkBinary(BinOp::LAnd, liveObject(o),
          Expr::mkBinary(BinOp::Eq, objOff(o), constPtr(0), 32), 32),
          Expr::mkBinary(BinOp::Eq, metaLoad(objId(o), 9, 1), Expr::mkConst(cfa::memlayout::kHeap, 8), 32), 32);
      checkEdge(Expr::mkBinary(BinOp::LAnd, Expr::mkBinary(BinOp::Ne, o, constPtr(0), 32),
                               Expr::mkUnary(cfa::UnOp::LogNot, start), 32),
                "valid-free", CheckKind::Free, {o}, ce);
    }
    allocObject(std::move(a), cfa::memlayout::kHeap);
    cfa::LocId copy = newLoc();
    Edge nonNull = edge(EdgeKind::Assume);
    nonNull.cond = Expr::mkVar(old, ptrWidth);
    Edge isNull = nonNull;
    isNull.positive = false;
    emitTo(nonNull, copy);
    emitTo(isNull, after);
    cur = copy;
    ExprPtr from = Expr::mkVar(old, ptrWidth);
    if (memLayout()) {  // the old block's bytes (at most its size), then it is freed
      ExprPtr oldSize = metaLoad(objId(from), 0, ptrWidth / 8);
      cfa::VarId n = newTemp(ptrWidth, false);
      Edge kn = edge(EdgeKind::Assign);
      kn.lhs = n;
      kn.rhs = Expr::mkIte(Expr::mkBinary(BinOp::ULt, oldSize, Expr::mkVar(sz, ptrWidth), 32), oldSize,
                           Expr::mkVar(sz, ptrWidth));
      emit(kn);
      byteLoop(Expr::mkVar(fresh, ptrWidth), Expr::mkVar(n, ptrWidth),
               [&](ExprPtr i) { return Expr::mkLoad(Expr::mkBinary(BinOp::Add, from, i), 1); }, name);
      bool savedDeref = checks.erase("valid-free");
      freeObject(from, ce);  // (checked above)
      if (savedDeref) checks.insert("valid-free");
    } else {
      byteLoop(Expr::mkVar(fresh, ptrWidth), Expr::mkVar(sz, ptrWidth),
               [&](ExprPtr i) { return Expr::mkLoad(Expr::mkBinary(BinOp::Add, from, i), 1); }, name);
    }
    emitTo(edge(EdgeKind::Blank), after);
    cur = after;
    return Expr::mkVar(fresh, ptrWidth);
  }
  if (name == "free" && ce->getNumArgs() == 1) {
    freeObject(argv(0), ce);
    return Expr::mkConst(0, 32);
  }
  if ((name == "__builtin_expect" || name == "__builtin_expect_with_probability") && ce->getNumArgs() >= 2) {
    // the value of the first argument; the expected value is evaluated, the probability
    // (a floating constant) is not
    ExprPtr v = argv(0);
    argv(1);
    return convertScalar(v, ce->getArg(0)->getType(), rt);
  }
  if ((name == "__builtin_constant_p" || name == "__builtin_object_size" || name == "__builtin_dynamic_object_size") &&
      isScalar(rt)) {
    // What Clang's evaluator answers (these builtins are not `const`, so rvalue's folding
    // of pure expressions does not reach them)
    clang::Expr::EvalResult folded;
    if (ce->EvaluateAsInt(folded, ctx)) {
      return constOf(folded.Val.getInt(), rw);
    }
  }
  if (name == "__builtin_constant_p" && ce->getNumArgs() == 1 && isScalar(rt)) {
    // Clang's evaluator has already answered 1 for every argument it can fold (above)
    // and 0 for one with side effects. Otherwise whether the compiler
    // proves the value constant depends on its optimisation (GCC's manual: "a return of
    // 0 does not indicate that the value is not a constant"): either answer. The
    // argument is not evaluated.
    cfa::VarId t = newTemp(rw, true);
    Edge h = edge(EdgeKind::Havoc);
    h.lhs = t;
    h.text = "__builtin_constant_p: 0 or 1, as the compiler's optimisation decides";
    emit(h);
    Edge b = edge(EdgeKind::Assign);
    b.lhs = t;
    b.rhs = Expr::mkCast(cfa::CastKind::ToBool, Expr::mkVar(t, rw), rw);
    emit(b);
    return Expr::mkVar(t, rw);
  }
  if ((name == "__builtin_object_size" || name == "__builtin_dynamic_object_size") && ce->getNumArgs() == 2) {
    // Clang's evaluator has already folded the sizes known statically (above; GCC's answer for
    // &a[i] with constant i: the bytes from the address to the end of the object, e.g.
    // 32 for &a[2] of int a[10]). Otherwise GCC's answer depends on its optimisation
    // level ((size_t)-1 or 0 at -O0, the real size where -O2 tracks the pointer).
    unsupported("'" + name + "' of an object whose size is not known statically (the answer depends on the compiler's optimisation)", ce);
    return Expr::mkWideConst(0, rw);
  }
  if ((name == "__sync_synchronize" && ce->getNumArgs() == 0) ||
      ((name == "__atomic_thread_fence" || name == "__atomic_signal_fence" || name == "__c11_atomic_thread_fence" ||
        name == "__c11_atomic_signal_fence") &&
       ce->getNumArgs() == 1)) {
    // A memory barrier orders one thread's memory accesses as other threads see them; it
    // changes nothing in a single thread's execution, and every program Argus verifies has
    // one (creating a thread is unsupported). SQLite's sqlite3MemoryBarrier.
    for (unsigned i = 0; i < ce->getNumArgs(); ++i) rvalue(ce->getArg(i));
    return Expr::mkWideConst(0, rw);
  }
  if (name == "__builtin_assume" && ce->getNumArgs() == 1) {
    // Clang: the program promises the condition holds (undefined otherwise): paths where
    // it does not are cut, as at __builtin_unreachable
    cfa::LocId ok = newLoc(), stop = newLoc();
    branch(ce->getArg(0), ok, stop);
    cur = stop;
    emitTo(edge(EdgeKind::Abort), fn->sink);
    cur = ok;
    return Expr::mkWideConst(0, rw);
  }
  if ((name == "memset" || name == "memcpy" || name == "memmove" || name == "__builtin_memset" ||
       name == "__builtin_memcpy") && ce->getNumArgs() == 3) {
    ExprPtr dst = argv(0);
    ExprPtr src = argv(1);
    clang::Expr::EvalResult n;
    if (!ce->getArg(2)->EvaluateAsInt(n, ctx)) {
      ExprPtr size = convertScalar(argv(2), ce->getArg(2)->getType(), ctx.getSizeType());
      cfa::VarId d = newTemp(ptrWidth, false), sz = newTemp(ptrWidth, false);
      Edge kd = edge(EdgeKind::Assign);
      kd.lhs = d;
      kd.rhs = dst;
      emit(kd);
      Edge ks = edge(EdgeKind::Assign);
      ks.lhs = sz;
      ks.rhs = size;
      emit(ks);
      ExprPtr dv = Expr::mkVar(d, ptrWidth), sv = Expr::mkVar(sz, ptrWidth);
      checkDeref(dv, sv, ce);
      if (name.find("memset") == std::string::npos) checkDeref(src, sv, ce);
      if (name.find("memset") != std::string::npos) {
        ExprPtr byte = Expr::convert(src, 8, false);
        byteLoop(dv, sv, [&](ExprPtr) { return byte; }, name);
      } else {
        cfa::VarId s0 = newTemp(ptrWidth, false);
        Edge k0 = edge(EdgeKind::Assign);
        k0.lhs = s0;
        k0.rhs = src;
        emit(k0);
        ExprPtr from = Expr::mkVar(s0, ptrWidth);
        if (name == "memmove") {  // through a buffer, so overlapping ranges behave
          cfa::VarId buf = newTemp(ptrWidth, false);
          Edge a = edge(EdgeKind::Alloc);
          a.lhs = buf;
          a.size = sv;
          allocObject(std::move(a), cfa::memlayout::kGlobal);
          ExprPtr bv = Expr::mkVar(buf, ptrWidth);
          byteLoop(bv, sv, [&](ExprPtr i) { return Expr::mkLoad(Expr::mkBinary(BinOp::Add, from, i), 1); }, name);
          from = bv;
        }
        byteLoop(dv, sv, [&](ExprPtr i) { return Expr::mkLoad(Expr::mkBinary(BinOp::Add, from, i), 1); }, name);
      }
      return dv;
    }
    uint64_t bytes = n.Val.getInt().getZExtValue();
    // Keep dst in a temporary: it is the call's value.
    cfa::VarId d = newTemp(ptrWidth, false);
    Edge keep = edge(EdgeKind::Assign);
    keep.lhs = d;
    keep.rhs = dst;
    emit(keep);
    ExprPtr dv = Expr::mkVar(d, ptrWidth);
    checkDeref(dv, bytes, ce);
    if (name.find("memset") == std::string::npos) checkDeref(src, bytes, ce);
    if (name.find("memset") != std::string::npos) {
      ExprPtr byte = Expr::convert(src, 8, false);
      if (bytes > (1 << 16)) {
        unsupported("memset of " + std::to_string(bytes) + " bytes", ce);
      } else {
        for (uint64_t i = 0; i < bytes; ++i) {
          Edge s = edge(EdgeKind::Store);
          s.addr = addOffset(dv, i);
          s.value = byte;
          s.bytes = 1;
          emit(s);
        }
      }
    } else {
      if (name == "memmove") {
        // copy through a temporary buffer so overlapping ranges behave
        cfa::VarId buf = newTemp(ptrWidth, false);
        Edge a = edge(EdgeKind::Alloc);
        a.lhs = buf;
        a.size = constPtr(bytes);
        allocObject(std::move(a), cfa::memlayout::kGlobal);
        copyBytes(Expr::mkVar(buf, ptrWidth), src, bytes, ce);
        copyBytes(dv, Expr::mkVar(buf, ptrWidth), bytes, ce);
      } else {
        copyBytes(dv, src, bytes, ce);
      }
    }
    return dv;
  }
  handled = false;
  return nullptr;
}

namespace {
// The canonical function type a function, or a pointer to one, has; nullptr for any
// other type.
const clang::Type* fnTypeKey(clang::QualType t) {
  if (t.isNull()) return nullptr;
  if (const auto* pt = t->getAs<clang::PointerType>()) t = pt->getPointeeType();
  t = t.getCanonicalType().getUnqualifiedType();
  return t->isFunctionType() ? t.getTypePtr() : nullptr;
}
}  // namespace

const clang::Type* Lowerer::fnTypeClass(const clang::Type* t) {
  while (true) {
    auto it = fnTypeParent.find(t);
    if (it == fnTypeParent.end() || it->second == t) return t;
    t = it->second;
  }
}

void Lowerer::joinFnTypes(QualType a, QualType b) {
  const clang::Type *ka = fnTypeKey(a), *kb = fnTypeKey(b);
  if (ka == kb) return;
  const clang::Type *ra = fnTypeClass(ka), *rb = fnTypeClass(kb);
  if (ra == rb) return;
  // the non-function class (nullptr) stays a root: it never gets a parent
  if (ra == nullptr) std::swap(ra, rb);
  fnTypeParent[ra] = rb;
}

// Which defined, address-taken functions an indirect call through a pointer to
// `calleeFnType` with `nargs` arguments may reach: those of the same arity whose type is
// compatible with the pointer's (C11 6.5.2.2p9: calling through an incompatible type is
// undefined) or joined with it by casts in the program. A target left out is never a
// wrong verdict: a pointer matching none of the candidates leads to an unsupported edge.
//
// A function joined by casts is a target only when its parameters have the shapes the
// call passes (paramShape: a pointer for a pointer, an integer of the same size, the same
// floating type, the same struct): a table of `void (*)(void)` into which functions of
// every type are cast (SQLite's system-call table) joins them all, and a call of
// `ftruncate(int, off_t)` through it must not reach `getcwd(char *, size_t)`, whose body
// would treat the int as an address (reads over the whole memory). The C standard makes
// either call undefined; the shape check keeps what real code does (a comparator taking
// `const int *` called through `int (*)(const void *, const void *)`).
bool Lowerer::mayCallThrough(const FunctionDecl* def, QualType calleeFnType, unsigned nargs) {
  // a variadic function takes its named parameters and any number more
  if (def->isVariadic() ? nargs < def->getNumParams() : def->getNumParams() != nargs) return false;
  if (calleeFnType.isNull() || !calleeFnType->isFunctionType()) return true;
  if (ctx.typesAreCompatible(def->getType(), calleeFnType)) return true;
  if (fnTypeClass(fnTypeKey(def->getType())) != fnTypeClass(fnTypeKey(calleeFnType))) return false;
  const auto* proto = calleeFnType->getAs<FunctionProtoType>();
  if (!proto) return true;  // unprototyped: the arguments' shapes are the caller's
  for (unsigned i = 0; i < nargs && i < proto->getNumParams() && i < def->getNumParams(); ++i)
    if (paramShape(def->getParamDecl(i)->getType()) != paramShape(proto->getParamType(i))) return false;
  return true;
}

// The shape of a parameter type for mayCallThrough: how a value of it is passed.
std::string Lowerer::paramShape(QualType t) {
  t = t.getCanonicalType().getUnqualifiedType();
  if (t->isPointerType() || t->isArrayType() || t->isFunctionType() || t->isNullPtrType()) return "p";
  if (t->isIntegralOrEnumerationType()) return "i" + std::to_string(sizeOf(t));
  if (t->isRealFloatingType()) return "f" + std::to_string(sizeOf(t));
  return t.getAsString();
}

// Lowerer::fieldFuncs: a store of `value` in field `f`.
void Lowerer::storeInField(const FieldDecl* f, const clang::Expr* value) {
  QualType t = f->getType();
  if (!t->isFunctionPointerType()) {
    // a struct stored as a whole: from another object of its type (the same fields), or
    // something else (a call's result, a cast): then its fields are open
    if (const RecordDecl* rd = t->getAsRecordDecl()) {
      const clang::Expr* v = value->IgnoreParenImpCasts();
      if (!isa<InitListExpr>(v) && !isa<ImplicitValueInitExpr>(v) &&
          !(v->getType()->getAsRecordDecl() == rd && (isa<DeclRefExpr>(v) || isa<MemberExpr>(v) ||
                                                       isa<ArraySubscriptExpr>(v) || isa<UnaryOperator>(v))))
        openRecords.insert(rd->getCanonicalDecl());
    }
    return;
  }
  if (!value) return;
  const clang::Expr* v = value->IgnoreParenCasts();
  if (isa<ImplicitValueInitExpr>(v)) return;  // zero
  if (auto* co = dyn_cast<ConditionalOperator>(v)) {
    storeInField(f, co->getTrueExpr());
    storeInField(f, co->getFalseExpr());
    return;
  }
  if (auto* dre = dyn_cast<DeclRefExpr>(v))
    if (auto* fd = dyn_cast<FunctionDecl>(dre->getDecl())) {
      fieldFuncs[f].insert(fd->getCanonicalDecl());
      return;
    }
  if (auto* me = dyn_cast<MemberExpr>(v))
    if (me->getMemberDecl() == f) return;  // the same field of another object
  if (v->isNullPointerConstant(ctx, clang::Expr::NPC_ValueDependentIsNull)) return;
  openFields.insert(f);
}

bool Lowerer::fieldClosed(const FieldDecl* f) const {
  if (!f || openFields.count(f)) return false;
  const RecordDecl* rd = f->getParent();
  return rd && !rd->isUnion() && !openRecords.count(rd->getCanonicalDecl());
}

const FieldDecl* Lowerer::calleeField(const CallExpr* ce) {
  const clang::Expr* c = ce->getCallee()->IgnoreParenCasts();
  if (auto* uo = dyn_cast<UnaryOperator>(c); uo && uo->getOpcode() == UO_Deref) c = uo->getSubExpr()->IgnoreParenCasts();
  if (auto* me = dyn_cast<MemberExpr>(c)) return dyn_cast<FieldDecl>(me->getMemberDecl());
  return nullptr;
}

uint64_t Lowerer::fieldKeyOf(const FieldDecl* f) const {
  const clang::RecordDecl* rd = f->getParent();
  return cfa::fieldKey(ctx.getRecordType(rd).getCanonicalType().getAsString() + "." + f->getNameAsString());
}

uint64_t Lowerer::fnTypeKeyOf(QualType fnPtr) const {
  QualType t = fnPtr.getCanonicalType();
  if (const auto* pt = t->getAs<PointerType>()) t = pt->getPointeeType();
  return cfa::fieldKey("type:" + t.getCanonicalType().getUnqualifiedType().getAsString());
}

const FieldDecl* Lowerer::closedCalleeField(const CallExpr* ce) const {
  const auto* me = dyn_cast<MemberExpr>(ce->getCallee()->IgnoreParenImpCasts());
  if (!me) return nullptr;
  const auto* f = dyn_cast<FieldDecl>(me->getMemberDecl());
  return fieldClosed(f) ? f : nullptr;
}

cfa::EntryFunctions Lowerer::entryFunctionChoices(QualType fnPtr, const FieldDecl* field) {
  cfa::EntryFunctions out;
  // linked with other units (argus project), a pointer may hold a function of another
  // unit, which this unit's dispatch does not know: left any value, as the dispatch's
  // "unknown function" branch is then the honest answer
  if (linkMode()) return out;
  const auto* pt = fnPtr.getCanonicalType()->getAs<PointerType>();
  if (!pt || !pt->getPointeeType()->isFunctionType()) return out;
  QualType fnType = pt->getPointeeType();
  const auto* proto = fnType->getAs<FunctionProtoType>();
  const std::set<const FunctionDecl*>* stored = nullptr;
  static const std::set<const FunctionDecl*> kNone;
  if (field && fieldClosed(field)) {
    auto it = fieldFuncs.find(field);
    stored = it == fieldFuncs.end() ? &kNone : &it->second;
  }
  // the dispatch's rule (call(), dispatchOverFunctions) for a call through this type with
  // the type's own number of arguments; a function without a body (a library function
  // stored in the pointer) is a choice too: a call of it is the dispatch's "unknown
  // function" (unsupported), as for any value outside its targets
  std::vector<std::pair<std::string, const FunctionDecl*>> chosen;  // in name order: addresses a
  for (const FunctionDecl* decl : addressTakenFuncs) {                // body-less function gets here
    if (stored && !stored->count(decl)) continue;                     // are the same in every run
    const FunctionDecl* def = decl->getDefinition() ? decl->getDefinition() : decl;
    if (proto && !mayCallThrough(def, fnType, proto->getNumParams())) continue;
    chosen.emplace_back(decl->getNameAsString(), decl);
  }
  std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : a.second->getLocation().getRawEncoding() < b.second->getLocation().getRawEncoding();
  });
  for (const auto& [name, decl] : chosen) {
    out.addrs.push_back(addrOfFunction(decl)->value);
    out.names.push_back(name);
  }
  return out;
}

// For each defined function with an address that `accept` admits: a branch on
// `fp == &f` whose continuation `callOne` emits. Afterwards the cursor is on the branch
// where `fp` matches none of them.
void Lowerer::dispatchOverFunctions(ExprPtr fp, const std::function<bool(const FunctionDecl*)>& accept,
                                    const std::function<void(const FunctionDecl*, cfa::FuncId)>& callOne,
                                    const std::string& textPrefix) {
  cfa::LocId dispatch = cur;
  ExprPtr anyMatch;
  for (auto& [decl, addr] : funcAddrs) {
    auto it = funcIds.find(decl);
    const FunctionDecl* def = decl->getDefinition();
    // a function whose address is never taken cannot be the target
    if (it == funcIds.end() || !def || !addressTakenFuncs.count(decl) || !accept(def)) continue;
    ExprPtr match = Expr::mkBinary(BinOp::Eq, fp, constPtr(addr), 32);
    anyMatch = anyMatch ? Expr::mkBinary(BinOp::LOr, anyMatch, match, 32) : match;
    cur = dispatch;
    Edge yes = edge(EdgeKind::Assume);
    yes.cond = match;
    yes.text = textPrefix + def->getNameAsString() + "]";
    emit(yes);
    callOne(def, it->second);
  }
  cur = dispatch;
  if (anyMatch) {
    Edge no = edge(EdgeKind::Assume);
    no.cond = anyMatch;
    no.positive = false;
    emit(no);
  }
}

// ---------------------------------------------------------------- atexit


void Lowerer::declareAtexit(TranslationUnitDecl* tu) {
  bool used = false;
  for (Decl* d : tu->decls())
    if (auto* fd = dyn_cast<FunctionDecl>(d))
      if (fd->getNameAsString() == "atexit" && !fd->getDefinition() && fd->isReferenced()) used = true;
  if (!used) return;
  cfa::Function f;
  f.id = static_cast<cfa::FuncId>(prog.functions.size());
  f.name = "__argus_atexit_run";
  atexitRunner = f.id;
  prog.funcByName[f.name] = f.id;
  prog.functions.push_back(std::move(f));
  cfa::Variable t;
  t.name = t.cName = "__argus_atexit_table";
  t.width = ptrWidth;
  t.kind = cfa::VarKind::Address;
  atexitTable = prog.addVar(std::move(t));
  cfa::Variable n;
  n.name = n.cName = "__argus_atexit_count";
  n.width = 32;
  n.kind = cfa::VarKind::Global;
  atexitCount = prog.addVar(std::move(n));
}

void Lowerer::emitRunAtexit() {
  if (atexitRunner == cfa::kNoFunc) return;
  Edge c = edge(EdgeKind::Call);
  c.callee = atexitRunner;
  c.text = "run the atexit handlers";
  emit(std::move(c));
}

void Lowerer::emitReturn() {
  if (fnDecl && fnDecl->isMain()) emitRunAtexit();  // returning from main is exit(result)
  if (fnDecl && fnDecl->isMain()) endOfProgram(true, false);
  endStackObjects();
  emitTo(edge(EdgeKind::Return), fn->exit);
}

// while (count > 0) { count--; call table[count]; }  — dispatching over the defined
// functions without parameters, as an indirect call does.
void Lowerer::lowerAtexitRunner() {
  if (atexitRunner == cfa::kNoFunc) return;
  fn = &prog.functions[atexitRunner];
  fnDecl = nullptr;
  curStmt = nullptr;
  fn->entry = newLoc();
  fn->exit = newLoc();
  fn->error = newLoc();
  fn->sink = newLoc();
  cfa::LocId head = fn->entry;
  ExprPtr n = Expr::mkVar(atexitCount, 32);
  ExprPtr more = Expr::mkBinary(BinOp::Ne, n, Expr::mkConst(0, 32), 32);
  cfa::LocId finished = newLoc();
  cur = finished;
  emitTo(edge(EdgeKind::Return), fn->exit);
  cur = head;
  Edge done = edge(EdgeKind::Assume);
  done.cond = more;
  done.positive = false;
  done.text = "no atexit handler left";
  emitTo(done, finished);
  Edge next = edge(EdgeKind::Assume);
  next.cond = more;
  next.text = "next atexit handler";
  emit(next);
  Edge dec = edge(EdgeKind::Assign);
  dec.lhs = atexitCount;
  dec.rhs = Expr::mkBinary(BinOp::Sub, n, Expr::mkConst(1, 32), 32);
  emit(dec);
  cfa::VarId fp = newTemp(ptrWidth, false);
  Edge ld = edge(EdgeKind::Assign);
  ld.lhs = fp;
  ld.rhs = Expr::mkLoad(Expr::mkBinary(BinOp::Add, Expr::mkVar(atexitTable, ptrWidth),
                                       Expr::mkBinary(BinOp::Mul, Expr::convert(n, ptrWidth, false),
                                                      constPtr(ptrWidth / 8), ptrWidth),
                                       ptrWidth),
                        ptrWidth / 8);
  ld.text = "handler = atexit table[count]";
  emit(ld);
  dispatchOverFunctions(
      Expr::mkVar(fp, ptrWidth),
      [&](const FunctionDecl* def) { return def->getNumParams() == 0 && addressTakenFuncs.count(def->getCanonicalDecl()); },
      [&](const FunctionDecl* def, cfa::FuncId id) {
        Edge c = edge(EdgeKind::Call);
        c.callee = id;
        c.text = def->getNameAsString() + "() [atexit handler]";
        if (prog.functions[id].retVar) c.lhs = newTemp(prog.vars[*prog.functions[id].retVar].width, false);
        emit(c);
        emitTo(edge(EdgeKind::Blank), head);  // the back edge (a Call edge's target is its return point)
      },
      "atexit handler [calls ");
  Edge u = edge(EdgeKind::Unsupported);
  u.text = "atexit handler that is not a function of this program";
  emitTo(u, fn->sink);
  fn = nullptr;
}

}  // namespace argus::frontend
