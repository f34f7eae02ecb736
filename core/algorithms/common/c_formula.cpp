#include "core/algorithms/common/c_formula.h"

#include <map>
#include <optional>

namespace argus::algorithms {

namespace {

using smt::Kind;
using smt::Term;

const char* unsignedType(uint32_t w) {
  switch (w) {
    case 8: return "unsigned char";
    case 16: return "unsigned short";
    case 32: return "unsigned int";
    case 64: return "unsigned long long";
    default: return nullptr;
  }
}
const char* signedType(uint32_t w) {
  switch (w) {
    case 8: return "signed char";
    case 16: return "short";
    case 32: return "int";
    case 64: return "long long";
    default: return nullptr;
  }
}

class Printer {
 public:
  Printer(const cfa::Program& prog, cfa::FuncId func) : prog_(prog) {
    // C names visible at the location: the function's own variables over the globals;
    // a name two of them share is ambiguous (block scopes, shadowing) and not written
    std::map<std::string, int> count;
    for (cfa::VarId v = 0; v < prog.vars.size(); ++v) {
      const cfa::Variable& var = prog.vars[v];
      if (var.cName.empty() || (var.func != func && var.func != cfa::kNoFunc)) continue;
      ++count[var.cName + (var.func == cfa::kNoFunc ? "#g" : "#l")];
    }
    for (cfa::VarId v = 0; v < prog.vars.size(); ++v) {
      const cfa::Variable& var = prog.vars[v];
      if (var.cName.empty() || (var.func != func && var.func != cfa::kNoFunc)) continue;
      bool global = var.func == cfa::kNoFunc;
      if (count[var.cName + (global ? "#g" : "#l")] != 1) continue;
      if (global && count.count(var.cName + "#l")) continue;  // shadowed by a local
      if (var.kind == cfa::VarKind::Address || var.shape != cfa::ValueShape::Integer) continue;
      byName_[var.name] = v;
    }
  }

  std::string formula(Term t, bool positive) {
    switch (t->kind) {
      case Kind::BoolConst: return t->isTrue() ? "1" : "0";
      case Kind::Not: return "!(" + formula(t->children[0], !positive) + ")";
      case Kind::And:
      case Kind::Or: {
        std::string s;
        for (Term c : t->children) s += (s.empty() ? "(" : t->kind == Kind::And ? " && " : " || ") + formula(c, positive);
        return s.empty() ? (t->kind == Kind::And ? "1" : "0") : s + ")";
      }
      case Kind::Implies:
        return "(!(" + formula(t->children[0], !positive) + ") || " + formula(t->children[1], positive) + ")";
      default: break;
    }
    std::optional<std::string> a = atom(t);
    if (a) return *a;
    return positive ? "1" : "0";
  }

 private:
  // A formula written exactly, or nothing (for conditions, used in both polarities).
  std::optional<std::string> exact(Term t) {
    switch (t->kind) {
      case Kind::BoolConst: return std::string(t->isTrue() ? "1" : "0");
      case Kind::Not: {
        auto c = exact(t->children[0]);
        if (!c) return std::nullopt;
        return "!(" + *c + ")";
      }
      case Kind::And:
      case Kind::Or: {
        std::string s;
        for (Term c : t->children) {
          auto x = exact(c);
          if (!x) return std::nullopt;
          s += (s.empty() ? "(" : t->kind == Kind::And ? " && " : " || ") + *x;
        }
        return s.empty() ? std::string(t->kind == Kind::And ? "1" : "0") : s + ")";
      }
      default: return atom(t);
    }
  }

  std::optional<std::string> atom(Term t) {
    if (t->children.size() != 2) return std::nullopt;
    Term l = t->children[0], r = t->children[1];
    if (!l->sort->isBV() || !r->sort->isBV() || l->width() != r->width()) return std::nullopt;
    uint32_t w = l->width();
    auto a = bv(l), b = bv(r);
    if (!a || !b) return std::nullopt;
    const char* st = signedType(w);
    switch (t->kind) {
      case Kind::Eq: return "(" + *a + " == " + *b + ")";
      case Kind::BVUlt: return "(" + *a + " < " + *b + ")";
      case Kind::BVUle: return "(" + *a + " <= " + *b + ")";
      case Kind::BVSlt: return "((" + std::string(st) + ")" + *a + " < (" + st + ")" + *b + ")";
      case Kind::BVSle: return "((" + std::string(st) + ")" + *a + " <= (" + st + ")" + *b + ")";
      default: return std::nullopt;
    }
  }

  // The value of bit-vector term t as a C expression of the unsigned type of its width.
  std::optional<std::string> bv(Term t) {
    uint32_t w = t->width();
    const char* ut = unsignedType(w);
    if (!ut) return std::nullopt;
    std::string cast = std::string("(") + ut + ")";
    switch (t->kind) {
      case Kind::BVConst:
        return w == 64 ? std::to_string(t->value) + "ull" : cast + std::to_string(t->value) + "u";
      case Kind::Var: {
        auto it = byName_.find(t->name);
        if (it == byName_.end() || prog_.vars[it->second].width != w) return std::nullopt;
        return cast + prog_.vars[it->second].cName;
      }
      case Kind::BVAdd:
      case Kind::BVSub:
      case Kind::BVMul:
      case Kind::BVAnd:
      case Kind::BVOr:
      case Kind::BVXor: {
        const char* op = t->kind == Kind::BVAdd ? " + " : t->kind == Kind::BVSub ? " - " : t->kind == Kind::BVMul ? " * "
                         : t->kind == Kind::BVAnd ? " & " : t->kind == Kind::BVOr ? " | " : " ^ ";
        // computed in at least unsigned int: no promotion to (signed) int
        std::string wide = w == 64 ? "(unsigned long long)" : "(unsigned int)";
        std::string s;
        for (Term c : t->children) {
          auto x = bv(c);
          if (!x) return std::nullopt;
          s += (s.empty() ? "" : op) + wide + *x;
        }
        return cast + "(" + s + ")";
      }
      case Kind::BVUDiv:
      case Kind::BVURem:
      case Kind::BVShl:
      case Kind::BVLShr: {  // by a constant only: a nonzero divisor, a shift within the width
        Term d = t->children[1];
        bool shift = t->kind == Kind::BVShl || t->kind == Kind::BVLShr;
        if (d->kind != Kind::BVConst || (shift ? d->value >= w : d->value == 0)) return std::nullopt;
        auto x = bv(t->children[0]);
        if (!x) return std::nullopt;
        const char* op = t->kind == Kind::BVUDiv ? " / " : t->kind == Kind::BVURem ? " % "
                         : t->kind == Kind::BVShl ? " << " : " >> ";
        std::string wide = w == 64 ? "(unsigned long long)" : "(unsigned int)";
        return cast + "(" + wide + *x + op + std::to_string(d->value) + (w == 64 ? "ull" : "u") + ")";
      }
      case Kind::BVNeg: {
        auto x = bv(t->children[0]);
        if (!x) return std::nullopt;
        return cast + "(" + (w == 64 ? std::string("0ull - ") : std::string("0u - (unsigned int)")) + *x + ")";
      }
      case Kind::Ite: {  // C's truth values as ints: (c ? 1 : 0)
        auto c = exact(t->children[0]);
        auto x = bv(t->children[1]), y = bv(t->children[2]);
        if (!c || !x || !y) return std::nullopt;
        return cast + "(" + *c + " ? " + *x + " : " + *y + ")";
      }
      case Kind::ZeroExt: {
        auto x = bv(t->children[0]);
        if (!x) return std::nullopt;
        return cast + *x;
      }
      case Kind::SignExt: {
        auto x = bv(t->children[0]);
        const char* narrow = signedType(t->children[0]->width());
        if (!x || !narrow) return std::nullopt;
        return cast + "(" + narrow + ")" + *x;
      }
      case Kind::Extract: {
        if (t->p1 != 0) return std::nullopt;
        auto x = bv(t->children[0]);
        if (!x) return std::nullopt;
        return cast + *x;
      }
      default: return std::nullopt;
    }
  }

  const cfa::Program& prog_;
  std::map<std::string, cfa::VarId> byName_;  // unindexed SMT name -> variable
};

}  // namespace

std::string cFormula(const cfa::Program& prog, cfa::FuncId func, smt::Term f) {
  return Printer(prog, func).formula(f, true);
}

}  // namespace argus::algorithms
