#include "core/cfa/recursion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace argus::cfa {

namespace {

constexpr const char* kBoundText = "recursion deeper than ";

std::vector<std::vector<FuncId>> callees(const Program& p) {
  std::vector<std::vector<FuncId>> out(p.functions.size());
  for (const Function& f : p.functions) {
    for (const Edge& e : f.edges)
      if (e.kind == EdgeKind::Call && e.callee < p.functions.size()) out[f.id].push_back(e.callee);
    std::sort(out[f.id].begin(), out[f.id].end());
    out[f.id].erase(std::unique(out[f.id].begin(), out[f.id].end()), out[f.id].end());
  }
  return out;
}

// Strongly connected components (Tarjan, iterative) of the functions reachable from the
// roots; comp[f] = component index, or -1 for unreachable functions. recursive[c]: the
// component has a cycle (more than one function, or a self-call).
struct Components {
  std::vector<int> comp;
  std::vector<bool> recursive;
};

Components components(const Program& p, const std::vector<std::vector<FuncId>>& succ, std::vector<FuncId> roots) {
  const size_t n = p.functions.size();
  Components c;
  c.comp.assign(n, -1);
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> onStack(n, false);
  std::vector<FuncId> stack;
  int next = 0;
  for (FuncId r : roots) {
    if (r >= n || index[r] >= 0) continue;
    // frames: (function, next successor position)
    std::vector<std::pair<FuncId, size_t>> frames{{r, 0}};
    index[r] = low[r] = next++;
    stack.push_back(r);
    onStack[r] = true;
    while (!frames.empty()) {
      auto& [v, pos] = frames.back();
      if (pos < succ[v].size()) {
        FuncId w = succ[v][pos++];
        if (index[w] < 0) {
          index[w] = low[w] = next++;
          stack.push_back(w);
          onStack[w] = true;
          frames.push_back({w, 0});
        } else if (onStack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      FuncId done = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
      if (low[done] == index[done]) {
        int id = static_cast<int>(c.recursive.size());
        size_t members = 0;
        FuncId w;
        do {
          w = stack.back();
          stack.pop_back();
          onStack[w] = false;
          c.comp[w] = id;
          ++members;
        } while (w != done);
        bool selfCall = std::binary_search(succ[done].begin(), succ[done].end(), done);
        c.recursive.push_back(members > 1 || selfCall);
      }
    }
  }
  return c;
}

std::vector<FuncId> roots(const Program& p, FuncId entry) {
  std::vector<FuncId> r{entry};
  if (p.initFunc != kNoFunc) r.push_back(p.initFunc);
  if (p.initNondetFunc != kNoFunc) r.push_back(p.initNondetFunc);
  return r;
}

ExprPtr rename(const ExprPtr& e, const std::vector<VarId>& map) {
  if (!e) return e;
  bool changed = false;
  std::vector<ExprPtr> ops;
  ops.reserve(e->ops.size());
  for (const ExprPtr& o : e->ops) {
    ops.push_back(rename(o, map));
    changed |= ops.back() != o;
  }
  bool var = e->kind == ExprKind::Var && e->var < map.size() && map[e->var] != e->var;
  if (!changed && !var) return e;
  auto n = std::make_shared<Expr>(*e);
  n->ops = std::move(ops);
  if (var) n->var = map[e->var];
  return n;
}

// The origins of the programs inlineRecursion made and that still live.
std::mutex originsMutex;
std::map<const Program*, std::shared_ptr<const Program>> origins;

}  // namespace

const Program& original(const Program& p) {
  std::lock_guard<std::mutex> lk(originsMutex);
  auto it = origins.find(&p);
  return it == origins.end() ? p : *it->second;
}

bool hasRecursion(const Program& p, FuncId entry) {
  auto succ = callees(p);
  Components c = components(p, succ, roots(p, entry));
  return std::find(c.recursive.begin(), c.recursive.end(), true) != c.recursive.end();
}

bool mentionsRecursionBound(const std::string& reason) { return reason.find(kBoundText) != std::string::npos; }

std::optional<InlinedRecursion> inlineRecursion(std::shared_ptr<const Program> orig, FuncId entry, uint32_t depth,
                                                size_t maxEdges) {
  const Program& p = *orig;
  if (depth < 1) depth = 1;
  auto succ = callees(p);
  Components comps = components(p, succ, roots(p, entry));
  std::vector<FuncId> rec;  // functions on a cycle, in id order
  size_t recEdges = 0;
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if (comps.comp[f] >= 0 && comps.recursive[comps.comp[f]]) {
      rec.push_back(f);
      recEdges += p.functions[f].edges.size();
    }
  if (rec.empty()) return std::nullopt;
  if (recEdges * depth > maxEdges) return std::nullopt;

  InlinedRecursion out;
  out.depth = depth;
  out.recursiveFunctions = static_cast<uint32_t>(rec.size());
  auto made = std::make_unique<Program>(p);
  Program& q = *made;
  const FuncId base = static_cast<FuncId>(p.functions.size());
  std::vector<int> recIndex(p.functions.size(), -1);
  for (size_t i = 0; i < rec.size(); ++i) recIndex[rec[i]] = static_cast<int>(i);
  // the function for level l (1-based) of recursive function f
  auto levelOf = [&](FuncId f, uint32_t l) -> FuncId {
    if (l == 1) return f;
    return base + (l - 2) * static_cast<FuncId>(rec.size()) + static_cast<FuncId>(recIndex[f]);
  };
  // locals of each recursive function
  std::vector<std::vector<VarId>> localsOf(rec.size());
  for (VarId v = 0; v < p.vars.size(); ++v)
    if (p.vars[v].func != kNoFunc && p.vars[v].func < recIndex.size() && recIndex[p.vars[v].func] >= 0)
      localsOf[recIndex[p.vars[v].func]].push_back(v);

  // Calls within the component of `f`, from level l: to level l+1, or the bound edge.
  auto redirect = [&](Function& fn, FuncId f, uint32_t l) {
    for (Edge& e : fn.edges) {
      if (e.kind != EdgeKind::Call || e.callee >= p.functions.size()) continue;
      if (comps.comp[e.callee] != comps.comp[f]) continue;  // leaves the component: level 1 as is
      if (l < depth) {
        e.callee = levelOf(e.callee, l + 1);
        continue;
      }
      // Keep the edge's place (index, from, to): the analyses stop a path at an
      // Unsupported edge, as they do for the frontend's, which also lead on to the code after.
      Edge u;
      u.kind = EdgeKind::Unsupported;
      u.from = e.from;
      u.to = e.to;
      u.range = e.range;
      u.text = std::string(kBoundText) + std::to_string(depth) + " (call of " + p.functions[e.callee].name + ")";
      e = std::move(u);
    }
  };
  for (FuncId f : rec) redirect(q.functions[f], f, 1);
  for (uint32_t l = 2; l <= depth; ++l) {
    for (FuncId f : rec) {
      const Function& src = p.functions[f];
      FuncId id = levelOf(f, l);
      std::vector<VarId> map(p.vars.size());
      for (VarId v = 0; v < map.size(); ++v) map[v] = v;
      for (VarId v : localsOf[recIndex[f]]) {
        Variable nv = p.vars[v];
        nv.name += "#" + std::to_string(l);
        nv.func = id;
        map[v] = q.addVar(std::move(nv));
      }
      Function c = src;
      c.id = id;
      c.name = src.name + "#" + std::to_string(l);
      for (VarId& v : c.params) v = map[v];
      if (c.retVar) c.retVar = map[*c.retVar];
      for (Edge& e : c.edges) {
        if (e.lhs) e.lhs = map[*e.lhs];
        e.cond = rename(e.cond, map);
        e.rhs = rename(e.rhs, map);
        e.addr = rename(e.addr, map);
        e.value = rename(e.value, map);
        e.size = rename(e.size, map);
        for (ExprPtr& a : e.args) a = rename(a, map);
      }
      redirect(c, f, l);
      if (q.functions.size() != id) throw std::logic_error("inlineRecursion: function numbering");
      q.funcByName[c.name] = id;
      q.functions.push_back(std::move(c));
      ++out.copies;
    }
  }
  {
    std::lock_guard<std::mutex> lk(originsMutex);
    origins[made.get()] = orig;
  }
  out.program = std::shared_ptr<const Program>(made.release(), [](const Program* d) {
    {
      std::lock_guard<std::mutex> lk(originsMutex);
      origins.erase(d);
    }
    delete d;
  });
  return out;
}

}  // namespace argus::cfa
