#include "core/cfa/cfa_hash.h"

#include "core/cfa/closure.h"
#include "core/support/scc.h"

#include <cstdio>
#include <algorithm>
#include <unordered_map>
#include <vector>

namespace argus::cfa {

void Hasher::byte(uint8_t c) {
  a_ = (a_ ^ c) * 0x100000001b3ull;
  b_ = (b_ ^ (c + 0x9e)) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
}

void Hasher::add(std::string_view s) {
  add(static_cast<uint64_t>(s.size()));
  for (char c : s) byte(static_cast<uint8_t>(c));
}

void Hasher::add(uint64_t v) {
  for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

std::string Hasher::hex() const {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(mix(a_)),
                static_cast<unsigned long long>(mix(b_ ^ a_)));
  return buf;
}

bool isSyntheticFunction(const Function& f) { return f.name.rfind("__argus_", 0) == 0; }

namespace {

// Hashes one function; `relLines` = positions relative to the function's first line
// (false for synthetic functions, whose positions are left out entirely).
struct FnHasher {
  const Program& p;
  const Function& f;
  bool relLines;
  Hasher h;
  std::unordered_map<VarId, uint64_t> local;  // canonical numbering of non-globals

  void var(VarId v) {
    if (v >= p.vars.size()) {
      h.add("?var");
      return;
    }
    const Variable& x = p.vars[v];
    h.add(static_cast<uint64_t>(x.width) | (uint64_t(x.isSigned) << 32) | (uint64_t(x.kind) << 40));
    if (x.kind == VarKind::Global) {
      h.add(x.name);
      return;
    }
    auto [it, fresh] = local.emplace(v, local.size());
    h.add(it->second);
    h.add(x.cName);
  }

  void expr(const ExprPtr& e) {
    if (!e) {
      h.add("null");
      return;
    }
    h.add(static_cast<uint64_t>(e->kind) | (uint64_t(e->width) << 8));
    switch (e->kind) {
      case ExprKind::Const: h.add(e->value); break;
      case ExprKind::Var: var(e->var); break;
      case ExprKind::Unary: h.add(static_cast<uint64_t>(e->unop)); break;
      case ExprKind::Binary: h.add(static_cast<uint64_t>(e->binop)); break;
      case ExprKind::Cast: h.add(static_cast<uint64_t>(e->cast)); break;
      default: break;
    }
    h.add(static_cast<uint64_t>(e->ops.size()));
    for (const ExprPtr& o : e->ops) expr(o);
  }

  void range(const SourceRange& r) {
    if (!relLines) return;
    // Line 0 = no position; it must not become "-start" (which moves with the function).
    auto rel = [&](uint32_t line) {
      return line == 0 ? UINT64_MAX : static_cast<uint64_t>(int64_t(line) - int64_t(f.range.line));
    };
    h.add(rel(r.line));
    h.add(r.column);
    h.add(rel(r.endLine));
    h.add(r.endColumn);
  }

  // `base`: location ids are hashed relative to it (an init piece's first location)
  void edge(const Edge& e, LocId base) {
    h.add(static_cast<uint64_t>(e.kind) | uint64_t(e.positive) << 8 | uint64_t(e.zeroInit) << 9 |
          uint64_t(e.isNondetCall) << 10 | uint64_t(e.bytes) << 16);
    h.add(uint64_t(e.from - base) | uint64_t(e.to - base) << 32);
    range(e.range);
    h.add(e.text);
    h.add(e.externalCallee);
    if (!e.property.empty()) {  // property check edges (absent for reachability: hashes unchanged)
      h.add(e.property);
      h.add(static_cast<uint64_t>(e.check));
    }
    if (e.gate != ContractGate::None) h.add(uint64_t(0x6a7e) << 8 | static_cast<uint64_t>(e.gate));
    if (e.choiceField) h.add(e.choiceField ^ e.choiceType);
    expr(e.cond);
    h.add(static_cast<uint64_t>(e.lhs.has_value()));
    if (e.lhs) var(*e.lhs);
    expr(e.rhs);
    expr(e.addr);
    expr(e.value);
    expr(e.size);
    h.add(e.callee < p.functions.size() ? std::string_view(p.functions[e.callee].name) : "<none>");
    h.add(static_cast<uint64_t>(e.args.size()));
    for (const ExprPtr& a : e.args) expr(a);
  }

  std::string part(const InitPart& ip) {
    h.add("init piece");
    h.add(f.name);
    for (VarId v : ip.defines) var(v);
    h.add(static_cast<uint64_t>(ip.endEdge - ip.firstEdge));
    h.add(uint64_t(ip.to - ip.from));
    for (uint32_t k = ip.firstEdge; k < ip.endEdge && k < f.edges.size(); ++k) edge(f.edges[k], ip.from);
    return h.hex();
  }

  std::string run() {
    h.add(f.name);
    h.add(static_cast<uint64_t>(f.variadic));
    h.add(static_cast<uint64_t>(f.locs.size()));
    h.add(uint64_t(f.entry) | uint64_t(f.exit) << 32);
    h.add(uint64_t(f.error) | uint64_t(f.sink) << 32);
    h.add(static_cast<uint64_t>(f.params.size()));
    for (VarId v : f.params) var(v);
    h.add(static_cast<uint64_t>(f.retVar.has_value()));
    if (f.retVar) var(*f.retVar);
    // the entry model (what a harness entry starts from)
    h.add(static_cast<uint64_t>(f.entryParams.size()));
    auto functions = [&](const EntryFunctions& fs) {
      h.add(static_cast<uint64_t>(fs.addrs.size()));
      for (uint64_t a : fs.addrs) h.add(a);
      h.add(fs.field);
      h.add(fs.type);
    };
    for (const EntryParam& ep : f.entryParams) {
      h.add(uint64_t(int64_t(ep.object) + 1) << 1 | uint64_t(ep.nullable));
      functions(ep.functions);
      h.add(static_cast<uint64_t>(ep.mayAlias.size()));
      for (uint32_t j : ep.mayAlias) h.add(j);
    }
    h.add(static_cast<uint64_t>(f.callsThrough.size()));
    for (uint64_t k : f.callsThrough) h.add(k);
    h.add(static_cast<uint64_t>(f.entryObjects.size()));
    for (const EntryObject& o : f.entryObjects) {
      h.add(o.size);
      h.add(static_cast<uint64_t>(o.pointers.size()));
      for (const EntryObject::Slot& sl : o.pointers) {
        h.add(sl.offset);
        h.add(uint64_t(int64_t(sl.object) + 1) << 2 | uint64_t(sl.nullable) << 1 | uint64_t(sl.keep));
        h.add(uint64_t(int64_t(sl.back) + 1));
        functions(sl.functions);
      }
    }
    if (relLines) {
      h.add(f.range.column);
      h.add(static_cast<uint64_t>(int64_t(f.range.endLine) - int64_t(f.range.line)));
    }
    for (const Location& l : f.locs) {
      h.add(static_cast<uint64_t>(l.isLoopHead));
      range(l.range);
    }
    h.add(static_cast<uint64_t>(f.edges.size()));
    for (const Edge& e : f.edges) edge(e, 0);
    return h.hex();
  }
};

}  // namespace

std::string functionHash(const Program& p, const Function& f) {
  FnHasher fh{p, f, !isSyntheticFunction(f), {}, {}};
  return fh.run();
}

std::set<std::string> reachableFunctions(const Program& p, const Function& f) {
  std::set<std::string> seen;
  std::vector<const Function*> work{&f};
  seen.insert(f.name);
  while (!work.empty()) {
    const Function* cur = work.back();
    work.pop_back();
    for (const Edge& e : cur->edges) {
      if (e.kind != EdgeKind::Call || e.callee >= p.functions.size()) continue;
      const Function& c = p.functions[e.callee];
      if (seen.insert(c.name).second) work.push_back(&c);
    }
  }
  return seen;
}

std::map<std::string, std::string> closureHashes(const Program& p) {
  // Merkle hashes over the strongly connected components of the dependency graph
  // (closure.h): a component's hash covers its members' own hashes and the hashes of the
  // components it depends on, so an edit changes exactly the hashes of the functions
  // whose closure contains it. Linear in the size of the program.
  Dependencies deps(p);
  const uint32_t n = deps.numNodes(), nf = deps.numFunctions();
  std::vector<std::vector<uint32_t>> succ(n);
  for (uint32_t v = 0; v < n; ++v) deps.successors(v, succ[v]);
  std::vector<std::string> own(n);
  for (uint32_t v = 0; v < n; ++v) {
    if (v < nf) {
      own[v] = p.functions[v].name + ":" + functionHash(p, p.functions[v]);
    } else {
      const InitPart& ip = p.initParts[v - nf];
      FnHasher fh{p, p.functions[ip.func], false, {}, {}};
      own[v] = fh.part(ip);
    }
  }
  // components come out callees first (support/scc.h), so a component's dependencies
  // are hashed before it
  std::vector<uint32_t> comp = support::sccIds(n, [&](uint32_t v, auto&& to) {
    for (uint32_t w : succ[v]) to(w);
  });
  uint32_t ncomp = 0;
  for (uint32_t c : comp) ncomp = std::max(ncomp, c + 1);
  std::vector<std::vector<uint32_t>> members(ncomp);
  for (uint32_t v = 0; v < n; ++v) members[comp[v]].push_back(v);
  std::vector<std::string> compHash;
  compHash.reserve(ncomp);
  for (uint32_t c = 0; c < ncomp; ++c) {
    std::vector<std::string> mine, deps2;
    for (uint32_t m : members[c]) {
      mine.push_back(own[m]);
      for (uint32_t w : succ[m])
        if (comp[w] != c) deps2.push_back(compHash[comp[w]]);
    }
    std::sort(mine.begin(), mine.end());
    std::sort(deps2.begin(), deps2.end());
    deps2.erase(std::unique(deps2.begin(), deps2.end()), deps2.end());
    Hasher h;
    h.add(uint64_t(mine.size()));
    for (const std::string& x : mine) h.add(x);
    h.add(uint64_t(deps2.size()));
    for (const std::string& x : deps2) h.add(x);
    compHash.push_back(h.hex());
  }
  // What every entry sees: the data model, the nodes every closure keeps, and the layout
  // of the globals (a kept global's address depends on the sizes allocated before it).
  Hasher g;
  g.add(uint64_t(p.ptrWidth));
  g.add(p.heapBase);
  if (p.objectBits) g.add(uint64_t(p.objectBits) << 32);  // (absent for the flat layout: hashes unchanged)
  for (uint32_t v : deps.alwaysKept()) g.add(compHash[comp[v]]);
  for (const InitPart& ip : p.initParts)
    for (uint32_t k = ip.firstEdge; ip.func < p.functions.size() && k < ip.endEdge && k < p.functions[ip.func].edges.size(); ++k) {
      const Edge& e = p.functions[ip.func].edges[k];
      if (e.kind == EdgeKind::Alloc && e.size && e.size->kind == ExprKind::Const) g.add(e.size->value);
    }
  std::string globals = g.hex();
  std::map<std::string, std::string> out;
  for (uint32_t i = 0; i < nf; ++i) {
    const Function& f = p.functions[i];
    Hasher h;
    h.add(globals);
    h.add(f.name);
    h.add(compHash[comp[i]]);
    out[f.name] = h.hex();
  }
  return out;
}

}  // namespace argus::cfa
