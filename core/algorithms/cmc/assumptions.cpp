#include "core/algorithms/cmc/assumptions.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/cpa/location_cpa.h"
#include "core/cpa/monitor_cpa.h"

namespace argus::algorithms {

using cpa::ArgState;
using result::AssumptionAutomaton;

std::string locationWhere(const cfa::Program& prog, cfa::FuncId f, cfa::LocId l) {
  if (f >= prog.functions.size()) return "?";
  const cfa::Function& fn = prog.functions[f];
  const cfa::SourceRange* r = l < fn.locs.size() ? &fn.locs[l].range : nullptr;
  if (!r || r->line == 0) {
    // the first edge leaving or entering the location with a position
    if (l < fn.locs.size()) {
      for (uint32_t ei : fn.locs[l].out)
        if (fn.edges[ei].range.line) {
          r = &fn.edges[ei].range;
          break;
        }
      if (!r || r->line == 0)
        for (uint32_t ei : fn.locs[l].in)
          if (fn.edges[ei].range.line) {
            r = &fn.edges[ei].range;
            break;
          }
    }
  }
  if (!r || r->line == 0) r = &fn.range;
  std::string file = r->file;
  if (auto p = file.find_last_of('/'); p != std::string::npos) file = file.substr(p + 1);
  if (file.empty()) file = fn.name;
  return file + ":" + std::to_string(r->line);
}

std::vector<std::string> summarizeOpen(const cfa::Program& prog, const BuiltCondition& b, const std::string& stoppedBy) {
  std::vector<std::string> items;
  size_t waiting = 0;
  std::string firstWaiting;
  for (const OpenPart& o : b.open) {
    auto* l = cpa::extract<cpa::LocationState>(*o.node);
    std::string where = l ? locationWhere(prog, l->func, l->loc) : "?";
    if (o.reason == kWaitingReason) {
      if (!waiting++) firstWaiting = where;
      continue;
    }
    std::string item = o.reason + " at " + where;
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  if (waiting)
    items.insert(items.begin(), std::to_string(waiting) + " state" + (waiting > 1 ? "s" : "") + " not explored when the " +
                                    (stoppedBy.empty() ? "analysis" : stoppedBy) + " stopped it (first at " + firstWaiting +
                                    ")");
  return items;
}

std::string exceptSummary(const std::vector<std::string>& items) {
  constexpr size_t kMaxItems = 6;
  if (items.empty()) return "";
  std::string s = "verified except: ";
  for (size_t i = 0; i < items.size() && i < kMaxItems; ++i) s += (i ? "; " : "") + items[i];
  if (items.size() > kMaxItems) s += "; and " + std::to_string(items.size() - kMaxItems) + " more";
  return s;
}

result::AssumptionAutomaton trivialAutomaton(const cfa::Program& prog, const std::string& entry, bool verified) {
  AssumptionAutomaton a;
  a.programHash = result::programHash(prog, entry);
  a.entry = entry;
  a.initial = verified ? AssumptionAutomaton::kVerified : AssumptionAutomaton::kOpen;
  return a;
}

BuiltCondition buildCondition(const cfa::Program& prog, const std::string& entry, const cpa::ReachedSet& reached,
                              const ArgState* root,
                              const std::function<std::optional<std::string>(const ArgState&)>& openReason,
                              const std::function<std::string(const ArgState&)>& describe) {
  BuiltCondition out;
  out.automaton.programHash = result::programHash(prog, entry);
  out.automaton.entry = entry;
  auto resolve = [](const ArgState* n) {
    for (int guard = 0; n->coveredBy && guard < 1000000; ++guard) n = n->coveredBy;
    return n;
  };
  // all nodes reachable from the root through children and coverage
  std::vector<const ArgState*> nodes;
  std::unordered_map<const ArgState*, size_t> index;
  auto visit = [&](const ArgState* n) {
    if (!n || n->removed || index.count(n)) return;
    index[n] = nodes.size();
    nodes.push_back(n);
  };
  visit(root);
  if (nodes.empty()) {
    out.automaton.initial = AssumptionAutomaton::kOpen;
    return out;
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const ArgState* c : nodes[i]->children) visit(c);
    if (nodes[i]->coveredBy) visit(nodes[i]->coveredBy);
  }
  out.argNodes = nodes.size();
  // open nodes
  std::vector<uint8_t> open(nodes.size(), 0), needed(nodes.size(), 0);
  std::vector<std::vector<size_t>> preds(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ArgState* n = nodes[i];
    std::optional<std::string> why;
    if (n->coveredBy == nullptr) {
      auto sp = n->shared_from_this();
      if (!n->cut.empty()) why = n->cut;  // a monitor of the CPA++ run cut it
      else if (reached.contains(sp) && reached.isWaiting(sp)) why = kWaitingReason;
      if (!why)
        if (auto* as = cpa::extract<cpa::AssumptionState>(*n); as && as->excluded) why = as->reason;
      if (why) open[i] = 2;  // cut: a limit stopped the exploration here
      else why = openReason(*n);
    }
    if (why) {
      if (!open[i]) open[i] = 1;
      out.open.push_back({n, *why});
    }
    for (const ArgState* c : n->children)
      if (!c->removed && index.count(c)) preds[index[c]].push_back(i);
    if (n->coveredBy && index.count(n->coveredBy)) preds[index[n->coveredBy]].push_back(i);
  }
  std::vector<size_t> work;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (open[i]) {
      needed[i] = 1;
      work.push_back(i);
    }
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    for (size_t p : preds[i])
      if (!needed[p]) {
        needed[p] = 1;
        work.push_back(p);
      }
  }
  // the nodes from which a cut (not only an undecided target) can be reached
  std::vector<uint8_t> leadsToCut(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (open[i] == 2) {
      leadsToCut[i] = 1;
      work.push_back(i);
    }
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    for (size_t p : preds[i])
      if (!leadsToCut[p]) {
        leadsToCut[p] = 1;
        work.push_back(p);
      }
  }
  // Loops: a node at a loop head from which a cut (a limit, or the states still
  // waiting) can be reached becomes open. Otherwise the automaton would spell out every
  // unrolled iteration of the loop the earlier run was stuck in and force a later
  // analysis to unroll it the same way (and to explore it twice, once restricted and
  // once open); opening more is always sound (a later run only explores more). What
  // was verified before the loop, on paths that never reach an open part, and the
  // paths to undecided targets (an error path the earlier analysis could not refute)
  // stay exact.
  std::vector<uint8_t> collapsed(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!leadsToCut[i] || open[i] || nodes[i]->coveredBy) continue;
    auto* l = cpa::extract<cpa::LocationState>(*nodes[i]);
    if (l && l->func < prog.functions.size() && l->loc < prog.functions[l->func].locs.size() &&
        prog.functions[l->func].locs[l->loc].isLoopHead)
      collapsed[i] = 1;
  }
  // automaton ids
  std::vector<uint32_t> id(nodes.size(), AssumptionAutomaton::kVerified);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]->coveredBy) continue;
    if (open[i] || (needed[i] && collapsed[i])) id[i] = AssumptionAutomaton::kOpen;
    else if (needed[i]) {
      id[i] = static_cast<uint32_t>(out.automaton.states.size());
      result::AutomatonState st;
      if (auto* l = cpa::extract<cpa::LocationState>(*nodes[i])) {
        st.func = l->func;
        st.loc = l->loc;
      }
      out.automaton.states.push_back(st);
    }
  }
  auto idOf = [&](const ArgState* n) {
    const ArgState* r = resolve(n);
    auto it = index.find(r);
    return it == index.end() ? AssumptionAutomaton::kOpen : id[it->second];
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    uint32_t q = id[i];
    if (nodes[i]->coveredBy || q < 2) continue;
    for (const ArgState* c : nodes[i]->children) {
      if (c->removed) continue;
      uint32_t t = idOf(c);
      if (t == AssumptionAutomaton::kVerified) continue;
      for (auto& [p, step] : c->parents) {
        if (p != nodes[i]) continue;
        result::AutomatonTransition tr;
        tr.kind = static_cast<uint8_t>(step.kind);
        tr.func = step.func;
        tr.edge = step.edge;
        tr.caller = step.caller;
        tr.toFunc = step.toFunc;
        tr.toLoc = step.toLoc;
        tr.target = t;
        auto& outs = out.automaton.states[q].out;
        bool dup = false;
        for (auto& o : outs)
          if (o.kind == tr.kind && o.func == tr.func && o.edge == tr.edge && o.caller == tr.caller &&
              o.toFunc == tr.toFunc && o.toLoc == tr.toLoc && o.target == tr.target)
            dup = true;
        if (!dup) outs.push_back(tr);
      }
    }
  }
  out.automaton.initial = idOf(root);
  // drop the states no run of the automaton reaches (below collapsed loop heads)
  {
    auto& st = out.automaton.states;
    std::vector<uint32_t> renum(st.size(), UINT32_MAX);
    renum[AssumptionAutomaton::kVerified] = AssumptionAutomaton::kVerified;
    renum[AssumptionAutomaton::kOpen] = AssumptionAutomaton::kOpen;
    std::vector<uint32_t> order, work;
    if (out.automaton.initial >= 2) work.push_back(out.automaton.initial);
    while (!work.empty()) {
      uint32_t q = work.back();
      work.pop_back();
      if (renum[q] != UINT32_MAX) continue;
      renum[q] = static_cast<uint32_t>(2 + order.size());
      order.push_back(q);
      for (auto& t : st[q].out)
        if (renum[t.target] == UINT32_MAX) work.push_back(t.target);
    }
    std::vector<result::AutomatonState> kept{st[0], st[1]};
    for (uint32_t q : order) {
      kept.push_back(st[q]);
      for (auto& t : kept.back().out) t.target = renum[t.target];
    }
    out.automaton.initial = renum[out.automaton.initial];
    st = std::move(kept);
  }
  // notes and the assumption formula
  std::set<std::string> seen;
  for (const OpenPart& o : out.open) {
    auto* l = cpa::extract<cpa::LocationState>(*o.node);
    std::string where = l ? locationWhere(prog, l->func, l->loc) : "?";
    std::string pc = l ? prog.functions[l->func].name + "@" + std::to_string(l->loc) : "?";
    std::string psi = describe(*o.node);
    if (psi.empty()) psi = "false";
    std::string clause = "(pc = " + pc + " [" + where + "]) => " + psi + "   -- " + o.reason;
    if (seen.insert(clause).second) out.formula.push_back(clause);
  }
  return out;
}

}  // namespace argus::algorithms
