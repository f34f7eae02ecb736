// See serialize.h.
#include "core/cfa/serialize.h"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "core/cfa/closure.h"

namespace argus::cfa {

namespace {

constexpr std::string_view kMagic = "ARGUSCFA";
constexpr uint64_t kFormat = 16;  // 2: Edge::externalCallee, 3: Edge::nondetFunction, 4: property, check,
                                  // 5: entry model, 6: value shapes (Variable::shape, Edge::storeShape/storeSigned/elemBytes),
                                  // 7: objectBits, 8: Edge::gate, 9: widths up to 128 bits (__int128),
                                  // 10: indexed (a header, then each function's locations and blocks of
                                  // edges on their own, and the closure's dependency graph: ProgramImage),
                                  // 11: ContractGate::GlobalModel, 12: LeadingAssert, AssertCondition,
                                  // 13: AssertCondition on the calls of a leading assertion,
                                  // 14: the entry model's function-pointer choices (EntryFunctions) and
                                  // aliasing parameters (EntryParam::mayAlias), 15: the fields and types of
                                  // the choices (EntryFunctions::field/type, Edge::choiceField/choiceType,
                                  // Function::callsThrough), 16: EntryObject::Slot::back

struct Span {
  uint64_t offset = 0, length = 0;  // in the sections that follow the header
};
struct FunctionIndex {
  uint64_t numLocs = 0, numEdges = 0;
  Span locs;
  struct Block {
    uint32_t first = 0, end = 0;  // edges [first, end)
    Span at;
  };
  std::vector<Block> blocks;  // in order, covering every edge
};

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
    Dependencies deps(p);
    // Bodies first (into their own buffer), so the header can index them.
    Out sections;
    std::vector<FunctionIndex> index(p.functions.size());
    for (FuncId f = 0; f < p.functions.size(); ++f) {
      const Function& fn = p.functions[f];
      FunctionIndex& ix = index[f];
      ix.numLocs = fn.locs.size();
      ix.numEdges = fn.edges.size();
      Out locs;
      for (const Location& l : fn.locs) {
        locs.u(l.id);
        locs.u(l.isLoopHead);
        range(locs, l.range);
        locs.u(l.out.size());
        for (uint32_t e : l.out) locs.u(e);
        locs.u(l.in.size());
        for (uint32_t e : l.in) locs.u(e);
      }
      ix.locs = {sections.bytes.size(), locs.bytes.size()};
      sections.bytes.append(locs.bytes);
      // Blocks of edges: one per init piece of a function represented by its pieces (a
      // closure decodes only its own), else one for the whole function.
      std::vector<std::pair<uint32_t, uint32_t>> spans;
      const bool pieces = deps.hasParts(f);
      if (pieces) {
        uint32_t at = 0;
        for (uint32_t i : deps.partsOf(f)) {
          const InitPart& part = p.initParts[i];
          if (part.firstEdge > at) spans.emplace_back(at, part.firstEdge);
          if (part.endEdge > part.firstEdge) spans.emplace_back(part.firstEdge, part.endEdge);
          at = std::max(at, part.endEdge);
        }
        if (at < fn.edges.size()) spans.emplace_back(at, static_cast<uint32_t>(fn.edges.size()));
      } else if (!fn.edges.empty()) {
        spans.emplace_back(0, static_cast<uint32_t>(fn.edges.size()));
      }
      for (auto [first, end] : spans) {
        Out block = edgeBlock(fn, first, end, pieces);
        ix.blocks.push_back({first, end, sections.bytes.size(), block.bytes.size()});
        sections.bytes.append(block.bytes);
      }
    }

    Out h;
    h.raw(p.mainFile);
    h.u(p.ptrWidth);
    h.u(p.heapBase);
    h.u(p.objectBits);
    h.u(p.initFunc);
    h.u(p.initNondetFunc);
    h.u(p.notes.size());
    for (const auto& n : p.notes) h.raw(n);
    h.u(p.vars.size());
    for (const Variable& v : p.vars) {
      str(h, v.name);
      str(h, v.cName);
      h.u(v.width);
      h.u(v.isSigned);
      h.u(static_cast<uint64_t>(v.kind));
      h.u(v.func);
      h.u(static_cast<uint64_t>(v.linkage));
      h.u(static_cast<uint64_t>(v.shape));
    }
    h.u(p.funcByName.size());
    for (const auto& [name, id] : p.funcByName) {
      str(h, name);
      h.u(id);
    }
    h.u(p.functions.size());
    for (FuncId f = 0; f < p.functions.size(); ++f) meta(h, p.functions[f], index[f]);
    h.u(p.initParts.size());
    for (const InitPart& part : p.initParts) {
      h.u(part.func);
      h.u(part.firstEdge);
      h.u(part.endEdge);
      h.u(part.from);
      h.u(part.to);
      h.u(part.defines.size());
      for (VarId v : part.defines) h.u(v);
    }
    h.u(p.link.globalDefs.size());
    for (const auto& [name, def] : p.link.globalDefs) {
      str(h, name);
      h.u(static_cast<uint64_t>(def));
    }
    h.u(p.link.undefinedFunctions.size());
    for (const auto& name : p.link.undefinedFunctions) str(h, name);
    h.u(p.link.functionAddresses.size());
    for (const auto& [name, addr] : p.link.functionAddresses) {
      str(h, name);
      h.u(addr);
    }
    Dependencies::Precomputed pre = deps.precompute();
    for (const auto& list : pre.successors) {
      h.u(list.size());
      for (uint32_t n : list) h.u(n);
    }
    h.u(pre.always.size());
    for (uint32_t n : pre.always) h.u(n);
    for (FuncId f = 0; f < p.functions.size(); ++f) h.u(pre.hasParts[f]);
    for (uint64_t g : pre.gaps) h.u(g);

    Out out;
    out.bytes.append(kMagic);
    out.u(kFormat);
    out.u(table_.size());
    for (const std::string* s : table_) out.raw(*s);
    out.u(h.bytes.size());
    out.bytes.append(h.bytes);
    out.bytes.append(sections.bytes);
    return std::move(out.bytes);
  }

 private:
  void str(Out& o, const std::string& s) {
    auto [it, fresh] = strings_.try_emplace(s, strings_.size());
    if (fresh) table_.push_back(&it->first);
    o.u(it->second);
  }
  void range(Out& o, const SourceRange& r) {
    str(o, r.file);
    o.u(r.line);
    o.u(r.column);
    o.u(r.endLine);
    o.u(r.endColumn);
  }
  void functions(Out& o, const EntryFunctions& fs) {
    o.u(fs.addrs.size());
    for (size_t i = 0; i < fs.addrs.size(); ++i) {
      o.u(fs.addrs[i]);
      str(o, i < fs.names.size() ? fs.names[i] : std::string());
    }
    o.u(fs.field);
    o.u(fs.type);
  }
  void meta(Out& o, const Function& f, const FunctionIndex& ix) {
    o.u(f.id);
    str(o, f.name);
    o.u(static_cast<uint64_t>(f.linkage));
    o.u(f.linkStub);
    o.u(f.systemHeader);
    range(o, f.range);
    o.u(f.entry);
    o.u(f.exit);
    o.u(f.error);
    o.u(f.sink);
    o.u(f.params.size());
    for (VarId v : f.params) o.u(v);
    o.u(f.retVar ? uint64_t(*f.retVar) + 1 : 0);
    o.u(f.variadic);
    o.u(f.entryParams.size());
    for (const EntryParam& ep : f.entryParams) {
      o.u(static_cast<uint64_t>(static_cast<int64_t>(ep.object) + 1));
      o.u(ep.nullable);
      functions(o, ep.functions);
      o.u(ep.mayAlias.size());
      for (uint32_t j : ep.mayAlias) o.u(j);
    }
    o.u(f.callsThrough.size());
    for (uint64_t k : f.callsThrough) o.u(k);
    o.u(f.entryObjects.size());
    for (const EntryObject& obj : f.entryObjects) {
      o.u(obj.size);
      o.u(obj.pointers.size());
      for (const EntryObject::Slot& sl : obj.pointers) {
        o.u(sl.offset);
        o.u(static_cast<uint64_t>(static_cast<int64_t>(sl.object) + 1));
        o.u(uint64_t(sl.nullable) | uint64_t(sl.keep) << 1 | uint64_t(int64_t(sl.back) + 1) << 2);
        functions(o, sl.functions);
      }
    }
    o.u(ix.numLocs);
    o.u(ix.numEdges);
    o.u(ix.locs.offset);
    o.u(ix.locs.length);
    o.u(ix.blocks.size());
    for (const FunctionIndex::Block& b : ix.blocks) {
      o.u(b.first);
      o.u(b.end);
      o.u(b.at.offset);
      o.u(b.at.length);
    }
  }
  // Edges [first, end) of f with their own expression table (a DAG: shared subexpressions
  // stay shared within the block); with `ranges`, also the source ranges of the locations
  // they touch (an init piece is decoded without its function's locations).
  Out edgeBlock(const Function& f, uint32_t first, uint32_t end, bool ranges) {
    Out exprs, body;
    uint64_t exprCount = 0;
    std::unordered_map<const Expr*, uint64_t> ids;
    std::function<uint64_t(const ExprPtr&)> index = [&](const ExprPtr& e) -> uint64_t {
      if (auto it = ids.find(e.get()); it != ids.end()) return it->second;
      std::vector<uint64_t> ops;  // post-order: operands before their users
      ops.reserve(e->ops.size());
      for (const ExprPtr& o : e->ops) ops.push_back(index(o));
      exprs.u(static_cast<uint64_t>(e->kind));
      exprs.u(e->width);
      exprs.u(e->value);
      exprs.u(e->var);
      exprs.u(static_cast<uint64_t>(e->unop));
      exprs.u(static_cast<uint64_t>(e->binop));
      exprs.u(static_cast<uint64_t>(e->cast));
      exprs.u(ops.size());
      for (uint64_t o : ops) exprs.u(o);
      uint64_t idx = exprCount++;
      ids.emplace(e.get(), idx);
      return idx;
    };
    auto expr = [&](const ExprPtr& e) { body.u(e ? index(e) + 1 : 0); };
    std::vector<LocId> touched;
    for (uint32_t k = first; k < end; ++k) {
      const Edge& e = f.edges[k];
      body.u(static_cast<uint64_t>(e.kind));
      body.u(e.from);
      body.u(e.to);
      range(body, e.range);
      str(body, e.text);
      expr(e.cond);
      body.u(e.positive);
      body.u(e.lhs ? uint64_t(*e.lhs) + 1 : 0);
      expr(e.rhs);
      expr(e.addr);
      expr(e.value);
      body.u(e.bytes);
      expr(e.size);
      body.u(e.zeroInit);
      body.u(e.callee);
      body.u(e.args.size());
      for (const ExprPtr& a : e.args) expr(a);
      body.u(e.isNondetCall);
      str(body, e.externalCallee);
      str(body, e.nondetFunction);
      str(body, e.property);
      body.u(static_cast<uint64_t>(e.check));
      body.u(static_cast<uint64_t>(e.storeShape));
      body.u(e.storeSigned);
      body.u(e.elemBytes);
      body.u(static_cast<uint64_t>(e.gate));
      body.u(e.choiceField);
      body.u(e.choiceType);
      touched.push_back(e.from);
      touched.push_back(e.to);
    }
    if (ranges) {
      std::sort(touched.begin(), touched.end());
      touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
      body.u(touched.size());
      for (LocId l : touched) {
        body.u(l);
        range(body, f.locs[l].range);
      }
    }
    Out out;
    out.u(exprCount);
    out.bytes.append(exprs.bytes);
    out.bytes.append(body.bytes);
    return out;
  }

  std::unordered_map<std::string, uint64_t> strings_;
  std::vector<const std::string*> table_;
};

// Varints, strings and ranges of one stretch of the bytes.
class Reader {
 public:
  Reader(std::string_view b, const std::vector<std::string>* strings, size_t base = 0)
      : b_(b), strings_(strings), base_(base) {}
  size_t pos() const { return pos_; }
  bool atEnd() const { return pos_ == b_.size(); }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("cannot read CFA: " + why + " (at byte " + std::to_string(base_ + pos_) + ")");
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
  std::string_view take(uint64_t n) {
    if (n > b_.size() - pos_) fail("truncated");
    std::string_view s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  const std::string& str() {
    uint64_t i = u();
    if (i >= strings_->size()) fail("string index out of range");
    return (*strings_)[i];
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

 private:
  std::string_view b_;
  const std::vector<std::string>* strings_;
  size_t base_;
  size_t pos_ = 0;
};

// One decoded block of edges (and, for an init piece, the ranges of its locations).
struct DecodedBlock {
  std::vector<Edge> edges;
  std::unordered_map<LocId, SourceRange> ranges;
};

}  // namespace

struct ProgramImage::Impl {
  std::string bytes;
  size_t sections = 0;  // where the sections start
  std::vector<std::string> strings;
  std::unique_ptr<Program> shell;
  std::vector<FunctionIndex> index;
  std::unique_ptr<Dependencies> deps;

  Reader at(const Span& s) const {
    return Reader(std::string_view(bytes).substr(sections + s.offset, s.length), &strings, sections + s.offset);
  }

  static void readFunctions(Reader& h, EntryFunctions& fs) {
    for (uint64_t k = 0, n = h.count(); k < n; ++k) {
      fs.addrs.push_back(h.u());
      fs.names.push_back(h.str());
    }
    fs.field = h.u();
    fs.type = h.u();
  }

  void header() {
    Reader r(bytes, &strings);
    if (r.take(kMagic.size()) != kMagic) r.fail("not a serialized CFA");
    if (r.u() != kFormat) r.fail("unknown CFA format version");
    uint64_t nStrings = r.count();
    strings.reserve(nStrings);
    for (uint64_t i = 0; i < nStrings; ++i) strings.push_back(r.raw());
    uint64_t headerBytes = r.u();
    sections = r.pos() + headerBytes;
    if (headerBytes > bytes.size() - r.pos()) r.fail("truncated header");
    Reader h(std::string_view(bytes).substr(r.pos(), headerBytes), &strings, r.pos());
    auto p = std::make_unique<Program>();
    p->mainFile = h.raw();
    p->ptrWidth = h.u32();
    p->heapBase = h.u();
    p->objectBits = h.u32();
    p->initFunc = h.u32();
    p->initNondetFunc = h.u32();
    for (uint64_t i = 0, n = h.count(); i < n; ++i) p->notes.push_back(h.raw());
    uint64_t nVars = h.count();
    p->vars.reserve(nVars);
    for (uint64_t i = 0; i < nVars; ++i) {
      Variable v;
      v.name = h.str();
      v.cName = h.str();
      v.width = h.u32();
      v.isSigned = h.u() != 0;
      v.kind = static_cast<VarKind>(h.small(static_cast<uint64_t>(VarKind::Address)));
      v.func = h.u32();
      v.linkage = static_cast<Linkage>(h.small(static_cast<uint64_t>(Linkage::External)));
      v.shape = static_cast<ValueShape>(h.small(static_cast<uint64_t>(ValueShape::Float)));
      p->vars.push_back(std::move(v));
    }
    for (uint64_t i = 0, n = h.count(); i < n; ++i) {
      std::string name = h.str();
      p->funcByName[name] = h.u32();
    }
    uint64_t nFuncs = h.count();
    p->functions.reserve(nFuncs);
    index.resize(nFuncs);
    const uint64_t sectionBytes = bytes.size() - sections;
    uint64_t end = 0;  // of the sections, as the index lays them out
    auto span = [&](Span s) {
      if (s.offset > sectionBytes || s.length > sectionBytes - s.offset) h.fail("section out of range");
      end = std::max(end, s.offset + s.length);
      return s;
    };
    for (uint64_t i = 0; i < nFuncs; ++i) {
      Function f;
      f.id = h.u32();
      f.name = h.str();
      f.linkage = static_cast<Linkage>(h.small(static_cast<uint64_t>(Linkage::External)));
      f.linkStub = h.u() != 0;
      f.systemHeader = h.u() != 0;
      f.range = h.range();
      f.entry = h.u32();
      f.exit = h.u32();
      f.error = h.u32();
      f.sink = h.u32();
      for (uint64_t k = 0, n = h.count(); k < n; ++k) f.params.push_back(h.u32());
      if (uint64_t ret = h.u()) f.retVar = static_cast<VarId>(ret - 1);
      f.variadic = h.u() != 0;
      for (uint64_t k = 0, n = h.count(); k < n; ++k) {
        EntryParam ep;
        ep.object = static_cast<int32_t>(static_cast<int64_t>(h.u()) - 1);
        ep.nullable = h.u() != 0;
        readFunctions(h, ep.functions);
        for (uint64_t m = 0, n = h.count(); m < n; ++m) ep.mayAlias.push_back(h.u32());
        f.entryParams.push_back(ep);
      }
      for (uint64_t k = 0, n = h.count(); k < n; ++k) f.callsThrough.push_back(h.u());
      uint64_t nObjects = h.count();
      for (uint64_t k = 0; k < nObjects; ++k) {
        EntryObject o;
        o.size = h.u();
        for (uint64_t m = 0, n = h.count(); m < n; ++m) {
          EntryObject::Slot sl;
          sl.offset = h.u();
          sl.object = static_cast<int32_t>(static_cast<int64_t>(h.u()) - 1);
          uint64_t flags = h.u();
          sl.nullable = (flags & 1) != 0;
          sl.keep = (flags & 2) != 0;
          sl.back = static_cast<int32_t>(static_cast<int64_t>(flags >> 2) - 1);
          if (sl.back >= static_cast<int64_t>(nObjects)) h.fail("entry model slot refers back to a missing object");
          readFunctions(h, sl.functions);
          if (sl.object >= static_cast<int64_t>(nObjects)) h.fail("entry model slot refers to a missing object");
          o.pointers.push_back(sl);
        }
        f.entryObjects.push_back(std::move(o));
      }
      for (size_t k = 0; k < f.entryParams.size(); ++k) {
        if (f.entryParams[k].object >= static_cast<int64_t>(nObjects)) h.fail("entry model parameter refers to a missing object");
        for (uint32_t j : f.entryParams[k].mayAlias)
          if (j >= k) h.fail("entry model parameter aliases a later one");
      }
      if (!f.entryParams.empty() && f.entryParams.size() != f.params.size()) h.fail("entry model of the wrong size");
      FunctionIndex& ix = index[i];
      ix.numLocs = h.u32();
      ix.numEdges = h.u32();
      ix.locs.offset = h.u();
      ix.locs.length = h.u();
      span(ix.locs);
      uint32_t covered = 0;
      for (uint64_t k = 0, n = h.count(); k < n; ++k) {
        FunctionIndex::Block b;
        b.first = h.u32();
        b.end = h.u32();
        b.at.offset = h.u();
        b.at.length = h.u();
        span(b.at);
        if (b.first != covered || b.end <= b.first || b.end > ix.numEdges) h.fail("edge blocks out of order");
        covered = b.end;
        ix.blocks.push_back(b);
      }
      if (covered != ix.numEdges) h.fail("edge blocks do not cover the function");
      p->functions.push_back(std::move(f));
    }
    if (end != sectionBytes) h.fail(end < sectionBytes ? "trailing bytes" : "truncated");
    for (uint64_t i = 0, n = h.count(); i < n; ++i) {
      InitPart part;
      part.func = h.u32();
      part.firstEdge = h.u32();
      part.endEdge = h.u32();
      part.from = h.u32();
      part.to = h.u32();
      for (uint64_t k = 0, m = h.count(); k < m; ++k) part.defines.push_back(h.u32());
      if (part.func >= nFuncs || part.firstEdge > part.endEdge || part.endEdge > index[part.func].numEdges ||
          part.from >= index[part.func].numLocs || part.to >= index[part.func].numLocs)
        h.fail("initialisation piece out of range");
      for (VarId v : part.defines)
        if (v >= p->vars.size()) h.fail("initialisation piece defines a missing variable");
      p->initParts.push_back(std::move(part));
    }
    for (uint64_t i = 0, n = h.count(); i < n; ++i) {
      std::string name = h.str();
      p->link.globalDefs[name] = static_cast<int>(h.small(2));
    }
    for (uint64_t i = 0, n = h.count(); i < n; ++i) p->link.undefinedFunctions.push_back(h.str());
    for (uint64_t i = 0, n = h.count(); i < n; ++i) {
      std::string name = h.str();
      p->link.functionAddresses[name] = h.u();
    }
    Dependencies::Precomputed pre;
    uint64_t nodes = nFuncs + p->initParts.size();
    pre.successors.resize(nodes);
    for (uint64_t i = 0; i < nodes; ++i)
      for (uint64_t k = 0, n = h.count(); k < n; ++k) pre.successors[i].push_back(h.u32());
    for (uint64_t k = 0, n = h.count(); k < n; ++k) pre.always.push_back(h.u32());
    pre.hasParts.resize(nFuncs);
    for (uint64_t f = 0; f < nFuncs; ++f) pre.hasParts[f] = h.u() != 0;
    pre.gaps.resize(p->initParts.size());
    for (uint64_t& g : pre.gaps) g = h.u();
    if (!h.atEnd()) h.fail("trailing bytes in the header");
    shell = std::move(p);
    try {
      deps = std::make_unique<Dependencies>(*shell, std::move(pre));
    } catch (const std::runtime_error& e) {
      h.fail(e.what());
    }
  }

  std::vector<Location> locs(FuncId f) const {
    const FunctionIndex& ix = index[f];
    Reader r = at(ix.locs);
    std::vector<Location> out;
    out.reserve(ix.numLocs);
    for (uint64_t i = 0; i < ix.numLocs; ++i) {
      Location l;
      l.id = r.u32();
      l.isLoopHead = r.u() != 0;
      l.range = r.range();
      for (uint64_t k = 0, n = r.count(); k < n; ++k) l.out.push_back(r.u32());
      for (uint64_t k = 0, n = r.count(); k < n; ++k) l.in.push_back(r.u32());
      for (const auto* list : {&l.out, &l.in})
        for (uint32_t e : *list)
          if (e >= ix.numEdges) r.fail("location refers to a missing edge");
      out.push_back(std::move(l));
    }
    if (!r.atEnd()) r.fail("trailing bytes after the locations");
    return out;
  }

  DecodedBlock block(FuncId f, size_t b) const {
    const FunctionIndex& ix = index[f];
    const FunctionIndex::Block& blk = ix.blocks[b];
    Reader r = at(blk.at);
    std::vector<ExprPtr> exprs;
    uint64_t nExprs = r.count();
    exprs.reserve(nExprs);
    for (uint64_t i = 0; i < nExprs; ++i) {
      auto e = std::make_shared<Expr>();
      e->kind = static_cast<ExprKind>(r.small(static_cast<uint64_t>(ExprKind::Ite)));
      e->width = r.u32();
      e->value = r.u();
      e->var = r.u32();
      e->unop = static_cast<UnOp>(r.small(static_cast<uint64_t>(UnOp::FRound)));
      e->binop = static_cast<BinOp>(r.small(static_cast<uint64_t>(BinOp::FRem)));
      e->cast = static_cast<CastKind>(r.small(static_cast<uint64_t>(CastKind::FToU)));
      uint64_t n = r.count();
      for (uint64_t k = 0; k < n; ++k) {
        uint64_t o = r.u();
        if (o >= exprs.size()) r.fail("operand index out of range");
        e->ops.push_back(exprs[o]);
      }
      exprs.push_back(std::move(e));
    }
    auto expr = [&]() -> ExprPtr {
      uint64_t i = r.u();
      if (i == 0) return nullptr;
      if (i > exprs.size()) r.fail("expression index out of range");
      return exprs[i - 1];
    };
    DecodedBlock out;
    out.edges.reserve(blk.end - blk.first);
    for (uint32_t k = blk.first; k < blk.end; ++k) {
      Edge e;
      e.kind = static_cast<EdgeKind>(r.small(static_cast<uint64_t>(EdgeKind::Unsupported)));
      e.from = r.u32();
      e.to = r.u32();
      e.range = r.range();
      e.text = r.str();
      e.cond = expr();
      e.positive = r.u() != 0;
      if (uint64_t l = r.u()) e.lhs = static_cast<VarId>(l - 1);
      e.rhs = expr();
      e.addr = expr();
      e.value = expr();
      e.bytes = r.u32();
      e.size = expr();
      e.zeroInit = r.u() != 0;
      e.callee = r.u32();
      for (uint64_t a = 0, n = r.count(); a < n; ++a) e.args.push_back(expr());
      e.isNondetCall = r.u() != 0;
      e.externalCallee = r.str();
      e.nondetFunction = r.str();
      e.property = r.str();
      e.check = static_cast<CheckKind>(r.small(static_cast<uint64_t>(CheckKind::Leak)));
      e.storeShape = static_cast<ValueShape>(r.small(static_cast<uint64_t>(ValueShape::Float)));
      e.storeSigned = r.u() != 0;
      e.elemBytes = r.u();
      e.gate = static_cast<ContractGate>(r.small(static_cast<uint64_t>(ContractGate::AssertCondition)));
      e.choiceField = r.u();
      e.choiceType = r.u();
      if (e.from >= ix.numLocs || e.to >= ix.numLocs) r.fail("edge between missing locations");
      out.edges.push_back(std::move(e));
    }
    if (deps->hasParts(f))
      for (uint64_t i = 0, n = r.count(); i < n; ++i) {
        LocId l = r.u32();
        if (l >= ix.numLocs) r.fail("range of a missing location");
        out.ranges[l] = r.range();
      }
    if (!r.atEnd()) r.fail("trailing bytes after the edges");
    return out;
  }

  // Everything of f: its metadata from the shell, locations and edges decoded.
  Function function(FuncId f) const {
    Function fn = shell->functions[f];
    fn.locs = locs(f);
    fn.edges.reserve(index[f].numEdges);
    for (size_t b = 0; b < index[f].blocks.size(); ++b)
      for (Edge& e : block(f, b).edges) fn.edges.push_back(std::move(e));
    return fn;
  }
};

namespace {

// slice()'s bodies from the image: each function and init piece decoded once, on demand.
class ImageBodies : public BodySource {
 public:
  explicit ImageBodies(const ProgramImage::Impl& im) : im_(im) {}
  const Function& body(FuncId f) const override {
    auto it = bodies_.find(f);
    if (it == bodies_.end()) it = bodies_.emplace(f, im_.function(f)).first;
    return it->second;
  }
  uint32_t numEdges(FuncId f) const override { return static_cast<uint32_t>(im_.index[f].numEdges); }
  const Edge& edge(FuncId f, uint32_t k) const override {
    const auto& blocks = im_.index[f].blocks;
    auto it = std::upper_bound(blocks.begin(), blocks.end(), k,
                               [](uint32_t x, const FunctionIndex::Block& b) { return x < b.end; });
    if (it == blocks.end()) throw std::runtime_error("cannot read CFA: edge out of range");
    const DecodedBlock& d = decoded(f, static_cast<size_t>(it - blocks.begin()));
    return d.edges[k - it->first];
  }
  const SourceRange& locRange(FuncId f, LocId l) const override {
    if (auto byF = ranges_.find(f); byF != ranges_.end())
      if (auto r = byF->second.find(l); r != byF->second.end()) return *r->second;
    auto it = locs_.find(f);
    if (it == locs_.end()) it = locs_.emplace(f, im_.locs(f)).first;
    if (l >= it->second.size()) throw std::runtime_error("cannot read CFA: location out of range");
    return it->second[l].range;
  }

 private:
  const DecodedBlock& decoded(FuncId f, size_t b) const {
    auto key = std::make_pair(f, b);
    auto it = blocks_.find(key);
    if (it == blocks_.end()) {
      it = blocks_.emplace(key, im_.block(f, b)).first;
      auto& byLoc = ranges_[f];
      for (const auto& [l, r] : it->second.ranges) byLoc.emplace(l, &r);
    }
    return it->second;
  }
  const ProgramImage::Impl& im_;
  mutable std::map<FuncId, Function> bodies_;
  mutable std::map<std::pair<FuncId, size_t>, DecodedBlock> blocks_;
  mutable std::map<FuncId, std::vector<Location>> locs_;
  mutable std::map<FuncId, std::unordered_map<LocId, const SourceRange*>> ranges_;  // of the decoded blocks
};

}  // namespace

std::string serialize(const Program& p) { return Serializer().run(p); }

ProgramImage::ProgramImage(std::string bytes) : impl_(std::make_unique<Impl>()) {
  impl_->bytes = std::move(bytes);
  impl_->header();
}

ProgramImage::~ProgramImage() = default;

const Program& ProgramImage::shell() const { return *impl_->shell; }

size_t ProgramImage::size() const { return impl_->bytes.size(); }

std::unique_ptr<Program> ProgramImage::program() const {
  auto p = std::make_unique<Program>(*impl_->shell);
  for (FuncId f = 0; f < p->functions.size(); ++f) p->functions[f] = impl_->function(f);
  return p;
}

std::unique_ptr<Program> ProgramImage::slice(FuncId entry) const {
  return cfa::slice(*impl_->shell, entry, *impl_->deps, ImageBodies(*impl_));
}

std::unique_ptr<Program> deserialize(std::string_view bytes) { return ProgramImage(std::string(bytes)).program(); }

}  // namespace argus::cfa
