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
  return h;
}

std::shared_ptr<const ExplicitState> makeState(std::shared_ptr<const ExplicitState::Vars> vars, std::optional<uint64_t> brk,
                                               std::shared_ptr<const ExplicitState::Memory> mem) {
  auto s = std::make_shared<ExplicitState>();
  s->vars = std::move(vars);
  s->brk = brk;
  s->mem = std::move(mem);
  s->hash = hashState(*s);
  return s;
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
  return hash == e->hash && brk == e->brk && (vars == e->vars || *vars == *e->vars) && (mem == e->mem || *mem == *e->mem);
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

  explicit Ops(const cfa::Program& p) : prog(p), ownVars(p.functions.size()), amask(maskOf(p.ptrWidth)) {
    for (cfa::VarId v = 0; v < p.vars.size(); ++v)
      if (p.vars[v].func != cfa::kNoFunc && p.vars[v].func < p.functions.size()) ownVars[p.vars[v].func].push_back(v);
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

  std::vector<StatePtr> successorsForStep(const StatePtr& sp, const PrecisionPtr&, const Step& step) override {
    const auto& s = static_cast<const ExplicitState&>(*sp);
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
      case StepKind::CallEnter: {
        const cfa::Edge& e = prog.functions[step.func].edges[step.edge];
        const cfa::Function& callee = prog.functions[e.callee];
        std::vector<std::optional<uint64_t>> args;
        for (size_t i = 0; i < callee.params.size() && i < e.args.size(); ++i) args.push_back(eval(*e.args[i], s));
        for (cfa::VarId v : ownVars[e.callee]) setVar(wvars(), v, std::nullopt);
        for (size_t i = 0; i < args.size(); ++i) setVar(wvars(), callee.params[i], masked(callee.params[i], args[i]));
        break;
      }
      case StepKind::Return: {
        const cfa::Edge& call = prog.functions[step.caller].edges[step.edge];
        const cfa::Function& callee = prog.functions[step.func];
        if (call.lhs) {
          std::optional<uint64_t> rv;
          if (callee.retVar) rv = s.value(*callee.retVar);
          setVar(wvars(), *call.lhs, masked(*call.lhs, rv));
        }
        break;
      }
      case StepKind::Start:
        for (cfa::VarId p : prog.functions[step.toFunc].params) setVar(wvars(), p, std::nullopt);
        break;
      case StepKind::Edge: {
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
    if (vars == s.vars && mem == s.mem && brk == s.brk) return {sp};
    return {makeState(vars, brk, mem)};
  }
};

ExplicitCpa::ExplicitCpa(const cfa::Program& prog) : ops_(std::make_unique<Ops>(prog)) {}
ExplicitCpa::~ExplicitCpa() = default;
AbstractDomain& ExplicitCpa::domain() { return *ops_; }
TransferRelation& ExplicitCpa::transfer() { return *ops_; }
StopOperator& ExplicitCpa::stop() { return *ops_; }

StatePtr ExplicitCpa::initialState() {
  return makeState(std::make_shared<ExplicitState::Vars>(), ops_->prog.heapBase & ops_->amask,
                   std::make_shared<ExplicitState::Memory>());
}

}  // namespace argus::cpa
