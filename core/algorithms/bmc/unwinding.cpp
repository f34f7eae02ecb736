#include "core/support/scc.h"
#include "core/algorithms/bmc/unwinding.h"

#include "core/cfa/accelerate.h"
#include "core/cfa/closure.h"
#include "core/cfa/dead_ends.h"
#include "core/cfa/loops.h"
#include "core/support/deadline.h"

#include <algorithm>
#include <deque>
#include <new>
#include <stdexcept>

namespace argus::algorithms {

using cfa::Edge;
using cfa::EdgeKind;
using smt::Term;

// Loop structure of one function: DFS back edges, natural loop bodies, and which
// locations may become merge points.
struct LoopInfo {
  std::vector<bool> backEdge;                    // per edge index
  std::vector<std::vector<cfa::LocId>> loopsOf;  // per location: heads of loops containing it (sorted)
  std::vector<bool> mayMerge;                    // per location
  std::vector<cfa::VarId> assignedLocals;        // locals written in the function
  // Live locals per location: read on some path from there before being written. A join
  // need not merge a dead local (no path reads it), which keeps the merges at loop exits
  // small: after a state-machine loop most of its locals are dead.
  std::unordered_map<cfa::VarId, uint32_t> localIndex;
  std::vector<std::vector<bool>> liveAt;         // [location][localIndex]
  bool live(cfa::LocId l, cfa::VarId v) const {
    auto it = localIndex.find(v);
    return it == localIndex.end() || liveAt[l][it->second];
  }
};

static void collectVars(const cfa::ExprPtr& e, std::vector<cfa::VarId>& out) {
  if (!e) return;
  if (e->kind == cfa::ExprKind::Var) out.push_back(e->var);
  for (const auto& o : e->ops) collectVars(o, out);
}

// Backward may-liveness of f's locals (round-robin to a fixpoint). Memory-resident
// objects are not variables, so loads and stores only read the locals in their address
// and value expressions. Over-approximating is safe: a live local is merged as before.
static void computeLiveness(const cfa::Program& prog, const cfa::Function& f, LoopInfo& li) {
  auto index = [&](cfa::VarId v) -> int {
    if (prog.vars[v].func == cfa::kNoFunc) return -1;
    auto [it, added] = li.localIndex.emplace(v, static_cast<uint32_t>(li.localIndex.size()));
    return static_cast<int>(it->second);
  };
  struct Flow {
    std::vector<uint32_t> gen;
    int kill = -1;
  };
  std::vector<Flow> flow(f.edges.size());
  for (size_t ei = 0; ei < f.edges.size(); ++ei) {
    const Edge& e = f.edges[ei];
    std::vector<cfa::VarId> reads;
    for (const cfa::ExprPtr* x : {&e.cond, &e.rhs, &e.addr, &e.value, &e.size}) collectVars(*x, reads);
    for (const auto& a : e.args) collectVars(a, reads);
    if (e.kind == EdgeKind::Return && f.retVar) reads.push_back(*f.retVar);  // the caller reads it
    for (cfa::VarId v : reads)
      if (int i = index(v); i >= 0) flow[ei].gen.push_back(static_cast<uint32_t>(i));
    bool writes = e.kind == EdgeKind::Assign || e.kind == EdgeKind::Havoc || e.kind == EdgeKind::Alloc ||
                  e.kind == EdgeKind::Call;
    if (writes && e.lhs) flow[ei].kill = index(*e.lhs);
  }
  for (cfa::VarId p : f.params) index(p);
  if (f.retVar) index(*f.retVar);
  size_t nv = li.localIndex.size(), nl = f.locs.size();
  li.liveAt.assign(nl, std::vector<bool>(nv, false));
  if (f.retVar && f.exit < nl) li.liveAt[f.exit][li.localIndex.at(*f.retVar)] = true;
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t l = nl; l-- > 0;) {
      std::vector<bool>& cur = li.liveAt[l];
      for (uint32_t ei : f.locs[l].out) {
        const Edge& e = f.edges[ei];
        const std::vector<bool>& succ = li.liveAt[e.to];
        for (size_t i = 0; i < nv; ++i)
          if (succ[i] && !cur[i] && static_cast<int>(i) != flow[ei].kill) cur[i] = changed = true;
        for (uint32_t i : flow[ei].gen)
          if (!cur[i]) cur[i] = changed = true;
      }
    }
  }
}

// callsRecursive: f calls a function on a call-graph cycle. Such a call can be cut by the
// bound and explored later, and its continuation may then join existing nodes anywhere
// after it, so every join of f keeps proxies in the incremental mode.
static std::unique_ptr<LoopInfo> computeLoops(const cfa::Program& prog, const cfa::Function& f,
                                              bool callsRecursive) {
  auto li = std::make_unique<LoopInfo>();
  size_t nl = f.locs.size();
  cfa::LoopStructure ls = cfa::computeLoopStructure(f);
  li->backEdge = std::move(ls.backEdge);
  li->loopsOf = std::move(ls.loopsOf);
  li->mayMerge.assign(nl, false);
  // A node can gain in-edges when the bound grows only through a loop-exit edge (from a
  // location inside a loop that does not contain the target): a new source node has a
  // loop count above the old bound, and an edge that stays inside that loop leads to a
  // new node as well. So only loop-exit targets need proxies in the incremental mode.
  for (size_t l = 0; l < nl; ++l) {
    const auto& in = f.locs[l].in;
    if (callsRecursive && (in.size() >= 2 || l == f.exit)) {
      li->mayMerge[l] = true;
      continue;
    }
    for (uint32_t ie : in) {
      const auto& src = li->loopsOf[f.edges[ie].from];
      if (!std::includes(li->loopsOf[l].begin(), li->loopsOf[l].end(), src.begin(), src.end()))
        li->mayMerge[l] = true;
    }
  }
  std::vector<bool> seen(prog.vars.size(), false);
  for (const Edge& e : f.edges) {
    if (e.lhs && prog.vars[*e.lhs].func != cfa::kNoFunc && !seen[*e.lhs]) {
      seen[*e.lhs] = true;
      li->assignedLocals.push_back(*e.lhs);
    }
  }
  for (cfa::VarId p : f.params)
    if (!seen[p]) li->assignedLocals.push_back(p);  // differs between call instances only, harmless
  computeLiveness(prog, f, *li);
  return li;
}

// Per function: its closure cannot influence a check (unwinding.h). Bottom-up over the
// components of the call graph (callees first); a component is as good as its worst member.
std::vector<bool> noEffectFunctions(const cfa::Program& prog) {
  auto calls = [&](uint32_t f, auto&& to) {
    for (const Edge& e : prog.functions[f].edges)
      if (e.kind == EdgeKind::Call) to(e.callee);
  };
  std::vector<uint32_t> comp = support::sccIds(static_cast<uint32_t>(prog.functions.size()), calls);
  std::vector<bool> noEffect(prog.functions.size(), false);
  std::vector<bool> own(prog.functions.size(), true);
  for (const cfa::Function& f : prog.functions) {
    // only edges reachable from the entry count (the frontend leaves a Havoc of the
    // return value "at the end of the function" after a final return, say)
    std::vector<bool> reach(f.locs.size(), false);
    std::vector<cfa::LocId> stack;
    if (f.entry < f.locs.size()) {
      reach[f.entry] = true;
      stack.push_back(f.entry);
    }
    while (!stack.empty()) {
      cfa::LocId l = stack.back();
      stack.pop_back();
      for (uint32_t ei : f.locs[l].out)
        if (!reach[f.edges[ei].to]) {
          reach[f.edges[ei].to] = true;
          stack.push_back(f.edges[ei].to);
        }
    }
    for (const Edge& e : f.edges) {
      if (!reach[e.from]) continue;
      switch (e.kind) {
        case EdgeKind::Error:
        case EdgeKind::Unsupported:
        case EdgeKind::Abort:
        case EdgeKind::Havoc:
        case EdgeKind::Store:
        case EdgeKind::Alloc:
        case EdgeKind::Free:
          own[f.id] = false;
          break;
        default:
          break;
      }
      if (e.lhs && prog.vars[*e.lhs].func == cfa::kNoFunc) own[f.id] = false;
    }
  }
  uint32_t nc = 0;
  for (uint32_t c : comp) nc = std::max(nc, c + 1);
  std::vector<std::vector<uint32_t>> members(nc);
  for (uint32_t f = 0; f < comp.size(); ++f) members[comp[f]].push_back(f);
  for (uint32_t c = 0; c < nc; ++c) {
    bool ok = true;
    for (uint32_t f : members[c]) {
      ok = ok && own[f];
      calls(f, [&](uint32_t g) { ok = ok && (comp[g] == c || noEffect[g]); });
    }
    for (uint32_t f : members[c]) noEffect[f] = ok;
  }
  return noEffect;
}

bool Unwinding::Key::operator<(const Key& o) const {
  if (inst != o.inst) return inst < o.inst;
  if (loc != o.loc) return loc < o.loc;
  return counts < o.counts;
}

Unwinding::Unwinding(const cfa::Program& prog, cfa::FuncId entry, smt::TermManager& tm, bool incremental)
    : prog_(prog), entry_(entry), tm_(tm), enc_(tm, prog.ptrWidth, cfa::zeroPageEnd(prog)), incremental_(incremental) {
  loops_.resize(prog.functions.size());
  globalAssigned_.assign(prog.vars.size(), false);
  for (cfa::VarId v = 0; v < prog.vars.size(); ++v)
    if (prog.vars[v].func == cfa::kNoFunc) globalVars_.push_back(v);
  // functions on a cycle of the call graph: in a component with another function, or
  // calling themselves (linear: a closure of a real program has thousands of functions)
  recursive_.assign(prog.functions.size(), false);
  auto calls = [&](uint32_t f, auto&& to) {
    for (const Edge& e : prog.functions[f].edges)
      if (e.kind == EdgeKind::Call) to(e.callee);
  };
  std::vector<uint32_t> comp = support::sccIds(static_cast<uint32_t>(prog.functions.size()), calls);
  std::vector<uint32_t> compSize(prog.functions.size(), 0);
  for (uint32_t c : comp) ++compSize[c];
  for (const cfa::Function& f : prog.functions) {
    recursive_[f.id] = compSize[comp[f.id]] > 1;
    calls(f.id, [&](uint32_t g) { recursive_[f.id] = recursive_[f.id] || g == f.id; });
  }
  noEffect_ = noEffectFunctions(prog);
  deadEnds_ = std::make_unique<cfa::DeadEnds>(cfa::computeDeadEnds(prog));
  for (const cfa::Function& f : prog.functions) {
    bool isInit = f.id == prog.initFunc || f.id == prog.initNondetFunc;
    if (isInit) continue;
    for (const Edge& e : f.edges) {
      if (e.kind == EdgeKind::Store || e.kind == EdgeKind::Alloc) memChanges_ = true;
      if (e.kind == EdgeKind::Alloc) brkChanges_ = true;
      if (e.lhs && prog.vars[*e.lhs].func == cfa::kNoFunc) globalAssigned_[*e.lhs] = true;
    }
  }
}

Unwinding::~Unwinding() = default;

bool Unwinding::dead(cfa::FuncId f, cfa::LocId l) const { return deadEnds_->dead(f, l); }

const LoopInfo& Unwinding::loopInfo(cfa::FuncId f) {
  if (!loops_[f]) {
    bool callsRecursive = false;
    for (const Edge& e : prog_.functions[f].edges)
      if (e.kind == EdgeKind::Call && recursive_[e.callee]) callsRecursive = true;
    loops_[f] = computeLoops(prog_, prog_.functions[f], callsRecursive);
  }
  return *loops_[f];
}

void Unwinding::checkDeadline() const {
  if (std::chrono::steady_clock::now() > deadline_) throw DeadlineExceeded{};
  // the process's memory cap (support::setProcessMemoryLimitMb): bmc answers "out of
  // memory" with the bound it verified
  if (support::overProcessMemoryLimit()) throw std::bad_alloc();
}

uint32_t Unwinding::getNode(const Key& k, bool& created) {
  auto it = index_.find(k);
  if (it != index_.end()) {
    created = false;
    return it->second;
  }
  if (nodes_.size() >= maxNodes_) throw TooLarge{};
  created = true;
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.emplace_back();
  nodes_.back().key = k;
  index_.emplace(k, id);
  pending_.push_back(id);
  return id;
}

void Unwinding::addIn(uint32_t target, InEdge in) {
  uint32_t from = in.from;
  nodes_[target].in.push_back(std::move(in));
  nodes_[from].out.push_back({target, nodes_[target].in.size() - 1});
}

// The back edges and loop bodies only: the unwinding's merge points and liveness are its
// own (computing them for every function of a 2,500-function closure was a third of a
// bound condition's time on SQLite).
LoopStructure loopStructure(const cfa::Program&, const cfa::Function& f) {
  cfa::LoopStructure ls = cfa::computeLoopStructure(f);
  return LoopStructure{std::move(ls.backEdge), std::move(ls.loopsOf)};
}

// ---------------------------------------------------------------- exploration

void Unwinding::unwindTo(uint32_t k, const std::function<void(Term)>& sink) {
  if (k <= bound_ && !nodes_.empty()) return;
  if (!incremental_ && !nodes_.empty()) throw std::logic_error("Unwinding: a non-incremental unwinding is built once");
  bound_ = k;
  std::deque<uint32_t> work;
  if (nodes_.empty()) {
    mem0_ = tm_.var("mem0", enc_.memSort());
    Instance init;
    bool isMain = prog_.functions[entry_].name == "main";
    cfa::FuncId initF = isMain ? prog_.initFunc : prog_.initNondetFunc;
    if (initF == cfa::kNoFunc) initF = entry_;
    if (initF != entry_ && maxCallDepth_ != UINT32_MAX) dropPartsBeyondDepth(initF);
    init.func = initF;
    instances_.push_back(init);
    bool created;
    uint32_t root = getNode({0, prog_.functions[initF].entry, {}}, created);
    Node& r = nodes_[root];
    r.encoded = false;
    work.push_back(root);
  } else {
    // explore the cuts that fit the new bound
    std::vector<Cut> cuts;
    cuts.swap(cuts_);
    for (Cut& c : cuts) {
      if (c.depth) {
        cuts_.push_back(c);  // the call depth does not grow with k
        continue;
      }
      size_t before = nodes_.size();
      exploreEdge(c.node, c.edgeIndex);
      for (size_t n = before; n < nodes_.size(); ++n) work.push_back(static_cast<uint32_t>(n));
    }
  }
  while (!work.empty()) {
    checkDeadline();
    uint32_t n = work.front();
    work.pop_front();
    size_t before = nodes_.size();
    exploreFrom(n);
    for (size_t m = before; m < nodes_.size(); ++m) work.push_back(static_cast<uint32_t>(m));
  }
  encodePending(sink);
}

void Unwinding::exploreFrom(uint32_t n) {
  const Key key = nodes_[n].key;
  const Instance inst = instances_[key.inst];
  const cfa::Function& f = prog_.functions[inst.func];
  if (key.loc == f.exit) {
    // return to the caller (or start the entry after the initialisation)
    if (inst.parent >= 0) {
      const Node& caller = nodes_[inst.callNode];
      const LoopInfo& cli = loopInfo(instances_[inst.parent].func);
      if (dead(instances_[inst.parent].func, inst.callEdge->to)) return endsHere(n);  // nothing to check after the call
      Key ck{static_cast<uint32_t>(inst.parent), inst.callEdge->to, {}};
      for (auto& [h, c] : caller.key.counts)
        if (std::binary_search(cli.loopsOf[ck.loc].begin(), cli.loopsOf[ck.loc].end(), h)) ck.counts.push_back({h, c});
      bool created;
      uint32_t t = getNode(ck, created);
      InEdge in;
      in.from = n;
      in.kind = InKind::Return;
      addIn(t, std::move(in));
    } else if (key.inst == 0 && inst.func != entry_) {
      if (dead(entry_, prog_.functions[entry_].entry)) return endsHere(n);
      Instance e;
      e.func = entry_;
      e.depthOf[entry_] = 1;
      instances_.push_back(e);
      bool created;
      uint32_t t = getNode({static_cast<uint32_t>(instances_.size() - 1), prog_.functions[entry_].entry, {}}, created);
      InEdge in;
      in.from = n;
      in.kind = InKind::Start;
      addIn(t, std::move(in));
    } else {
      endsHere(n);  // the entry returns
    }
    return;
  }
  if (key.inst == 0 && !gapAt_.empty()) {
    auto gap = gapAt_.find(key.loc);
    if (gap != gapAt_.end()) {
      const Edge& e = *gap->second.first;
      if (dead(inst.func, e.to)) return endsHere(n);
      Key tk{0, e.to, {}};  // a dropped piece holds no loop (no Assume edge)
      const auto& tl = loopInfo(inst.func).loopsOf[e.to];
      for (auto& [h, c] : key.counts)
        if (std::binary_search(tl.begin(), tl.end(), h)) tk.counts.push_back({h, c});
      addCfaIn(n, tk, e, gap->second.second);
      return;
    }
  }
  for (uint32_t ei : f.locs[key.loc].out) exploreEdge(n, ei);
}

void Unwinding::dropPartsBeyondDepth(cfa::FuncId initF) {
  cfa::Dependencies deps(prog_);
  if (!deps.hasParts(initF)) return;
  const uint32_t nf = deps.numFunctions();
  // the functions expanded within the depth limit: the entry at level 0, a callee of a
  // function at level L < d at level L + 1 (exploreEdge cuts calls from level d)
  std::vector<uint32_t> level(nf, UINT32_MAX);
  std::vector<uint32_t> work{entry_}, succ;
  level[entry_] = 0;
  std::vector<bool> needed(deps.numNodes(), false);
  std::vector<uint32_t> parts;
  auto needPart = [&](uint32_t node) {
    if (node >= nf && !needed[node]) {
      needed[node] = true;
      parts.push_back(node);
    }
  };
  while (!work.empty()) {
    uint32_t f = work.back();
    work.pop_back();
    succ.clear();
    deps.successors(f, succ);
    for (uint32_t s : succ) {
      if (s >= nf) needPart(s);
      else if (level[f] < maxCallDepth_ && level[s] > level[f] + 1) {
        level[s] = level[f] + 1;
        work.push_back(s);
      }
    }
  }
  for (uint32_t a : deps.alwaysKept()) needPart(a);
  // what the needed pieces need (a global whose initialiser takes another's address)
  while (!parts.empty()) {
    uint32_t p = parts.back();
    parts.pop_back();
    succ.clear();
    deps.successors(p, succ);
    for (uint32_t s : succ) needPart(s);
  }
  const cfa::Function& init = prog_.functions[initF];
  for (uint32_t i : deps.partsOf(initF)) {
    if (needed[nf + i]) continue;
    const cfa::InitPart& part = prog_.initParts[i];
    bool plain = true;  // allocations and constant stores only: no choice, no check
    for (uint32_t k = part.firstEdge; k < part.endEdge && plain; ++k) {
      EdgeKind kind = init.edges[k].kind;
      plain = kind == EdgeKind::Alloc || kind == EdgeKind::Store || kind == EdgeKind::Assign || kind == EdgeKind::Blank;
    }
    uint64_t gap = deps.partGap(i);
    if (!plain || (gap > 0 && part.defines.empty())) continue;
    Edge g;
    g.kind = gap > 0 ? EdgeKind::Alloc : EdgeKind::Blank;
    if (gap > 0) {
      g.lhs = part.defines.front();
      g.size = cfa::Expr::mkConst(gap, prog_.ptrWidth);
    }
    g.from = part.from;
    g.to = part.to;
    g.text = "globals only calls beyond the depth limit use";
    gapEdges_.push_back(std::move(g));
    gapAt_[part.from] = {&gapEdges_.back(), part.firstEdge};
    ++droppedParts_;
  }
}

void Unwinding::exploreEdge(uint32_t n, uint32_t ei) {
  const Key key = nodes_[n].key;
  const uint32_t instId = key.inst;
  const cfa::FuncId fid = instances_[instId].func;
  const cfa::Function& f = prog_.functions[fid];
  const Edge& e = f.edges[ei];
  switch (e.kind) {
    case EdgeKind::Abort:
      return endsHere(n);
    case EdgeKind::Error:
    case EdgeKind::Unsupported:
      return;  // terminal: handled when the node is encoded
    case EdgeKind::Call: {
      if (noEffect_[e.callee] &&
          (!e.lhs || (prog_.vars[*e.lhs].func != cfa::kNoFunc && !loopInfo(fid).live(e.to, *e.lhs)))) {
        ++skippedCalls_;
        break;  // passed over: a Cfa edge to the return site (transfer treats it as Blank)
      }
      if (dead(e.callee, prog_.functions[e.callee].entry)) return endsHere(n);  // a callee that never returns nor checks
      const Instance& cur = instances_[instId];
      auto depthIt = cur.depthOf.find(e.callee);
      uint32_t depth = depthIt == cur.depthOf.end() ? 0 : depthIt->second;
      if (depth > bound_) {
        cuts_.push_back({n, &e, ei, nullptr});
        return;
      }
      if (cur.level >= maxCallDepth_) {
        Cut c{n, &e, ei, nullptr};
        c.depth = true;
        cuts_.push_back(c);
        ++depthCuts_;
        return;
      }
      auto ik = std::make_tuple(n, &e);
      uint32_t calleeInst;
      auto it = instanceOfCall_.find(ik);
      if (it == instanceOfCall_.end()) {
        Instance ni;
        ni.func = e.callee;
        ni.parent = static_cast<int>(instId);
        ni.callNode = n;
        ni.callEdge = &e;
        ni.depthOf = cur.depthOf;
        ni.depthOf[e.callee] = depth + 1;
        ni.level = cur.level + 1;
        instances_.push_back(std::move(ni));
        calleeInst = static_cast<uint32_t>(instances_.size() - 1);
        instanceOfCall_[ik] = calleeInst;
      } else {
        calleeInst = it->second;
      }
      bool created;
      uint32_t t = getNode({calleeInst, prog_.functions[e.callee].entry, {}}, created);
      InEdge in;
      in.from = n;
      in.kind = InKind::CallEnter;
      in.edge = &e;
      in.edgeIndex = ei;
      addIn(t, std::move(in));
      return;
    }
    default:
      break;
  }
  // a dead end (core/cfa/dead_ends.h): no check is reachable from there, so the path
  // ends here as at an Abort edge; a loop in dead ends is not unrolled
  if (dead(fid, e.to)) return endsHere(n);
  const LoopInfo& li = loopInfo(fid);
  Key tk{instId, e.to, {}};
  const auto& tl = li.loopsOf[e.to];
  for (auto& [h, c] : key.counts)
    if (std::binary_search(tl.begin(), tl.end(), h)) tk.counts.push_back({h, c});
  if (li.backEdge[ei]) {
    auto it = std::find_if(tk.counts.begin(), tk.counts.end(), [&](auto& p) { return p.first == e.to; });
    uint32_t c = it == tk.counts.end() ? 0 : it->second;
    if (c + 1 > bound_) {
      cuts_.push_back({n, &e, ei, nullptr});
      return;
    }
    if (it == tk.counts.end()) tk.counts.push_back({e.to, 1});
    else it->second = c + 1;
    std::sort(tk.counts.begin(), tk.counts.end());
  } else if (std::binary_search(tl.begin(), tl.end(), e.to)) {
    // entering a loop head from outside: its count starts again
    tk.counts.erase(std::remove_if(tk.counts.begin(), tk.counts.end(), [&](auto& p) { return p.first == e.to; }),
                    tk.counts.end());
  }
  addCfaIn(n, tk, e, ei);
}

void Unwinding::addCfaIn(uint32_t from, const Key& target, const Edge& e, uint32_t edgeIndex) {
  bool created;
  uint32_t t = getNode(target, created);
  InEdge in;
  in.from = from;
  in.kind = InKind::Cfa;
  in.edge = &e;
  in.edgeIndex = edgeIndex;
  addIn(t, std::move(in));
}

// ---------------------------------------------------------------- encoding

Term Unwinding::lookup(const State& s, cfa::VarId v) {
  const cfa::Variable& var = prog_.vars[v];
  if (var.func == cfa::kNoFunc) {
    if (const Term* t = s.globals.find(v)) return *t;
  } else {
    auto it = s.locals.find(v);
    if (it != s.locals.end()) return it->second;
  }
  // read before any write: an arbitrary value
  return tm_.freshVar(var.name + "!undef", tm_.bvSort(var.width));
}

void Unwinding::assign(State& s, cfa::VarId v, Term t) {
  if (prog_.vars[v].func == cfa::kNoFunc) {
    s.globals.set(v, t);
  } else {
    s.locals[v] = t;
  }
}

std::pair<Term, Unwinding::State> Unwinding::transfer(const InEdge& inConst, uint32_t target) {
  InEdge& in = const_cast<InEdge&>(inConst);
  const Node& src = nodes_[in.from];
  Term guard = src.act;
  State s;
  switch (in.kind) {
    case InKind::CallEnter: {
      const cfa::Function& callee = prog_.functions[in.edge->callee];
      s.globals = src.state.globals;
      s.mem = src.state.mem;
      s.brk = src.state.brk;
      encoding::Env env{[&](cfa::VarId v) { return lookup(src.state, v); }, src.state.mem};
      for (size_t i = 0; i < callee.params.size() && i < in.edge->args.size(); ++i)
        s.locals[callee.params[i]] = enc_.encode(in.edge->args[i], env);
      return {guard, std::move(s)};
    }
    case InKind::Return: {
      const Instance& inst = instances_[nodes_[in.from].key.inst];
      const Node& caller = nodes_[inst.callNode];
      s = caller.state;
      s.globals = src.state.globals;
      s.mem = src.state.mem;
      s.brk = src.state.brk;
      const cfa::Function& callee = prog_.functions[inst.func];
      if (inst.callEdge->lhs) {
        Term rv = callee.retVar ? lookup(src.state, *callee.retVar)
                                : tm_.freshVar("noret", tm_.bvSort(prog_.vars[*inst.callEdge->lhs].width));
        assign(s, *inst.callEdge->lhs, rv);
      }
      return {guard, std::move(s)};
    }
    case InKind::Start: {
      s.globals = src.state.globals;
      s.mem = src.state.mem;
      s.brk = src.state.brk;
      const cfa::Function& ef = prog_.functions[entry_];
      in.paramNondets.clear();
      for (cfa::VarId p : ef.params) {
        Term t = tm_.freshVar(prog_.vars[p].name + "!nondet", tm_.bvSort(prog_.vars[p].width));
        in.paramNondets.push_back(t);
        s.locals[p] = t;
      }
      return {guard, std::move(s)};
    }
    case InKind::Cfa:
      break;
  }
  const Edge& e = *in.edge;
  s = src.state;
  encoding::Env env{[&](cfa::VarId v) { return lookup(src.state, v); }, src.state.mem};
  switch (e.kind) {
    case EdgeKind::Assume: {
      Term c = enc_.nonZero(enc_.encode(e.cond, env));
      guard = tm_.mkAnd(guard, e.positive ? c : tm_.mkNot(c));
      break;
    }
    case EdgeKind::Assign:
      assign(s, *e.lhs, enc_.encode(e.rhs, env));
      break;
    case EdgeKind::Havoc: {
      Term t = tm_.freshVar(prog_.vars[*e.lhs].name + "!nondet", tm_.bvSort(prog_.vars[*e.lhs].width));
      if (!cfa::isAccelerationCount(e)) in.nondet = t;  // no input of the program (core/cfa/accelerate.h)
      assign(s, *e.lhs, t);
      break;
    }
    case EdgeKind::Store:
      s.mem = enc_.store(s.mem, enc_.encode(e.addr, env), enc_.encode(e.value, env), e.bytes);
      break;
    case EdgeKind::Alloc: {
      Term size = enc_.encode(e.size, env);
      encoding::ExprEncoder::Allocation a = enc_.allocate(s.brk, size);
      if (a.noWrap) guard = tm_.mkAnd(guard, a.noWrap);  // the allocation does not wrap around
      assign(s, *e.lhs, a.base);
      s.brk = a.next;
      if (e.zeroInit) {
        if (Term m = enc_.zeroFill(s.mem, a.base, size)) s.mem = m;
      }
      break;
    }
    case EdgeKind::Blank:
    case EdgeKind::Free:
    case EdgeKind::Return:
    case EdgeKind::Call:  // a call that cannot influence a check, passed over
      break;
    default:
      throw std::logic_error("Unwinding: unexpected edge kind in transfer");
  }
  return {guard, std::move(s)};
}

void Unwinding::encodePending(const std::function<void(Term)>& sink) {
  // Topological order over the pending nodes: a node is ready when all sources of its
  // in-edges are encoded.
  std::vector<uint32_t> pending;
  pending.swap(pending_);
  // Deferred nodes are reconsidered: new bounds may have given them live in-edges.
  pending.insert(pending.end(), deferred_.begin(), deferred_.end());
  deferred_.clear();
  // Cuts recorded at each pending node (their `taken` is set when the node is encoded).
  cutsAt_.clear();
  for (size_t i = 0; i < cuts_.size(); ++i)
    if (!cuts_[i].taken) cutsAt_[cuts_[i].node].push_back(i);
  std::unordered_map<uint32_t, uint32_t> waiting;
  for (uint32_t n : pending) waiting[n] = 0;
  for (uint32_t n : pending)
    for (const InEdge& in : nodes_[n].in)
      if (!nodes_[in.from].encoded) ++waiting[n];
  std::deque<uint32_t> ready;
  for (uint32_t n : pending)
    if (waiting[n] == 0) ready.push_back(n);
  size_t done = 0;
  while (!ready.empty()) {
    checkDeadline();
    uint32_t n = ready.front();
    ready.pop_front();
    encodeNode(n, sink);  // encodes it, or defers it (then its targets see a deferred source)
    ++done;
    for (auto& [t, idx] : nodes_[n].out) {
      auto it = waiting.find(t);
      if (it != waiting.end() && it->second > 0 && --it->second == 0) ready.push_back(t);
    }
  }
  if (done != pending.size()) throw std::logic_error("Unwinding: cycle in the unwinding");
  // A cut recorded at a node encoded in an earlier round (a re-explored recursion cut
  // that now exceeds the call depth) gets its guard here: a cut without one would be
  // missing from the forward condition.
  for (Cut& c : cuts_)
    if (!c.taken && nodes_[c.node].encoded) setCutTaken(c);
  // New in-edges of nodes encoded in an earlier round: extend through their proxies.
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    Node& node = nodes_[n];
    if (!node.encoded) continue;
    std::vector<size_t> fresh;
    for (size_t i = 0; i < node.in.size(); ++i)
      if (!node.in[i].taken && nodes_[node.in[i].from].encoded) fresh.push_back(i);
    if (fresh.empty()) continue;
    if (!node.isMerge) throw std::logic_error("Unwinding: new predecessor of a non-merge node");
    if (!node.proxy) {
      // closed: an in-edge taken on every execution reaches this node, so no other
      // in-edge can be taken on any execution (each execution visits a node at most once)
      for (size_t i : fresh) node.in[i].taken = tm_.falseTerm();
      continue;
    }
    std::vector<Term> disj;
    for (size_t i : fresh) {
      auto [taken, st] = transfer(node.in[i], n);
      node.in[i].taken = taken;
      disj.push_back(taken);
      for (cfa::VarId v : node.mergedLocals)
        sink(tm_.mkImplies(taken, tm_.mkEq(node.state.locals.at(v), lookup(st, v))));
      for (cfa::VarId v : node.mergedGlobals)
        sink(tm_.mkImplies(taken, tm_.mkEq(node.state.globals.at(v), lookup(st, v))));
      if (node.mergeMem) sink(tm_.mkImplies(taken, tm_.mkEq(node.state.mem, st.mem)));
      else if (st.mem != node.state.mem) throw std::logic_error("Unwinding: memory differs at an unmerged node");
      if (node.mergeBrk) sink(tm_.mkImplies(taken, tm_.mkEq(node.state.brk, st.brk)));
      else if (st.brk != node.state.brk) throw std::logic_error("Unwinding: brk differs at an unmerged node");
    }
    Term newProxy = tm_.freshVar("proxy", tm_.boolSort());
    disj.push_back(newProxy);
    sink(tm_.mkEq(node.proxy, tm_.mkOr(disj)));
    node.proxy = newProxy;
  }
}

bool Unwinding::encodeNode(uint32_t n, const std::function<void(Term)>& sink) {
  Node& node = nodes_[n];
  const Instance& inst = instances_[node.key.inst];
  const LoopInfo& li = loopInfo(inst.func);
  if (node.in.empty()) {
    // the root: initial state
    node.act = tm_.trueTerm();
    node.state.globals = GlobalTerms();
    node.state.mem = mem0_;
    node.state.brk = tm_.bvVal(prog_.heapBase, prog_.ptrWidth);
  } else {
    std::vector<std::pair<Term, State>> posts;
    posts.reserve(node.in.size());
    bool fromDeferred = false, live = false;
    for (InEdge& in : node.in) {
      if (!nodes_[in.from].encoded) {
        fromDeferred = true;  // added later, when its source is encoded
        continue;
      }
      posts.push_back(transfer(in, n));
      in.taken = posts.back().first;
      live = live || !posts.back().first->isFalse();
    }
    if (incremental_ && !live && (fromDeferred || li.mayMerge[node.key.loc])) {
      // Unreachable within the current bound, but a larger bound may add a live in-edge.
      // Encoding it now would need proxies that hide every constant downstream (e.g. a
      // deterministic loop not yet fully unrolled); encode it once it becomes reachable.
      for (InEdge& in : node.in) in.taken = nullptr;
      deferred_.push_back(n);
      return false;
    }
    node.isMerge = incremental_ && (li.mayMerge[node.key.loc] || fromDeferred);
    auto always = std::find_if(posts.begin(), posts.end(), [](auto& p) { return p.first->isTrue(); });
    if (node.isMerge && always != posts.end()) {
      // An in-edge taken on every execution: the node's state is that edge's post-state
      // and no other in-edge, present or future, can be taken (closed merge, no proxy).
      node.act = tm_.trueTerm();
      node.state = std::move(always->second);
      for (InEdge& in : node.in)
        if (!in.taken) in.taken = tm_.falseTerm();
    } else if (node.isMerge) {
      mergeWithProxies(node, n, posts, li, sink);
      proxyNodes_.push_back(n);
    } else if (posts.size() == 1) {
      node.act = posts[0].first;
      node.state = std::move(posts[0].second);
    } else {
      mergeWithIte(node, posts, li);
    }
  }
  node.encoded = true;
  // terminal edges and cuts leaving this node
  const cfa::Function& f = prog_.functions[inst.func];
  if (node.key.loc != f.exit && !(node.key.inst == 0 && gapAt_.count(node.key.loc))) {
    for (uint32_t ei : f.locs[node.key.loc].out) {
      const Edge& e = f.edges[ei];
      if (e.kind == EdgeKind::Error) errors_.push_back({node.act, n, &e, inst.func});
      else if (e.kind == EdgeKind::Unsupported) unsupported_.push_back({node.act, n, &e, inst.func});
      else if (e.kind == EdgeKind::Alloc && e.zeroInit) {
        encoding::Env env{[&](cfa::VarId v) { return lookup(node.state, v); }, node.state.mem};
        if (!encoding::ExprEncoder::canZeroFill(enc_.encode(e.size, env)))
          unsupported_.push_back({node.act, n, &e, inst.func});
      }
    }
  }
  auto cutsHere = cutsAt_.find(n);
  if (cutsHere != cutsAt_.end())
    for (size_t ci : cutsHere->second) setCutTaken(cuts_[ci]);
  return true;
}

void Unwinding::setCutTaken(Cut& c) {
  if (c.taken) return;
  if (c.edge->kind == EdgeKind::Call) {
    c.taken = nodes_[c.node].act;
  } else {
    InEdge probe;
    probe.from = c.node;
    probe.kind = InKind::Cfa;
    probe.edge = c.edge;
    c.taken = transfer(probe, c.node).first;
  }
}

// Classic BMC merge: the node is reached iff some in-edge is taken, and each variable is
// an ite over the in-edges (exactly one is taken on any execution).
void Unwinding::mergeWithIte(Node& node, std::vector<std::pair<Term, State>>& posts, const LoopInfo& li) {
  std::vector<Term> takens;
  for (auto& p : posts) takens.push_back(p.first);
  node.act = tm_.mkOr(takens);
  auto pick = [&](auto value) -> Term {  // value(State&) -> Term
    Term r = value(posts.back().second);
    for (size_t i = posts.size() - 1; i-- > 0;) r = tm_.mkIte(posts[i].first, value(posts[i].second), r);
    return r;
  };
  State& s0 = posts[0].second;
  node.state.locals = s0.locals;
  for (size_t i = 1; i < posts.size(); ++i)
    for (auto& [v, t] : posts[i].second.locals) node.state.locals.emplace(v, t);
  std::erase_if(node.state.locals, [&](const auto& vt) { return !li.live(node.key.loc, vt.first); });
  for (auto& [v, t] : node.state.locals) {
    bool same = true;
    for (auto& p : posts) {
      auto it = p.second.locals.find(v);
      if (it == p.second.locals.end() || it->second != t) same = false;
    }
    if (!same) t = pick([&](State& st) { return lookup(st, v); });
  }
  GlobalTerms globals = s0.globals;
  for (size_t i = 1; i < posts.size(); ++i)
    posts[i].second.globals.forEach([&](cfa::VarId v, Term t) {
      if (!globals.has(v)) globals.set(v, t);
    });
  std::vector<std::pair<cfa::VarId, Term>> differing;
  globals.forEach([&](cfa::VarId v, Term t) {
    for (auto& p : posts) {
      const Term* pt = p.second.globals.find(v);
      if (!pt || *pt != t) {
        differing.emplace_back(v, t);
        return;
      }
    }
  });
  for (auto& [v, t] : differing) globals.set(v, pick([&](State& st) { return lookup(st, v); }));
  node.state.globals = std::move(globals);
  node.state.mem = pick([](State& st) { return st.mem; });
  node.state.brk = pick([](State& st) { return st.brk; });
}

// Incremental merge: fresh activation and SSA variables constrained by implications, and
// a dangling proxy through which later in-edges are added (incremental-bmc paper §2.3).
void Unwinding::mergeWithProxies(Node& node, uint32_t n, std::vector<std::pair<Term, State>>& posts,
                                 const LoopInfo& li, const std::function<void(Term)>& sink) {
  std::string tag = "@" + std::to_string(n);
  node.act = tm_.freshVar("act" + tag, tm_.boolSort());
  node.proxy = tm_.freshVar("proxy" + tag, tm_.boolSort());
  std::vector<Term> disj{node.proxy};
  for (auto& p : posts) disj.push_back(p.first);
  sink(tm_.mkEq(node.act, tm_.mkOr(disj)));
  // variables that can differ: locals written in this function, globals written outside
  // the initialisation, and any that already differ between the in-edges
  State& s0 = posts[0].second;
  node.state.locals = s0.locals;
  GlobalTerms globals = s0.globals;
  auto mergeVar = [&](cfa::VarId v, bool global) {
    Term x = tm_.freshVar(prog_.vars[v].name + tag, tm_.bvSort(prog_.vars[v].width));
    for (auto& [taken, st] : posts) {
      bool present = global ? st.globals.has(v) : st.locals.count(v) > 0;
      if (present) sink(tm_.mkImplies(taken, tm_.mkEq(x, lookup(st, v))));
    }
    if (global) {
      globals.set(v, x);
      node.mergedGlobals.push_back(v);
    } else {
      node.state.locals[v] = x;
      node.mergedLocals.push_back(v);
    }
  };
  const cfa::LocId at = node.key.loc;
  std::erase_if(node.state.locals, [&](const auto& vt) { return !li.live(at, vt.first); });
  for (cfa::VarId v : li.assignedLocals)
    if (li.live(at, v)) mergeVar(v, false);
  for (auto& [v, t] : s0.locals) {
    if (!li.live(at, v)) continue;
    if (std::find(node.mergedLocals.begin(), node.mergedLocals.end(), v) != node.mergedLocals.end()) continue;
    for (size_t i = 1; i < posts.size(); ++i) {
      auto it = posts[i].second.locals.find(v);
      if (it == posts[i].second.locals.end() || it->second != t) {
        mergeVar(v, false);
        break;
      }
    }
  }
  for (cfa::VarId v : globalVars_) {
    bool differs = globalAssigned_[v];
    if (!differs) {
      const Term* t0 = s0.globals.find(v);
      for (size_t i = 1; i < posts.size() && !differs; ++i) {
        const Term* ti = posts[i].second.globals.find(v);
        differs = (t0 != nullptr) != (ti != nullptr) || (t0 && *t0 != *ti);
      }
    }
    if (differs) mergeVar(v, true);
  }
  node.state.globals = std::move(globals);
  bool memDiffers = memChanges_, brkDiffers = brkChanges_;
  for (auto& p : posts) {
    memDiffers = memDiffers || p.second.mem != s0.mem;
    brkDiffers = brkDiffers || p.second.brk != s0.brk;
  }
  node.mergeMem = memDiffers;
  node.mergeBrk = brkDiffers;
  node.state.mem = memDiffers ? tm_.freshVar("mem" + tag, enc_.memSort()) : s0.mem;
  node.state.brk = brkDiffers ? tm_.freshVar("brk" + tag, tm_.bvSort(prog_.ptrWidth)) : s0.brk;
  for (auto& [taken, st] : posts) {
    if (memDiffers) sink(tm_.mkImplies(taken, tm_.mkEq(node.state.mem, st.mem)));
    if (brkDiffers) sink(tm_.mkImplies(taken, tm_.mkEq(node.state.brk, st.brk)));
  }
}

std::vector<Unwinding::Marked> Unwinding::currentCuts() const {
  std::vector<Marked> out;
  for (const Cut& c : cuts_) {
    if (!c.taken) continue;  // at a deferred node: not reachable within the bound
    const cfa::FuncId f = instances_[nodes_[c.node].key.inst].func;
    out.push_back({c.taken, c.node, c.edge, f});
  }
  return out;
}

std::vector<Unwinding::Marked> Unwinding::pathEnds() const {
  std::vector<Marked> out;
  for (uint32_t n : endNodes_)
    if (nodes_[n].act) out.push_back({nodes_[n].act, n, nullptr, instances_[nodes_[n].key.inst].func});
  return out;
}

std::vector<Term> Unwinding::danglingAssumptions() const {
  std::vector<Term> out;
  out.reserve(proxyNodes_.size());
  for (uint32_t n : proxyNodes_) out.push_back(tm_.mkNot(nodes_[n].proxy));
  return out;
}

Unwinding::ModelPath Unwinding::extractPath(smt::Solver& solver) const {
  ModelPath path;
  auto isTrue = [&](Term t) { return t && solver.modelValue(t)->isTrue(); };
  if (nodes_.empty()) return path;
  uint32_t n = 0;
  std::vector<cfa::Value> havocs;
  size_t guard = 0;
  while (guard++ < nodes_.size() + 1) {
    const Node& node = nodes_[n];
    const Instance& inst = instances_[node.key.inst];
    // an error edge leaving this node?
    for (const Marked& m : errors_)
      if (m.node == n && isTrue(m.taken)) {
        const cfa::Function& f = prog_.functions[m.func];
        uint32_t ei = static_cast<uint32_t>(m.edge - f.edges.data());
        path.steps.push_back({m.func, ei});
        path.reachedError = true;
        path.nondets.insert(path.nondets.end(), havocs.begin(), havocs.end());
        return path;
      }
    bool moved = false;
    for (auto& [t, idx] : node.out) {
      const InEdge& in = nodes_[t].in[idx];
      if (!isTrue(in.taken)) continue;
      if (in.kind == InKind::Cfa || in.kind == InKind::CallEnter) {
        path.steps.push_back({inst.func, in.edgeIndex});
        if (in.nondet) havocs.push_back(smt::modelBits(solver, in.nondet));
      } else if (in.kind == InKind::Start) {
        // entry parameters come first in the replay input
        std::vector<cfa::Value> params;
        for (Term p : in.paramNondets) params.push_back(smt::modelBits(solver, p));
        havocs.insert(havocs.begin(), params.begin(), params.end());
      }
      n = t;
      moved = true;
      break;
    }
    if (!moved) break;
  }
  path.nondets = havocs;
  return path;
}

}  // namespace argus::algorithms
