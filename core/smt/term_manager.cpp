// TermManager: hash-consing and local simplification of terms.
#include <deque>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/smt/term.h"

namespace argus::smt {

uint64_t maskOf(uint32_t width) { return width >= 64 ? ~uint64_t(0) : ((uint64_t(1) << width) - 1); }

std::optional<unsigned __int128> constBits(Term t) {
  if (!t || !t->sort->isBV() || t->width() > 128) return std::nullopt;
  if (t->kind == Kind::BVConst) return static_cast<unsigned __int128>(t->value);
  if (t->kind != Kind::Concat) return std::nullopt;
  auto hi = constBits(t->children[0]), lo = constBits(t->children[1]);
  if (!hi || !lo) return std::nullopt;
  return (*hi << t->children[1]->width()) | *lo;
}

unsigned __int128 parseDecimal128(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("parseDecimal128: empty numeral");
  unsigned __int128 v = 0;
  const unsigned __int128 limit = ~static_cast<unsigned __int128>(0) / 10;
  for (char c : s) {
    if (c < '0' || c > '9') throw std::invalid_argument("parseDecimal128: not a decimal numeral: " + s);
    if (v > limit || (v == limit && static_cast<unsigned>(c - '0') > 5))
      throw std::invalid_argument("parseDecimal128: numeral wider than 128 bits: " + s);
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

int64_t toSigned(uint64_t v, uint32_t width) {
  v &= maskOf(width);
  if (width < 64 && (v >> (width - 1)) & 1) return static_cast<int64_t>(v | ~maskOf(width));
  return static_cast<int64_t>(v);
}

std::string SortNode::str() const {
  switch (kind) {
    case SortKind::Bool: return "Bool";
    case SortKind::Int: return "Int";
    case SortKind::BV: return "(_ BitVec " + std::to_string(width) + ")";
    case SortKind::Array: return "(Array " + index->str() + " " + elem->str() + ")";
    case SortKind::FP: return "(_ FloatingPoint " + std::to_string(eb) + " " + std::to_string(sb) + ")";
  }
  return "?";
}

const char* kindName(Kind k) {
  static const char* names[] = {
      "bool", "bv", "int", "var", "const-array", "not", "and", "or", "=>", "xor", "ite", "=",
      "bvneg", "bvnot", "bvadd", "bvsub", "bvmul", "bvudiv", "bvsdiv", "bvurem", "bvsrem",
      "bvand", "bvor", "bvxor", "bvshl", "bvlshr", "bvashr", "bvult", "bvule", "bvslt", "bvsle",
      "concat", "extract", "zero_extend", "sign_extend", "+", "-", "*", "neg", "<=", "<",
      "select", "store", "apply",
      "fp.from_bits", "fp.to_bits", "fp.add", "fp.sub", "fp.mul", "fp.div", "fp.sqrt", "fp.roundToIntegral",
      "fp.eq", "fp.lt", "fp.leq", "fp.isNaN", "to_fp", "to_fp_sbv", "to_fp_ubv", "fp.to_sbv", "fp.to_ubv", "fp.rem"};
  return names[static_cast<int>(k)];
}

// Iterative (terms can be nested 100k+ deep); shared subterms are printed each time.
std::string TermNode::str() const {
  std::ostringstream o;
  auto leaf = [&](const TermNode* t) -> bool {
    switch (t->kind) {
      case Kind::BoolConst: o << (t->value ? "true" : "false"); return true;
      case Kind::BVConst: o << "#x" << std::hex << t->value << std::dec << "[" << t->sort->width << "]"; return true;
      case Kind::IntConst: o << t->ivalue; return true;
      case Kind::Var: o << t->name; return true;
      default: return false;
    }
  };
  // (node, index of the next child to print); index == children.size() closes the node
  std::vector<std::pair<const TermNode*, size_t>> stack{{this, 0}};
  while (!stack.empty()) {
    auto& [t, i] = stack.back();
    if (i == 0) {
      if (leaf(t)) {
        stack.pop_back();
        continue;
      }
      o << "(" << (t->kind == Kind::Apply ? t->name.c_str() : kindName(t->kind));
      if (t->kind == Kind::Extract) o << " " << t->p0 << " " << t->p1;
      if (t->kind == Kind::ZeroExt || t->kind == Kind::SignExt) o << " " << t->p0;
      if (t->kind == Kind::FPToSBV || t->kind == Kind::FPToUBV) o << " " << t->p1;
    }
    if (i < t->children.size()) {
      const TermNode* c = t->children[i++];
      o << " ";
      stack.push_back({c, 0});
      continue;
    }
    o << ")";
    stack.pop_back();
  }
  return o.str();
}

struct TermManager::Impl {
  struct Key {
    Kind kind;
    Sort sort;
    uint32_t p0, p1;
    uint64_t value;
    int64_t ivalue;
    const std::string* name;  // points into the candidate node while looking up
    const std::vector<Term>* children;
    bool operator==(const Key& o) const {
      return kind == o.kind && sort == o.sort && p0 == o.p0 && p1 == o.p1 && value == o.value &&
             ivalue == o.ivalue && *name == *o.name && *children == *o.children;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = static_cast<uint64_t>(k.kind) * 0x9E3779B97F4A7C15ull;
      auto mix = [&](uint64_t x) { h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2); };
      mix(reinterpret_cast<uintptr_t>(k.sort));
      mix(k.p0);
      mix(k.p1);
      mix(k.value);
      mix(static_cast<uint64_t>(k.ivalue));
      mix(std::hash<std::string>{}(*k.name));
      for (Term c : *k.children) mix(c->id);
      return h;
    }
  };
  std::deque<TermNode> nodes;
  std::unordered_map<Key, Term, KeyHash> table;
  std::deque<SortNode> sorts;
  Sort boolS = nullptr, intS = nullptr;
  std::unordered_map<uint32_t, Sort> bvSorts;
  std::map<std::pair<Sort, Sort>, Sort> arraySorts;
  std::map<std::pair<uint32_t, uint32_t>, Sort> fpSorts;
  std::unordered_map<std::string, Term> vars;
  uint64_t fresh = 0;
};

TermManager::TermManager() : impl_(std::make_unique<Impl>()) {
  impl_->sorts.push_back(SortNode{SortKind::Bool});
  impl_->boolS = &impl_->sorts.back();
  impl_->sorts.push_back(SortNode{SortKind::Int});
  impl_->intS = &impl_->sorts.back();
}
TermManager::~TermManager() = default;

size_t TermManager::size() const { return impl_->nodes.size(); }

Sort TermManager::boolSort() { return impl_->boolS; }
Sort TermManager::intSort() { return impl_->intS; }
Sort TermManager::bvSort(uint32_t width) {
  if (width == 0) throw std::invalid_argument("bit-vector width 0");
  auto it = impl_->bvSorts.find(width);
  if (it != impl_->bvSorts.end()) return it->second;
  impl_->sorts.push_back(SortNode{SortKind::BV, width});
  return impl_->bvSorts[width] = &impl_->sorts.back();
}
Sort TermManager::arraySort(Sort index, Sort elem) {
  auto key = std::make_pair(index, elem);
  auto it = impl_->arraySorts.find(key);
  if (it != impl_->arraySorts.end()) return it->second;
  impl_->sorts.push_back(SortNode{SortKind::Array, 0, index, elem});
  return impl_->arraySorts[key] = &impl_->sorts.back();
}

Sort TermManager::fpSort(uint32_t eb, uint32_t sb) {
  if (eb < 2 || sb < 2) throw std::invalid_argument("floating-point sort with fewer than 2 exponent or significand bits");
  auto key = std::make_pair(eb, sb);
  auto it = impl_->fpSorts.find(key);
  if (it != impl_->fpSorts.end()) return it->second;
  SortNode n{SortKind::FP, eb + sb};
  n.eb = eb;
  n.sb = sb;
  impl_->sorts.push_back(n);
  return impl_->fpSorts[key] = &impl_->sorts.back();
}

Sort TermManager::fpSortOfWidth(uint32_t width) {
  if (width == 32) return fpSort(8, 24);
  if (width == 64) return fpSort(11, 53);
  throw std::invalid_argument("no IEEE floating-point format of width " + std::to_string(width) + " here");
}

Term TermManager::make(Kind k, Sort s, std::vector<Term> children, uint32_t p0, uint32_t p1, uint64_t value,
                       int64_t ivalue, const std::string& name) {
  Impl::Key key{k, s, p0, p1, value, ivalue, &name, &children};
  auto it = impl_->table.find(key);
  if (it != impl_->table.end()) return it->second;
  impl_->nodes.emplace_back();
  TermNode& n = impl_->nodes.back();
  n.kind = k;
  n.sort = s;
  n.p0 = p0;
  n.p1 = p1;
  n.value = value;
  n.ivalue = ivalue;
  n.name = name;
  n.children = std::move(children);
  n.id = impl_->nodes.size();
  Impl::Key stored{k, s, p0, p1, value, ivalue, &n.name, &n.children};
  impl_->table.emplace(stored, &n);
  return &n;
}

// ---------------------------------------------------------------- leaves

Term TermManager::boolVal(bool b) { return make(Kind::BoolConst, boolSort(), {}, 0, 0, b ? 1 : 0); }
Term TermManager::bvVal(uint64_t v, uint32_t width) {
  if (width > 64) return bvValWide(v, width);
  return make(Kind::BVConst, bvSort(width), {}, 0, 0, v & maskOf(width));
}
Term TermManager::bvValWide(unsigned __int128 v, uint32_t width) {
  if (width == 0 || width > 128) throw std::invalid_argument("bit-vector constants wider than 128 bits are not supported");
  if (width <= 64) return bvVal(static_cast<uint64_t>(v), width);
  // never a BVConst (see term.h): concat folds only up to 64 bits
  return concat(bvVal(static_cast<uint64_t>(v >> 64), width - 64), bvVal(static_cast<uint64_t>(v), 64));
}
Term TermManager::intVal(int64_t v) { return make(Kind::IntConst, intSort(), {}, 0, 0, 0, v); }

Term TermManager::var(const std::string& name, Sort sort) {
  auto it = impl_->vars.find(name);
  if (it != impl_->vars.end()) {
    if (it->second->sort != sort) throw std::invalid_argument("variable '" + name + "' used with two sorts");
    return it->second;
  }
  Term t = make(Kind::Var, sort, {}, 0, 0, 0, 0, name);
  impl_->vars[name] = t;
  return t;
}

Term TermManager::freshVar(const std::string& prefix, Sort sort) {
  for (;;) {
    std::string n = prefix + "!" + std::to_string(impl_->fresh++);
    if (!impl_->vars.count(n)) return var(n, sort);
  }
}

Term TermManager::constArray(Sort as, Term elem) {
  if (!as->isArray() || as->elem != elem->sort) throw std::invalid_argument("constArray: sort mismatch");
  return make(Kind::ConstArray, as, {elem});
}

// ---------------------------------------------------------------- checks

static void needBool(Term a, const char* op) {
  if (!a->sort->isBool()) throw std::invalid_argument(std::string(op) + ": Boolean operand expected, got " + a->sort->str());
}
static void needBV2(Term a, Term b, const char* op) {
  if (!a->sort->isBV() || a->sort != b->sort)
    throw std::invalid_argument(std::string(op) + ": bit-vectors of equal width expected, got " + a->sort->str() +
                                " and " + b->sort->str());
}
static void needInt2(Term a, Term b, const char* op) {
  if (!a->sort->isInt() || !b->sort->isInt()) throw std::invalid_argument(std::string(op) + ": Int operands expected");
}

// ---------------------------------------------------------------- boolean

Term TermManager::mkNot(Term a) {
  needBool(a, "not");
  if (a->kind == Kind::BoolConst) return boolVal(!a->value);
  if (a->kind == Kind::Not) return a->children[0];
  return make(Kind::Not, boolSort(), {a});
}

static bool complementary(const Term& a, const Term& b) {
  return (a->kind == Kind::Not && a->children[0] == b) || (b->kind == Kind::Not && b->children[0] == a);
}

Term TermManager::mkAnd(Term a, Term b) {
  Term ts[2] = {a, b};
  return mkAnd(std::span<const Term>(ts, 2));
}
Term TermManager::mkAnd(std::span<const Term> ts) {
  std::vector<Term> kept;
  for (Term t : ts) {
    needBool(t, "and");
    if (t->isFalse()) return falseTerm();
    if (t->isTrue()) continue;
    bool dup = false;
    for (Term k : kept) {
      if (k == t) dup = true;
      if (complementary(k, t)) return falseTerm();  // a and not a
    }
    if (!dup) kept.push_back(t);
  }
  if (kept.empty()) return trueTerm();
  if (kept.size() == 1) return kept[0];
  return make(Kind::And, boolSort(), std::move(kept));
}
Term TermManager::mkOr(Term a, Term b) {
  Term ts[2] = {a, b};
  return mkOr(std::span<const Term>(ts, 2));
}
Term TermManager::mkOr(std::span<const Term> ts) {
  std::vector<Term> kept;
  for (Term t : ts) {
    needBool(t, "or");
    if (t->isTrue()) return trueTerm();
    if (t->isFalse()) continue;
    bool dup = false;
    for (Term k : kept) {
      if (k == t) dup = true;
      if (complementary(k, t)) return trueTerm();  // a or not a (the join of a fork)
    }
    if (!dup) kept.push_back(t);
  }
  if (kept.empty()) return falseTerm();
  // (g and c) or (g and not c) -> g: the guard after a two-way fork joins again
  if (kept.size() == 2 && kept[0]->kind == Kind::And && kept[1]->kind == Kind::And &&
      kept[0]->children.size() == kept[1]->children.size()) {
    const auto& x = kept[0]->children;
    const auto& y = kept[1]->children;
    size_t differ = x.size();
    bool ok = true;
    for (size_t i = 0; i < x.size() && ok; ++i) {
      if (x[i] == y[i]) continue;
      if (differ == x.size() && complementary(x[i], y[i])) differ = i;
      else ok = false;
    }
    if (ok && differ < x.size()) {
      std::vector<Term> common;
      for (size_t i = 0; i < x.size(); ++i)
        if (i != differ) common.push_back(x[i]);
      return mkAnd(std::span<const Term>(common));
    }
  }
  if (kept.size() == 1) return kept[0];
  return make(Kind::Or, boolSort(), std::move(kept));
}
Term TermManager::mkImplies(Term a, Term b) {
  needBool(a, "=>");
  needBool(b, "=>");
  if (a->isFalse() || b->isTrue()) return trueTerm();
  if (a->isTrue()) return b;
  if (b->isFalse()) return mkNot(a);
  if (a == b) return trueTerm();
  return make(Kind::Implies, boolSort(), {a, b});
}
Term TermManager::mkXor(Term a, Term b) {
  needBool(a, "xor");
  needBool(b, "xor");
  if (a->kind == Kind::BoolConst && b->kind == Kind::BoolConst) return boolVal(a->value != b->value);
  if (a == b) return falseTerm();
  return make(Kind::Xor, boolSort(), {a, b});
}
Term TermManager::mkIte(Term c, Term t, Term e) {
  needBool(c, "ite");
  if (t->sort != e->sort) throw std::invalid_argument("ite: branches of different sorts");
  if (c->isTrue()) return t;
  if (c->isFalse()) return e;
  if (t == e) return t;
  if (t->sort->isBool()) {
    if (t->isTrue() && e->isFalse()) return c;
    if (t->isFalse() && e->isTrue()) return mkNot(c);
  }
  if (c->kind == Kind::Not) return mkIte(c->children[0], e, t);
  return make(Kind::Ite, t->sort, {c, t, e});
}
// An if-then-else tree whose leaves are all bit-vector constants, with at most
// kConstTreeLeaves leaves (a pointer that is one of a few blocks, a merged constant).
static constexpr int kConstTreeLeaves = 8;
static bool constTree(Term t, int& leaves) {
  if (t->kind == Kind::BVConst) return ++leaves <= kConstTreeLeaves;
  if (t->kind != Kind::Ite) return false;
  return constTree(t->children[1], leaves) && constTree(t->children[2], leaves);
}
bool isConstTree(Term t) {
  int leaves = 0;
  return t->kind == Kind::Ite && constTree(t, leaves);
}

Term TermManager::mkEq(Term a, Term b) {
  if (a->sort != b->sort) throw std::invalid_argument("=: operands of different sorts " + a->sort->str() + " and " + b->sort->str());
  if (a == b) return trueTerm();
  if (a->isConst() && b->isConst()) return falseTerm();  // hash-consed: distinct constants differ
  // k = ite(c, t, e) over constant leaves -> ite(c, k = t, k = e), which folds to a
  // Boolean combination of the conditions (issue 21, list-ext_1: a list pointer is one
  // of a few heap blocks, and each byte read compared it with every store's address).
  if (a->kind == Kind::BVConst && isConstTree(b)) std::swap(a, b);
  if (b->kind == Kind::BVConst && isConstTree(a)) return mkIte(a->children[0], mkEq(a->children[1], b), mkEq(a->children[2], b));
  if (a->sort->isBool()) {
    if (a->isTrue()) return b;
    if (b->isTrue()) return a;
    if (a->isFalse()) return mkNot(b);
    if (b->isFalse()) return mkNot(a);
  }
  if (a->id > b->id) std::swap(a, b);
  return make(Kind::Eq, boolSort(), {a, b});
}

// ---------------------------------------------------------------- bit-vectors

namespace {

uint64_t sdivBV(uint64_t a, uint64_t b, uint32_t w) {
  int64_t sa = toSigned(a, w), sb = toSigned(b, w);
  if (sb == 0) return sa < 0 ? 1 : maskOf(w);
  bool neg = (sa < 0) != (sb < 0);
  uint64_t ua = sa < 0 ? (0 - a) & maskOf(w) : a, ub = sb < 0 ? (0 - b) & maskOf(w) : b;
  uint64_t q = ua / ub;
  return (neg ? 0 - q : q) & maskOf(w);
}
uint64_t sremBV(uint64_t a, uint64_t b, uint32_t w) {
  int64_t sa = toSigned(a, w), sb = toSigned(b, w);
  if (sb == 0) return a;
  uint64_t ua = sa < 0 ? (0 - a) & maskOf(w) : a, ub = sb < 0 ? (0 - b) & maskOf(w) : b;
  uint64_t r = ua % ub;
  return (sa < 0 ? 0 - r : r) & maskOf(w);
}

}  // namespace

#define ARGUS_BV_BINOP(NAME, KIND, FOLD)                               \
  Term TermManager::NAME(Term a, Term b) {                            \
    needBV2(a, b, kindName(KIND));                                    \
    uint32_t w = a->width();                                          \
    if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) {       \
      uint64_t x = a->value, y = b->value;                            \
      (void)x; (void)y; (void)w;                                      \
      return bvVal(FOLD, w);                                          \
    }                                                                 \
    return make(KIND, a->sort, {a, b});                               \
  }

ARGUS_BV_BINOP(bvUDiv, Kind::BVUDiv, y == 0 ? maskOf(w) : x / y)
ARGUS_BV_BINOP(bvSDiv, Kind::BVSDiv, sdivBV(x, y, w))
ARGUS_BV_BINOP(bvURem, Kind::BVURem, y == 0 ? x : x % y)
ARGUS_BV_BINOP(bvSRem, Kind::BVSRem, sremBV(x, y, w))
ARGUS_BV_BINOP(bvXor, Kind::BVXor, x ^ y)
ARGUS_BV_BINOP(bvShl, Kind::BVShl, y >= w ? 0 : x << y)
ARGUS_BV_BINOP(bvLShr, Kind::BVLShr, y >= w ? 0 : x >> y)
ARGUS_BV_BINOP(bvAShr, Kind::BVAShr,
               y >= w ? (toSigned(x, w) < 0 ? maskOf(w) : 0) : static_cast<uint64_t>(toSigned(x, w) >> y))
#undef ARGUS_BV_BINOP

Term TermManager::bvAdd(Term a, Term b) {
  needBV2(a, b, "bvadd");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return bvVal(a->value + b->value, a->width());
  if (a->kind == Kind::BVConst && a->value == 0) return b;
  if (b->kind == Kind::BVConst && b->value == 0) return a;
  // ite(c, k1, k2) + k -> ite(c, k1 + k, k2 + k) over constant leaves (see mkEq)
  if (a->kind == Kind::BVConst) std::swap(a, b);
  if (b->kind == Kind::BVConst && isConstTree(a))
    return mkIte(a->children[0], bvAdd(a->children[1], b), bvAdd(a->children[2], b));
  // (x + c1) + c2 -> x + (c1 + c2): keeps address arithmetic small
  if (b->kind == Kind::BVConst && a->kind == Kind::BVAdd && a->children[1]->kind == Kind::BVConst)
    return bvAdd(a->children[0], bvVal(a->children[1]->value + b->value, a->width()));
  if (a->kind == Kind::BVConst) std::swap(a, b);  // constants to the right
  return make(Kind::BVAdd, a->sort, {a, b});
}
Term TermManager::bvSub(Term a, Term b) {
  needBV2(a, b, "bvsub");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return bvVal(a->value - b->value, a->width());
  if (b->kind == Kind::BVConst) return bvAdd(a, bvVal(0 - b->value, a->width()));
  if (a == b) return bvVal(0, a->width());
  // (x + c1) - (x + c2) -> c1 - c2, (x + c) - x -> c, x - (x + c) -> -c
  Term ba, bb;
  uint64_t oa, ob;
  splitOffset(a, ba, oa);
  splitOffset(b, bb, ob);
  if (ba && ba == bb) return bvVal(oa - ob, a->width());
  return make(Kind::BVSub, a->sort, {a, b});
}
Term TermManager::bvMul(Term a, Term b) {
  needBV2(a, b, "bvmul");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return bvVal(a->value * b->value, a->width());
  if (a->kind == Kind::BVConst) std::swap(a, b);
  if (b->kind == Kind::BVConst) {
    if (b->value == 0) return b;
    if (b->value == 1) return a;
  }
  return make(Kind::BVMul, a->sort, {a, b});
}
Term TermManager::bvAnd(Term a, Term b) {
  needBV2(a, b, "bvand");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return bvVal(a->value & b->value, a->width());
  if (a->kind == Kind::BVConst) std::swap(a, b);
  if (b->kind == Kind::BVConst) {
    if (b->value == 0) return b;
    if (b->value == maskOf(a->width())) return a;
  }
  if (a == b) return a;
  return make(Kind::BVAnd, a->sort, {a, b});
}
Term TermManager::bvOr(Term a, Term b) {
  needBV2(a, b, "bvor");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return bvVal(a->value | b->value, a->width());
  if (a->kind == Kind::BVConst) std::swap(a, b);
  if (b->kind == Kind::BVConst) {
    if (b->value == 0) return a;
    if (b->value == maskOf(a->width())) return b;
  }
  if (a == b) return a;
  return make(Kind::BVOr, a->sort, {a, b});
}
Term TermManager::bvNeg(Term a) {
  if (!a->sort->isBV()) throw std::invalid_argument("bvneg: bit-vector expected");
  if (a->kind == Kind::BVConst) return bvVal(0 - a->value, a->width());
  return make(Kind::BVNeg, a->sort, {a});
}
Term TermManager::bvNot(Term a) {
  if (!a->sort->isBV()) throw std::invalid_argument("bvnot: bit-vector expected");
  if (a->kind == Kind::BVConst) return bvVal(~a->value, a->width());
  if (a->kind == Kind::BVNot) return a->children[0];
  return make(Kind::BVNot, a->sort, {a});
}

Term TermManager::bvUlt(Term a, Term b) {
  needBV2(a, b, "bvult");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return boolVal(a->value < b->value);
  if (a == b) return falseTerm();
  return make(Kind::BVUlt, boolSort(), {a, b});
}
Term TermManager::bvUle(Term a, Term b) {
  needBV2(a, b, "bvule");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst) return boolVal(a->value <= b->value);
  if (a == b) return trueTerm();
  return make(Kind::BVUle, boolSort(), {a, b});
}
Term TermManager::bvSlt(Term a, Term b) {
  needBV2(a, b, "bvslt");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst)
    return boolVal(toSigned(a->value, a->width()) < toSigned(b->value, b->width()));
  if (a == b) return falseTerm();
  return make(Kind::BVSlt, boolSort(), {a, b});
}
Term TermManager::bvSle(Term a, Term b) {
  needBV2(a, b, "bvsle");
  if (a->kind == Kind::BVConst && b->kind == Kind::BVConst)
    return boolVal(toSigned(a->value, a->width()) <= toSigned(b->value, b->width()));
  if (a == b) return trueTerm();
  return make(Kind::BVSle, boolSort(), {a, b});
}

Term TermManager::concat(Term hi, Term lo) {
  if (!hi->sort->isBV() || !lo->sort->isBV()) throw std::invalid_argument("concat: bit-vectors expected");
  uint32_t w = hi->width() + lo->width();
  if (hi->kind == Kind::BVConst && lo->kind == Kind::BVConst && w <= 64)
    return bvVal((hi->value << lo->width()) | lo->value, w);
  // Over if-then-else trees of constants (a pointer that is one of a few blocks, read back
  // byte by byte from a merge of memories): concat(ite(c, k1, k2), k) -> ite(c, concat(k1,
  // k), concat(k2, k)), and two trees under the same condition pair up their branches, so
  // that the bytes of such a pointer become a tree of whole constants again (issue 29:
  // reads at it then resolve against the stores above instead of expanding over them).
  if (w <= 64 && (hi->kind == Kind::BVConst || isConstTree(hi)) && (lo->kind == Kind::BVConst || isConstTree(lo))) {
    if (hi->kind == Kind::Ite && lo->kind == Kind::Ite && hi->children[0] == lo->children[0])
      return mkIte(hi->children[0], concat(hi->children[1], lo->children[1]), concat(hi->children[2], lo->children[2]));
    if (hi->kind == Kind::Ite && lo->kind == Kind::BVConst)
      return mkIte(hi->children[0], concat(hi->children[1], lo), concat(hi->children[2], lo));
    if (hi->kind == Kind::BVConst && lo->kind == Kind::Ite)
      return mkIte(lo->children[0], concat(hi, lo->children[1]), concat(hi, lo->children[2]));
  }
  // concat(extract(x, i+k, j+... )) of adjacent slices of the same term -> one extract
  if (hi->kind == Kind::Extract && lo->kind == Kind::Extract && hi->children[0] == lo->children[0] &&
      hi->p1 == lo->p0 + 1)
    return extract(hi->children[0], hi->p0, lo->p1);
  return make(Kind::Concat, bvSort(w), {hi, lo});
}
Term TermManager::extract(Term a, uint32_t hi, uint32_t lo) {
  if (!a->sort->isBV() || hi < lo || hi >= a->width()) throw std::invalid_argument("extract: bad range");
  if (lo == 0 && hi + 1 == a->width()) return a;
  uint32_t w = hi - lo + 1;
  if (a->kind == Kind::BVConst) return bvVal(a->value >> lo, w);
  if (a->kind == Kind::Extract) return extract(a->children[0], hi + a->p1, lo + a->p1);
  if (isConstTree(a)) return mkIte(a->children[0], extract(a->children[1], hi, lo), extract(a->children[2], hi, lo));
  if (a->kind == Kind::Concat) {
    Term h = a->children[0], l = a->children[1];
    uint32_t lw = l->width();
    if (hi < lw) return extract(l, hi, lo);
    if (lo >= lw) return extract(h, hi - lw, lo - lw);
  }
  if (a->kind == Kind::ZeroExt || a->kind == Kind::SignExt) {
    Term inner = a->children[0];
    if (hi < inner->width()) return extract(inner, hi, lo);
  }
  return make(Kind::Extract, bvSort(w), {a}, hi, lo);
}
Term TermManager::zeroExt(Term a, uint32_t extra) {
  if (!a->sort->isBV()) throw std::invalid_argument("zero_extend: bit-vector expected");
  if (extra == 0) return a;
  uint32_t w = a->width() + extra;
  if (a->kind == Kind::BVConst && w <= 64) return bvVal(a->value, w);
  return make(Kind::ZeroExt, bvSort(w), {a}, extra);
}
Term TermManager::signExt(Term a, uint32_t extra) {
  if (!a->sort->isBV()) throw std::invalid_argument("sign_extend: bit-vector expected");
  if (extra == 0) return a;
  uint32_t w = a->width() + extra;
  if (a->kind == Kind::BVConst && w <= 64) return bvVal(static_cast<uint64_t>(toSigned(a->value, a->width())), w);
  return make(Kind::SignExt, bvSort(w), {a}, extra);
}

// ---------------------------------------------------------------- integers

static bool addOverflows(int64_t a, int64_t b, int64_t& r) { return __builtin_add_overflow(a, b, &r); }

Term TermManager::intAdd(Term a, Term b) {
  needInt2(a, b, "+");
  int64_t r;
  if (a->kind == Kind::IntConst && b->kind == Kind::IntConst && !addOverflows(a->ivalue, b->ivalue, r)) return intVal(r);
  return make(Kind::IntAdd, intSort(), {a, b});
}
Term TermManager::intSub(Term a, Term b) {
  needInt2(a, b, "-");
  int64_t r;
  if (a->kind == Kind::IntConst && b->kind == Kind::IntConst && !__builtin_sub_overflow(a->ivalue, b->ivalue, &r)) return intVal(r);
  return make(Kind::IntSub, intSort(), {a, b});
}
Term TermManager::intMul(Term a, Term b) {
  needInt2(a, b, "*");
  int64_t r;
  if (a->kind == Kind::IntConst && b->kind == Kind::IntConst && !__builtin_mul_overflow(a->ivalue, b->ivalue, &r)) return intVal(r);
  return make(Kind::IntMul, intSort(), {a, b});
}
Term TermManager::intNeg(Term a) {
  if (!a->sort->isInt()) throw std::invalid_argument("neg: Int expected");
  if (a->kind == Kind::IntConst && a->ivalue != INT64_MIN) return intVal(-a->ivalue);
  return make(Kind::IntNeg, intSort(), {a});
}
Term TermManager::intLe(Term a, Term b) {
  needInt2(a, b, "<=");
  if (a->kind == Kind::IntConst && b->kind == Kind::IntConst) return boolVal(a->ivalue <= b->ivalue);
  return make(Kind::IntLe, boolSort(), {a, b});
}
Term TermManager::intLt(Term a, Term b) {
  needInt2(a, b, "<");
  if (a->kind == Kind::IntConst && b->kind == Kind::IntConst) return boolVal(a->ivalue < b->ivalue);
  return make(Kind::IntLt, boolSort(), {a, b});
}

// ---------------------------------------------------------------- arrays, UF

void splitOffset(Term t, Term& base, uint64_t& off) {
  if (t->kind == Kind::BVConst) {
    base = nullptr;
    off = t->value;
  } else if (t->kind == Kind::BVAdd && t->children.size() == 2 && t->children[1]->kind == Kind::BVConst) {
    base = t->children[0];
    off = t->children[1]->value;
  } else {
    base = t;
    off = 0;
  }
}

// Offsets are reduced modulo 2^width (bvVal masks them), so different offsets on one
// base differ in every model.
bool provablyDistinct(Term a, Term b) {
  if (a->isConst() && b->isConst()) return a != b;  // hash-consed: distinct terms, distinct values
  if (!a->sort->isBV()) return false;
  // a constant and a constant tree (or two trees) without a common leaf value
  if ((a->kind == Kind::BVConst || isConstTree(a)) && (b->kind == Kind::BVConst || isConstTree(b))) {
    std::vector<Term> la, lb;
    std::function<void(Term, std::vector<Term>&)> leaves = [&](Term t, std::vector<Term>& out) {
      if (t->kind == Kind::Ite) {
        leaves(t->children[1], out);
        leaves(t->children[2], out);
      } else {
        out.push_back(t);
      }
    };
    leaves(a, la);
    leaves(b, lb);
    for (Term x : la)
      for (Term y : lb)
        if (x == y) return false;
    return true;
  }
  Term ba, bb;
  uint64_t oa, ob;
  splitOffset(a, ba, oa);
  splitOffset(b, bb, ob);
  return ba == bb && oa != ob;
}

Term TermManager::select(Term array, Term index) {
  if (!array->sort->isArray() || array->sort->index != index->sort) throw std::invalid_argument("select: sort mismatch");
  // Read over writes: skip stores at indices provably distinct from `index` (constants,
  // or one base with different constant offsets). The bound keeps one select linear in
  // a bounded prefix of the chain; initialisers of a few arrays of ints are hundreds of
  // byte stores long, and a read that stopped early left the solver a select over the
  // whole chain (issue 21: eureka_01-1).
  Term a = array;
  for (int steps = 0; steps < 4096; ++steps) {
    if (a->kind == Kind::Store) {
      Term i = a->children[1];
      if (i == index) return a->children[2];
      if (provablyDistinct(i, index)) {
        a = a->children[0];
        continue;
      }
    }
    if (a->kind == Kind::ConstArray) return a->children[0];
    break;
  }
  return make(Kind::Select, array->sort->elem, {a, index});
}
Term TermManager::store(Term array, Term index, Term value) {
  if (!array->sort->isArray() || array->sort->index != index->sort || array->sort->elem != value->sort)
    throw std::invalid_argument("store: sort mismatch");
  return make(Kind::Store, array->sort, {array, index, value});
}

// ---------------------------------------------------------------- floating point

static void needFP(Term a, const char* op) {
  if (!a->sort->isFP()) throw std::invalid_argument(std::string(op) + ": floating-point operand expected, got " + a->sort->str());
}
static void needFP2(Term a, Term b, const char* op) {
  needFP(a, op);
  if (a->sort != b->sort) throw std::invalid_argument(std::string(op) + ": operand sorts differ");
}
static uint32_t rmCode(RoundingMode rm) { return static_cast<uint32_t>(rm); }

Term TermManager::fpFromBits(Term bv, Sort fp) {
  if (!fp->isFP() || !bv->sort->isBV() || bv->width() != fp->width)
    throw std::invalid_argument("fpFromBits: bit-vector width does not match the format");
  // the bits of a value read back give the value (a NaN pattern gives NaN)
  if (bv->kind == Kind::FPToBits && bv->children[0]->sort == fp) return bv->children[0];
  return make(Kind::FPFromBits, fp, {bv});
}
Term TermManager::fpToBits(Term a) {
  needFP(a, "fpToBits");
  if (a->kind == Kind::FPFromBits && a->children[0]->isConst()) {
    // a constant's bits, unless it is a NaN (whose bits stay unspecified)
    uint64_t v = a->children[0]->value;
    uint32_t eb = a->sort->eb, sb = a->sort->sb;
    uint64_t expMask = maskOf(eb) << (sb - 1), fracMask = maskOf(sb - 1);
    if ((v & expMask) != expMask || (v & fracMask) == 0) return a->children[0];
  }
  return make(Kind::FPToBits, bvSort(a->sort->width), {a});
}
Term TermManager::fpAdd(Term a, Term b, RoundingMode rm) {
  needFP2(a, b, "fpAdd");
  return make(Kind::FPAdd, a->sort, {a, b}, rmCode(rm));
}
Term TermManager::fpSub(Term a, Term b, RoundingMode rm) {
  needFP2(a, b, "fpSub");
  return make(Kind::FPSub, a->sort, {a, b}, rmCode(rm));
}
Term TermManager::fpMul(Term a, Term b, RoundingMode rm) {
  needFP2(a, b, "fpMul");
  return make(Kind::FPMul, a->sort, {a, b}, rmCode(rm));
}
Term TermManager::fpDiv(Term a, Term b, RoundingMode rm) {
  needFP2(a, b, "fpDiv");
  return make(Kind::FPDiv, a->sort, {a, b}, rmCode(rm));
}
Term TermManager::fpRem(Term a, Term b) {
  needFP2(a, b, "fpRem");
  return make(Kind::FPRem, a->sort, {a, b});
}
Term TermManager::fpSqrt(Term a, RoundingMode rm) {
  needFP(a, "fpSqrt");
  return make(Kind::FPSqrt, a->sort, {a}, rmCode(rm));
}
Term TermManager::fpRoundToIntegral(Term a, RoundingMode rm) {
  needFP(a, "fpRoundToIntegral");
  return make(Kind::FPRti, a->sort, {a}, rmCode(rm));
}
Term TermManager::fpEq(Term a, Term b) {
  needFP2(a, b, "fpEq");
  return make(Kind::FPEq, boolSort(), {a, b});
}
Term TermManager::fpLt(Term a, Term b) {
  needFP2(a, b, "fpLt");
  return make(Kind::FPLt, boolSort(), {a, b});
}
Term TermManager::fpLe(Term a, Term b) {
  needFP2(a, b, "fpLe");
  return make(Kind::FPLe, boolSort(), {a, b});
}
Term TermManager::fpIsNaN(Term a) {
  needFP(a, "fpIsNaN");
  return make(Kind::FPIsNaN, boolSort(), {a});
}
Term TermManager::fpToFP(Term a, Sort to, RoundingMode rm) {
  needFP(a, "fpToFP");
  if (!to->isFP()) throw std::invalid_argument("fpToFP: floating-point target sort expected");
  if (a->sort == to) return a;
  return make(Kind::FPToFP, to, {a}, rmCode(rm));
}
Term TermManager::sbvToFP(Term bv, Sort to, RoundingMode rm) {
  if (!bv->sort->isBV() || !to->isFP()) throw std::invalid_argument("sbvToFP: sort mismatch");
  return make(Kind::SBVToFP, to, {bv}, rmCode(rm));
}
Term TermManager::ubvToFP(Term bv, Sort to, RoundingMode rm) {
  if (!bv->sort->isBV() || !to->isFP()) throw std::invalid_argument("ubvToFP: sort mismatch");
  return make(Kind::UBVToFP, to, {bv}, rmCode(rm));
}
Term TermManager::fpToSBV(Term a, uint32_t width, RoundingMode rm) {
  needFP(a, "fpToSBV");
  return make(Kind::FPToSBV, bvSort(width), {a}, rmCode(rm), width);
}
Term TermManager::fpToUBV(Term a, uint32_t width, RoundingMode rm) {
  needFP(a, "fpToUBV");
  return make(Kind::FPToUBV, bvSort(width), {a}, rmCode(rm), width);
}

Term TermManager::apply(const std::string& fn, Sort result, std::span<const Term> args) {
  return make(Kind::Apply, result, std::vector<Term>(args.begin(), args.end()), 0, 0, 0, 0, fn);
}

// ---------------------------------------------------------------- traversal

Term TermManager::substitute(Term t, const std::unordered_map<Term, Term>& map) {
  std::unordered_map<Term, Term> done;
  std::vector<std::pair<Term, bool>> stack{{t, false}};
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    stack.pop_back();
    if (done.count(n)) continue;
    auto m = map.find(n);
    if (m != map.end()) {
      done[n] = m->second;
      continue;
    }
    if (n->children.empty()) {
      done[n] = n;
      continue;
    }
    if (!expanded) {
      stack.push_back({n, true});
      for (Term c : n->children)
        if (!done.count(c)) stack.push_back({c, false});
      continue;
    }
    std::vector<Term> cs;
    bool same = true;
    for (Term c : n->children) {
      cs.push_back(done.at(c));
      same = same && cs.back() == c;
    }
    Term r = n;
    if (!same) {
      switch (n->kind) {
        case Kind::Not: r = mkNot(cs[0]); break;
        case Kind::And: r = mkAnd(cs); break;
        case Kind::Or: r = mkOr(cs); break;
        case Kind::Implies: r = mkImplies(cs[0], cs[1]); break;
        case Kind::Xor: r = mkXor(cs[0], cs[1]); break;
        case Kind::Ite: r = mkIte(cs[0], cs[1], cs[2]); break;
        case Kind::Eq: r = mkEq(cs[0], cs[1]); break;
        case Kind::BVNeg: r = bvNeg(cs[0]); break;
        case Kind::BVNot: r = bvNot(cs[0]); break;
        case Kind::BVAdd: r = bvAdd(cs[0], cs[1]); break;
        case Kind::BVSub: r = bvSub(cs[0], cs[1]); break;
        case Kind::BVMul: r = bvMul(cs[0], cs[1]); break;
        case Kind::BVUDiv: r = bvUDiv(cs[0], cs[1]); break;
        case Kind::BVSDiv: r = bvSDiv(cs[0], cs[1]); break;
        case Kind::BVURem: r = bvURem(cs[0], cs[1]); break;
        case Kind::BVSRem: r = bvSRem(cs[0], cs[1]); break;
        case Kind::BVAnd: r = bvAnd(cs[0], cs[1]); break;
        case Kind::BVOr: r = bvOr(cs[0], cs[1]); break;
        case Kind::BVXor: r = bvXor(cs[0], cs[1]); break;
        case Kind::BVShl: r = bvShl(cs[0], cs[1]); break;
        case Kind::BVLShr: r = bvLShr(cs[0], cs[1]); break;
        case Kind::BVAShr: r = bvAShr(cs[0], cs[1]); break;
        case Kind::BVUlt: r = bvUlt(cs[0], cs[1]); break;
        case Kind::BVUle: r = bvUle(cs[0], cs[1]); break;
        case Kind::BVSlt: r = bvSlt(cs[0], cs[1]); break;
        case Kind::BVSle: r = bvSle(cs[0], cs[1]); break;
        case Kind::Concat: r = concat(cs[0], cs[1]); break;
        case Kind::Extract: r = extract(cs[0], n->p0, n->p1); break;
        case Kind::ZeroExt: r = zeroExt(cs[0], n->p0); break;
        case Kind::SignExt: r = signExt(cs[0], n->p0); break;
        case Kind::IntAdd: r = intAdd(cs[0], cs[1]); break;
        case Kind::IntSub: r = intSub(cs[0], cs[1]); break;
        case Kind::IntMul: r = intMul(cs[0], cs[1]); break;
        case Kind::IntNeg: r = intNeg(cs[0]); break;
        case Kind::IntLe: r = intLe(cs[0], cs[1]); break;
        case Kind::IntLt: r = intLt(cs[0], cs[1]); break;
        case Kind::Select: r = select(cs[0], cs[1]); break;
        case Kind::Store: r = store(cs[0], cs[1], cs[2]); break;
        case Kind::ConstArray: r = constArray(n->sort, cs[0]); break;
        case Kind::Apply: r = apply(n->name, n->sort, cs); break;
        case Kind::FPFromBits: r = fpFromBits(cs[0], n->sort); break;
        case Kind::FPToBits: r = fpToBits(cs[0]); break;
        case Kind::FPAdd: case Kind::FPSub: case Kind::FPMul: case Kind::FPDiv: case Kind::FPSqrt:
        case Kind::FPRti: case Kind::FPEq: case Kind::FPLt: case Kind::FPLe: case Kind::FPIsNaN:
        case Kind::FPToFP: case Kind::SBVToFP: case Kind::UBVToFP: case Kind::FPToSBV: case Kind::FPToUBV:
        case Kind::FPRem:
          r = make(n->kind, n->sort, cs, n->p0, n->p1);
          break;
        default: r = n;
      }
    }
    done[n] = r;
  }
  return done.at(t);
}

std::vector<Term> TermManager::freeVars(Term t) {
  std::vector<Term> out;
  std::unordered_map<Term, bool> seen;
  std::vector<Term> stack{t};
  while (!stack.empty()) {
    Term n = stack.back();
    stack.pop_back();
    if (seen[n]) continue;
    seen[n] = true;
    if (n->kind == Kind::Var) out.push_back(n);
    for (Term c : n->children) stack.push_back(c);
  }
  return out;
}

}  // namespace argus::smt
