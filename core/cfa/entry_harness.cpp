#include "core/cfa/entry_harness.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace argus::cfa {

namespace {

struct Builder {
  Program& p;
  Function& f;
  LocId cur;
  SourceRange range;
  // the objects made so far: the register holding each one's address, and its name
  // (EntryObject::Slot::back points a slot at the depth bound to one of them)
  std::map<int32_t, std::pair<VarId, std::string>> made = {};

  VarId temp(const std::string& what, uint32_t width = 0) {
    Variable v;
    v.name = f.name + "::$entry" + std::to_string(p.vars.size()) + "$" + what;
    v.width = width ? width : p.ptrWidth;
    v.kind = VarKind::Temp;
    v.func = f.id;
    return p.addVar(std::move(v));
  }
  // A Blank edge from the cursor to `join` (the end of one branch of a choice).
  void joinTo(LocId join) {
    Edge b;
    b.kind = EdgeKind::Blank;
    b.from = cur;
    b.to = join;
    b.range = range;
    f.addEdge(std::move(b));
  }
  void emit(Edge e) {
    LocId to = f.addLoc(range);
    e.from = cur;
    e.to = to;
    e.range = range;
    f.addEdge(std::move(e));
    cur = to;
  }
  ExprPtr ptr(uint64_t v) const { return Expr::mkConst(v, p.ptrWidth); }

  // A nondeterministic choice: `onNull` on one branch, nothing on the other; both meet.
  void maybe(const std::string& text, const std::function<void()>& onNull) {
    VarId c = temp("choice");
    Edge h;
    h.kind = EdgeKind::Havoc;
    h.lhs = c;
    h.text = std::string(kEntryModelText) + text + std::string(kMayBeNullText);
    emit(std::move(h));
    LocId fork = cur;
    LocId join = f.addLoc(range);
    Edge yes;
    yes.kind = EdgeKind::Assume;
    yes.cond = Expr::mkBinary(BinOp::Eq, Expr::mkVar(c, p.ptrWidth), ptr(0), p.ptrWidth);
    yes.text = text + std::string(kIsNullText);
    emit(std::move(yes));
    onNull();
    joinTo(join);
    cur = fork;
    Edge no;
    no.kind = EdgeKind::Assume;
    no.cond = Expr::mkBinary(BinOp::Eq, Expr::mkVar(c, p.ptrWidth), ptr(0), p.ptrWidth);
    no.positive = false;
    no.text = text + " is not null";
    no.from = cur;
    no.to = join;
    no.range = range;
    f.addEdge(std::move(no));
    cur = join;
  }

  // object(), then (nullable) a nondeterministic choice `into` := NULL.
  void maybeNullObject(const std::vector<EntryObject>& objs, int32_t o, VarId into, const std::string& what,
                       bool nullable) {
    object(objs, o, into, what);
    if (!nullable) return;
    maybe(what, [&] {
      Edge z;
      z.kind = EdgeKind::Assign;
      z.lhs = into;
      z.rhs = ptr(0);
      z.text = "entry model: " + what + " = NULL";
      emit(std::move(z));
    });
  }

  // Allocates object `o` into `into`, then fills its pointer slots.
  void object(const std::vector<EntryObject>& objs, int32_t o, VarId into, const std::string& what) {
    const EntryObject& ob = objs[o];
    allocate(ob, into, what);
    made[o] = {into, what};
    slots(objs, ob, into, what);
  }

  void allocate(const EntryObject& ob, VarId into, const std::string& what) {
    Edge a;
    a.kind = EdgeKind::Alloc;
    a.lhs = into;
    a.size = ptr(ob.size);
    a.text = "entry model: " + what + " = fresh object of " + std::to_string(ob.size) + " bytes";
    if (p.objectBits) {
      // The memory-safety layout (memlayout in cfa.h): the object gets its own id and
      // its metadata, as the frontend's allocObject writes them, so the checks see a
      // live object of its size (a heap block the caller owns: free(p) of it is valid; it
      // is not counted as allocated by this run, so no leak is reported for it).
      a.rhs = ptr(ob.size);
      a.size = ptr(uint64_t(1) << p.objectBits);
      a.bytes = memlayout::kHeap;
    }
    emit(std::move(a));
    if (p.objectBits) {
      ExprPtr id = Expr::mkBinary(BinOp::LShr, Expr::mkVar(into, p.ptrWidth), ptr(p.objectBits));
      auto meta = [&](uint64_t field) {
        return Expr::mkBinary(BinOp::Add, Expr::mkBinary(BinOp::Shl, id, ptr(4)), ptr(memlayout::kMetaBase + field));
      };
      auto store = [&](ExprPtr addr, ExprPtr v, uint32_t bytes) {
        Edge st;
        st.kind = EdgeKind::Store;
        st.addr = std::move(addr);
        st.value = std::move(v);
        st.bytes = bytes;
        emit(std::move(st));
      };
      store(meta(0), ptr(ob.size), p.ptrWidth / 8);
      store(meta(8), Expr::mkConst(memlayout::kLive | (uint64_t(memlayout::kHeap) << 8), 16), 2);
      store(ptr(memlayout::kNextId), Expr::mkBinary(BinOp::Add, id, ptr(1)), p.ptrWidth / 8);
    }
  }

  // Parameter `p` may be the same pointer as one of `others` (not null): a choice `c`
  // (Havoc, kAliasHavocText); per other q a branch "p == q" (an input decision of the
  // path: a finding that needs it is latent, its precondition says so) then p := q; else
  // p keeps its own object (kAliasNoneText, no decision).
  void aliasChoice(VarId pv, const std::vector<VarId>& others, const std::function<std::string(VarId)>& nameOf) {
    const std::string pn = nameOf(pv);
    VarId c = temp("alias", 32);
    Edge h;
    h.kind = EdgeKind::Havoc;
    h.lhs = c;
    h.text = std::string(kEntryModelText) + pn + std::string(kAliasHavocText);
    emit(std::move(h));
    LocId fork = cur;
    LocId join = f.addLoc(range);
    ExprPtr any;
    for (size_t k = 0; k < others.size(); ++k) {
      ExprPtr is = Expr::mkBinary(BinOp::Eq, Expr::mkVar(c, 32), Expr::mkConst(k + 1, 32), 32);
      any = any ? Expr::mkBinary(BinOp::LOr, any, is, 32) : is;
      cur = fork;
      Edge yes;
      yes.kind = EdgeKind::Assume;
      yes.cond = Expr::mkBinary(
          BinOp::LAnd, is, Expr::mkBinary(BinOp::Ne, Expr::mkVar(others[k], p.ptrWidth), ptr(0), 32), 32);
      yes.text = pn + " == " + nameOf(others[k]);
      emit(std::move(yes));
      Edge a;
      a.kind = EdgeKind::Assign;
      a.lhs = pv;
      a.rhs = Expr::mkVar(others[k], p.ptrWidth);
      a.text = std::string(kEntryModelText) + pn + " = " + nameOf(others[k]) + " (the same object)";
      emit(std::move(a));
      joinTo(join);
    }
    cur = fork;
    Edge no;
    no.kind = EdgeKind::Assume;
    no.cond = any;
    no.positive = false;
    no.text = std::string(kEntryModelText) + pn + std::string(kAliasNoneText);
    emit(std::move(no));
    joinTo(join);
    cur = join;
  }

  // A branch per function of `fs` (and null when `nullable`): Assume `value` == it, the
  // text "entry model: WHAT holds function NAME" (kFunctionChoiceText, kFunctionNullText),
  // all meeting after.
  void functionChoice(const EntryFunctions& fs, bool nullable, ExprPtr value, const std::string& what) {
    LocId fork = cur;
    LocId join = f.addLoc(range);
    auto branch = [&](uint64_t a, const std::string& text) {
      Edge e;
      e.kind = EdgeKind::Assume;
      e.cond = Expr::mkBinary(BinOp::Eq, value, ptr(a), 32);
      e.text = std::string(kEntryModelText) + what + text;
      e.choiceField = fs.field;
      e.choiceType = fs.type;
      e.from = fork;
      e.to = join;
      e.range = range;
      f.addEdge(std::move(e));
    };
    for (size_t i = 0; i < fs.addrs.size(); ++i)
      branch(fs.addrs[i], std::string(kFunctionChoiceText) + (i < fs.names.size() ? fs.names[i] : "?"));
    if (nullable) branch(0, std::string(kFunctionNullText));
    cur = join;
  }

  // The pointer slots of object `ob`, whose address `into` holds.
  void slots(const std::vector<EntryObject>& objs, const EntryObject& ob, VarId into, const std::string& what) {
    for (const EntryObject::Slot& s : ob.pointers) {
      if (s.keep) continue;
      std::string sw = what + "[+" + std::to_string(s.offset) + "]";
      ExprPtr addr = s.offset ? Expr::mkBinary(BinOp::Add, Expr::mkVar(into, p.ptrWidth), ptr(s.offset), p.ptrWidth)
                              : Expr::mkVar(into, p.ptrWidth);
      auto store = [&](ExprPtr v, const std::string& text) {
        Edge st;
        st.kind = EdgeKind::Store;
        st.addr = addr;
        st.value = std::move(v);
        st.bytes = p.ptrWidth / 8;
        st.text = text;
        emit(std::move(st));
      };
      if (!s.functions.empty()) {
        VarId t = temp("fn");
        Edge h;
        h.kind = EdgeKind::Havoc;
        h.lhs = t;
        h.text = std::string(kEntryModelText) + sw + std::string(kFunctionHavocText);
        emit(std::move(h));
        functionChoice(s.functions, s.nullable, Expr::mkVar(t, p.ptrWidth), sw);
        store(Expr::mkVar(t, p.ptrWidth), std::string(kEntryModelText) + sw + std::string(kFunctionStoreText));
        continue;
      }
      if (s.object < 0) {
        auto back = made.find(s.back);
        if (s.back < 0 || back == made.end()) {
          store(ptr(0), "entry model: " + sw + " = null (depth bound)");
          continue;
        }
        // back to an enclosing object of its type (an input like the depth bound's null)
        store(Expr::mkVar(back->second.first, p.ptrWidth),
              "entry model: " + sw + " points back to " + back->second.second + " (depth bound)");
        if (s.nullable) maybe(sw, [&] { store(ptr(0), "entry model: " + sw + " = null (depth bound)"); });
        continue;
      }
      VarId t = temp("obj");
      object(objs, s.object, t, sw);
      store(Expr::mkVar(t, p.ptrWidth), "entry model: " + sw + " points to its object");
      if (s.nullable) maybe(sw, [&] { store(ptr(0), "entry model: " + sw + " = null"); });
    }
  }
};

}  // namespace

void emitFunctionChoice(Program& p, Function& f, LocId& cur, const SourceRange& range, const EntryFunctions& fs,
                        bool nullable, VarId var, const std::string& what) {
  Builder b{p, f, cur, range};
  b.functionChoice(fs, nullable, Expr::mkVar(var, p.ptrWidth), what);
  cur = b.cur;
}

void emitEntryObject(Program& p, Function& f, LocId& cur, const SourceRange& range,
                     const std::vector<EntryObject>& objs, int32_t object, VarId into, const std::string& what,
                     bool alloc, bool nullable) {
  if (object < 0 || static_cast<size_t>(object) >= objs.size()) return;
  Builder b{p, f, cur, range};
  if (alloc) {
    b.maybeNullObject(objs, object, into, what, nullable);
  } else {
    b.made[object] = {into, what};
    b.slots(objs, objs[object], into, what);
  }
  cur = b.cur;
}

namespace {

// The choices to prune: per function, the out-edge lists of the locations whose branches
// all choose for a field no call of `p` calls through.
std::vector<std::pair<FuncId, LocId>> prunableChoices(const Program& p) {
  std::vector<uint64_t> called;
  bool anyChoice = false;
  for (const Function& g : p.functions) {
    called.insert(called.end(), g.callsThrough.begin(), g.callsThrough.end());
    for (const Edge& e : g.edges) anyChoice = anyChoice || e.choiceField;
  }
  std::vector<std::pair<FuncId, LocId>> out;
  if (!anyChoice) return out;
  std::sort(called.begin(), called.end());
  for (const Function& g : p.functions)
    for (const Location& l : g.locs) {
      if (l.out.empty()) continue;
      const uint64_t field = g.edges[l.out[0]].choiceField, type = g.edges[l.out[0]].choiceType;
      if (!field || std::binary_search(called.begin(), called.end(), field) ||
          (type && std::binary_search(called.begin(), called.end(), type)))
        continue;
      bool all = true;
      for (uint32_t ei : l.out) all = all && g.edges[ei].kind == EdgeKind::Assume && g.edges[ei].choiceField == field;
      if (all) out.emplace_back(g.id, l.id);
    }
  return out;
}

void prune(Program& p, const std::vector<std::pair<FuncId, LocId>>& at) {
  for (const auto& [fid, lid] : at) {
    Function& g = p.functions[fid];
    const std::vector<uint32_t>& outs = g.locs[lid].out;
    // a choice with a null branch leaves any value; one without, any but null (the model's
    // rule: null only where some code tests the field)
    bool nullable = false;
    for (uint32_t ei : outs) nullable = nullable || g.edges[ei].text.find(kFunctionNullText) != std::string::npos;
    for (size_t k = 0; k < outs.size(); ++k) {
      Edge& e = g.edges[outs[k]];
      // "entry model: WHAT holds function F" -> "entry model: WHAT holds any value (...)"
      const size_t cut = e.text.find(kFunctionChoiceText);
      const size_t cutNull = e.text.find(kFunctionNullText);
      const std::string what = e.text.substr(0, std::min(cut, cutNull));
      e.choiceField = e.choiceType = 0;
      if (k == 0 && nullable) {
        e.kind = EdgeKind::Blank;
        e.cond = nullptr;
        e.positive = true;
        e.text = what + std::string(kFunctionAnyText);
      } else if (k == 0) {
        // the branch compared the pointer with its function: with 0 instead, negated
        e.cond = Expr::mkBinary(BinOp::Eq, e.cond->ops[0], Expr::mkConst(0, e.cond->ops[1]->width), e.cond->width);
        e.positive = false;
        e.text = what + std::string(kFunctionAnyNonNullText);
      } else {
        e.cond = Expr::mkConst(0, 32);  // never holds: the Blank edge above is the only way on
        e.positive = true;
        e.text = what + " (pruned choice)";
      }
    }
  }
}

}  // namespace

bool pruneFunctionChoices(Program& p) {
  auto at = prunableChoices(p);
  prune(p, at);
  return !at.empty();
}

std::shared_ptr<Program> withPrunedFunctionChoices(const Program& src) {
  auto at = prunableChoices(src);
  if (at.empty()) return nullptr;
  auto out = std::make_shared<Program>(src);
  prune(*out, at);
  return out;
}

std::shared_ptr<Program> withArbitraryGlobals(const Program& src) {
  auto gated = [](const Edge& e) { return e.kind == EdgeKind::Assume && e.gate == ContractGate::GlobalModel; };
  bool any = false;
  for (const Function& g : src.functions) any = any || std::any_of(g.edges.begin(), g.edges.end(), gated);
  if (!any) return nullptr;
  auto out = std::make_shared<Program>(src);
  for (Function& g : out->functions)
    for (Edge& e : g.edges)
      if (gated(e)) e.cond = Expr::mkConst(0, 32);
  return out;
}

namespace {

// Whether `entry` of `p` gets a harness (a pointer parameter with an entry object), and
// whether it is recursive within `p` (then the harness runs on the first entry only).
bool harnessApplies(const Program& p, FuncId entry, bool& recursive) {
  recursive = false;
  if (entry >= p.functions.size()) return false;
  const Function& sf = p.functions[entry];
  bool any = false;
  for (const EntryParam& ep : sf.entryParams) any = any || ep.object >= 0 || !ep.functions.empty();
  for (const Function& g : p.functions)
    for (const Edge& e : g.edges)
      if (e.kind == EdgeKind::Call && e.callee == entry) recursive = true;
  // a recursive entry with leading assertions: the harness marks its first invocation
  // (README "Contracts"), with or without objects to build
  if (recursive && sf.name != "main")
    for (const Edge& e : sf.edges) any = any || e.gate == ContractGate::LeadingAssert;
  if (!any || (!sf.entryParams.empty() && sf.entryParams.size() != sf.params.size()) || sf.locs.empty())
    return false;
  // a recursive entry clears its flag in the nondeterministic initialisation
  return !recursive || p.initNondetFunc != kNoFunc;
}

// An assignment of an 8-bit flag of the harness.
Edge setFlag(VarId v, uint64_t value, const std::string& text) {
  Edge e;
  e.kind = EdgeKind::Assign;
  e.lhs = v;
  e.rhs = Expr::mkConst(value, 8);
  e.text = text;
  return e;
}

// A global flag of the harness, cleared first thing in the nondeterministic initialisation.
VarId harnessFlag(Program& prog, const std::string& name, const std::string& clearText) {
  Variable v;
  v.name = name;
  v.width = 8;
  v.kind = VarKind::Global;
  VarId id = prog.addVar(std::move(v));
  Function& init = prog.functions[prog.initNondetFunc];
  LocId old = init.entry;
  LocId start = init.addLoc(init.locs[old].range);
  Edge clr = setFlag(id, 0, clearText);
  clr.from = start;
  clr.to = old;
  init.addEdge(std::move(clr));
  init.entry = start;
  return id;
}

void buildEntryHarness(Program& prog, FuncId entry, bool recursive) {
  Function& f = prog.functions[entry];
  const LocId body = f.entry;
  Builder b{prog, f, f.addLoc(f.range), f.range};
  f.entry = b.cur;

  if (recursive) {
    // run the harness on the first entry only
    const VarId done = harnessFlag(prog, "$entry_harness_done$" + f.name, "entry model: harness not run yet");
    // A leading assertion is the entry's precondition on its first invocation only (README
    // "Contracts"): `$entry_first$f` is 1 from the harness to the first recursive call,
    // which clears it, so a recursive invocation's assertions are checks (withContracts).
    bool leadingAsserts = false;
    for (const Edge& e : f.edges) leadingAsserts = leadingAsserts || e.gate == ContractGate::LeadingAssert;
    std::optional<VarId> firstVar;
    if (leadingAsserts)
      firstVar = harnessFlag(prog, std::string(kEntryFirstPrefix) + f.name, "entry model: not in the first entry yet");
    const ExprPtr ran = Expr::mkBinary(BinOp::Ne, Expr::mkVar(done, 8), Expr::mkConst(0, 8), 8);
    Edge again;
    again.kind = EdgeKind::Assume;
    again.cond = ran;
    again.text = "entry model: a recursive call, no harness";
    again.from = b.cur;
    again.to = firstVar ? f.addLoc(f.range) : body;
    again.range = f.range;
    if (firstVar) {
      Edge off = setFlag(*firstVar, 0, "entry model: a recursive invocation checks its leading assertions");
      off.from = again.to;
      off.to = body;
      off.range = f.range;
      f.addEdge(std::move(off));
    }
    f.addEdge(std::move(again));
    Edge first;
    first.kind = EdgeKind::Assume;
    first.cond = ran;
    first.positive = false;
    first.text = "entry model: the first entry";
    b.emit(std::move(first));
    b.emit(setFlag(done, 1, "entry model: harness run"));
    if (firstVar) b.emit(setFlag(*firstVar, 1, "entry model: the first entry assumes its leading assertions"));
  }

  const std::vector<EntryObject> objs = f.entryObjects;
  for (size_t i = 0; i < f.params.size() && i < f.entryParams.size(); ++i) {
    const EntryParam& ep = f.entryParams[i];
    if (ep.object < 0 && ep.functions.empty()) continue;
    VarId pv = f.params[i];
    if (prog.vars[pv].width != prog.ptrWidth) continue;  // not an address: left as it is
    std::string name = prog.vars[pv].cName.empty() ? prog.vars[pv].name : prog.vars[pv].cName;
    if (!ep.functions.empty())
      b.functionChoice(ep.functions, ep.nullable, Expr::mkVar(pv, prog.ptrWidth), name);
    else
      b.maybeNullObject(objs, ep.object, pv, name, ep.nullable);
  }
  // aliasing parameters: each may instead be an earlier one of its type (not null)
  auto nameOf = [&](VarId v) { return prog.vars[v].cName.empty() ? prog.vars[v].name : prog.vars[v].cName; };
  for (size_t i = 0; i < f.params.size() && i < f.entryParams.size(); ++i) {
    const EntryParam& ep = f.entryParams[i];
    if (ep.mayAlias.empty() || ep.object < 0 || prog.vars[f.params[i]].width != prog.ptrWidth) continue;
    std::vector<VarId> others;
    for (uint32_t j : ep.mayAlias)
      if (j < i && j < f.params.size() && prog.vars[f.params[j]].width == prog.ptrWidth) others.push_back(f.params[j]);
    if (!others.empty()) b.aliasChoice(f.params[i], others, nameOf);
  }
  Edge go;
  go.kind = EdgeKind::Blank;
  go.from = b.cur;
  go.to = body;
  go.range = f.range;
  f.addEdge(std::move(go));
}

// Edge k of f now runs between two new locations, `before` from its old source to the
// first, `after` (if any) from the second to its old target.
void surround(Function& f, uint32_t k, Edge before, std::optional<Edge> after) {
  const LocId a = f.edges[k].from, b = f.edges[k].to;
  const LocId m1 = f.addLoc(f.locs[a].range);
  const LocId m2 = after ? f.addLoc(f.locs[b].range) : b;
  std::erase(f.locs[a].out, k);
  f.locs[m1].out.push_back(k);
  f.edges[k].from = m1;
  if (after) {
    std::erase(f.locs[b].in, k);
    f.locs[m2].in.push_back(k);
    f.edges[k].to = m2;
  }
  before.from = a;
  before.to = m1;
  before.range = f.edges[k].range;
  f.addEdge(std::move(before));
  if (after) {
    after->from = m2;
    after->to = b;
    after->range = f.edges[k].range;
    f.addEdge(std::move(*after));
  }
}

// Where the entry's leading assertions are assumed, the assertions their own calls
// evaluate are part of them: `assert( sqlite3_mutex_held(db->mutex) )` holds on entry only
// if sqlite3_mutex_held's `assert( p==0 || sqlite3GlobalConfig.mutex.xMutexHeld )` passes
// on the way, and a caller that keeps the contract keeps both (its own run checks them).
// A flag `$precondition$f` is 1 during those calls; an assertion failure (not a property
// check: those stay checks, as in the condition itself) in any function they reach is
// taken only while it is 0.
void assumePreconditionCalls(Program& prog, FuncId entry) {
  if (prog.initNondetFunc == kNoFunc || entry >= prog.functions.size()) return;
  std::vector<uint32_t> calls;
  for (uint32_t k = 0; k < prog.functions[entry].edges.size(); ++k) {
    const Edge& e = prog.functions[entry].edges[k];
    if (e.kind == EdgeKind::Call && e.gate == ContractGate::AssertCondition && e.callee < prog.functions.size())
      calls.push_back(k);
  }
  if (calls.empty()) return;
  std::vector<bool> reached(prog.functions.size(), false);
  std::vector<FuncId> work;
  for (uint32_t k : calls) {
    const FuncId c = prog.functions[entry].edges[k].callee;
    if (!reached[c]) reached[c] = true, work.push_back(c);
  }
  while (!work.empty()) {
    const FuncId g = work.back();
    work.pop_back();
    for (const Edge& e : prog.functions[g].edges)
      if (e.kind == EdgeKind::Call && e.callee < prog.functions.size() && !reached[e.callee])
        reached[e.callee] = true, work.push_back(e.callee);
  }
  if (reached[entry]) return;  // the precondition calls the entry: its own checks stay checks
  const std::string& name = prog.functions[entry].name;
  const VarId flag = harnessFlag(prog, kPreconditionPrefix + name, "not evaluating " + name + "'s precondition");
  for (uint32_t k : calls)
    surround(prog.functions[entry], k, setFlag(flag, 1, "evaluating " + name + "'s precondition"),
             setFlag(flag, 0, "end of the call in " + name + "'s precondition"));
  for (FuncId g = 0; g < prog.functions.size(); ++g) {
    if (!reached[g]) continue;
    Function& f = prog.functions[g];
    const uint32_t n = static_cast<uint32_t>(f.edges.size());
    for (uint32_t k = 0; k < n; ++k) {
      const Edge& e = f.edges[k];
      if (e.kind != EdgeKind::Error || e.check != CheckKind::None || !e.property.empty()) continue;
      Edge guard;
      guard.kind = EdgeKind::Assume;
      guard.cond = Expr::mkBinary(BinOp::Eq, Expr::mkVar(flag, 8), Expr::mkConst(0, 8), 32);
      guard.positive = true;
      guard.text = "outside " + name + "'s precondition: the assertion is checked";
      surround(f, k, std::move(guard), std::nullopt);
    }
  }
}

}  // namespace

std::shared_ptr<Program> withEntryHarness(const Program& src, FuncId entry) {
  bool recursive = false;
  if (!harnessApplies(src, entry, recursive)) return nullptr;
  auto out = std::make_shared<Program>(src);
  buildEntryHarness(*out, entry, recursive);
  return out;
}

bool addEntryHarness(Program& p, FuncId entry) {
  bool recursive = false;
  if (!harnessApplies(p, entry, recursive)) return false;
  buildEntryHarness(p, entry, recursive);
  return true;
}

std::shared_ptr<Program> withContracts(const Program& src, FuncId entry) {
  bool any = false;
  for (const Function& g : src.functions)
    for (const Edge& e : g.edges) any = any || (e.gate != ContractGate::None && e.gate != ContractGate::GlobalModel);
  if (!any || entry >= src.functions.size()) return nullptr;
  // once per program: the precondition flag of an earlier entry would hide the assertions
  // of that entry's precondition where this run checks them
  for (const Variable& v : src.vars)
    if (v.name.rfind(kPreconditionPrefix, 0) == 0)
      throw std::logic_error("withContracts: the program was prepared for an entry already (" + v.name + ")");
  const bool wholeProgram = src.functions[entry].name == "main";
  bool recursive = false;
  for (const Function& g : src.functions)
    for (const Edge& e : g.edges)
      if (e.kind == EdgeKind::Call && e.callee == entry) recursive = true;
  // a recursive entry's leading assertions: assumed on the first invocation only, when the
  // harness marks it (buildEntryHarness)
  std::optional<VarId> firstFlag;
  if (recursive && !wholeProgram)
    for (VarId v = 0; v < src.vars.size(); ++v)
      if (src.vars[v].name == std::string(kEntryFirstPrefix) + src.functions[entry].name) firstFlag = v;
  auto firstOnly = [&](const Edge& e, size_t fi) {
    return firstFlag && fi == entry && e.kind == EdgeKind::Assume && e.gate == ContractGate::LeadingAssert;
  };
  auto isFirstOnly = [&](const Edge& e) {
    return e.cond && e.cond->kind == ExprKind::Binary && !e.cond->ops.empty() && e.cond->ops[0] &&
           e.cond->ops[0]->kind == ExprKind::Var && e.cond->ops[0]->var == *firstFlag;
  };
  // the gate's setting for this run, or nothing for an edge that is no gate
  auto setting = [&](const Edge& e, bool isEntry) -> std::optional<bool> {
    if (e.kind != EdgeKind::Assume) return std::nullopt;
    switch (e.gate) {
      case ContractGate::None:
      case ContractGate::Condition:
      case ContractGate::AssertCondition:
      case ContractGate::GlobalModel: return std::nullopt;
      case ContractGate::Requires: return !isEntry;
      case ContractGate::LeadingAssume: return !wholeProgram && !isEntry;
      case ContractGate::EntryOnly: return isEntry;
      case ContractGate::NotEntry: return !isEntry;
      // a leading assertion is the function's precondition when it is verified on its
      // own; `main` has no caller, so its own assertions stay checks
      case ContractGate::LeadingAssert: return wholeProgram || !isEntry;
    }
    return std::nullopt;
  };
  auto isSet = [](const Edge& e, bool open) {
    return e.cond && e.cond->kind == ExprKind::Const && e.cond->value == (open ? 1u : 0u) && e.positive;
  };
  // no copy when every gate already has this run's setting (the frontend's defaults are
  // those of a run whose entry is none of the gated functions)
  bool change = false;
  for (size_t fi = 0; fi < src.functions.size() && !change; ++fi)
    for (const Edge& e : src.functions[fi].edges) {
      if (firstOnly(e, fi) ? !isFirstOnly(e) : [&] {
            std::optional<bool> open = setting(e, fi == entry && !recursive);
            return open && !isSet(e, *open);
          }()) {
        change = true;
        break;
      }
    }
  if (!change) return nullptr;
  auto out = std::make_shared<Program>(src);
  for (size_t fi = 0; fi < out->functions.size(); ++fi) {
    const bool isEntry = fi == entry && !recursive;
    for (Edge& e : out->functions[fi].edges) {
      if (firstOnly(e, fi)) {  // open unless the harness's first invocation
        e.cond = Expr::mkBinary(BinOp::Eq, Expr::mkVar(*firstFlag, 8), Expr::mkConst(0, 8), 32);
        e.positive = true;
        continue;
      }
      std::optional<bool> open = setting(e, isEntry);
      if (!open || isSet(e, *open)) continue;
      e.cond = Expr::mkConst(*open ? 1 : 0, 32);
      e.positive = true;
    }
  }
  if (!wholeProgram && !recursive) assumePreconditionCalls(*out, entry);
  return out;
}

bool entryModelDepthBounded(const Program& p, FuncId entry) {
  if (entry >= p.functions.size() || p.functions[entry].name == "main") return false;
  const std::string tail = "(depth bound)";
  auto bounded = [&](FuncId f) {
    if (f == kNoFunc || f >= p.functions.size()) return false;
    for (const Edge& e : p.functions[f].edges)
      if (e.text.size() >= tail.size() && e.text.compare(e.text.size() - tail.size(), tail.size(), tail) == 0 &&
          e.text.rfind(kEntryModelText, 0) == 0)
        return true;
    return false;
  };
  return bounded(entry) || bounded(p.initNondetFunc);
}

std::vector<std::string> assumedPreconditions(const Program& p, FuncId entry) {
  std::vector<std::string> out;
  if (entry >= p.functions.size() || p.functions[entry].name == "main") return out;
  const Function& f = p.functions[entry];
  for (const Edge& g : f.edges) {
    if (g.kind != EdgeKind::Assume || !g.cond) continue;
    // closed, or (a recursive entry's leading assertion) closed on the first invocation
    const bool closed = g.cond->kind == ExprKind::Const ? g.cond->value == 0
                                                        : g.gate == ContractGate::LeadingAssert;
    if (!closed) continue;
    if (g.gate != ContractGate::Requires && g.gate != ContractGate::LeadingAssume &&
        g.gate != ContractGate::LeadingAssert)
      continue;
    // the check the closed gate stands before: its text names the clause
    for (uint32_t ei : f.locs[g.to].out) {
      const Edge& e = f.edges[ei];
      if (e.kind != EdgeKind::Error) continue;
      std::string text = e.text;
      const std::string at = "violated at call site: ";
      if (size_t k = text.find(at); k != std::string::npos) text = text.substr(k + at.size());
      const SourceRange& r = e.range.line ? e.range : g.range;
      std::string place = (r.file.empty() ? p.mainFile : r.file);
      if (size_t slash = place.rfind('/'); slash != std::string::npos) place = place.substr(slash + 1);
      out.push_back(text + " (" + place + ":" + std::to_string(r.line) + ")");
      break;
    }
  }
  return out;
}

}  // namespace argus::cfa
