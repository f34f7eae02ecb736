// Strongly connected components of a directed graph (Tarjan's algorithm, iterative so
// that deep graphs such as call graphs of real programs do not overflow the stack).
//
// sccIds(n, succ): nodes are 0..n-1; succ(v, f) calls f(w) for every edge v -> w. The
// result maps each node to its component. Components are numbered in the order Tarjan
// completes them: every component a node reaches outside its own has a smaller number
// (callees first), so iterating components by number is a bottom-up order.
// Linear in nodes + edges.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace argus::support {

template <class Successors>
std::vector<uint32_t> sccIds(uint32_t n, Successors&& succ) {
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::vector<uint32_t>> out(n);
  for (uint32_t v = 0; v < n; ++v) succ(v, [&](uint32_t w) { out[v].push_back(w); });
  std::vector<uint32_t> index(n, kNone), low(n, 0), comp(n, kNone), stack;
  std::vector<bool> onStack(n, false);
  uint32_t next = 0, ncomp = 0;
  std::vector<std::pair<uint32_t, size_t>> work;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kNone) continue;
    work.emplace_back(root, 0);
    index[root] = low[root] = next++;
    stack.push_back(root);
    onStack[root] = true;
    while (!work.empty()) {
      auto& [v, i] = work.back();
      if (i < out[v].size()) {
        uint32_t w = out[v][i++];
        if (index[w] == kNone) {
          index[w] = low[w] = next++;
          stack.push_back(w);
          onStack[w] = true;
          work.emplace_back(w, 0);
        } else if (onStack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      uint32_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] != index[done]) continue;
      while (true) {
        uint32_t w = stack.back();
        stack.pop_back();
        onStack[w] = false;
        comp[w] = ncomp;
        if (w == done) break;
      }
      ++ncomp;
    }
  }
  return comp;
}

}  // namespace argus::support
