#include "core/cfa/link.h"

#include <algorithm>
#include <set>

#include "core/cfa/memlayout.h"

namespace argus::cfa {

namespace {

bool isInit(const Program& p, FuncId id) { return id == p.initFunc || id == p.initNondetFunc; }

ExprPtr remap(const ExprPtr& e, const std::vector<VarId>& vm) {
  if (!e) return e;
  if (e->kind == ExprKind::Var) return Expr::mkVar(vm.at(e->var), e->width);
  if (e->ops.empty()) return e;
  auto n = std::make_shared<Expr>(*e);
  for (ExprPtr& op : n->ops) op = remap(op, vm);
  return n;
}

void varsOf(const ExprPtr& e, std::set<VarId>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Var) out.insert(e->var);
  for (const ExprPtr& op : e->ops) varsOf(op, out);
}

std::set<VarId> edgeVars(const Edge& e) {
  std::set<VarId> s;
  for (const ExprPtr* x : {&e.cond, &e.rhs, &e.addr, &e.value, &e.size}) varsOf(*x, s);
  for (const ExprPtr& a : e.args) varsOf(a, s);
  if (e.lhs) s.insert(*e.lhs);
  return s;
}

Edge remapEdge(const Edge& in, const std::vector<VarId>& vm, const std::vector<FuncId>& fm) {
  Edge e = in;
  e.cond = remap(e.cond, vm);
  e.rhs = remap(e.rhs, vm);
  e.addr = remap(e.addr, vm);
  e.value = remap(e.value, vm);
  e.size = remap(e.size, vm);
  for (ExprPtr& a : e.args) a = remap(a, vm);
  if (e.lhs) e.lhs = vm.at(*e.lhs);
  if (e.kind == EdgeKind::Call && e.callee != kNoFunc) e.callee = fm.at(e.callee);
  return e;
}

// Same parameter and result widths/signedness: a call converted to the stub's
// signature is then a call of the definition.
bool sameSignature(const Program& a, const Function& fa, const Program& b, const Function& fb) {
  if (fa.params.size() != fb.params.size() || fa.retVar.has_value() != fb.retVar.has_value()) return false;
  auto same = [&](VarId x, VarId y) {
    return a.vars[x].width == b.vars[y].width && a.vars[x].isSigned == b.vars[y].isSigned;
  };
  for (size_t i = 0; i < fa.params.size(); ++i)
    if (!same(fa.params[i], fb.params[i])) return false;
  return !fa.retVar || same(*fa.retVar, *fb.retVar);
}

// The start of the memory-safety layout's counters in an init function (Lowerer::buildInit):
// the next free id := 1 and the live-heap count := 0. The only constant stores of either
// there (an allocation stores the next id as its own id + 1).
bool isLayoutReset(const Program& p, const Edge& e) {
  if (e.kind == EdgeKind::Store)
    return e.addr && e.addr->kind == ExprKind::Const && e.addr->value == memlayout::kNextId && e.value &&
           e.value->kind == ExprKind::Const;
  if (e.kind == EdgeKind::Assign)
    return e.lhs && p.vars[*e.lhs].name == memlayout::kLiveHeapVar && e.rhs && e.rhs->kind == ExprKind::Const;
  return false;
}

}  // namespace

LinkResult link(std::vector<LinkUnit> units) {
  LinkResult res;
  if (units.empty()) {
    res.errors.push_back("nothing to link");
    return res;
  }
  if (units.size() == 1) {
    for (const Function& f : units[0].program->functions) res.origin[f.name] = {units[0].file, f.name};
    res.program = std::move(units[0].program);
    return res;
  }
  const size_t n = units.size();
  auto P = std::make_unique<Program>();
  P->mainFile = units[0].file;
  P->ptrWidth = units[0].program->ptrWidth;
  P->heapBase = units[0].program->heapBase;
  P->objectBits = units[0].program->objectBits;  // the memory-safety layout (cfa::memlayout)

  // 1. external definitions, data models, atexit, addresses
  std::map<std::string, std::pair<size_t, FuncId>> extDef;
  std::map<uint64_t, std::string> addrOwner;
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    if (p.ptrWidth != P->ptrWidth || p.heapBase != P->heapBase)
      res.errors.push_back(units[u].file + ": data model differs from " + units[0].file);
    if (p.objectBits != P->objectBits)
      res.errors.push_back(units[u].file + ": memory layout (properties) differs from " + units[0].file);
    for (const Function& f : p.functions) {
      if (f.name == "__argus_atexit_run")
        res.errors.push_back(units[u].file + ": atexit in a program of several translation units is not supported");
      if (f.linkStub || isInit(p, f.id) || f.linkage == Linkage::Internal) continue;
      auto [it, fresh] = extDef.emplace(f.name, std::make_pair(u, f.id));
      if (!fresh)
        res.errors.push_back("multiple definition of '" + f.name + "': " + units[it->second.first].file + ":" +
                             std::to_string(units[it->second.first].program->functions[it->second.second].range.line) +
                             " and " + units[u].file + ":" + std::to_string(f.range.line));
    }
    for (const auto& [name, addr] : p.link.functionAddresses) {
      auto [it, fresh] = addrOwner.emplace(addr, name);
      if (!fresh && it->second != name)
        res.errors.push_back("functions '" + it->second + "' and '" + name + "' hash to the same address");
    }
  }
  if (!res.errors.empty()) return res;

  // 2. function ids: definitions and unresolved stubs; the units' init functions are
  //    inlined into two new ones at the end
  std::vector<std::vector<FuncId>> fm(n);
  std::set<std::string> used;
  std::vector<std::pair<size_t, FuncId>> order;  // new id -> (unit, old id)
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    fm[u].assign(p.functions.size(), kNoFunc);
    for (const Function& f : p.functions) {
      if (isInit(p, f.id) || f.linkStub) continue;
      fm[u][f.id] = static_cast<FuncId>(order.size());
      order.emplace_back(u, f.id);
    }
  }
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    for (const Function& f : p.functions) {
      if (!f.linkStub) continue;
      auto it = extDef.find(f.name);
      if (it != extDef.end()) {
        const Program& q = *units[it->second.first].program;
        if (sameSignature(p, f, q, q.functions[it->second.second])) {
          fm[u][f.id] = fm[it->second.first][it->second.second];
          continue;
        }
        res.warnings.push_back(units[u].file + ": '" + f.name + "' is declared with other parameter or result types than its definition in " +
                               units[it->second.first].file + "; calls stay unknown");
      }
      fm[u][f.id] = static_cast<FuncId>(order.size());
      order.emplace_back(u, f.id);
    }
  }
  const FuncId initId = static_cast<FuncId>(order.size()), nondetId = initId + 1;
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    if (p.initFunc != kNoFunc) fm[u][p.initFunc] = initId;
    if (p.initNondetFunc != kNoFunc) fm[u][p.initNondetFunc] = nondetId;
  }

  // 3. variables
  std::vector<std::vector<VarId>> vm(n);
  std::map<std::string, VarId> extVar;
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    for (const Variable& v : p.vars) {
      if (v.linkage == Linkage::External && v.func == kNoFunc) {
        auto it = extVar.find(v.cName);
        if (it != extVar.end()) {
          const Variable& w = P->vars[it->second];
          if (w.width != v.width || w.kind != v.kind)
            res.errors.push_back("global '" + v.cName + "' has different types in " + units[u].file + " and elsewhere");
          vm[u].push_back(it->second);
          continue;
        }
        Variable c = v;
        VarId id = P->addVar(std::move(c));
        extVar[v.cName] = id;
        vm[u].push_back(id);
        continue;
      }
      Variable c = v;
      c.name += "@" + units[u].file;
      if (c.func != kNoFunc) c.func = fm[u].at(c.func);
      vm[u].push_back(P->addVar(std::move(c)));
    }
  }
  if (!res.errors.empty()) return res;

  // 4. functions
  for (FuncId id = 0; id < order.size(); ++id) {
    auto [u, old] = order[id];
    const Program& p = *units[u].program;
    const Function& f = p.functions[old];
    Function g = f;
    g.id = id;
    bool local = f.linkage == Linkage::Internal || f.linkStub || f.name.rfind("__argus_", 0) == 0;
    if (local) g.name += "@" + units[u].file;
    for (VarId& v : g.params) v = vm[u].at(v);
    if (g.retVar) g.retVar = vm[u].at(*g.retVar);
    for (Location& l : g.locs) l.in.clear(), l.out.clear();
    g.edges.clear();
    for (const Edge& e : f.edges) g.addEdge(remapEdge(e, vm[u], fm[u]));
    if (!used.insert(g.name).second) {
      res.errors.push_back("two functions named '" + g.name + "' after linking");
      return res;
    }
    res.origin[g.name] = {units[u].file, f.name};
    P->funcByName[g.name] = id;
    P->functions.push_back(std::move(g));
  }

  // 5. initialisation: the units' init functions inlined one after the other, in an
  //    order where a global is allocated before another unit's initialiser uses it
  std::map<VarId, size_t> allocBy;
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    if (p.initFunc == kNoFunc) continue;
    for (const Edge& e : p.functions[p.initFunc].edges)
      if (e.kind == EdgeKind::Alloc && e.lhs && p.vars[*e.lhs].linkage == Linkage::External)
        allocBy.emplace(vm[u][*e.lhs], u);
  }
  std::vector<std::set<size_t>> deps(n);
  for (size_t u = 0; u < n; ++u) {
    const Program& p = *units[u].program;
    if (p.initFunc == kNoFunc) continue;
    for (const Edge& e : p.functions[p.initFunc].edges) {
      if (e.kind == EdgeKind::Alloc) continue;
      for (VarId v : edgeVars(e)) {
        auto it = allocBy.find(vm[u][v]);
        if (it != allocBy.end() && it->second != u) deps[u].insert(it->second);
      }
    }
  }
  std::vector<size_t> topo;
  std::vector<bool> placed(n, false);
  while (topo.size() < n) {
    bool progress = false;
    for (size_t u = 0; u < n; ++u) {
      if (placed[u]) continue;
      if (std::all_of(deps[u].begin(), deps[u].end(), [&](size_t d) { return placed[d]; })) {
        placed[u] = true;
        topo.push_back(u);
        progress = true;
      }
    }
    if (!progress) {
      std::string names;
      for (size_t u = 0; u < n; ++u)
        if (!placed[u]) names += (names.empty() ? "" : ", ") + units[u].file;
      res.errors.push_back("the global initialisers of " + names + " refer to each other's globals in a cycle");
      return res;
    }
  }
  for (bool nondet : {false, true}) {
    Function F;
    F.id = nondet ? nondetId : initId;
    F.name = nondet ? "__argus_init_nondet" : "__argus_init";
    F.entry = F.addLoc();
    F.exit = F.addLoc();
    F.error = F.addLoc();
    F.sink = F.addLoc();
    LocId cursor = F.entry;
    std::set<VarId> allocated;
    bool firstUnit = true;
    for (size_t u : topo) {
      const Program& p = *units[u].program;
      FuncId src = nondet ? p.initNondetFunc : p.initFunc;
      if (src == kNoFunc) continue;
      const Function& f = p.functions[src];
      std::vector<LocId> lm(f.locs.size());
      for (const Location& l : f.locs) lm[l.id] = F.addLoc(l.range);
      lm[f.error] = F.error;
      lm[f.sink] = F.sink;
      Edge in;
      in.kind = EdgeKind::Blank;
      in.from = cursor;
      in.to = lm[f.entry];
      in.text = "initialise " + units[u].file;
      F.addEdge(std::move(in));
      for (const Edge& e : f.edges) {
        Edge g = remapEdge(e, vm[u], fm[u]);
        g.from = lm[e.from];
        g.to = lm[e.to];
        if (g.kind == EdgeKind::Return) g.kind = EdgeKind::Blank;  // on to the next unit
        if (g.kind == EdgeKind::Alloc && g.lhs && P->vars[*g.lhs].linkage == Linkage::External &&
            !allocated.insert(*g.lhs).second) {
          g.kind = EdgeKind::Blank;  // one object per external global
          g.size = nullptr;
          g.lhs.reset();
        }
        if (!firstUnit && P->objectBits && isLayoutReset(*P, g)) {
          // the memory-safety layout's counters start once, in the first unit: another
          // unit's reset would give its objects the ids of the globals allocated before
          g = Edge{};
          g.kind = EdgeKind::Blank;
          g.from = lm[e.from];
          g.to = lm[e.to];
          g.range = e.range;
        }
        F.addEdge(std::move(g));
      }
      cursor = lm[f.exit];
      firstUnit = false;
    }
    Edge ret;
    ret.kind = EdgeKind::Return;
    ret.from = cursor;
    ret.to = F.exit;
    F.addEdge(std::move(ret));
    res.origin[F.name] = {units[0].file, F.name};
    P->funcByName[F.name] = F.id;
    if (nondet) P->initNondetFunc = F.id;
    else P->initFunc = F.id;
    P->functions.push_back(std::move(F));
  }
  for (size_t u = 0; u < n; ++u)
    for (const std::string& note : units[u].program->notes) P->notes.push_back(units[u].file + ": " + note);
  P->markLoopHeads();
  res.program = std::move(P);
  return res;
}

}  // namespace argus::cfa
