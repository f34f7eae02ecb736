#include "core/cfa/cfa.h"

#include <sstream>
#include <stdexcept>
#include <utility>

namespace argus::cfa {

LocId Function::addLoc(const SourceRange& r) {
  Location l;
  l.id = static_cast<LocId>(locs.size());
  l.range = r;
  locs.push_back(std::move(l));
  return locs.back().id;
}

uint32_t Function::addEdge(Edge e) {
  if (e.from >= locs.size() || e.to >= locs.size())
    throw std::out_of_range("Function::addEdge(" + name + "): location " +
                            std::to_string(e.from >= locs.size() ? e.from : e.to) +
                            " does not exist");
  auto idx = static_cast<uint32_t>(edges.size());
  locs[e.from].out.push_back(idx);
  locs[e.to].in.push_back(idx);
  edges.push_back(std::move(e));
  return idx;
}

uint64_t fieldKey(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h ? h : 1;
}

const Function* Program::find(const std::string& name) const {
  auto it = funcByName.find(name);
  if (it != funcByName.end() && it->second < functions.size()) return &functions[it->second];
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

VarId Program::addVar(Variable v) {
  auto id = static_cast<VarId>(vars.size());
  vars.push_back(std::move(v));
  return id;
}

std::vector<std::string> Program::varNames() const {
  std::vector<std::string> names;
  names.reserve(vars.size());
  for (const auto& v : vars) names.push_back(v.name);
  return names;
}

void Program::markLoopHeads() {
  // Iterative DFS from the entry; colour 1 = on the DFS stack, 2 = finished. An edge
  // into a location on the stack is a back edge and its target a loop head.
  for (auto& f : functions) {
    for (auto& l : f.locs) l.isLoopHead = false;
    if (f.locs.empty() || f.entry >= f.locs.size()) continue;
    std::vector<uint8_t> colour(f.locs.size(), 0);
    std::vector<std::pair<LocId, size_t>> stack;  // (location, next out-edge to look at)
    stack.emplace_back(f.entry, 0);
    colour[f.entry] = 1;
    while (!stack.empty()) {
      auto& [loc, next] = stack.back();
      const auto& out = f.locs[loc].out;
      if (next == out.size()) {
        colour[loc] = 2;
        stack.pop_back();
        continue;
      }
      LocId to = f.edges[out[next++]].to;
      if (colour[to] == 1) {
        f.locs[to].isLoopHead = true;
      } else if (colour[to] == 0) {
        colour[to] = 1;
        stack.emplace_back(to, 0);  // invalidates loc/next; they are not used below
      }
    }
  }
}

const char* edgeKindName(EdgeKind k) {
  switch (k) {
    case EdgeKind::Blank: return "blank";
    case EdgeKind::Assume: return "assume";
    case EdgeKind::Assign: return "assign";
    case EdgeKind::Store: return "store";
    case EdgeKind::Havoc: return "havoc";
    case EdgeKind::Alloc: return "alloc";
    case EdgeKind::Free: return "free";
    case EdgeKind::Call: return "call";
    case EdgeKind::Return: return "return";
    case EdgeKind::Error: return "error";
    case EdgeKind::Abort: return "abort";
    case EdgeKind::Unsupported: return "unsupported";
  }
  return "?";
}

namespace {

const char* varKindName(VarKind k) {
  switch (k) {
    case VarKind::Global: return "global";
    case VarKind::Local: return "local";
    case VarKind::Param: return "param";
    case VarKind::Temp: return "temp";
    case VarKind::Return: return "return";
    case VarKind::Address: return "address";
  }
  return "?";
}

std::string varName(const Program& p, VarId v) {
  if (v < p.vars.size() && !p.vars[v].name.empty()) return p.vars[v].name;
  return "v" + std::to_string(v);
}

std::string funcName(const Program& p, FuncId f) {
  if (f < p.functions.size()) return p.functions[f].name;
  return "<func " + std::to_string(f) + ">";
}

std::string edgeBody(const Program& p, const Edge& e, const std::vector<std::string>& names) {
  auto ex = [&](const ExprPtr& x) { return toString(x, &names); };
  std::string lhs = e.lhs ? varName(p, *e.lhs) : std::string("_");
  switch (e.kind) {
    case EdgeKind::Blank: return "";
    case EdgeKind::Assume: return std::string(e.positive ? "" : "!") + "[" + ex(e.cond) + "]";
    case EdgeKind::Assign: return lhs + " := " + ex(e.rhs);
    case EdgeKind::Store:
      return "mem" + std::to_string(8 * e.bytes) + "[" + ex(e.addr) + "] := " + ex(e.value);
    case EdgeKind::Havoc: return lhs + " := nondet" + (e.isNondetCall ? " (call)" : "");
    case EdgeKind::Alloc:
      return lhs + " := alloc(" + ex(e.size) + ")" + (e.zeroInit ? " zeroed" : "") +
             (p.objectBits && e.rhs ? " object of " + ex(e.rhs) + " bytes, kind " + std::to_string(e.bytes) : "");
    case EdgeKind::Free: return "free(" + ex(e.addr) + ")";
    case EdgeKind::Call: {
      std::string s = e.lhs ? lhs + " := " : "";
      s += funcName(p, e.callee) + "(";
      for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + ex(e.args[i]);
      return s + ")";
    }
    case EdgeKind::Return:
    case EdgeKind::Error:
    case EdgeKind::Abort:
      return "";
    case EdgeKind::Unsupported: return e.text;
  }
  return "";
}

}  // namespace

std::string dump(const Program& p) {
  std::ostringstream os;
  auto names = p.varNames();
  os << "program " << p.mainFile << " ptrWidth=" << p.ptrWidth << " heapBase=0x" << std::hex
     << p.heapBase << std::dec;
  if (p.objectBits) os << " objectBits=" << p.objectBits;
  if (p.initFunc != kNoFunc) os << " init=" << funcName(p, p.initFunc);
  if (p.initNondetFunc != kNoFunc) os << " initNondet=" << funcName(p, p.initNondetFunc);
  os << "\n";
  for (const auto& n : p.notes) os << "note: " << n << "\n";
  os << "vars:\n";
  for (size_t i = 0; i < p.vars.size(); ++i) {
    const auto& v = p.vars[i];
    os << "  v" << i << " " << v.name << " : " << (v.isSigned ? "s" : "u") << v.width << " "
       << varKindName(v.kind);
    if (v.func != kNoFunc) os << " in " << funcName(p, v.func);
    if (!v.cName.empty() && v.cName != v.name) os << " (C: " << v.cName << ")";
    os << "\n";
  }
  for (const auto& f : p.functions) {
    os << "\nfunction " << f.name << " #" << f.id << "(";
    for (size_t i = 0; i < f.params.size(); ++i) os << (i ? ", " : "") << varName(p, f.params[i]);
    if (f.variadic) os << (f.params.empty() ? "..." : ", ...");
    os << ")";
    if (f.retVar) os << " -> " << varName(p, *f.retVar);
    if (f.range.line) os << "  @" << f.range.line;
    os << "\n  entry=L" << f.entry << " exit=L" << f.exit << " error=L" << f.error << " sink=L"
       << f.sink << "\n";
    for (const auto& l : f.locs) {
      os << "  L" << l.id;
      if (l.isLoopHead) os << " [loop head]";
      if (l.id == f.entry) os << " [entry]";
      if (l.id == f.exit) os << " [exit]";
      if (l.id == f.error) os << " [error]";
      if (l.id == f.sink) os << " [sink]";
      if (l.range.line) os << "  @" << l.range.line;
      os << "\n";
      for (uint32_t ei : l.out) {
        const Edge& e = f.edges[ei];
        os << "    e" << ei << " -> L" << e.to << "  " << edgeKindName(e.kind);
        std::string body = edgeBody(p, e, names);
        if (!body.empty()) os << " " << body;
        if (e.range.line) os << "  @" << e.range.line;
        if (!e.text.empty() && e.kind != EdgeKind::Unsupported) os << "  // " << e.text;
        os << "\n";
      }
    }
  }
  return os.str();
}

uint64_t zeroPageEnd(const Program& p) {
  return !p.objectBits && (p.heapBase == kFlatHeapBase || p.heapBase == kFlatHeapBase64) ? p.heapBase : 0;
}

}  // namespace argus::cfa
