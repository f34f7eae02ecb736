#include "core/algorithms/bmc/bound_condition.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include "core/algorithms/bmc/unwinding.h"
#include "core/cpa/location_cpa.h"

namespace argus::algorithms {

using result::AssumptionAutomaton;

namespace {

using Counts = std::vector<std::pair<cfa::LocId, uint32_t>>;   // loop head -> iterations (sorted)
using Depths = std::vector<std::pair<cfa::FuncId, uint32_t>>;  // function -> instances on the stack (sorted)

struct Frame {
  cfa::FuncId func;  // the caller
  uint32_t edge;     // its Call edge
  Counts counts;     // the caller's counts at the return site
  Depths depths;     // the caller's recursion depths
  auto tie() const { return std::tie(func, edge, counts, depths); }
  bool operator<(const Frame& o) const { return tie() < o.tie(); }
};

struct Key {
  std::vector<Frame> stack;
  cfa::FuncId func;
  cfa::LocId loc;
  Counts counts;
  Depths depths;
  auto tie() const { return std::tie(func, loc, counts, depths, stack); }
  bool operator<(const Key& o) const { return tie() < o.tie(); }
};

uint32_t depthOf(const Depths& d, cfa::FuncId f) {
  for (auto& [g, n] : d)
    if (g == f) return n;
  return 0;
}

void setDepth(Depths& d, cfa::FuncId f, uint32_t n) {
  for (auto& [g, m] : d)
    if (g == f) {
      m = n;
      return;
    }
  d.push_back({f, n});
  std::sort(d.begin(), d.end());
}

Counts filterTo(const Counts& c, const std::vector<cfa::LocId>& loops) {
  Counts out;
  for (auto& [h, n] : c)
    if (std::binary_search(loops.begin(), loops.end(), h)) out.push_back({h, n});
  return out;
}

}  // namespace

std::optional<AssumptionAutomaton> boundAutomaton(const cfa::Program& prog, cfa::FuncId entry, uint32_t k,
                                                  size_t maxStates, uint32_t callDepth,
                                                  const std::string* programHash) {
  cpa::ControlFlow cf(prog, entry);
  // per function the automaton reaches, on first use
  std::vector<std::optional<LoopStructure>> loopCache(prog.functions.size());
  auto loopsOf = [&](cfa::FuncId f) -> const LoopStructure& {
    if (!loopCache[f]) loopCache[f] = loopStructure(prog, prog.functions[f]);
    return *loopCache[f];
  };

  AssumptionAutomaton a;
  a.programHash = programHash ? *programHash : result::programHash(prog, prog.functions[entry].name);
  a.entry = prog.functions[entry].name;
  std::map<Key, uint32_t> ids;
  std::vector<Key> keys;
  std::deque<uint32_t> work;
  auto idOf = [&](Key key) -> std::optional<uint32_t> {
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    if (a.states.size() >= maxStates + 2) return std::nullopt;
    uint32_t id = static_cast<uint32_t>(a.states.size());
    result::AutomatonState st;
    st.func = key.func;
    st.loc = key.loc;
    a.states.push_back(st);
    keys.push_back(key);
    ids.emplace(std::move(key), id);
    work.push_back(id);
    return id;
  };
  Key init;
  init.func = cf.startFunc();
  init.loc = prog.functions[init.func].entry;
  // without an initialisation function the entry itself starts (stricter than the
  // unwinding, which does not count this first instance: more is open, still sound)
  if (init.func == entry) setDepth(init.depths, entry, 1);
  a.initial = *idOf(init);
  while (!work.empty()) {
    uint32_t q = work.front();
    work.pop_front();
    const Key key = keys[q - 2];
    for (const cfa::Step& st : cf.outgoing(key.func, key.loc)) {
      result::AutomatonTransition tr;
      tr.kind = static_cast<uint8_t>(st.kind);
      tr.func = st.func;
      tr.edge = st.edge;
      tr.caller = st.caller;
      tr.toFunc = st.toFunc;
      tr.toLoc = st.toLoc;
      std::optional<Key> next;
      bool open = false;
      switch (st.kind) {
        case cfa::StepKind::Edge: {
          const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
          // the unwinding does not follow edges out of a function's exit: not verified
          const bool fromExit = key.loc == prog.functions[st.func].exit;
          if (!fromExit && (e.kind == cfa::EdgeKind::Error || e.kind == cfa::EdgeKind::Abort))
            break;  // verified (BMC found no error within the bound) / the path ends
          if (fromExit || e.kind == cfa::EdgeKind::Unsupported || e.kind == cfa::EdgeKind::Call) {
            open = true;
            break;
          }
          const LoopStructure& ls = loopsOf(st.func);
          Key t{key.stack, st.func, e.to, filterTo(key.counts, ls.loopsOf[e.to]), key.depths};
          if (ls.backEdge[st.edge]) {
            auto it = std::find_if(t.counts.begin(), t.counts.end(), [&](auto& p) { return p.first == e.to; });
            uint32_t c = it == t.counts.end() ? 0 : it->second;
            if (c + 1 > k) {
              open = true;  // BMC cut this iteration
              break;
            }
            if (it == t.counts.end()) t.counts.push_back({e.to, 1});
            else it->second = c + 1;
            std::sort(t.counts.begin(), t.counts.end());
          } else {
            // entering a loop head from outside restarts its count
            t.counts.erase(std::remove_if(t.counts.begin(), t.counts.end(), [&](auto& p) { return p.first == e.to; }),
                           t.counts.end());
          }
          next = std::move(t);
          break;
        }
        case cfa::StepKind::CallEnter: {
          uint32_t d = depthOf(key.depths, st.toFunc);
          if (d > k || key.stack.size() >= callDepth) {
            open = true;  // BMC cut this call (recursion deeper than the bound, or nested too deep)
            break;
          }
          const cfa::Edge& call = prog.functions[st.func].edges[st.edge];
          Key t;
          t.stack = key.stack;
          t.stack.push_back(Frame{st.func, st.edge, filterTo(key.counts, loopsOf(st.func).loopsOf[call.to]), key.depths});
          t.func = st.toFunc;
          t.loc = st.toLoc;
          t.depths = key.depths;
          setDepth(t.depths, st.toFunc, d + 1);
          next = std::move(t);
          break;
        }
        case cfa::StepKind::Return: {
          if (key.stack.empty()) break;
          const Frame& top = key.stack.back();
          if (top.func != st.caller || top.edge != st.edge) break;  // another call site: infeasible
          Key t;
          t.stack.assign(key.stack.begin(), key.stack.end() - 1);
          t.func = st.toFunc;
          t.loc = st.toLoc;
          t.counts = top.counts;
          t.depths = top.depths;
          next = std::move(t);
          break;
        }
        case cfa::StepKind::Start: {
          Key t;
          t.func = st.toFunc;
          t.loc = st.toLoc;
          setDepth(t.depths, st.toFunc, 1);
          next = std::move(t);
          break;
        }
      }
      if (open) {
        tr.target = AssumptionAutomaton::kOpen;
      } else if (next) {
        auto id = idOf(std::move(*next));
        if (!id) return std::nullopt;
        tr.target = *id;
      } else {
        continue;
      }
      a.states[q].out.push_back(tr);
    }
  }
  // states that cannot reach the open state were verified completely: the sink
  size_t n = a.states.size();
  std::vector<std::vector<uint32_t>> preds(n);
  for (uint32_t q = 2; q < n; ++q)
    for (auto& t : a.states[q].out) preds[t.target].push_back(q);
  std::vector<uint8_t> needed(n, 0);
  std::vector<uint32_t> stack{AssumptionAutomaton::kOpen};
  needed[AssumptionAutomaton::kOpen] = 1;
  while (!stack.empty()) {
    uint32_t q = stack.back();
    stack.pop_back();
    for (uint32_t p : preds[q])
      if (!needed[p]) {
        needed[p] = 1;
        stack.push_back(p);
      }
  }
  std::vector<uint32_t> renum(n, AssumptionAutomaton::kVerified);
  renum[AssumptionAutomaton::kOpen] = AssumptionAutomaton::kOpen;
  std::vector<result::AutomatonState> kept{a.states[0], a.states[1]};
  for (uint32_t q = 2; q < n; ++q)
    if (needed[q]) {
      renum[q] = static_cast<uint32_t>(kept.size());
      kept.push_back(a.states[q]);
    }
  for (size_t i = 2; i < kept.size(); ++i) {
    auto& outs = kept[i].out;
    std::vector<result::AutomatonTransition> keep;
    for (auto t : outs) {
      t.target = renum[t.target];
      if (t.target != AssumptionAutomaton::kVerified) keep.push_back(t);
    }
    outs = std::move(keep);
  }
  a.initial = renum[a.initial];
  a.states = std::move(kept);
  return a;
}

}  // namespace argus::algorithms
