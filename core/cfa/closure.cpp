#include "core/cfa/closure.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace argus::cfa {

namespace {

void exprVars(const ExprPtr& e, std::vector<VarId>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Var) out.push_back(e->var);
  for (const ExprPtr& o : e->ops) exprVars(o, out);
}

uint64_t align8(uint64_t n) { return (std::max<uint64_t>(n, 1) + 7) & ~uint64_t(7); }

}  // namespace

void edgeVars(const Edge& e, std::vector<VarId>& out) {
  if (e.lhs) out.push_back(*e.lhs);
  exprVars(e.cond, out);
  exprVars(e.rhs, out);
  exprVars(e.addr, out);
  exprVars(e.value, out);
  exprVars(e.size, out);
  for (const ExprPtr& a : e.args) exprVars(a, out);
}

Dependencies::Dependencies(const Program& p) : p_(p), numFunctions_(static_cast<uint32_t>(p.functions.size())) {
  partsOf_.resize(p.functions.size());
  for (uint32_t i = 0; i < p.initParts.size(); ++i) {
    const InitPart& part = p.initParts[i];
    if (part.func < p.functions.size()) partsOf_[part.func].push_back(i);
  }
  // An init function is represented by its pieces only if they chain from its entry and
  // cover every edge but the final Return; otherwise it is kept whole. A few edges may
  // come before the pieces, one after another from the entry: an entry harness that runs
  // once on a recursive entry clears its flag there (entry_harness.h).
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    std::vector<uint32_t>& ps = partsOf_[f];
    if (ps.empty()) continue;
    const Function& fn = p.functions[f];
    bool ok = true;
    LocId at = fn.entry;
    const uint32_t firstPartEdge = p.initParts[ps.front()].firstEdge;
    const uint32_t partsEnd = p.initParts[ps.back()].endEdge;
    size_t prefix = 0;
    while (ok && at != p.initParts[ps.front()].from) {
      // the prefix: one edge out of each location, outside the pieces, no Return
      if (at >= fn.locs.size() || fn.locs[at].out.size() != 1 || ++prefix > 8) {
        ok = false;
        break;
      }
      const uint32_t ei = fn.locs[at].out.front();
      const Edge& e = fn.edges[ei];
      if ((ei >= firstPartEdge && ei < partsEnd) || e.kind == EdgeKind::Return || e.kind == EdgeKind::Call) ok = false;
      at = e.to;
    }
    uint32_t edge = firstPartEdge;
    for (uint32_t i : ps) {
      const InitPart& part = p.initParts[i];
      if (part.from != at || part.firstEdge != edge || part.endEdge < part.firstEdge || part.endEdge > fn.edges.size())
        ok = false;
      for (uint32_t k = part.firstEdge; ok && k < part.endEdge; ++k) {
        const Edge& e = fn.edges[k];
        if (e.kind == EdgeKind::Return) ok = false;  // the pieces must not leave the function
        // a dropped piece's allocations are replaced by a gap of the same size: only
        // constant sizes can be (the piece is kept otherwise)
        if (e.kind == EdgeKind::Alloc && (!e.size || e.size->kind != ExprKind::Const))
          always_.push_back(numFunctions_ + i);
      }
      if (!ok) break;
      at = part.to;
      edge = part.endEdge;
    }
    // then the Return, and nothing else: the pieces and the prefix are every other edge
    if (ok) {
      uint32_t ret = at < fn.locs.size() && fn.locs[at].out.size() == 1 ? fn.locs[at].out.front() : UINT32_MAX;
      ok = ret < fn.edges.size() && fn.edges[ret].kind == EdgeKind::Return &&
           fn.edges.size() == (partsEnd - firstPartEdge) + prefix + 1 && (ret < firstPartEdge || ret >= partsEnd);
    }
    if (!ok) ps.clear();
  }
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if ((f == p.initFunc || f == p.initNondetFunc) && partsOf_[f].empty()) always_.push_back(f);
  for (uint32_t i = 0; i < p.initParts.size(); ++i) {
    const InitPart& part = p.initParts[i];
    if (part.func >= p.functions.size() || partsOf_[part.func].empty()) continue;
    for (VarId v : part.defines) definers_.emplace_back(v, i);
  }
  std::sort(definers_.begin(), definers_.end());
  std::sort(always_.begin(), always_.end());
  always_.erase(std::unique(always_.begin(), always_.end()), always_.end());
  gaps_.assign(p.initParts.size(), 0);
  for (FuncId f = 0; f < p.functions.size(); ++f)
    for (uint32_t i : partsOf_[f]) {
      const InitPart& part = p.initParts[i];
      for (uint32_t k = part.firstEdge; k < part.endEdge; ++k) {
        const Edge& e = p.functions[f].edges[k];
        if (e.kind == EdgeKind::Alloc && e.size && e.size->kind == ExprKind::Const) gaps_[i] += align8(e.size->value);
      }
    }
}

Dependencies::Dependencies(const Program& shell, Precomputed pre)
    : p_(shell), numFunctions_(static_cast<uint32_t>(shell.functions.size())) {
  if (pre.successors.size() != numNodes() || pre.hasParts.size() != shell.functions.size() ||
      pre.gaps.size() != shell.initParts.size())
    throw std::runtime_error("dependency graph of the wrong size");
  for (const auto& list : pre.successors)
    for (uint32_t s : list)
      if (s >= numNodes()) throw std::runtime_error("dependency graph names a missing node");
  for (uint32_t a : pre.always)
    if (a >= numNodes()) throw std::runtime_error("dependency graph keeps a missing node");
  partsOf_.resize(shell.functions.size());
  for (uint32_t i = 0; i < shell.initParts.size(); ++i) {
    FuncId f = shell.initParts[i].func;
    if (f < shell.functions.size() && pre.hasParts[f]) partsOf_[f].push_back(i);
  }
  always_ = std::move(pre.always);
  gaps_ = std::move(pre.gaps);
  stored_ = std::move(pre.successors);
}

Dependencies::Precomputed Dependencies::precompute() const {
  Precomputed pre;
  pre.successors.resize(numNodes());
  for (uint32_t n = 0; n < numNodes(); ++n) successors(n, pre.successors[n]);
  pre.always = always_;
  pre.hasParts.resize(numFunctions_);
  for (FuncId f = 0; f < numFunctions_; ++f) pre.hasParts[f] = hasParts(f);
  pre.gaps = gaps_;
  return pre;
}

void Dependencies::successors(uint32_t node, std::vector<uint32_t>& out) const {
  if (!stored_.empty()) {
    if (node < stored_.size()) out.insert(out.end(), stored_[node].begin(), stored_[node].end());
    return;
  }
  size_t start = out.size();
  std::vector<VarId> vars;
  auto visitEdge = [&](const Edge& e) {
    if (e.kind == EdgeKind::Call && e.callee < numFunctions_) out.push_back(e.callee);
    edgeVars(e, vars);
  };
  if (node < numFunctions_) {
    if (hasParts(node)) return;  // represented by its pieces
    const Function& f = p_.functions[node];
    for (const Edge& e : f.edges) visitEdge(e);
  } else {
    const InitPart& part = p_.initParts[node - numFunctions_];
    const Function& f = p_.functions[part.func];
    for (uint32_t k = part.firstEdge; k < part.endEdge && k < f.edges.size(); ++k) visitEdge(f.edges[k]);
  }
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  for (VarId v : vars) {
    auto it = std::lower_bound(definers_.begin(), definers_.end(), std::make_pair(v, uint32_t(0)));
    for (; it != definers_.end() && it->first == v; ++it) out.push_back(numFunctions_ + it->second);
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(start), out.end()), out.end());
}

Closure closure(const Program& p, FuncId entry, const Dependencies* shared) {
  std::optional<Dependencies> own;
  if (!shared || &shared->program() != &p) shared = &own.emplace(p);
  const Dependencies& deps = *shared;
  Closure c;
  c.functions.assign(p.functions.size(), false);
  c.parts.assign(p.initParts.size(), false);
  std::vector<bool> seen(deps.numNodes(), false);
  std::vector<uint32_t> work, next;
  auto add = [&](uint32_t n) {
    if (n < seen.size() && !seen[n]) {
      seen[n] = true;
      work.push_back(n);
    }
  };
  if (entry < p.functions.size()) add(entry);
  for (uint32_t n : deps.alwaysKept()) add(n);
  while (!work.empty()) {
    uint32_t n = work.back();
    work.pop_back();
    if (n < deps.numFunctions()) {
      c.functions[n] = true;
      ++c.numFunctions;
    } else {
      c.parts[n - deps.numFunctions()] = true;
      ++c.numParts;
    }
    next.clear();
    deps.successors(n, next);
    for (uint32_t s : next) add(s);
  }
  // the init functions themselves (rebuilt from their kept pieces by slice)
  for (FuncId f : {p.initFunc, p.initNondetFunc})
    if (f < p.functions.size() && !c.functions[f]) {
      c.functions[f] = true;
      ++c.numFunctions;
    }
  return c;
}

std::vector<bool> closuresWithoutChecks(const Program& p) {
  Dependencies deps(p);
  const uint32_t n = deps.numNodes(), nf = deps.numFunctions();
  auto isCheck = [](const Edge& e) { return e.kind == EdgeKind::Error || e.kind == EdgeKind::Unsupported; };
  std::vector<bool> marked(n, false);
  std::vector<std::vector<uint32_t>> dependents(n);
  std::vector<uint32_t> work, succ;
  for (uint32_t v = 0; v < n; ++v) {
    bool check = false;
    if (v < nf) {
      // an init function represented by its pieces has no edges of its own here (its
      // final Return is no check)
      if (!deps.hasParts(v))
        for (const Edge& e : p.functions[v].edges) check = check || isCheck(e);
    } else {
      const InitPart& part = p.initParts[v - nf];
      const Function& f = p.functions[part.func];
      for (uint32_t k = part.firstEdge; k < part.endEdge && k < f.edges.size(); ++k) check = check || isCheck(f.edges[k]);
    }
    if (check) {
      marked[v] = true;
      work.push_back(v);
    }
    succ.clear();
    deps.successors(v, succ);
    for (uint32_t s : succ) dependents[s].push_back(v);
  }
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    for (uint32_t d : dependents[v])
      if (!marked[d]) {
        marked[d] = true;
        work.push_back(d);
      }
  }
  bool all = false;
  for (uint32_t k : deps.alwaysKept()) all = all || marked[k];
  std::vector<bool> out(p.functions.size(), false);
  for (FuncId f = 0; f < p.functions.size(); ++f) out[f] = !all && !marked[f];
  return out;
}

namespace {

struct Slicer {
  const Program& p;
  Program& out;
  std::vector<FuncId> funcMap;
  std::unordered_map<VarId, VarId> varMap;
  std::unordered_map<const Expr*, ExprPtr> exprMap;

  VarId var(VarId v) {
    auto it = varMap.find(v);
    if (it != varMap.end()) return it->second;
    Variable x = p.vars.at(v);
    x.func = x.func < funcMap.size() ? funcMap[x.func] : kNoFunc;
    VarId id = out.addVar(std::move(x));
    varMap.emplace(v, id);
    return id;
  }

  ExprPtr expr(const ExprPtr& e) {
    if (!e) return e;
    auto it = exprMap.find(e.get());
    if (it != exprMap.end()) return it->second;
    ExprPtr r = e;
    bool changed = e->kind == ExprKind::Var && var(e->var) != e->var;
    std::vector<ExprPtr> ops;
    ops.reserve(e->ops.size());
    for (const ExprPtr& o : e->ops) {
      ops.push_back(expr(o));
      if (ops.back() != o) changed = true;
    }
    if (changed) {
      auto copy = std::make_shared<Expr>(*e);
      if (e->kind == ExprKind::Var) copy->var = var(e->var);
      copy->ops = std::move(ops);
      r = copy;
    }
    exprMap.emplace(e.get(), r);
    return r;
  }

  Edge edge(const Edge& e) {
    Edge x = e;
    if (x.lhs) x.lhs = var(*x.lhs);
    x.cond = expr(e.cond);
    x.rhs = expr(e.rhs);
    x.addr = expr(e.addr);
    x.value = expr(e.value);
    x.size = expr(e.size);
    for (ExprPtr& a : x.args) a = expr(a);
    if (x.kind == EdgeKind::Call && e.callee < funcMap.size()) x.callee = funcMap[e.callee];
    return x;
  }
};

}  // namespace

namespace {

// The program's own bodies.
class OwnBodies : public BodySource {
 public:
  explicit OwnBodies(const Program& p) : p_(p) {}
  const Function& body(FuncId f) const override { return p_.functions[f]; }
  uint32_t numEdges(FuncId f) const override { return static_cast<uint32_t>(p_.functions[f].edges.size()); }
  const Edge& edge(FuncId f, uint32_t k) const override { return p_.functions[f].edges[k]; }
  const SourceRange& locRange(FuncId f, LocId l) const override { return p_.functions[f].locs[l].range; }

 private:
  const Program& p_;
};

}  // namespace

std::unique_ptr<Program> slice(const Program& p, FuncId entry, const Dependencies* shared) {
  std::optional<Dependencies> own;
  if (!shared || &shared->program() != &p) shared = &own.emplace(p);
  return slice(p, entry, *shared, OwnBodies(p));
}

std::unique_ptr<Program> slice(const Program& p, FuncId entry, const Dependencies& deps, const BodySource& bodies) {
  Closure c = closure(p, entry, &deps);
  auto out = std::make_unique<Program>();
  out->mainFile = p.mainFile;
  out->ptrWidth = p.ptrWidth;
  out->heapBase = p.heapBase;
  out->objectBits = p.objectBits;
  out->notes = p.notes;
  Slicer s{p, *out, std::vector<FuncId>(p.functions.size(), kNoFunc), {}, {}};
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if (c.functions[f]) {
      s.funcMap[f] = static_cast<FuncId>(out->functions.size());
      Function nf;
      nf.id = s.funcMap[f];
      nf.name = p.functions[f].name;
      out->functions.push_back(std::move(nf));
    }
  // variables in their original order: parameters and return variables first
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if (c.functions[f]) {
      const Function& of = p.functions[f];
      Function& nf = out->functions[s.funcMap[f]];
      for (VarId v : of.params) nf.params.push_back(s.var(v));
      if (of.retVar) nf.retVar = s.var(*of.retVar);
    }
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    if (!c.functions[f]) continue;
    const Function& of = p.functions[f];
    Function& nf = out->functions[s.funcMap[f]];
    nf.range = of.range;
    nf.variadic = of.variadic;
    nf.systemHeader = of.systemHeader;
    nf.entryParams = of.entryParams;
    nf.entryObjects = of.entryObjects;
    nf.callsThrough = of.callsThrough;
    out->funcByName[nf.name] = nf.id;
    if (f == p.initFunc) out->initFunc = nf.id;
    if (f == p.initNondetFunc) out->initNondetFunc = nf.id;
    if (!deps.hasParts(f)) {
      const Function& ob = bodies.body(f);
      nf.locs = ob.locs;
      nf.edges.reserve(ob.edges.size());
      for (const Edge& e : ob.edges) nf.edges.push_back(s.edge(e));
      nf.entry = of.entry;
      nf.exit = of.exit;
      nf.error = of.error;
      nf.sink = of.sink;
      continue;
    }
    // An init function from its kept pieces, in order. The allocations of dropped pieces
    // become one gap of the same size (contents left nondeterministic), so every kept
    // global keeps its address and brk ends where it did.
    nf.entry = nf.addLoc();
    nf.exit = nf.addLoc();
    nf.error = nf.addLoc();
    nf.sink = nf.addLoc();
    LocId cur = nf.entry;
    {
      // an init function has tens of thousands of edges on real code (SQLite: every
      // global's initialiser): one allocation, not a chain of moves of every Edge
      size_t kept = 2;
      for (uint32_t i : deps.partsOf(f)) kept += c.parts[i] ? p.initParts[i].endEdge - p.initParts[i].firstEdge + 1 : 0;
      nf.edges.reserve(kept);
      nf.locs.reserve(kept + 4);
    }
    uint64_t gap = 0;
    std::optional<VarId> gapVar;
    auto flushGap = [&] {
      if (gap == 0) return;
      if (!gapVar) {
        Variable g;
        g.name = nf.name + "::$gap";
        g.width = p.ptrWidth;
        g.kind = VarKind::Temp;
        g.func = nf.id;
        gapVar = out->addVar(std::move(g));
      }
      Edge a;
      a.kind = EdgeKind::Alloc;
      a.lhs = *gapVar;
      a.size = Expr::mkConst(gap, p.ptrWidth);
      a.text = "globals outside the entry's closure";
      a.from = cur;
      a.to = nf.addLoc();
      // a piece of its own, so that the sliced init function is still represented by
      // its pieces (Dependencies; the unwinding's depth limit drops pieces too)
      InitPart gp;
      gp.func = nf.id;
      gp.from = cur;
      gp.firstEdge = static_cast<uint32_t>(nf.edges.size());
      gp.endEdge = gp.firstEdge + 1;
      gp.to = a.to;
      gp.defines = {*gapVar};
      cur = a.to;
      nf.addEdge(std::move(a));
      out->initParts.push_back(std::move(gp));
      gap = 0;
    };
    for (uint32_t i : deps.partsOf(f)) {
      const InitPart& part = p.initParts[i];
      if (!c.parts[i]) {
        gap += deps.partGap(i);
        continue;
      }
      flushGap();
      InitPart np;
      np.func = nf.id;
      np.from = cur;
      np.firstEdge = static_cast<uint32_t>(nf.edges.size());
      std::unordered_map<LocId, LocId> locMap{{part.from, cur}};
      auto loc = [&](LocId l) {
        auto it = locMap.find(l);
        if (it != locMap.end()) return it->second;
        LocId n = nf.addLoc(bodies.locRange(f, l));
        locMap.emplace(l, n);
        return n;
      };
      for (uint32_t k = part.firstEdge; k < part.endEdge; ++k) {
        const Edge& oe = bodies.edge(f, k);
        Edge e = s.edge(oe);
        e.from = loc(oe.from);
        e.to = loc(oe.to);
        nf.addEdge(std::move(e));
      }
      cur = loc(part.to);
      np.endEdge = static_cast<uint32_t>(nf.edges.size());
      np.to = cur;
      for (VarId v : part.defines) np.defines.push_back(s.var(v));
      out->initParts.push_back(std::move(np));
    }
    flushGap();
    Edge r = bodies.edge(f, bodies.numEdges(f) - 1);  // the final Return (checked by Dependencies)
    r.from = cur;
    r.to = nf.exit;
    nf.addEdge(std::move(r));
  }
  out->markLoopHeads();
  return out;
}

}  // namespace argus::cfa
