// A tiny helper for building CFA programs by hand in tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::cfa::test {

inline ExprPtr C(uint64_t v, uint32_t w = 32) { return Expr::mkConst(v, w); }
inline ExprPtr B(BinOp op, ExprPtr a, ExprPtr b, uint32_t w = 0) {
  return Expr::mkBinary(op, std::move(a), std::move(b), w);
}

// Builds one function of a Program. Creates entry, exit, error and sink locations.
class FuncBuilder {
 public:
  FuncBuilder(Program& p, const std::string& name) : p_(p) {
    id_ = static_cast<FuncId>(p.functions.size());
    Function f;
    f.id = id_;
    f.name = name;
    p.functions.push_back(std::move(f));
    p.funcByName[name] = id_;
    fn().entry = loc();
    fn().exit = loc();
    fn().error = loc();
    fn().sink = loc();
  }

  Function& fn() { return p_.functions[id_]; }
  FuncId id() const { return id_; }
  LocId entry() { return fn().entry; }
  LocId exit() { return fn().exit; }

  LocId loc(uint32_t line = 0) {
    SourceRange r;
    r.line = line;
    return fn().addLoc(r);
  }

  // A register variable owned by this function.
  ExprPtr var(const std::string& name, uint32_t width = 32, VarKind kind = VarKind::Local,
              bool isSigned = true) {
    VarId v = p_.addVar(Variable{fn().name + "::" + name, name, width, isSigned, kind, id_});
    if (kind == VarKind::Param) fn().params.push_back(v);
    if (kind == VarKind::Return) fn().retVar = v;
    return Expr::mkVar(v, width);
  }

  uint32_t add(Edge e) { return fn().addEdge(std::move(e)); }

  uint32_t blank(LocId from, LocId to) { return add(base(EdgeKind::Blank, from, to)); }
  uint32_t assume(LocId from, LocId to, ExprPtr c, bool positive = true) {
    Edge e = base(EdgeKind::Assume, from, to);
    e.cond = std::move(c);
    e.positive = positive;
    return add(std::move(e));
  }
  uint32_t assign(LocId from, LocId to, const ExprPtr& lhs, ExprPtr rhs) {
    Edge e = base(EdgeKind::Assign, from, to);
    e.lhs = lhs->var;
    e.rhs = std::move(rhs);
    return add(std::move(e));
  }
  uint32_t havoc(LocId from, LocId to, const ExprPtr& lhs) {
    Edge e = base(EdgeKind::Havoc, from, to);
    e.lhs = lhs->var;
    e.isNondetCall = true;
    return add(std::move(e));
  }
  uint32_t store(LocId from, LocId to, ExprPtr addr, ExprPtr value) {
    Edge e = base(EdgeKind::Store, from, to);
    e.bytes = value->width / 8;
    e.addr = std::move(addr);
    e.value = std::move(value);
    return add(std::move(e));
  }
  uint32_t alloc(LocId from, LocId to, const ExprPtr& lhs, ExprPtr size, bool zero = false) {
    Edge e = base(EdgeKind::Alloc, from, to);
    e.lhs = lhs->var;
    e.size = std::move(size);
    e.zeroInit = zero;
    return add(std::move(e));
  }
  uint32_t call(LocId from, LocId to, FuncId callee, std::vector<ExprPtr> args,
                const ExprPtr& lhs = nullptr) {
    Edge e = base(EdgeKind::Call, from, to);
    e.callee = callee;
    e.args = std::move(args);
    if (lhs) e.lhs = lhs->var;
    return add(std::move(e));
  }
  uint32_t ret(LocId from) { return add(base(EdgeKind::Return, from, exit())); }
  uint32_t error(LocId from) { return add(base(EdgeKind::Error, from, fn().error)); }
  uint32_t abort(LocId from) { return add(base(EdgeKind::Abort, from, fn().sink)); }
  uint32_t unsupported(LocId from, LocId to, const std::string& what) {
    Edge e = base(EdgeKind::Unsupported, from, to);
    e.text = what;
    return add(std::move(e));
  }

 private:
  static Edge base(EdgeKind k, LocId from, LocId to) {
    Edge e;
    e.kind = k;
    e.from = from;
    e.to = to;
    return e;
  }

  Program& p_;
  FuncId id_;
};

// A global register variable.
inline ExprPtr globalVar(Program& p, const std::string& name, uint32_t width = 32) {
  VarId v = p.addVar(Variable{name, name, width, true, VarKind::Global, kNoFunc});
  return Expr::mkVar(v, width);
}

}  // namespace argus::cfa::test
