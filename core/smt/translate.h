// Iterative post-order translation of a term DAG into a backend's native terms, with a
// cache that lives as long as the backend (terms can be nested 100k+ deep, so no
// recursion).
#pragma once

#include <unordered_map>
#include <vector>

#include "core/smt/term.h"

namespace argus::smt {

template <class Native, class Build>
Native translate(Term root, std::unordered_map<Term, Native>& cache, Build build) {
  auto hit = cache.find(root);
  if (hit != cache.end()) return hit->second;
  std::vector<std::pair<Term, bool>> stack{{root, false}};
  std::vector<Native> args;
  while (!stack.empty()) {
    auto [t, expanded] = stack.back();
    stack.pop_back();
    if (cache.count(t)) continue;
    if (!expanded && !t->children.empty()) {
      stack.push_back({t, true});
      for (Term c : t->children)
        if (!cache.count(c)) stack.push_back({c, false});
      continue;
    }
    args.clear();
    for (Term c : t->children) args.push_back(cache.at(c));
    cache.emplace(t, build(t, args));
  }
  return cache.at(root);
}

}  // namespace argus::smt
