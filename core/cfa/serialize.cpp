// See serialize.h.
#include "core/cfa/serialize.h"

#include <stdexcept>
#include <unordered_map>

namespace argus::cfa {

namespace {

constexpr std::string_view kMagic = "ARGUSCFA";
constexpr uint64_t kFormat = 9;  // 2: Edge::externalCallee, 3: Edge::nondetFunction, 4: property, check,
                                  // 5: entry model, 6: value shapes (Variable::shape, Edge::storeShape/storeSigned/elemBytes),
                                  // 7: objectBits, 8: Edge::gate, 9: widths up to 128 bits (__int128)

struct Out {
  std::string bytes;
  void u(uint64_t v) {
    while (v >= 0x80) {
      bytes.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    bytes.push_back(static_cast<char>(v));
  }
  void raw(std::string_view s) {
    u(s.size());
    bytes.append(s);
  }
};

class Serializer {
 public:
  std::string run(const Program& p) {
    body_.raw(p.mainFile);
    body_.u(p.ptrWidth);
    body_.u(p.heapBase);
    body_.u(p.objectBits);
    body_.u(p.initFunc);
    body_.u(p.initNondetFunc);
    body_.u(p.notes.size());
    for (const auto& n : p.notes) body_.raw(n);
    body_.u(p.vars.size());
    for (const Variable& v : p.vars) {
      str(v.name);
      str(v.cName);
      body_.u(v.width);
      body_.u(v.isSigned);
      body_.u(static_cast<uint64_t>(v.kind));
      body_.u(v.func);
      body_.u(static_cast<uint64_t>(v.linkage));
      body_.u(static_cast<uint64_t>(v.shape));
    }
    body_.u(p.funcByName.size());
    for (const auto& [name, id] : p.funcByName) {
      str(name);
      body_.u(id);
    }
    body_.u(p.functions.size());
    for (const Function& f : p.functions) function(f);
    body_.u(p.initParts.size());
    for (const InitPart& part : p.initParts) {
      body_.u(part.func);
      body_.u(part.firstEdge);
      body_.u(part.endEdge);
      body_.u(part.from);
      body_.u(part.to);
      body_.u(part.defines.size());
      for (VarId v : part.defines) body_.u(v);
    }
    body_.u(p.link.globalDefs.size());
    for (const auto& [name, def] : p.link.globalDefs) {
      str(name);
      body_.u(static_cast<uint64_t>(def));
    }
    body_.u(p.link.undefinedFunctions.size());
    for (const auto& name : p.link.undefinedFunctions) str(name);
    body_.u(p.link.functionAddresses.size());
    for (const auto& [name, addr] : p.link.functionAddresses) {
      str(name);
      body_.u(addr);
    }

    Out out;
    out.bytes.append(kMagic);
    out.u(kFormat);
    out.u(table_.size());
    for (const std::string* s : table_) out.raw(*s);
    out.u(exprCount_);
    out.bytes.append(exprs_.bytes);
    out.bytes.append(body_.bytes);
    return std::move(out.bytes);
  }

 private:
  void str(const std::string& s) {
    auto [it, fresh] = strings_.try_emplace(s, strings_.size());
    if (fresh) table_.push_back(&it->first);
    body_.u(it->second);
  }
  void range(const SourceRange& r) {
    str(r.file);
    body_.u(r.line);
    body_.u(r.column);
    body_.u(r.endLine);
    body_.u(r.endColumn);
  }
  void expr(const ExprPtr& e) { body_.u(e ? exprIndex(e) + 1 : 0); }
  // Post-order: operands are in the table before the expressions that use them.
  uint64_t exprIndex(const ExprPtr& e) {
    if (auto it = exprIds_.find(e.get()); it != exprIds_.end()) return it->second;
    std::vector<uint64_t> ops;
    ops.reserve(e->ops.size());
    for (const ExprPtr& o : e->ops) ops.push_back(exprIndex(o));
    exprs_.u(static_cast<uint64_t>(e->kind));
    exprs_.u(e->width);
    exprs_.u(e->value);
    exprs_.u(e->var);
    exprs_.u(static_cast<uint64_t>(e->unop));
    exprs_.u(static_cast<uint64_t>(e->binop));
    exprs_.u(static_cast<uint64_t>(e->cast));
    exprs_.u(ops.size());
    for (uint64_t o : ops) exprs_.u(o);
    uint64_t idx = exprCount_++;
    exprIds_.emplace(e.get(), idx);
    return idx;
  }
  void function(const Function& f) {
    body_.u(f.id);
    str(f.name);
    body_.u(static_cast<uint64_t>(f.linkage));
    body_.u(f.linkStub);
    body_.u(f.systemHeader);
    range(f.range);
    body_.u(f.locs.size());
    for (const Location& l : f.locs) {
      body_.u(l.id);
      body_.u(l.isLoopHead);
      range(l.range);
      body_.u(l.out.size());
      for (uint32_t e : l.out) body_.u(e);
      body_.u(l.in.size());
      for (uint32_t e : l.in) body_.u(e);
    }
    body_.u(f.edges.size());
    for (const Edge& e : f.edges) {
      body_.u(static_cast<uint64_t>(e.kind));
      body_.u(e.from);
      body_.u(e.to);
      range(e.range);
      str(e.text);
      expr(e.cond);
      body_.u(e.positive);
      body_.u(e.lhs ? uint64_t(*e.lhs) + 1 : 0);
      expr(e.rhs);
      expr(e.addr);
      expr(e.value);
      body_.u(e.bytes);
      expr(e.size);
      body_.u(e.zeroInit);
      body_.u(e.callee);
      body_.u(e.args.size());
      for (const ExprPtr& a : e.args) expr(a);
      body_.u(e.isNondetCall);
      str(e.externalCallee);
      str(e.nondetFunction);
      str(e.property);
      body_.u(static_cast<uint64_t>(e.check));
      body_.u(static_cast<uint64_t>(e.storeShape));
      body_.u(e.storeSigned);
      body_.u(e.elemBytes);
      body_.u(static_cast<uint64_t>(e.gate));
    }
    body_.u(f.entry);
    body_.u(f.exit);
    body_.u(f.error);
    body_.u(f.sink);
    body_.u(f.params.size());
    for (VarId v : f.params) body_.u(v);
    body_.u(f.retVar ? uint64_t(*f.retVar) + 1 : 0);
    body_.u(f.variadic);
    body_.u(f.entryParams.size());
    for (const EntryParam& ep : f.entryParams) {
      body_.u(static_cast<uint64_t>(static_cast<int64_t>(ep.object) + 1));
      body_.u(ep.nullable);
    }
    body_.u(f.entryObjects.size());
    for (const EntryObject& o : f.entryObjects) {
      body_.u(o.size);
      body_.u(o.pointers.size());
      for (const EntryObject::Slot& sl : o.pointers) {
        body_.u(sl.offset);
        body_.u(static_cast<uint64_t>(static_cast<int64_t>(sl.object) + 1));
        body_.u(uint64_t(sl.nullable) | uint64_t(sl.keep) << 1);
      }
    }
  }

  Out body_, exprs_;
  uint64_t exprCount_ = 0;
  std::unordered_map<const Expr*, uint64_t> exprIds_;
  std::unordered_map<std::string, uint64_t> strings_;
  std::vector<const std::string*> table_;
};

class Deserializer {
 public:
  explicit Deserializer(std::string_view b) : b_(b) {}

  std::unique_ptr<Program> run() {
    if (b_.substr(0, kMagic.size()) != kMagic) fail("not a serialized CFA");
    pos_ = kMagic.size();
    if (u() != kFormat) fail("unknown CFA format version");
    uint64_t nStrings = count();
    strings_.reserve(nStrings);
    for (uint64_t i = 0; i < nStrings; ++i) strings_.push_back(raw());
    uint64_t nExprs = count();
    exprs_.reserve(nExprs);
    for (uint64_t i = 0; i < nExprs; ++i) exprEntry();

    auto p = std::make_unique<Program>();
    p->mainFile = raw();
    p->ptrWidth = u32();
    p->heapBase = u();
    p->objectBits = u32();
    p->initFunc = u32();
    p->initNondetFunc = u32();
    for (uint64_t i = 0, n = count(); i < n; ++i) p->notes.push_back(raw());
    uint64_t nVars = count();
    p->vars.reserve(nVars);
    for (uint64_t i = 0; i < nVars; ++i) {
      Variable v;
      v.name = str();
      v.cName = str();
      v.width = u32();
      v.isSigned = u() != 0;
      v.kind = static_cast<VarKind>(small(static_cast<uint64_t>(VarKind::Address)));
      v.func = u32();
      v.linkage = static_cast<Linkage>(small(static_cast<uint64_t>(Linkage::External)));
      v.shape = static_cast<ValueShape>(small(static_cast<uint64_t>(ValueShape::Float)));
      p->vars.push_back(std::move(v));
    }
    for (uint64_t i = 0, n = count(); i < n; ++i) {
      std::string name = str();
      p->funcByName[name] = u32();
    }
    uint64_t nFuncs = count();
    p->functions.reserve(nFuncs);
    for (uint64_t i = 0; i < nFuncs; ++i) p->functions.push_back(function());
    for (uint64_t i = 0, n = count(); i < n; ++i) {
      InitPart part;
      part.func = u32();
      part.firstEdge = u32();
      part.endEdge = u32();
      part.from = u32();
      part.to = u32();
      for (uint64_t k = 0, m = count(); k < m; ++k) part.defines.push_back(u32());
      if (part.func >= p->functions.size() || part.firstEdge > part.endEdge ||
          part.endEdge > p->functions[part.func].edges.size() || part.from >= p->functions[part.func].locs.size() ||
          part.to >= p->functions[part.func].locs.size())
        fail("initialisation piece out of range");
      for (VarId v : part.defines)
        if (v >= p->vars.size()) fail("initialisation piece defines a missing variable");
      p->initParts.push_back(std::move(part));
    }
    for (uint64_t i = 0, n = count(); i < n; ++i) {
      std::string name = str();
      p->link.globalDefs[name] = static_cast<int>(small(2));
    }
    for (uint64_t i = 0, n = count(); i < n; ++i) p->link.undefinedFunctions.push_back(str());
    for (uint64_t i = 0, n = count(); i < n; ++i) {
      std::string name = str();
      p->link.functionAddresses[name] = u();
    }
    if (pos_ != b_.size()) fail("trailing bytes");
    return p;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("cannot read CFA: " + why + " (at byte " + std::to_string(pos_) + ")");
  }
  uint64_t u() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= b_.size()) fail("truncated");
      auto c = static_cast<uint8_t>(b_[pos_++]);
      v |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    fail("bad varint");
  }
  uint32_t u32() {
    uint64_t v = u();
    if (v > UINT32_MAX) fail("value out of range");
    return static_cast<uint32_t>(v);
  }
  uint64_t small(uint64_t max) {
    uint64_t v = u();
    if (v > max) fail("enum out of range");
    return v;
  }
  // A count of items that each take at least one byte: bounded by what is left.
  uint64_t count() {
    uint64_t n = u();
    if (n > b_.size() - pos_) fail("count out of range");
    return n;
  }
  std::string raw() {
    uint64_t n = u();
    if (n > b_.size() - pos_) fail("truncated string");
    std::string s(b_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  const std::string& str() {
    uint64_t i = u();
    if (i >= strings_.size()) fail("string index out of range");
    return strings_[i];
  }
  SourceRange range() {
    SourceRange r;
    r.file = str();
    r.line = u32();
    r.column = u32();
    r.endLine = u32();
    r.endColumn = u32();
    return r;
  }
  ExprPtr expr() {
    uint64_t i = u();
    if (i == 0) return nullptr;
    if (i > exprs_.size()) fail("expression index out of range");
    return exprs_[i - 1];
  }
  void exprEntry() {
    auto e = std::make_shared<Expr>();
    e->kind = static_cast<ExprKind>(small(static_cast<uint64_t>(ExprKind::Ite)));
    e->width = u32();
    e->value = u();
    e->var = u32();
    e->unop = static_cast<UnOp>(small(static_cast<uint64_t>(UnOp::FRound)));
    e->binop = static_cast<BinOp>(small(static_cast<uint64_t>(BinOp::FRem)));
    e->cast = static_cast<CastKind>(small(static_cast<uint64_t>(CastKind::FToU)));
    uint64_t n = count();
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t o = u();
      if (o >= exprs_.size()) fail("operand index out of range");
      e->ops.push_back(exprs_[o]);
    }
    exprs_.push_back(std::move(e));
  }
  Function function() {
    Function f;
    f.id = u32();
    f.name = str();
    f.linkage = static_cast<Linkage>(small(static_cast<uint64_t>(Linkage::External)));
    f.linkStub = u() != 0;
    f.systemHeader = u() != 0;
    f.range = range();
    uint64_t nLocs = count();
    f.locs.reserve(nLocs);
    for (uint64_t i = 0; i < nLocs; ++i) {
      Location l;
      l.id = u32();
      l.isLoopHead = u() != 0;
      l.range = range();
      for (uint64_t k = 0, n = count(); k < n; ++k) l.out.push_back(u32());
      for (uint64_t k = 0, n = count(); k < n; ++k) l.in.push_back(u32());
      f.locs.push_back(std::move(l));
    }
    uint64_t nEdges = count();
    f.edges.reserve(nEdges);
    for (uint64_t i = 0; i < nEdges; ++i) {
      Edge e;
      e.kind = static_cast<EdgeKind>(small(static_cast<uint64_t>(EdgeKind::Unsupported)));
      e.from = u32();
      e.to = u32();
      e.range = range();
      e.text = str();
      e.cond = expr();
      e.positive = u() != 0;
      if (uint64_t l = u()) e.lhs = static_cast<VarId>(l - 1);
      e.rhs = expr();
      e.addr = expr();
      e.value = expr();
      e.bytes = u32();
      e.size = expr();
      e.zeroInit = u() != 0;
      e.callee = u32();
      for (uint64_t k = 0, n = count(); k < n; ++k) e.args.push_back(expr());
      e.isNondetCall = u() != 0;
      e.externalCallee = str();
      e.nondetFunction = str();
      e.property = str();
      e.check = static_cast<CheckKind>(small(static_cast<uint64_t>(CheckKind::Leak)));
      e.storeShape = static_cast<ValueShape>(small(static_cast<uint64_t>(ValueShape::Float)));
      e.storeSigned = u() != 0;
      e.elemBytes = u();
      e.gate = static_cast<ContractGate>(small(static_cast<uint64_t>(ContractGate::Condition)));
      if (e.from >= nLocs || e.to >= nLocs) fail("edge between missing locations");
      f.edges.push_back(std::move(e));
    }
    for (const Location& l : f.locs)
      for (const auto* list : {&l.out, &l.in})
        for (uint32_t e : *list)
          if (e >= nEdges) fail("location refers to a missing edge");
    f.entry = u32();
    f.exit = u32();
    f.error = u32();
    f.sink = u32();
    for (uint64_t k = 0, n = count(); k < n; ++k) f.params.push_back(u32());
    if (uint64_t r = u()) f.retVar = static_cast<VarId>(r - 1);
    f.variadic = u() != 0;
    for (uint64_t k = 0, n = count(); k < n; ++k) {
      EntryParam ep;
      ep.object = static_cast<int32_t>(static_cast<int64_t>(u()) - 1);
      ep.nullable = u() != 0;
      f.entryParams.push_back(ep);
    }
    uint64_t nObjects = count();
    for (uint64_t k = 0; k < nObjects; ++k) {
      EntryObject o;
      o.size = u();
      for (uint64_t m = 0, n = count(); m < n; ++m) {
        EntryObject::Slot sl;
        sl.offset = u();
        sl.object = static_cast<int32_t>(static_cast<int64_t>(u()) - 1);
        uint64_t flags = u();
        sl.nullable = (flags & 1) != 0;
        sl.keep = (flags & 2) != 0;
        if (sl.object >= static_cast<int64_t>(nObjects)) fail("entry model slot refers to a missing object");
        o.pointers.push_back(sl);
      }
      f.entryObjects.push_back(std::move(o));
    }
    for (const EntryParam& ep : f.entryParams)
      if (ep.object >= static_cast<int64_t>(nObjects)) fail("entry model parameter refers to a missing object");
    if (!f.entryParams.empty() && f.entryParams.size() != f.params.size()) fail("entry model of the wrong size");
    return f;
  }

  std::string_view b_;
  size_t pos_ = 0;
  std::vector<std::string> strings_;
  std::vector<ExprPtr> exprs_;
};

}  // namespace

std::string serialize(const Program& p) { return Serializer().run(p); }

std::unique_ptr<Program> deserialize(std::string_view bytes) { return Deserializer(bytes).run(); }

}  // namespace argus::cfa
