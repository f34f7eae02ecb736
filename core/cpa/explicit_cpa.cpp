#include "core/cpa/explicit_cpa.h"

#include <algorithm>
#include <sstream>

#include "core/result/replay.h"

namespace argus::cpa {

namespace {

uint64_t maskOf(uint32_t w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }

size_t hashState(const ExplicitState& s) {
  size_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (auto& [v, x] : *s.vars) {
    mix(v);
    mix(x);
  }
  mix(s.brk ? *s.brk + 1 : 0);
  mix(s.mem->size());
  mix(s.issue.size());
  return h;
}

std::shared_ptr<const ExplicitState> makeState(std::shared_ptr<const ExplicitState::Vars> vars, std::optional<uint64_t> brk,
                                               std::shared_ptr<const ExplicitState::Memory> mem, std::string issue = "",
                                               PathLimit issueKind = PathLimit::None) {
  auto s = std::make_shared<ExplicitState>();
  s->vars = std::move(vars);
  s->brk = brk;
  s->mem = std::move(mem);
  s->issue = std::move(issue);
  s->issueKind = issueKind;
  s->hash = hashState(*s);
  return s;
}

std::string rangeWhere(const cfa::SourceRange& r) {
  std::string file = r.file;
  if (auto p = file.find_last_of('/'); p != std::string::npos) file = file.substr(p + 1);
  return file + ":" + std::to_string(r.line);
}

const char* opSymbol(cfa::BinOp op) {
  switch (op) {
    case cfa::BinOp::Add: return "+";
    case cfa::BinOp::Sub: return "-";
    case cfa::BinOp::Mul: return "*";
    case cfa::BinOp::SDiv:
    case cfa::BinOp::UDiv: return "/";
    case cfa::BinOp::SRem:
    case cfa::BinOp::URem: return "%";
    case cfa::BinOp::Shl: return "<<";
    case cfa::BinOp::LShr:
    case cfa::BinOp::AShr: return ">>";
    case cfa::BinOp::And: return "&";
    case cfa::BinOp::Or: return "|";
    case cfa::BinOp::Xor: return "^";
    case cfa::BinOp::Eq: return "==";
    case cfa::BinOp::Ne: return "!=";
    case cfa::BinOp::SLt:
    case cfa::BinOp::ULt: return "<";
    case cfa::BinOp::SLe:
    case cfa::BinOp::ULe: return "<=";
    case cfa::BinOp::LAnd: return "&&";
    case cfa::BinOp::LOr: return "||";
    case cfa::BinOp::FAdd: return "+";
    case cfa::BinOp::FSub: return "-";
    case cfa::BinOp::FMul: return "*";
    case cfa::BinOp::FDiv: return "/";
    case cfa::BinOp::FEq: return "==";
    case cfa::BinOp::FLt: return "<";
    case cfa::BinOp::FLe: return "<=";
    case cfa::BinOp::FRem: return "remainder";
  }
  return "?";
}

// C-like text of an expression for the monitor's messages ("x * y"): casts are left
// out, constants in decimal (negative when the sign bit is set).
void pretty(std::string& out, const cfa::Expr& e, const std::vector<std::string>& names, bool top) {
  switch (e.kind) {
    case cfa::ExprKind::Const: {
      uint64_t v = e.width >= 64 ? e.value : e.value & ((uint64_t{1} << e.width) - 1);
      if (e.width >= 2 && e.width <= 64 && ((v >> (e.width - 1)) & 1) && e.width > 1) {
        int64_t sv = e.width == 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v | (~uint64_t{0} << e.width));
        out += std::to_string(sv);
      } else {
        out += std::to_string(v);
      }
      return;
    }
    case cfa::ExprKind::Var: out += e.var < names.size() ? names[e.var] : "v" + std::to_string(e.var); return;
    case cfa::ExprKind::Load:
      out += "*(";
      pretty(out, *e.ops[0], names, true);
      out += ")";
      return;
    case cfa::ExprKind::Unary:
      out += e.unop == cfa::UnOp::Neg ? "-" : e.unop == cfa::UnOp::BitNot ? "~" : "!";
      pretty(out, *e.ops[0], names, false);
      return;
    case cfa::ExprKind::Binary:
      if (!top) out += "(";
      pretty(out, *e.ops[0], names, false);
      out += std::string(" ") + opSymbol(e.binop) + " ";
      pretty(out, *e.ops[1], names, false);
      if (!top) out += ")";
      return;
    case cfa::ExprKind::Cast: pretty(out, *e.ops[0], names, top); return;
    case cfa::ExprKind::Ite:
      out += "(";
      pretty(out, *e.ops[0], names, false);
      out += " ? ";
      pretty(out, *e.ops[1], names, false);
      out += " : ";
      pretty(out, *e.ops[2], names, false);
      out += ")";
      return;
  }
}

std::string pretty(const cfa::Expr& e, const std::vector<std::string>& names) {
  std::string out;
  pretty(out, e, names, true);
  return out;
}

int64_t asSigned(uint64_t v, uint32_t w) {
  if (w >= 64) return static_cast<int64_t>(v);
  v &= (uint64_t{1} << w) - 1;
  if ((v >> (w - 1)) & 1) v |= ~uint64_t{0} << w;
  return static_cast<int64_t>(v);
}

}  // namespace

std::optional<uint64_t> ExplicitState::value(cfa::VarId v) const {
  auto it = std::lower_bound(vars->begin(), vars->end(), v, [](const auto& p, cfa::VarId k) { return p.first < k; });
  if (it != vars->end() && it->first == v) return it->second;
  return std::nullopt;
}

bool ExplicitState::equals(const AbstractState& o) const {
  auto* e = dynamic_cast<const ExplicitState*>(&o);
  if (!e) return false;
  if (e == this) return true;
  return hash == e->hash && brk == e->brk && issue == e->issue && (vars == e->vars || *vars == *e->vars) &&
         (mem == e->mem || *mem == *e->mem);
}

bool ExplicitState::entails(const ExplicitState& w) const {
  if (&w == this) return true;
  if (w.brk && brk != w.brk) return false;
  if (vars != w.vars) {
    if (w.vars->size() > vars->size()) return false;
    // both sorted: every entry of w in this
    auto it = vars->begin();
    for (auto& [v, x] : *w.vars) {
      while (it != vars->end() && it->first < v) ++it;
      if (it == vars->end() || it->first != v || it->second != x) return false;
    }
  }
  if (mem != w.mem) {
    if (w.mem->size() > mem->size()) return false;
    for (auto& [a, b] : *w.mem) {
      auto it = mem->find(a);
      if (it == mem->end() || it->second != b) return false;
    }
  }
  return true;
}

std::string ExplicitState::str() const {
  std::ostringstream o;
  o << "{";
  bool first = true;
  for (auto& [v, x] : *vars) {
    o << (first ? "" : ", ") << "v" << v << "=" << x;
    first = false;
  }
  if (brk) o << (first ? "" : ", ") << "brk=" << *brk;
  o << "; " << mem->size() << " known bytes}";
  return o.str();
}

struct ExplicitCpa::Ops final : AbstractDomain, TransferRelation, StopOperator {
  const cfa::Program& prog;
  std::vector<std::vector<cfa::VarId>> ownVars;  // per function: variables it owns
  uint64_t amask;
  uint64_t zeroPage;  // cfa::zeroPageEnd: reads below are 0, writes lost
  bool monitor;
  std::vector<std::string> names;  // for the monitor's messages

  Ops(const cfa::Program& p, bool monitor)
      : prog(p), ownVars(p.functions.size()), amask(maskOf(p.ptrWidth)), zeroPage(cfa::zeroPageEnd(p)), monitor(monitor) {
    for (cfa::VarId v = 0; v < p.vars.size(); ++v)
      if (p.vars[v].func != cfa::kNoFunc && p.vars[v].func < p.functions.size()) ownVars[p.vars[v].func].push_back(v);
    if (monitor)
      for (const cfa::Variable& v : p.vars) names.push_back(v.cName.empty() ? v.name : v.cName);
  }

  // Overflow monitoring: a non-linear operation in `e` the state cannot evaluate.
  std::optional<std::string> nonLinear(const cfa::ExprPtr& e, const ExplicitState& s) const {
    if (e->kind == cfa::ExprKind::Binary) {
      cfa::BinOp op = e->binop;
      bool nl = op == cfa::BinOp::Mul || op == cfa::BinOp::SDiv || op == cfa::BinOp::UDiv || op == cfa::BinOp::SRem ||
                op == cfa::BinOp::URem;
      if (nl && e->ops[0]->kind != cfa::ExprKind::Const && e->ops[1]->kind != cfa::ExprKind::Const && !eval(*e, s))
        return pretty(*e, names);
    }
    for (const cfa::ExprPtr& c : e->ops)
      if (c)
        if (auto r = nonLinear(c, s)) return r;
    return std::nullopt;
  }
  bool signedOperand(const cfa::Expr& e) const {
    if (e.kind == cfa::ExprKind::Const) return true;
    if (e.kind == cfa::ExprKind::Var) return prog.vars[e.var].isSigned;
    if (e.kind == cfa::ExprKind::Cast) return e.cast == cfa::CastKind::SExt;
    return false;
  }
  // Overflow monitoring: `lhs := a op b` overflows the signed variable lhs.
  std::optional<std::string> signedOverflow(cfa::VarId lhs, const cfa::ExprPtr& rhs, const ExplicitState& s) const {
    const cfa::Variable& x = prog.vars[lhs];
    if (!x.isSigned || rhs->kind != cfa::ExprKind::Binary || rhs->width != x.width || x.width > 64 || x.width < 2)
      return std::nullopt;
    cfa::BinOp op = rhs->binop;
    if (op != cfa::BinOp::Add && op != cfa::BinOp::Sub && op != cfa::BinOp::Mul) return std::nullopt;
    if (!signedOperand(*rhs->ops[0]) || !signedOperand(*rhs->ops[1])) return std::nullopt;
    auto a = eval(*rhs->ops[0], s), b = eval(*rhs->ops[1], s);
    if (!a || !b) return std::nullopt;
    __int128 va = asSigned(*a, x.width), vb = asSigned(*b, x.width);
    __int128 r = op == cfa::BinOp::Add ? va + vb : op == cfa::BinOp::Sub ? va - vb : va * vb;
    __int128 lo = -(static_cast<__int128>(1) << (x.width - 1)), hi = (static_cast<__int128>(1) << (x.width - 1)) - 1;
    if (r >= lo && r <= hi) return std::nullopt;
    return pretty(*rhs, names);
  }

  bool isLessOrEqual(const AbstractState& a, const AbstractState& b) const override {
    return static_cast<const ExplicitState&>(a).entails(static_cast<const ExplicitState&>(b));
  }
  StatePtr join(const StatePtr&, const StatePtr& b) const override { return b; }  // never used (merge-sep)

  bool stop(const StatePtr& e, std::span<const StatePtr> reached, const PrecisionPtr&) override {
    for (const StatePtr& r : reached)
      if (isLessOrEqual(*e, *r)) return true;
    return false;
  }

  // Partial evaluation: nullopt = top.
  std::optional<uint64_t> eval(const cfa::Expr& e, const ExplicitState& s) const {
    // values wider than 64 bits (__int128) are not tracked: top, and so is anything
    // computed from one
    if (e.width > 64) return std::nullopt;
    for (const cfa::ExprPtr& o : e.ops)
      if (o && o->width > 64 && e.kind != cfa::ExprKind::Ite) return std::nullopt;
    const uint64_t m = maskOf(e.width);
    switch (e.kind) {
      case cfa::ExprKind::Const: return e.value & m;
      case cfa::ExprKind::Var: {
        auto v = s.value(e.var);
        if (!v) return std::nullopt;
        return *v & m;
      }
      case cfa::ExprKind::Load: {
        auto addr = eval(*e.ops.at(0), s);
        if (!addr) return std::nullopt;
        uint32_t bytes = (e.width + 7) / 8;
        uint64_t v = 0;
        for (uint32_t i = 0; i < bytes && i < 8; ++i) {
          if (((*addr + i) & amask) < zeroPage) continue;  // the zero page: a zero byte
          auto it = s.mem->find((*addr + i) & amask);
          if (it == s.mem->end()) return std::nullopt;
          v |= uint64_t{it->second} << (8 * i);
        }
        return v & m;
      }
      case cfa::ExprKind::Unary: {
        auto a = eval(*e.ops.at(0), s);
        if (!a) return std::nullopt;
        return result::evalUnary(e.unop, *a, e.width);
      }
      case cfa::ExprKind::Binary: {
        const cfa::Expr& a = *e.ops.at(0);
        auto va = eval(a, s);
        auto vb = eval(*e.ops.at(1), s);
        if (va && vb) return result::evalBinary(e.binop, *va, *vb, a.width, e.width);
        // absorbing operands keep the result known
        if (e.binop == cfa::BinOp::LAnd && ((va && *va == 0) || (vb && *vb == 0))) return 0;
        if (e.binop == cfa::BinOp::LOr && ((va && *va != 0) || (vb && *vb != 0))) return 1;
        if ((e.binop == cfa::BinOp::And || e.binop == cfa::BinOp::Mul) && ((va && *va == 0) || (vb && *vb == 0))) return 0;
        return std::nullopt;
      }
      case cfa::ExprKind::Cast: {
        const cfa::Expr& a = *e.ops.at(0);
        auto v = eval(a, s);
        if (!v) return std::nullopt;
        return result::evalCast(e.cast, *v, a.width, e.width);
      }
      case cfa::ExprKind::Ite: {
        auto c = eval(*e.ops.at(0), s);
        if (c) {
          auto r = eval(*e.ops.at(*c != 0 ? 1 : 2), s);
          if (!r) return std::nullopt;
          return *r & m;
        }
        auto t = eval(*e.ops.at(1), s);
        auto f = eval(*e.ops.at(2), s);
        if (t && f && *t == *f) return *t & m;
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  static void setVar(ExplicitState::Vars& vs, cfa::VarId v, std::optional<uint64_t> x) {
    auto it = std::lower_bound(vs.begin(), vs.end(), v, [](const auto& p, cfa::VarId k) { return p.first < k; });
    bool present = it != vs.end() && it->first == v;
    if (x) {
      if (present) it->second = *x;
      else vs.insert(it, {v, *x});
    } else if (present) {
      vs.erase(it);
    }
  }

  std::optional<uint64_t> masked(cfa::VarId v, std::optional<uint64_t> x) const {
    if (!x) return x;
    return *x & maskOf(prog.vars[v].width);
  }

  // The fact `v == c` learned from an assumption, if the condition has that shape.
  std::optional<std::pair<cfa::VarId, uint64_t>> equalityFact(const cfa::Expr& cond, bool positive) const {
    const cfa::Expr* c = &cond;
    // peel !x (flips the sense) and bool-casts
    while (true) {
      if (c->kind == cfa::ExprKind::Unary && c->unop == cfa::UnOp::LogNot) {
        positive = !positive;
        c = c->ops[0].get();
      } else if (c->kind == cfa::ExprKind::Cast && c->cast == cfa::CastKind::ToBool) {
        c = c->ops[0].get();
      } else {
        break;
      }
    }
    if (c->kind != cfa::ExprKind::Binary) return std::nullopt;
    bool eq = (c->binop == cfa::BinOp::Eq && positive) || (c->binop == cfa::BinOp::Ne && !positive);
    if (!eq) return std::nullopt;
    const cfa::Expr* a = c->ops[0].get();
    const cfa::Expr* b = c->ops[1].get();
    if (a->kind == cfa::ExprKind::Const) std::swap(a, b);
    if (a->kind != cfa::ExprKind::Var || b->kind != cfa::ExprKind::Const) return std::nullopt;
    if (a->width != prog.vars[a->var].width) return std::nullopt;
    return std::make_pair(a->var, b->value & maskOf(a->width));
  }

  std::vector<StatePtr> successorsForStep(const StatePtr& sp, const PrecisionPtr&, const cfa::Step& step) override {
    const auto& s = static_cast<const ExplicitState&>(*sp);
    std::string issue;
    PathLimit issueKind = PathLimit::None;
    if (monitor && step.kind == cfa::StepKind::Edge) {
      const cfa::Edge& e = prog.functions[step.func].edges[step.edge];
      std::optional<std::string> nl, ov;
      if (e.kind == cfa::EdgeKind::Assign) {
        ov = signedOverflow(*e.lhs, e.rhs, s);
        if (!ov) nl = nonLinear(e.rhs, s);
      } else if (e.kind == cfa::EdgeKind::Assume) {
        nl = nonLinear(e.cond, s);
      }
      if (ov) {
        issue = "the path through " + rangeWhere(e.range) + " where " + *ov + " overflows (signed, " +
                std::to_string(prog.vars[*e.lhs].width) + " bits)";
        issueKind = PathLimit::Overflow;
      } else if (nl) {
        issue = "the path through " + rangeWhere(e.range) + " where " + *nl + " is non-linear";
        issueKind = PathLimit::NonLinear;
      }
    }
    std::shared_ptr<const ExplicitState::Vars> vars = s.vars;
    std::optional<uint64_t> brk = s.brk;
    std::shared_ptr<const ExplicitState::Memory> mem = s.mem;
    std::shared_ptr<ExplicitState::Vars> nv;
    auto wvars = [&]() -> ExplicitState::Vars& {
      if (!nv) {
        nv = std::make_shared<ExplicitState::Vars>(*vars);
        vars = nv;
      }
      return *nv;
    };
    std::shared_ptr<ExplicitState::Memory> nm;
    auto wmem = [&]() -> ExplicitState::Memory& {
      if (!nm) {
        nm = std::make_shared<ExplicitState::Memory>(*mem);
        mem = nm;
      }
      return *nm;
    };
    switch (step.kind) {
      case cfa::StepKind::CallEnter: {
        const cfa::Edge& e = prog.functions[step.func].edges[step.edge];
        const cfa::Function& callee = prog.functions[e.callee];
        std::vector<std::optional<uint64_t>> args;
        for (size_t i = 0; i < callee.params.size() && i < e.args.size(); ++i) args.push_back(eval(*e.args[i], s));
        for (cfa::VarId v : ownVars[e.callee]) setVar(wvars(), v, std::nullopt);
        for (size_t i = 0; i < args.size(); ++i) setVar(wvars(), callee.params[i], masked(callee.params[i], args[i]));
        break;
      }
      case cfa::StepKind::Return: {
        const cfa::Edge& call = prog.functions[step.caller].edges[step.edge];
        const cfa::Function& callee = prog.functions[step.func];
        if (call.lhs) {
          std::optional<uint64_t> rv;
          if (callee.retVar) rv = s.value(*callee.retVar);
          setVar(wvars(), *call.lhs, masked(*call.lhs, rv));
        }
        break;
      }
      case cfa::StepKind::Start:
        for (cfa::VarId p : prog.functions[step.toFunc].params) setVar(wvars(), p, std::nullopt);
        break;
      case cfa::StepKind::Edge: {
        const cfa::Edge& e = prog.functions[step.func].edges[step.edge];
        switch (e.kind) {
          case cfa::EdgeKind::Assume: {
            auto c = eval(*e.cond, s);
            if (c) {
              if ((*c != 0) != e.positive) return {};
            } else if (auto f = equalityFact(*e.cond, e.positive)) {
              setVar(wvars(), f->first, f->second);
            }
            break;
          }
          case cfa::EdgeKind::Assign: setVar(wvars(), *e.lhs, masked(*e.lhs, eval(*e.rhs, s))); break;
          case cfa::EdgeKind::Havoc: setVar(wvars(), *e.lhs, std::nullopt); break;
          case cfa::EdgeKind::Alloc: {
            auto size = eval(*e.size, s);
            std::optional<uint64_t> base = brk;
            if (base && size) {
              uint64_t sz = *size & amask;
              uint64_t inc = ((sz == 0 ? 1 : sz) + 7) & ~uint64_t{7} & amask;
              brk = (*base + inc) & amask;
              if (e.zeroInit) {
                if (sz <= kMaxTrackedZeroInit) {
                  auto& m = wmem();
                  for (uint64_t i = 0; i < sz; ++i) m[(*base + i) & amask] = 0;
                } else {
                  // forget what the block held before (cannot be tracked byte by byte)
                  auto& m = wmem();
                  for (auto it = m.begin(); it != m.end();)
                    it = ((it->first - *base) & amask) < sz ? m.erase(it) : std::next(it);
                }
              }
            } else {
              brk.reset();
              if (e.zeroInit && !mem->empty()) wmem().clear();  // unknown block: any byte may be zeroed
            }
            if (e.lhs) setVar(wvars(), *e.lhs, masked(*e.lhs, base));
            break;
          }
          case cfa::EdgeKind::Store: {
            auto addr = eval(*e.addr, s);
            auto val = eval(*e.value, s);
            if (!addr) {
              if (!mem->empty()) wmem().clear();
              break;
            }
            auto& m = wmem();
            for (uint32_t i = 0; i < e.bytes; ++i) {
              uint64_t a = (*addr + i) & amask;
              if (a < zeroPage) continue;  // lost (the zero page)
              if (val && i < 8) m[a] = static_cast<uint8_t>(*val >> (8 * i));
              else m.erase(a);
            }
            break;
          }
          case cfa::EdgeKind::Call:  // not a CallEnter step (no callee body): the result is unknown
            if (e.lhs) setVar(wvars(), *e.lhs, std::nullopt);
            break;
          case cfa::EdgeKind::Blank:
          case cfa::EdgeKind::Free:
          case cfa::EdgeKind::Return:
          case cfa::EdgeKind::Error:
          case cfa::EdgeKind::Abort:
          case cfa::EdgeKind::Unsupported: break;
        }
        break;
      }
    }
    if (vars == s.vars && mem == s.mem && brk == s.brk && issue == s.issue) return {sp};
    return {makeState(vars, brk, mem, std::move(issue), issueKind)};
  }
};

ExplicitCpa::ExplicitCpa(const cfa::Program& prog, bool monitorArithmetic)
    : ops_(std::make_unique<Ops>(prog, monitorArithmetic)) {}
ExplicitCpa::~ExplicitCpa() = default;
AbstractDomain& ExplicitCpa::domain() { return *ops_; }
TransferRelation& ExplicitCpa::transfer() { return *ops_; }
StopOperator& ExplicitCpa::stop() { return *ops_; }

StatePtr ExplicitCpa::initialState() {
  return makeState(std::make_shared<ExplicitState::Vars>(), ops_->prog.heapBase & ops_->amask,
                   std::make_shared<ExplicitState::Memory>());
}

}  // namespace argus::cpa
