#include "core/algorithms/kinduction/flat_program.h"

#include "core/cfa/dead_ends.h"
#include "core/cfa/loops.h"

#include <algorithm>
#include <deque>
#include <map>

namespace argus::algorithms {

using cfa::Edge;
using cfa::EdgeKind;

FlatVar FlatProgram::varOf(uint32_t inst, cfa::VarId v) const {
  if (prog->vars[v].func == cfa::kNoFunc) return globalIndex[v];
  return localIndex[inst][v];
}

std::string FlatProgram::varName(FlatVar v) const {
  const FlatVarInfo& fv = vars[v];
  const cfa::Variable& var = prog->vars[fv.var];
  // C name for globals and the entry's own variables; the unique name otherwise
  bool plain = (fv.inst < 0 || instances[fv.inst].func == entry) && !var.cName.empty();
  std::string n = plain ? var.cName : var.name;
  if (fv.inst >= 0 && instances[fv.inst].parent >= 0 && instances[fv.inst].callEdge)
    n += "@" + std::to_string(instances[fv.inst].callEdge->range.line);  // the inlined call's line
  return n;
}

std::string FlatProgram::describe(uint32_t node) const {
  const FlatNode& n = nodes[node];
  const cfa::Function& f = prog->functions[instances[n.inst].func];
  const cfa::SourceRange& r = f.locs[n.loc].range;
  std::string s = (r.file.empty() ? prog->mainFile : r.file) + ":" + std::to_string(r.line) + ":" +
                  std::to_string(r.column) + " in " + f.name;
  for (int i = static_cast<int>(n.inst); i >= 0 && instances[i].parent >= 0; i = instances[i].parent)
    if (instances[i].callEdge) s += " (called at line " + std::to_string(instances[i].callEdge->range.line) + ")";
  return s;
}

// Targets of DFS back edges from the entry (the loop heads the unwinding uses).
static std::vector<bool> loopHeads(const cfa::Function& f) {
  std::vector<bool> head(f.locs.size(), false);
  cfa::LoopStructure ls = cfa::computeLoopStructure(f);
  for (size_t ei = 0; ei < f.edges.size(); ++ei)
    if (ls.backEdge[ei]) head[f.edges[ei].to] = true;
  return head;
}

std::shared_ptr<const FlatProgram> buildFlatProgram(const cfa::Program& prog, cfa::FuncId entry, size_t maxNodes) {
  auto fp = std::make_shared<FlatProgram>();
  fp->prog = &prog;
  fp->entry = entry;
  fp->globalIndex.assign(prog.vars.size(), UINT32_MAX);
  for (cfa::VarId v = 0; v < prog.vars.size(); ++v)
    if (prog.vars[v].func == cfa::kNoFunc) {
      fp->globalIndex[v] = static_cast<FlatVar>(fp->vars.size());
      fp->vars.push_back({v, -1, prog.vars[v].width, prog.vars[v].isSigned});
    }
  // locals per function
  std::vector<std::vector<cfa::VarId>> localsOf(prog.functions.size());
  for (cfa::VarId v = 0; v < prog.vars.size(); ++v)
    if (prog.vars[v].func != cfa::kNoFunc && prog.vars[v].func < prog.functions.size())
      localsOf[prog.vars[v].func].push_back(v);
  std::vector<std::vector<bool>> heads(prog.functions.size());
  std::vector<bool> headsDone(prog.functions.size(), false);

  auto newInstance = [&](cfa::FuncId f, int parent, const Edge* callEdge) -> uint32_t {
    uint32_t id = static_cast<uint32_t>(fp->instances.size());
    fp->instances.push_back({f, parent, callEdge});
    fp->localIndex.emplace_back(prog.vars.size(), UINT32_MAX);
    fp->instLocals.emplace_back();
    const cfa::Function& fn = prog.functions[f];
    for (cfa::VarId v : localsOf[f]) {
      FlatVar fv = static_cast<FlatVar>(fp->vars.size());
      fp->localIndex[id][v] = fv;
      fp->vars.push_back({v, static_cast<int>(id), prog.vars[v].width, prog.vars[v].isSigned});
      if (std::find(fn.params.begin(), fn.params.end(), v) == fn.params.end()) fp->instLocals[id].push_back(fv);
    }
    if (!headsDone[f]) {
      heads[f] = loopHeads(fn);
      headsDone[f] = true;
    }
    return id;
  };
  std::map<std::pair<uint32_t, cfa::LocId>, uint32_t> index;
  std::deque<uint32_t> work;
  auto node = [&](uint32_t inst, cfa::LocId loc) -> uint32_t {
    auto it = index.find({inst, loc});
    if (it != index.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(fp->nodes.size());
    fp->nodes.push_back({inst, loc, {}, {}, -1});
    index[{inst, loc}] = id;
    work.push_back(id);
    if (heads[fp->instances[inst].func][loc]) {
      fp->nodes.back().cut = static_cast<int>(fp->cuts.size());
      fp->cuts.push_back(id);
    }
    return id;
  };
  auto addEdge = [&](FlatEdge e) {
    uint32_t id = static_cast<uint32_t>(fp->edges.size());
    fp->nodes[e.from].out.push_back(id);
    fp->nodes[e.to].in.push_back(id);
    fp->edges.push_back(e);
  };
  auto onStack = [&](uint32_t inst, cfa::FuncId f) {
    for (int i = static_cast<int>(inst); i >= 0; i = fp->instances[i].parent)
      if (fp->instances[i].func == f) return true;
    return false;
  };

  // Dead ends (core/cfa/dead_ends.h) are left out: no path through one reaches an error
  // or unsupported edge, and no path to a location that is not one passes through one,
  // so neither the step case nor the invariants of the other nodes change; a loop in
  // dead ends (a program's own `exit` that loops forever) then has no cut point.
  const cfa::DeadEnds dead = cfa::computeDeadEnds(prog);
  bool isMain = prog.functions[entry].name == "main";
  cfa::FuncId initF = isMain ? prog.initFunc : prog.initNondetFunc;
  uint32_t first;
  if (initF == cfa::kNoFunc) {
    first = newInstance(entry, -1, nullptr);
  } else {
    first = newInstance(initF, -1, nullptr);
  }
  fp->root = node(first, prog.functions[fp->instances[first].func].entry);
  while (!work.empty()) {
    if (fp->nodes.size() > maxNodes) {
      fp->unusable = "inlined program too large";
      return fp;
    }
    uint32_t n = work.front();
    work.pop_front();
    const uint32_t inst = fp->nodes[n].inst;
    const cfa::LocId loc = fp->nodes[n].loc;
    const cfa::Function& f = prog.functions[fp->instances[inst].func];
    if (loc == f.exit) {
      const FlatInstance& fi = fp->instances[inst];
      if (fi.parent >= 0) {
        if (dead.dead(fp->instances[fi.parent].func, fi.callEdge->to)) continue;
        uint32_t t = node(fi.parent, fi.callEdge->to);
        addEdge({FlatEdge::Kind::Return, n, t, fi.callEdge, static_cast<uint32_t>(fi.parent), inst});
      } else if (inst == 0 && fi.func != entry) {
        if (dead.dead(entry, prog.functions[entry].entry)) continue;
        uint32_t e = newInstance(entry, -1, nullptr);
        uint32_t t = node(e, prog.functions[entry].entry);
        addEdge({FlatEdge::Kind::Start, n, t, nullptr, e, e});
      }
      continue;
    }
    for (uint32_t ei : f.locs[loc].out) {
      const Edge& e = f.edges[ei];
      switch (e.kind) {
        case EdgeKind::Unsupported:
        case EdgeKind::Error:
        case EdgeKind::Abort:
          // terminal; kept as edges to a node so that errors can be found
          addEdge({FlatEdge::Kind::Cfa, n, node(inst, e.to), &e, inst, 0});
          continue;
        case EdgeKind::Call: {
          if (dead.dead(e.callee, prog.functions[e.callee].entry)) continue;
          if (onStack(inst, e.callee)) {
            fp->unusable = "recursive call of " + prog.functions[e.callee].name;
            return fp;
          }
          uint32_t ci = newInstance(e.callee, static_cast<int>(inst), &e);
          uint32_t t = node(ci, prog.functions[e.callee].entry);
          addEdge({FlatEdge::Kind::CallEnter, n, t, &e, inst, ci});
          continue;
        }
        default:
          break;
      }
      if (dead.dead(fp->instances[inst].func, e.to)) continue;
      addEdge({FlatEdge::Kind::Cfa, n, node(inst, e.to), &e, inst, 0});
    }
  }
  return fp;
}

}  // namespace argus::algorithms
