#include "core/algorithms/common/counterexample.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <string>

#include "core/cfa/accelerate.h"
#include "core/cfa/entry_harness.h"
#include "core/cfa/memlayout.h"
#include "core/result/long_runs.h"

namespace argus::algorithms {

namespace {

std::string hex(uint64_t x) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(x));
  return buf;
}

std::string baseName(const std::string& file) {
  auto slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

// An integer of `width` bits as C prints it.
std::string integerText(cfa::Value wide, uint32_t width, bool isSigned) {
  if (width > 64) return cfa::valueToString(wide, width, isSigned);
  uint64_t x = static_cast<uint64_t>(wide);
  if (isSigned && width > 0 && width <= 64) {
    uint64_t sign = uint64_t(1) << (width - 1);
    if (x & sign) {
      int64_t s = width == 64 ? static_cast<int64_t>(x) : static_cast<int64_t>(x | ~((sign << 1) - 1));
      return std::to_string(s);
    }
  }
  if (!isSigned && width == 64 && x > 0xffffffffull) return hex(x);
  return std::to_string(x);
}

// The float or double whose IEEE 754 bit image x is.
std::string floatText(uint64_t x, uint32_t width) {
  char buf[64];
  if (width == 32) {
    uint32_t b = static_cast<uint32_t>(x);
    float f;
    std::memcpy(&f, &b, sizeof f);
    snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  } else if (width == 64) {
    double d;
    std::memcpy(&d, &x, sizeof d);
    snprintf(buf, sizeof buf, "%.17g", d);
  } else {
    return hex(x);
  }
  return buf;
}

// The objects of the execution so far (addresses are never reused: a bump allocator),
// so that addresses are shown as the C objects they point into: `&a`, `&buf[4]`,
// `block from f.c:12 + 8`, `(freed) block from f.c:12`.
class ObjectNames {
 public:
  void allocate(uint64_t base, uint64_t size, std::string name, uint64_t elemBytes, bool heap) {
    objects_[base] = {base, size, std::move(name), elemBytes, heap, false};
  }
  void free(uint64_t addr) {
    if (auto it = objects_.find(addr); it != objects_.end()) it->second.freed = true;
  }

  // A pointer value.
  std::string pointer(uint64_t addr) const {
    if (addr == 0) return "NULL";
    const Object* o = find(addr, true);
    if (!o) {
      // a pointer a little before an object's start (the memory-safety layout allows one
      // that is not dereferenced: `(p + 3) - 4`)
      auto it = objects_.upper_bound(addr);
      if (it == objects_.end() || it->first - addr > kShownBelow) return hex(addr);
      const Object& b = it->second;
      std::string text = b.heap || b.elemBytes == 0 || (b.base - addr) % b.elemBytes != 0
                             ? (b.heap ? "" : "(char *)&") + b.name + " - " + std::to_string(b.base - addr)
                             : "&" + b.name + "[-" + std::to_string((b.base - addr) / b.elemBytes) + "]";
      return !b.freed ? text : b.heap ? "(freed) " + text : "(dead) " + text;
    }
    uint64_t off = addr - o->base;
    std::string text;
    if (o->heap) {
      text = off == 0 ? o->name : o->name + " + " + std::to_string(off);
    } else if (off == 0) {
      text = "&" + o->name;
    } else if (o->elemBytes > 0 && off % o->elemBytes == 0) {
      text = "&" + o->name + "[" + std::to_string(off / o->elemBytes) + "]";
    } else {
      text = "(char *)&" + o->name + " + " + std::to_string(off);
    }
    // a Free edge ends a heap block (free) or a stack object's lifetime (memory-safety layout)
    return !o->freed ? text : o->heap ? "(freed) " + text : "(dead) " + text;
  }

  // The object written by a store of `bytes` bytes at addr ("" if none is known).
  std::string lvalue(uint64_t addr, uint32_t bytes) const {
    const Object* o = find(addr, false);
    if (!o) return "";
    uint64_t off = addr - o->base;
    if (off == 0 && bytes == o->size) return o->name;
    if (o->elemBytes > 0 && off % o->elemBytes == 0 && bytes == o->elemBytes)
      return o->name + "[" + std::to_string(off / o->elemBytes) + "]";
    return o->name + " (bytes " + std::to_string(off) + ".." + std::to_string(off + bytes - 1) + ")";
  }

 private:
  static constexpr uint64_t kShownBelow = 1 << 16;
  struct Object {
    uint64_t base, size;
    std::string name;
    uint64_t elemBytes;
    bool heap, freed;
  };
  // the object containing addr (onePast: also the address just past its end)
  const Object* find(uint64_t addr, bool onePast) const {
    auto it = objects_.upper_bound(addr);
    if (it == objects_.begin()) return nullptr;
    --it;
    const Object& o = it->second;
    uint64_t end = o.base + std::max<uint64_t>(o.size, 1);
    if (addr < end || (onePast && addr == o.base + o.size)) return &o;
    return nullptr;
  }
  std::map<uint64_t, Object> objects_;
};

std::string valueText(const cfa::Variable& v, cfa::Value x, const ObjectNames& objects) {
  switch (v.shape) {
    case cfa::ValueShape::Pointer: return objects.pointer(x);
    case cfa::ValueShape::Float: return floatText(x, v.width);
    case cfa::ValueShape::Integer: break;
  }
  return integerText(x, v.width, v.isSigned);
}

// "!(a < b)" -> "a >= b" when the text inside is one comparison (no other operator at
// its top level that binds looser); anything else is kept as it is.
std::string simplifyNegation(const std::string& t) {
  if (t.size() < 4 || t.compare(0, 2, "!(") != 0 || t.back() != ')') return t;
  std::string in = t.substr(2, t.size() - 3);
  int depth = 0;
  size_t opAt = std::string::npos, opLen = 0, ops = 0;
  std::string op;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') {
      if (--depth < 0) return t;  // the outer parentheses do not enclose everything
    }
    if (depth != 0) continue;
    char n = i + 1 < in.size() ? in[i + 1] : '\0';
    char pr = i > 0 ? in[i - 1] : '\0';
    if ((c == '&' && n == '&') || (c == '|' && n == '|') || c == '?' || c == ',' ||
        (c == '=' && n != '=' && pr != '=' && pr != '!' && pr != '<' && pr != '>'))
      return t;
    std::string found;
    if ((c == '=' || c == '!') && n == '=') found = std::string(1, c) + "=";
    else if ((c == '<' || c == '>') && n == '=' && pr != c) found = std::string(1, c) + "=";
    else if (c == '<' && n != '<' && pr != '<' && n != '=') found = "<";
    else if (c == '>' && n != '>' && pr != '>' && pr != '-' && n != '=') found = ">";
    if (found.empty()) continue;
    ++ops;
    opAt = i;
    opLen = found.size();
    op = found;
    i += found.size() - 1;
  }
  if (ops != 1 || depth != 0) return t;
  static const std::map<std::string, std::string> neg = {{"==", "!="}, {"!=", "=="}, {"<", ">="},
                                                         {">=", "<"},  {">", "<="},  {"<=", ">"}};
  auto trim = [](std::string x) {
    while (!x.empty() && x.front() == ' ') x.erase(0, 1);
    while (!x.empty() && x.back() == ' ') x.pop_back();
    return x;
  };
  return trim(in.substr(0, opAt)) + " " + neg.at(op) + " " + trim(in.substr(opAt + opLen));
}

// Whether the other branch of the decision `e` (an Assume) fails a check the run cut
// (cfa::Edge::cutError: a latent finding's check, engine continueAfterLatent): its sibling,
// the same condition in the other direction, leads through Blank edges only to that cut
// Error edge.
bool otherBranchFailsACutCheck(const cfa::Function& f, const cfa::Edge& e) {
  if (e.kind != cfa::EdgeKind::Assume || e.from >= f.locs.size()) return false;
  for (uint32_t oi : f.locs[e.from].out) {
    const cfa::Edge& o = f.edges[oi];
    if (&o == &e || o.kind != cfa::EdgeKind::Assume || o.positive == e.positive || o.cond != e.cond) continue;
    cfa::LocId at = o.to;
    for (int k = 0; k < 16 && at < f.locs.size() && f.locs[at].out.size() == 1; ++k) {
      const cfa::Edge& n = f.edges[f.locs[at].out[0]];
      if (n.kind == cfa::EdgeKind::Abort && n.cutError) return true;
      if (n.kind != cfa::EdgeKind::Blank) break;
      at = n.to;
    }
  }
  return false;
}

// The latent finding's precondition: the input decisions in path order, deduplicated.
// When every input decision of the path only passes a check the run cut (a latent finding
// found before, engine continueAfterLatent), the finding is manifest: an input either
// fails one of those checks (the other branch) or follows this path to this error.
void addPrecondition(const cfa::Program& prog, const result::ReplayResult& run, result::Counterexample& cex) {
  if (!run.inputsTracked || run.inputDecisions.empty()) return;
  size_t passes = 0;
  for (const result::InputDecision& d : run.inputDecisions)
    if (d.func < prog.functions.size() && d.edge < prog.functions[d.func].edges.size() &&
        otherBranchFailsACutCheck(prog.functions[d.func], prog.functions[d.func].edges[d.edge]))
      ++passes;
  if (passes == run.inputDecisions.size()) {
    cex.manifestGiven = std::string(passes == 1 ? "the path's only input decision passes" : "every input decision on the path passes") +
                        " the check of a latent finding: each input fails that check or reaches this error";
    return;
  }
  cex.finding = "latent";
  std::set<std::tuple<std::string, std::string, uint32_t>> seen;
  for (const result::InputDecision& d : run.inputDecisions) {
    if (d.func >= prog.functions.size() || d.edge >= prog.functions[d.func].edges.size()) continue;
    const cfa::Function& f = prog.functions[d.func];
    const cfa::Edge& e = f.edges[d.edge];
    std::string cond = e.kind == cfa::EdgeKind::Error
                           ? "the operands of the " + (e.property.empty() ? std::string("check") : e.property + " check") +
                                 (e.text.empty() ? "" : " `" + e.text + "`")
                       : e.text.empty() ? "the branch taken" : simplifyNegation(e.text);
    std::string file = e.range.file.empty() ? baseName(prog.mainFile) : baseName(e.range.file);
    if (!seen.insert({cond, file, e.range.line}).second) continue;
    if (cex.precondition.size() >= result::kMaxPreconditionParts) {
      ++cex.preconditionOmitted;
      continue;
    }
    cex.precondition.push_back({cond, f.name, file, e.range.line});
  }
}

}  // namespace

result::ReplayResult withoutNeedlessNulls(const cfa::Program& prog, cfa::FuncId entry, result::ReplayInput& in,
                                          result::ReplayResult run, size_t maxSteps) {
  if (!run.inputsTracked || run.inputDecisions.empty() || run.outcome != result::ReplayOutcome::ReachedError ||
      run.steps.empty())
    return run;
  // the nondet index of each harness null choice taken as null: entry parameters come
  // first, then one value per executed Havoc edge
  auto nullChoices = [&](const result::ReplayResult& r) {
    std::vector<size_t> out;
    size_t k = r.entryArgs.size();
    for (const result::ReplayStep& st : r.steps) {
      const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
      if (e.kind != cfa::EdgeKind::Havoc || cfa::isAccelerationCount(e)) continue;  // (that one consumes no value)
      static const std::string kTail(cfa::kMayBeNullText);
      bool choice = e.text.rfind(cfa::kEntryModelText, 0) == 0 && e.text.size() > kTail.size() &&
                    e.text.compare(e.text.size() - kTail.size(), kTail.size(), kTail) == 0;
      if (choice && k < in.nondets.size() && in.nondets[k] == 0) out.push_back(k);
      ++k;
    }
    return out;
  };
  const result::ReplayStep last = run.steps.back();
  constexpr size_t kMaxTries = 64;
  size_t tries = 0;
  for (size_t k : nullChoices(run)) {
    // a null no expression read cannot matter (ReplayResult::nullChoicesRead)
    if (!std::binary_search(run.nullChoicesRead.begin(), run.nullChoicesRead.end(), k)) continue;
    if (++tries > kMaxTries) break;
    result::ReplayInput flipped = in;
    flipped.nondets[k] = 1;
    result::ReplayResult r = result::replay(prog, entry, flipped, maxSteps);
    if (r.outcome != result::ReplayOutcome::ReachedError || r.steps.empty() || r.steps.back().func != last.func ||
        r.steps.back().edge != last.edge || r.inputDecisions.size() >= run.inputDecisions.size())
      continue;
    in = std::move(flipped);
    run = std::move(r);
    if (run.inputDecisions.empty()) break;
  }
  return run;
}

namespace {
// the Havoc and the Store around a function-pointer slot's choice (cfa::kFunctionHavocText),
// the Havoc of an aliasing parameter's choice: the branch taken says it
bool isFunctionSlotStep(const cfa::Edge& e) {
  if (e.text.rfind(cfa::kEntryModelText, 0) != 0) return false;
  return (e.kind == cfa::EdgeKind::Havoc &&
          (e.text.ends_with(cfa::kFunctionHavocText) || e.text.ends_with(cfa::kAliasHavocText))) ||
         (e.kind == cfa::EdgeKind::Store && e.text.ends_with(cfa::kFunctionStoreText));
}
}  // namespace

result::Counterexample counterexampleFromReplay(const cfa::Program& prog, cfa::FuncId entry,
                                                const result::ReplayResult& run) {
  result::Counterexample cex;
  cex.entry = prog.functions[entry].name;
  cex.replayed = run.outcome == result::ReplayOutcome::ReachedError;
  cex.confirmedBy.push_back("interpreter");
  addPrecondition(prog, run, cex);
  if (cex.replayed && !run.steps.empty()) {  // the Error edge it ends with names the property
    const result::ReplayStep& last = run.steps.back();
    const cfa::Edge& e = prog.functions[last.func].edges[last.edge];
    if (e.kind == cfa::EdgeKind::Error) cex.property = e.property;
    cex.violation = run.violation;
  }
  // What a native run needs (concrete playback, core/result/harness.h).
  auto at = [](const cfa::Edge& e) {
    std::string file = e.range.file;
    if (auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(e.range.line);
  };
  for (auto& [vid, val] : run.entryArgs)
    cex.uncontrolled.push_back("parameter '" + prog.vars[vid].cName + "' of " + cex.entry);
  for (const result::ReplayStep& st : run.steps) {
    const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
    if (e.kind != cfa::EdgeKind::Havoc || st.assigned.empty() || cfa::isAccelerationCount(e)) continue;
    const cfa::Variable& v = prog.vars[st.assigned.front().first];
    if (!e.nondetFunction.empty()) {
      cex.inputs.push_back({e.nondetFunction, st.assigned.front().second, v.width, v.isSigned,
                            e.range.file, e.range.line});
    } else {
      std::string what = !e.text.empty() ? "'" + e.text + "'" : !v.cName.empty() ? "'" + v.cName + "'" : "a value";
      cex.uncontrolled.push_back("nondeterministic " + what + " at " + at(e));
    }
  }
  if (run.uninitialisedReads > 0)
    cex.uncontrolled.push_back(std::to_string(run.uninitialisedReads) + " read(s) of uninitialised memory");
  // A global's nondeterministic initial value that the entry model assigns again in the
  // initialisation (a pointer it points to a fresh object) is never seen: the step is not
  // shown, so that the trace does not say "vfsList = NULL" before the model's object.
  std::vector<char> overwritten(run.steps.size(), 0);
  {
    std::map<cfa::VarId, size_t> lastHavoc;  // var -> step of its havoc in the initialisation
    for (size_t i = 0; i < run.steps.size(); ++i) {
      const result::ReplayStep& st = run.steps[i];
      if (st.func != prog.initFunc && st.func != prog.initNondetFunc) break;
      const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
      for (const auto& [vid, val] : st.assigned)
        if (auto it = lastHavoc.find(vid); it != lastHavoc.end()) {
          overwritten[it->second] = 1;
          lastHavoc.erase(it);
        }
      if (e.kind == cfa::EdgeKind::Havoc && st.assigned.size() == 1) lastHavoc[st.assigned.front().first] = i;
    }
  }
  ObjectNames objects;
  size_t stepIndex = 0;
  for (const result::ReplayStep& st : run.steps) {
    const cfa::Function& f = prog.functions[st.func];
    {
      const cfa::Edge& e = f.edges[st.edge];
      if (e.kind == cfa::EdgeKind::Alloc && e.lhs && !st.assigned.empty()) {
        const cfa::Variable& v = prog.vars[*e.lhs];
        bool named = v.kind == cfa::VarKind::Address && !v.cName.empty();
        std::string name = named ? v.cName
                           : e.text == "string literal" ? "string literal at " + baseName(e.range.file) + ":" + std::to_string(e.range.line)
                           : "block from " + baseName(e.range.file) + ":" + std::to_string(e.range.line);
        objects.allocate(st.assigned.front().second, st.allocSize.value_or(0), std::move(name), e.elemBytes, !named);
      } else if (e.kind == cfa::EdgeKind::Free && st.freed) {
        objects.free(*st.freed);
      }
    }
    if (stepIndex++ == run.omittedAt && run.stepCount > run.steps.size()) {
      // a long run (a deep loop): the replay kept its ends (core/result/long_runs.h)
      result::TraceStep gap;
      const cfa::Edge& ge = f.edges[st.edge];
      gap.file = ge.range.file;
      gap.line = ge.range.line;
      gap.function = f.name;
      gap.statement = "... " + std::to_string(run.stepCount - run.steps.size()) +
                      " further branches and assignments of a long run not shown ...";
      cex.steps.push_back(std::move(gap));
    }
    if (st.func == prog.initFunc || st.func == prog.initNondetFunc) {
      // the initialisation is shown only where it chose nondeterministic values
      if (st.assigned.empty() || f.edges[st.edge].kind != cfa::EdgeKind::Havoc) continue;
      if (overwritten[static_cast<size_t>(&st - run.steps.data())]) continue;
    }
    const cfa::Edge& e = f.edges[st.edge];
    if (e.kind == cfa::EdgeKind::Havoc && !e.externalCallee.empty()) {
      std::string a = e.externalCallee + "() may return any value";
      if (std::find(cex.assumptions.begin(), cex.assumptions.end(), a) == cex.assumptions.end())
        cex.assumptions.push_back(std::move(a));
    }
    if (e.kind == cfa::EdgeKind::Blank || e.kind == cfa::EdgeKind::Free) continue;
    if (cfa::isAccelerationEdge(e)) continue;  // the choice of an acceleration shortcut
    // a function pointer or an aliasing parameter of the entry model: its branch says it all
    if (isFunctionSlotStep(e)) continue;
    // bookkeeping of the memory-safety layout: writes of the object table (id 0's range),
    // the "no object yet" address of a declaration not reached yet
    if (e.kind == cfa::EdgeKind::Store && prog.objectBits && st.stored && (st.stored->first >> prog.objectBits) == 0) continue;
    if (e.kind == cfa::EdgeKind::Assign && e.lhs && prog.vars[*e.lhs].kind == cfa::VarKind::Address) continue;
    // and its count of allocated heap blocks (a register, cfa::memlayout::kLiveHeapVar)
    if (e.kind == cfa::EdgeKind::Assign && e.lhs && prog.objectBits && prog.vars[*e.lhs].name == cfa::memlayout::kLiveHeapVar)
      continue;
    if (e.kind == cfa::EdgeKind::Return && st.assigned.empty()) continue;
    result::TraceStep ts;
    ts.file = e.range.file;
    ts.line = e.range.line;
    ts.column = e.range.column;
    ts.function = f.name;
    ts.statement = e.text;
    ts.nondet = e.kind == cfa::EdgeKind::Havoc && e.isNondetCall;
    for (auto& [vid, val] : st.assigned) {
      const cfa::Variable& v = prog.vars[vid];
      std::string name = v.cName.empty() ? (ts.nondet ? "nondet" : "") : v.cName;
      if (name.empty()) continue;  // compiler temporaries
      if (e.kind == cfa::EdgeKind::Alloc && v.kind == cfa::VarKind::Address) continue;  // "declare a" says it
      ts.values.push_back({name, valueText(v, val, objects)});
    }
    if (e.kind == cfa::EdgeKind::Store && st.stored && ts.values.empty()) {
      // a memory write: the object written and the value in the C type written
      auto [addr, value] = *st.stored;
      uint32_t width = e.bytes * 8;
      std::string where = objects.lvalue(addr, e.bytes);
      if (where.empty()) where = "*" + objects.pointer(addr);
      std::string shown = e.storeShape == cfa::ValueShape::Pointer ? objects.pointer(value)
                          : e.storeShape == cfa::ValueShape::Float ? floatText(value, width)
                                                                   : integerText(value, width, e.storeSigned);
      ts.values.push_back({where, shown});
    }
    if (e.kind == cfa::EdgeKind::Assign && ts.values.empty() && e.text.empty()) continue;
    cex.steps.push_back(std::move(ts));
  }
  return cex;
}

std::string edgeWhere(const cfa::Edge* e) {
  if (!e) return "?";
  std::string file = e->range.file;
  auto slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(e->range.line);
}

}  // namespace argus::algorithms
