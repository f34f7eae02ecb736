#include "core/cfa/loops.h"

#include <algorithm>
#include <utility>

namespace argus::cfa {

LoopStructure computeLoopStructure(const Function& f) {
  LoopStructure ls;
  size_t nl = f.locs.size();
  ls.backEdge.assign(f.edges.size(), false);
  ls.loopsOf.assign(nl, {});
  // iterative DFS from the entry
  std::vector<uint8_t> color(nl, 0);  // 0 white, 1 on stack, 2 done
  std::vector<std::pair<LocId, size_t>> stack;
  if (nl) {
    stack.push_back({f.entry, 0});
    color[f.entry] = 1;
  }
  while (!stack.empty()) {
    auto& [loc, i] = stack.back();
    const auto& out = f.locs[loc].out;
    if (i < out.size()) {
      uint32_t ei = out[i++];
      LocId t = f.edges[ei].to;
      if (color[t] == 1) ls.backEdge[ei] = true;
      else if (color[t] == 0) {
        color[t] = 1;
        stack.push_back({t, 0});
      }
    } else {
      color[loc] = 2;
      stack.pop_back();
    }
  }
  // natural loop bodies
  std::vector<std::vector<bool>> bodies;
  std::vector<LocId> heads;
  for (size_t ei = 0; ei < f.edges.size(); ++ei) {
    if (!ls.backEdge[ei]) continue;
    LocId h = f.edges[ei].to, u = f.edges[ei].from;
    auto it = std::find(heads.begin(), heads.end(), h);
    size_t idx = it - heads.begin();
    if (it == heads.end()) {
      heads.push_back(h);
      bodies.emplace_back(nl, false);
      bodies.back()[h] = true;
    }
    std::vector<bool>& body = bodies[idx];
    std::vector<LocId> work;
    if (!body[u]) {
      body[u] = true;
      work.push_back(u);
    }
    while (!work.empty()) {
      LocId x = work.back();
      work.pop_back();
      for (uint32_t ie : f.locs[x].in) {
        LocId p = f.edges[ie].from;
        if (!body[p] && color[p] != 0) {  // only locations reachable from the entry
          body[p] = true;
          work.push_back(p);
        }
      }
    }
  }
  for (size_t i = 0; i < heads.size(); ++i)
    for (size_t l = 0; l < nl; ++l)
      if (bodies[i][l]) ls.loopsOf[l].push_back(heads[i]);
  for (auto& v : ls.loopsOf) std::sort(v.begin(), v.end());
  return ls;
}

}  // namespace argus::cfa
