#include "core/cfa/dead_ends.h"

#include <deque>

namespace argus::cfa {

namespace {

bool isCheck(const Edge& e) {
  return e.kind == EdgeKind::Error || e.kind == EdgeKind::Unsupported || (e.kind == EdgeKind::Alloc && e.zeroInit);
}

// Backward closure within f from the seed locations (marked true in `mark`): a location
// whose out-edge leads to a marked location is marked. Call edges count as ordinary
// edges to their return site (the callee may return).
void backward(const Function& f, std::vector<bool>& mark) {
  std::deque<LocId> work;
  for (LocId l = 0; l < mark.size(); ++l)
    if (mark[l]) work.push_back(l);
  while (!work.empty()) {
    LocId l = work.front();
    work.pop_front();
    for (uint32_t ei : f.locs[l].in) {
      LocId from = f.edges[ei].from;
      if (!mark[from]) {
        mark[from] = true;
        work.push_back(from);
      }
    }
  }
}

}  // namespace

DeadEnds computeDeadEnds(const Program& p) {
  const size_t nf = p.functions.size();
  // inside[f][l]: from l, f may take a check before it returns (in f or in a callee).
  std::vector<std::vector<bool>> inside(nf);
  for (const Function& f : p.functions) inside[f.id].assign(f.locs.size(), false);
  auto entryInside = [&](FuncId g) {
    const Function& c = p.functions[g];
    return c.entry < inside[g].size() && inside[g][c.entry];
  };
  // Least fixpoint over the call graph (a callee's summary can only grow): a function is
  // computed again when the entry of one of its callees becomes live.
  std::vector<std::vector<FuncId>> callers(nf);
  for (const Function& f : p.functions)
    for (const Edge& e : f.edges)
      if (e.kind == EdgeKind::Call && e.callee < nf) callers[e.callee].push_back(f.id);
  std::deque<FuncId> work;
  std::vector<bool> queued(nf, true);
  for (const Function& f : p.functions) work.push_back(f.id);
  while (!work.empty()) {
    const Function& f = p.functions[work.front()];
    work.pop_front();
    queued[f.id] = false;
    if (f.locs.empty()) continue;
    bool wasLive = entryInside(f.id);
    std::vector<bool> mark(f.locs.size(), false);
    for (const Edge& e : f.edges)
      if (isCheck(e) || (e.kind == EdgeKind::Call && e.callee < nf && entryInside(e.callee))) mark[e.from] = true;
    backward(f, mark);
    inside[f.id] = std::move(mark);
    if (!wasLive && entryInside(f.id))
      for (FuncId c : callers[f.id])
        if (!queued[c]) {
          queued[c] = true;
          work.push_back(c);
        }
  }
  // toExit[f][l]: f's exit is reachable from l.
  std::vector<std::vector<bool>> toExit(nf);
  for (const Function& f : p.functions) {
    toExit[f.id].assign(f.locs.size(), false);
    if (f.exit < f.locs.size()) {
      toExit[f.id][f.exit] = true;
      backward(f, toExit[f.id]);
    }
  }
  // afterReturn[f]: a check may be taken after f returns. Least fixpoint as well: when
  // afterReturn[g] becomes true, g's calls whose return sites reach g's exit are examined.
  std::vector<bool> afterReturn(nf, false);
  std::deque<FuncId> grown;
  auto setAfterReturn = [&](FuncId f) {
    if (f < nf && !afterReturn[f]) {
      afterReturn[f] = true;
      grown.push_back(f);
    }
  };
  setAfterReturn(p.initFunc);
  setAfterReturn(p.initNondetFunc);
  for (const Function& g : p.functions)
    for (const Edge& e : g.edges)
      if (e.kind == EdgeKind::Call && inside[g.id][e.to]) setAfterReturn(e.callee);
  while (!grown.empty()) {
    const Function& g = p.functions[grown.front()];
    grown.pop_front();
    for (const Edge& e : g.edges)
      if (e.kind == EdgeKind::Call && toExit[g.id][e.to]) setAfterReturn(e.callee);
  }
  DeadEnds d;
  d.live.resize(nf);
  for (const Function& f : p.functions) {
    std::vector<bool>& live = d.live[f.id];
    live.assign(f.locs.size(), false);
    for (LocId l = 0; l < f.locs.size(); ++l) {
      live[l] = inside[f.id][l] || (afterReturn[f.id] && toExit[f.id][l]);
      if (!live[l]) ++d.deadCount;
    }
  }
  return d;
}

bool checkReachableAvoidingUnsupported(const Program& p, FuncId entry) {
  const size_t nf = p.functions.size();
  if (entry >= nf) return false;
  // From `f`'s entry, avoiding Unsupported edges and passing a call only where its callee
  // returns: the locations reached; and whether an Error edge was among the edges taken.
  std::vector<char> returns(nf, 0);
  auto explore = [&](FuncId f, std::vector<char>& seen, std::vector<FuncId>* callees) {
    const Function& fn = p.functions[f];
    bool error = false;
    seen.assign(fn.locs.size(), 0);
    if (fn.locs.empty() || fn.entry >= fn.locs.size()) return false;
    std::vector<LocId> work{fn.entry};
    seen[fn.entry] = 1;
    while (!work.empty()) {
      LocId l = work.back();
      work.pop_back();
      for (uint32_t ei : fn.locs[l].out) {
        const Edge& e = fn.edges[ei];
        if (e.kind == EdgeKind::Unsupported) continue;
        if (e.kind == EdgeKind::Error) error = true;
        if (e.kind == EdgeKind::Call) {
          if (callees && e.callee < nf) callees->push_back(e.callee);
          if (e.callee >= nf || !returns[e.callee]) continue;
        }
        if (e.to < seen.size() && !seen[e.to]) {
          seen[e.to] = 1;
          work.push_back(e.to);
        }
      }
    }
    return error;
  };
  // the least fixpoint of `returns`
  std::vector<char> seen;
  for (bool changed = true; changed;) {
    changed = false;
    for (FuncId f = 0; f < nf; ++f) {
      if (returns[f]) continue;
      explore(f, seen, nullptr);
      const Function& fn = p.functions[f];
      if (fn.exit < seen.size() && seen[fn.exit]) {
        returns[f] = 1;
        changed = true;
      }
    }
  }
  // from the entry, into every callee the walk calls (a check there is reached too)
  std::vector<char> visited(nf, 0);
  std::vector<FuncId> todo{entry};
  visited[entry] = 1;
  while (!todo.empty()) {
    FuncId f = todo.back();
    todo.pop_back();
    std::vector<FuncId> callees;
    if (explore(f, seen, &callees)) return true;
    for (FuncId g : callees)
      if (!visited[g]) {
        visited[g] = 1;
        todo.push_back(g);
      }
  }
  return false;
}

}  // namespace argus::cfa
