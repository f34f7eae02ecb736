#include "core/algorithms/kinduction/segment_encoding.h"

#include <stdexcept>

namespace argus::algorithms {

using cfa::EdgeKind;
using smt::Term;

SegmentEncoding::SegmentEncoding(const FlatProgram& fp, smt::TermManager& tm, bool rootStart)
    : fp_(fp), prog_(*fp.prog), tm_(tm), enc_(tm, fp.prog->ptrWidth, cfa::zeroPageEnd(*fp.prog)), rootStart_(rootStart) {
  // segment DAG: all flat edges except those entering a loop head
  size_t nn = fp_.nodes.size();
  std::vector<uint32_t> indeg(nn, 0);
  for (const FlatEdge& e : fp_.edges)
    if (fp_.nodes[e.to].cut < 0) ++indeg[e.to];
  std::vector<uint32_t> ready;
  for (uint32_t n = 0; n < nn; ++n)
    if (indeg[n] == 0) ready.push_back(n);
  while (!ready.empty()) {
    uint32_t n = ready.back();
    ready.pop_back();
    order_.push_back(n);
    for (uint32_t ei : fp_.nodes[n].out) {
      uint32_t t = fp_.edges[ei].to;
      if (fp_.nodes[t].cut < 0 && --indeg[t] == 0) ready.push_back(t);
    }
  }
  if (order_.size() != nn) throw std::logic_error("StepCase: a cycle without a loop head");
}

void SegmentEncoding::start() {
  if (states.empty()) addState();
}

Term SegmentEncoding::freshState(SegState& s, const std::string& tag) {
  auto vars = std::make_shared<std::vector<Term>>();
  vars->reserve(fp_.vars.size());
  for (size_t i = 0; i < fp_.vars.size(); ++i)
    vars->push_back(tm_.freshVar(prog_.vars[fp_.vars[i].var].name + tag, tm_.bvSort(fp_.vars[i].width)));
  s.vars = vars;
  s.mem = tm_.freshVar("mem" + tag, enc_.memSort());
  s.brk = tm_.freshVar("brk" + tag, tm_.bvSort(prog_.ptrWidth));
  return tm_.freshVar("pc" + tag, tm_.bvSort(32));
}

void SegmentEncoding::addState() {
  SegState s;
  std::string tag = "@s" + std::to_string(states.size());
  Term pc = freshState(s, tag);
  states.push_back(std::move(s));
  pcs.push_back(pc);
  if (onNewState) onNewState(states.size() - 1);
}

Term SegmentEncoding::value(const SegState& s, uint32_t inst, cfa::VarId v) {
  FlatVar x = fp_.varOf(inst, v);
  if (x == UINT32_MAX) return tm_.freshVar(prog_.vars[v].name + "!undef", tm_.bvSort(prog_.vars[v].width));
  return (*s.vars)[x];
}
void SegmentEncoding::set(SegState& s, uint32_t inst, cfa::VarId v, Term t) {
  FlatVar x = fp_.varOf(inst, v);
  if (x == UINT32_MAX) return;
  auto nv = std::make_shared<std::vector<Term>>(*s.vars);
  (*nv)[x] = t;
  s.vars = nv;
}

// Post-state and guard of a flat edge from (act, s).
std::pair<Term, SegState> SegmentEncoding::transfer(const FlatEdge& fe, Term act, const SegState& in) {
  SegState s = in;
  Term guard = act;
  switch (fe.kind) {
    case FlatEdge::Kind::Start: {
      for (cfa::VarId p : prog_.functions[fp_.entry].params)
        set(s, fe.calleeInst, p, tm_.freshVar(prog_.vars[p].name + "!nondet", tm_.bvSort(prog_.vars[p].width)));
      return {guard, s};
    }
    case FlatEdge::Kind::CallEnter: {
      const cfa::Function& callee = prog_.functions[fe.edge->callee];
      encoding::Env env{[&](cfa::VarId v) { return value(in, fe.inst, v); }, in.mem};
      std::vector<Term> args;
      for (size_t i = 0; i < callee.params.size() && i < fe.edge->args.size(); ++i)
        args.push_back(enc_.encode(fe.edge->args[i], env));
      auto nv = std::make_shared<std::vector<Term>>(*s.vars);
      for (FlatVar x : fp_.instLocals[fe.calleeInst])
        (*nv)[x] = tm_.freshVar(prog_.vars[fp_.vars[x].var].name + "!undef", tm_.bvSort(fp_.vars[x].width));
      for (size_t i = 0; i < callee.params.size(); ++i) {
        FlatVar x = fp_.varOf(fe.calleeInst, callee.params[i]);
        if (x == UINT32_MAX) continue;
        (*nv)[x] = i < args.size() ? args[i] : tm_.freshVar("arg!undef", tm_.bvSort(fp_.vars[x].width));
      }
      s.vars = nv;
      return {guard, s};
    }
    case FlatEdge::Kind::Return: {
      const cfa::Function& callee = prog_.functions[fp_.instances[fe.calleeInst].func];
      if (fe.edge->lhs) {
        uint32_t w = prog_.vars[*fe.edge->lhs].width;
        Term rv = callee.retVar ? value(in, fe.calleeInst, *callee.retVar) : tm_.freshVar("noret", tm_.bvSort(w));
        set(s, fe.inst, *fe.edge->lhs, rv);
      }
      return {guard, s};
    }
    case FlatEdge::Kind::Cfa:
      break;
  }
  const cfa::Edge& e = *fe.edge;
  encoding::Env env{[&](cfa::VarId v) { return value(in, fe.inst, v); }, in.mem};
  switch (e.kind) {
    case EdgeKind::Assume: {
      Term c = enc_.nonZero(enc_.encode(e.cond, env));
      guard = tm_.mkAnd(guard, e.positive ? c : tm_.mkNot(c));
      break;
    }
    case EdgeKind::Assign:
      set(s, fe.inst, *e.lhs, enc_.encode(e.rhs, env));
      break;
    case EdgeKind::Havoc:
      set(s, fe.inst, *e.lhs, tm_.freshVar(prog_.vars[*e.lhs].name + "!nondet", tm_.bvSort(prog_.vars[*e.lhs].width)));
      break;
    case EdgeKind::Store:
      s.mem = enc_.store(s.mem, enc_.encode(e.addr, env), enc_.encode(e.value, env), e.bytes);
      break;
    case EdgeKind::Alloc: {
      Term size = enc_.encode(e.size, env);
      encoding::ExprEncoder::Allocation a = enc_.allocate(s.brk, size);
      if (a.noWrap) guard = tm_.mkAnd(guard, a.noWrap);
      set(s, fe.inst, *e.lhs, a.base);
      s.brk = a.next;
      if (e.zeroInit) {
        if (Term m = enc_.zeroFill(s.mem, a.base, size)) s.mem = m;
      }
      break;
    }
    default:
      break;  // Blank, Free, Return, Error, Abort
  }
  return {guard, s};
}

SegState SegmentEncoding::merge(std::vector<std::pair<Term, SegState>>& posts) {
  if (posts.size() == 1) return posts[0].second;
  auto pick = [&](auto get) -> Term {
    Term r = get(posts.back().second);
    bool same = true;
    for (auto& p : posts)
      if (get(p.second) != r) same = false;
    if (same) return r;
    for (size_t i = posts.size() - 1; i-- > 0;) r = tm_.mkIte(posts[i].first, get(posts[i].second), r);
    return r;
  };
  SegState s;
  auto vars = std::make_shared<std::vector<Term>>(fp_.vars.size());
  for (size_t x = 0; x < fp_.vars.size(); ++x) (*vars)[x] = pick([&](const SegState& st) { return (*st.vars)[x]; });
  s.vars = vars;
  s.mem = pick([](const SegState& st) { return st.mem; });
  s.brk = pick([](const SegState& st) { return st.brk; });
  return s;
}

// Encodes segment i from states[i]; creates states[i+1] and its defining constraints.
void SegmentEncoding::encodeNext(const std::function<void(Term)>& add) {
  size_t i = errs.size();
  const SegState& s0 = states[i];
  Term pc = pcs[i];
  size_t nn = fp_.nodes.size();
  std::vector<std::vector<std::pair<Term, SegState>>> incoming(nn);
  std::vector<std::vector<std::pair<Term, SegState>>> exits(fp_.cuts.size());
  std::vector<Term> errTaken;
  for (uint32_t n : order_) {
    const FlatNode& node = fp_.nodes[n];
    Term act;
    SegState st;
    bool atRoot = rootStart_ && i == 0 && n == fp_.root;  // only s_0 may be the program start
    if (node.cut >= 0 || atRoot) {
      act = node.cut >= 0 ? tm_.mkEq(pc, tm_.bvVal(static_cast<uint64_t>(node.cut), 32)) : tm_.falseTerm();
      if (atRoot) act = tm_.mkOr(act, tm_.mkEq(pc, tm_.bvVal(rootPc(), 32)));
      st = s0;
    } else {
      auto& in = incoming[n];
      if (in.empty()) continue;
      std::vector<Term> takens;
      for (auto& p : in) takens.push_back(p.first);
      act = tm_.mkOr(takens);
      st = merge(in);
      in.clear();
      in.shrink_to_fit();
    }
    if (act->isFalse()) continue;
    for (uint32_t ei : node.out) {
      const FlatEdge& fe = fp_.edges[ei];
      if (fe.kind == FlatEdge::Kind::Cfa &&
          (fe.edge->kind == EdgeKind::Error || fe.edge->kind == EdgeKind::Unsupported)) {
        errTaken.push_back(act);  // an unsupported construct counts as bad: the path may go on to an error
        continue;
      }
      if (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Alloc && fe.edge->zeroInit) {
        encoding::Env env{[&](cfa::VarId v) { return value(st, fe.inst, v); }, st.mem};
        if (!encoding::ExprEncoder::canZeroFill(enc_.encode(fe.edge->size, env))) {
          errTaken.push_back(act);  // not encodable (unsupported in the unwinding as well)
          continue;
        }
      }
      if (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Abort) continue;
      auto post = transfer(fe, act, st);
      if (post.first->isFalse()) continue;
      int cut = fp_.nodes[fe.to].cut;
      if (cut >= 0) exits[cut].push_back(std::move(post));
      else incoming[fe.to].push_back(std::move(post));
    }
  }
  addState();
  const SegState& next = states.back();
  Term npc = pcs.back();
  std::vector<Term> reach;
  for (size_t c = 0; c < exits.size(); ++c) {
    if (exits[c].empty()) continue;
    std::vector<Term> takens;
    for (auto& p : exits[c]) takens.push_back(p.first);
    Term taken = tm_.mkOr(takens);
    SegState m = merge(exits[c]);
    std::vector<Term> eqs{tm_.mkEq(npc, tm_.bvVal(c, 32))};
    for (size_t x = 0; x < fp_.vars.size(); ++x) eqs.push_back(tm_.mkEq((*next.vars)[x], (*m.vars)[x]));
    eqs.push_back(tm_.mkEq(next.mem, m.mem));
    eqs.push_back(tm_.mkEq(next.brk, m.brk));
    add(tm_.mkImplies(taken, tm_.mkAnd(eqs)));
    reach.push_back(taken);
  }
  errs.push_back(tm_.mkOr(errTaken));
  reaches.push_back(tm_.mkOr(reach));
}


Term SegmentEncoding::affineAt(const AffineInvariant& inv, size_t i) {
  const SegState& s = states[i];
  std::vector<Term> conj;
  for (size_t c = 0; c < inv.atCut.size() && c < fp_.cuts.size(); ++c) {
    if (inv.atCut[c].empty()) continue;
    std::vector<Term> eqs;
    for (const AffineEq& eq : inv.atCut[c]) {
      Term sum = nullptr;
      for (const auto& [v, k] : eq.terms) {
        Term x = (*s.vars)[v];
        Term t = k == 1 ? x : tm_.bvMul(tm_.bvVal(static_cast<uint64_t>(k), eq.width), x);
        sum = sum ? tm_.bvAdd(sum, t) : t;
      }
      if (sum) eqs.push_back(tm_.mkEq(sum, tm_.bvVal(static_cast<uint64_t>(eq.rhs), eq.width)));
    }
    conj.push_back(tm_.mkImplies(tm_.mkEq(pcs[i], tm_.bvVal(c, 32)), tm_.mkAnd(eqs)));
  }
  return tm_.mkAnd(conj);
}

}  // namespace argus::algorithms
