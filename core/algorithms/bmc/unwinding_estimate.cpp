#include "core/algorithms/bmc/unwinding_estimate.h"

#include <algorithm>
#include <deque>
#include <set>

#include "core/algorithms/bmc/unwinding.h"
#include "core/cfa/dead_ends.h"
#include "core/support/scc.h"

namespace argus::algorithms {

using cfa::Edge;
using cfa::EdgeKind;

namespace {
uint64_t satAdd(uint64_t a, uint64_t b, uint64_t cap) { return a > cap || b > cap - std::min(cap, a) ? cap + 1 : a + b; }
uint64_t satMul(uint64_t a, uint64_t b, uint64_t cap) {
  if (a == 0 || b == 0) return 0;
  return a > cap / b ? cap + 1 : a * b;
}
}  // namespace

UnwindingEstimate::UnwindingEstimate(const cfa::Program& prog, cfa::FuncId entry, uint64_t limit)
    : prog_(prog), entry_(entry), limit_(limit) {
  size_t n = prog.functions.size();
  loops_.resize(n);
  recursive_.assign(n, false);
  reachesRecursive_.assign(n, false);
  noEffect_ = noEffectFunctions(prog);
  dead_ = std::make_shared<const cfa::DeadEnds>(cfa::computeDeadEnds(prog));
  auto calls = [&](uint32_t f, auto&& to) {
    for (const Edge& e : prog.functions[f].edges)
      if (e.kind == EdgeKind::Call) to(e.callee);
  };
  std::vector<uint32_t> comp = support::sccIds(static_cast<uint32_t>(n), calls);
  std::vector<uint32_t> compSize(n, 0);
  for (uint32_t c : comp) ++compSize[c];
  for (const cfa::Function& f : prog.functions) {
    recursive_[f.id] = compSize[comp[f.id]] > 1;
    calls(f.id, [&](uint32_t g) { recursive_[f.id] = recursive_[f.id] || g == f.id; });
  }
  // components are numbered callees first: in that order every callee outside f's
  // component is done before f (a component with two functions is recursive anyway)
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return comp[a] < comp[b]; });
  for (uint32_t f : order) {
    bool r = recursive_[f];
    calls(f, [&](uint32_t g) { r = r || reachesRecursive_[g]; });
    reachesRecursive_[f] = r;
  }
}

const UnwindingEstimate::Local& UnwindingEstimate::local(cfa::FuncId fid, uint32_t k) {
  const cfa::Function& f = prog_.functions[fid];
  // a loop-free function unwinds the same at every bound: memoised once
  if (!loops_[fid]) loops_[fid] = std::make_unique<cfa::LoopStructure>(cfa::computeLoopStructure(f));
  const cfa::LoopStructure& ls = *loops_[fid];
  bool loopFree = std::none_of(ls.backEdge.begin(), ls.backEdge.end(), [](bool b) { return b; });
  auto key = std::make_pair(fid, loopFree ? 0u : k);
  auto it = locals_.find(key);
  if (it != locals_.end()) return it->second;
  Local out;
  using Counts = std::vector<std::pair<cfa::LocId, uint32_t>>;
  std::set<std::pair<cfa::LocId, Counts>> seen;
  std::deque<const std::pair<cfa::LocId, Counts>*> work;
  std::map<cfa::FuncId, uint64_t> calls;
  auto add = [&](cfa::LocId l, Counts c) {
    auto [pos, added] = seen.insert({l, std::move(c)});
    if (added) work.push_back(&*pos);
  };
  add(f.entry, {});
  while (!work.empty() && seen.size() <= limit_) {
    const auto [loc, counts] = *work.front();
    work.pop_front();
    if (loc == f.exit) continue;
    for (uint32_t ei : f.locs[loc].out) {
      const Edge& e = f.edges[ei];
      if (e.kind == EdgeKind::Error || e.kind == EdgeKind::Abort || e.kind == EdgeKind::Unsupported) continue;
      const auto& tl = ls.loopsOf[e.to];
      Counts tc;
      for (auto& [h, c] : counts)
        if (std::binary_search(tl.begin(), tl.end(), h)) tc.push_back({h, c});
      if (e.kind == EdgeKind::Call) {
        // passed over by the unwinding when it cannot influence a check (with a result,
        // only when that is dead: counted here, an upper bound); a callee whose entry is
        // a dead end is not entered
        if (!(noEffect_[e.callee] && !e.lhs) && !dead_->dead(e.callee, prog_.functions[e.callee].entry))
          ++calls[e.callee];
        // the return site (Unwinding::exploreFrom at the callee's exit), unless a dead end
        if (!dead_->dead(fid, e.to)) add(e.to, std::move(tc));
        continue;
      }
      if (dead_->dead(fid, e.to)) continue;  // a dead end ends the path (Unwinding::exploreEdge)
      if (ls.backEdge[ei]) {
        auto c = std::find_if(tc.begin(), tc.end(), [&](auto& p) { return p.first == e.to; });
        uint32_t n = c == tc.end() ? 0 : c->second;
        if (n + 1 > k) continue;  // cut
        if (c == tc.end()) tc.push_back({e.to, 1});
        else c->second = n + 1;
        std::sort(tc.begin(), tc.end());
      } else if (std::binary_search(tl.begin(), tl.end(), e.to)) {
        tc.erase(std::remove_if(tc.begin(), tc.end(), [&](auto& p) { return p.first == e.to; }), tc.end());
      }
      add(e.to, std::move(tc));
    }
  }
  out.nodes = seen.size() > limit_ ? limit_ + 1 : seen.size();
  out.calls.assign(calls.begin(), calls.end());
  return locals_.emplace(key, std::move(out)).first->second;
}

uint64_t UnwindingEstimate::count(cfa::FuncId f, uint32_t k, uint32_t remaining,
                                  std::map<cfa::FuncId, uint32_t>& depthOf) {
  // without recursion below f, the stack's depths cannot cut anything: memoise
  const bool memo = !reachesRecursive_[f];
  auto key = std::make_tuple(f, k, remaining);
  if (memo) {
    auto it = counts_.find(key);
    if (it != counts_.end()) return it->second;
  }
  const Local& l = local(f, k);
  uint64_t total = l.nodes;
  if (remaining > 0)
    for (auto& [callee, mult] : l.calls) {
      if (total > limit_) break;
      uint32_t depth = depthOf.count(callee) ? depthOf[callee] : 0;
      if (depth > k) continue;  // recursion cut
      uint32_t rem = remaining == kNoDepthLimit ? kNoDepthLimit : remaining - 1;
      depthOf[callee] = depth + 1;
      uint64_t sub = count(callee, k, rem, depthOf);
      if (depth == 0) depthOf.erase(callee);
      else depthOf[callee] = depth;
      total = satAdd(total, satMul(mult, sub, limit_), limit_);
    }
  if (total > limit_) total = limit_ + 1;
  if (memo) counts_[key] = total;
  return total;
}

uint64_t UnwindingEstimate::nodes(uint32_t k, uint32_t d) {
  // mirrors Unwinding::unwindTo: the initialisation's instance, then the entry's
  bool isMain = prog_.functions[entry_].name == "main";
  cfa::FuncId initF = isMain ? prog_.initFunc : prog_.initNondetFunc;
  std::map<cfa::FuncId, uint32_t> depthOf;
  if (initF == cfa::kNoFunc) return count(entry_, k, d, depthOf);
  uint64_t total = count(initF, k, d, depthOf);
  depthOf[entry_] = 1;
  return satAdd(total, count(entry_, k, d, depthOf), limit_);
}

uint64_t UnwindingEstimate::entryNodes(uint32_t k, uint32_t d) {
  std::map<cfa::FuncId, uint32_t> depthOf;
  depthOf[entry_] = 1;
  return count(entry_, k, d, depthOf);
}

std::optional<uint32_t> UnwindingEstimate::maxDepth(uint32_t k) {
  if (nodes(k, kNoDepthLimit) <= limit_) return kNoDepthLimit;
  if (nodes(k, 0) > limit_) return std::nullopt;
  return depthFor(k, limit_, 0, kNoDepthLimit);
}

uint32_t UnwindingEstimate::depthFor(uint32_t k, uint64_t target, uint32_t minD, uint32_t maxD, bool entryOnly) {
  auto size = [&](uint32_t depth) { return entryOnly ? entryNodes(k, depth) : nodes(k, depth); };
  uint32_t d = minD;
  uint64_t prev = size(d);
  while (d < maxD) {
    uint64_t next = size(d + 1);
    if (next > target) break;
    if (next == prev) return maxD;  // nothing is nested deeper than d: no depth cut left
    prev = next;
    ++d;
  }
  return d;
}

}  // namespace argus::algorithms
