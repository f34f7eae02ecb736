#include "core/result/replay.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/cfa/accelerate.h"
#include "core/cfa/entry_harness.h"
#include "core/cfa/memlayout.h"
#include "core/result/long_runs.h"

namespace argus::result {

using cfa::BinOp;
using cfa::CastKind;
using cfa::EdgeKind;
using cfa::Expr;
using cfa::ExprKind;
using cfa::FuncId;
using cfa::LocId;
using cfa::UnOp;
using cfa::VarId;

namespace {

using cfa::Value;

// Masks of up to 128 bits (values); addresses use the 64-bit amask_ (ptrWidth <= 64).
inline Value maskOf(uint32_t w) { return cfa::valueMask(w); }
inline uint64_t maskOf64(uint32_t w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }

inline bool signBit(Value v, uint32_t w) { return w != 0 && ((v >> (w - 1)) & 1); }

// Sign-extends the low `w` bits of v to 128 bits.
inline __int128 sextW(Value v, uint32_t w) {
  if (w == 0) return 0;
  if (w >= 128) return static_cast<__int128>(v);
  v &= maskOf(w);
  if (signBit(v, w)) v |= ~maskOf(w);
  return static_cast<__int128>(v);
}

inline Value negW(Value v, uint32_t w) { return (~v + 1) & maskOf(w); }

// SMT-LIB bvudiv / bvurem (division by zero: all ones / the dividend).
inline Value udivW(Value a, Value b, uint32_t w) { return b == 0 ? maskOf(w) : a / b; }
inline Value uremW(Value a, Value b) { return b == 0 ? a : a % b; }

// Floating point: the host's IEEE binary32/binary64 arithmetic in the default rounding
// mode (to nearest even), independent of the SMT encoding; a NaN keeps the host's bits.
inline float asF(Value v) {
  uint32_t b = static_cast<uint32_t>(v);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline double asD(Value v128) {
  uint64_t v = static_cast<uint64_t>(v128);
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline uint64_t bitsF(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t bitsD(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
// The value of a float image of width w as a double (exact for binary32).
inline double toD(Value v, uint32_t w) { return w == 32 ? static_cast<double>(asF(v)) : asD(v); }

template <class F>
Value fpUnary(Value a, uint32_t w, F f) {
  if (w == 32) return bitsF(f(asF(a)));
  return bitsD(f(asD(a)));
}

// C's conversion to an integer type of `to` bits (truncation); 0 when undefined (NaN or
// out of range: the frontend cuts such paths off before the conversion).
Value fpToInt(Value a, uint32_t from, uint32_t to, bool isSigned) {
  double x = std::trunc(toD(a, from));  // binary32 values are exact in a double
  if (std::isnan(x)) return 0;
  if (isSigned) {
    double lo = -std::ldexp(1.0, static_cast<int>(to) - 1), hi = std::ldexp(1.0, static_cast<int>(to) - 1);
    if (x < lo || x >= hi) return 0;
    return static_cast<Value>(static_cast<__int128>(x)) & maskOf(to);
  }
  if (x <= -1.0 || x >= std::ldexp(1.0, static_cast<int>(to))) return 0;
  return static_cast<Value>(x) & maskOf(to);
}

}  // namespace

const char* outcomeName(ReplayOutcome o) {
  switch (o) {
    case ReplayOutcome::ReachedError: return "reached-error";
    case ReplayOutcome::Terminated: return "terminated";
    case ReplayOutcome::Blocked: return "blocked";
    case ReplayOutcome::OutOfNondets: return "out-of-nondets";
    case ReplayOutcome::StepLimit: return "step-limit";
    case ReplayOutcome::Unsupported: return "unsupported";
    case ReplayOutcome::DepthLimit: return "depth-limit";
    case ReplayOutcome::Malformed: return "malformed";
  }
  return "?";
}

Value evalUnary(UnOp op, Value a, uint32_t w) {
  const Value m = maskOf(w);
  a &= m;
  switch (op) {
    case UnOp::Neg: return negW(a, w);
    case UnOp::BitNot: return ~a & m;
    case UnOp::LogNot: return a == 0 ? 1 : 0;
    case UnOp::FSqrt: return fpUnary(a, w, [](auto x) { return std::sqrt(x); });
    case UnOp::FRint: return fpUnary(a, w, [](auto x) { return std::nearbyint(x); });
    case UnOp::FFloor: return fpUnary(a, w, [](auto x) { return std::floor(x); });
    case UnOp::FCeil: return fpUnary(a, w, [](auto x) { return std::ceil(x); });
    case UnOp::FTrunc: return fpUnary(a, w, [](auto x) { return std::trunc(x); });
    case UnOp::FRound: return fpUnary(a, w, [](auto x) { return std::round(x); });
  }
  return 0;
}

Value evalBinary(BinOp op, Value a, Value b, uint32_t w, uint32_t rw) {
  const Value m = maskOf(w);
  a &= m;
  b &= m;
  Value r = 0;
  switch (op) {
    case BinOp::Add: r = a + b; break;
    case BinOp::Sub: r = a - b; break;
    case BinOp::Mul: r = a * b; break;
    case BinOp::UDiv: r = udivW(a, b, w); break;
    case BinOp::URem: r = uremW(a, b); break;
    case BinOp::SDiv: {
      // bvsdiv: divide the magnitudes, negate if the signs differ.
      bool na = signBit(a, w), nb = signBit(b, w);
      Value q = udivW(na ? negW(a, w) : a, nb ? negW(b, w) : b, w);
      r = na != nb ? negW(q, w) : q;
      break;
    }
    case BinOp::SRem: {
      // bvsrem: the remainder takes the sign of the dividend.
      bool na = signBit(a, w), nb = signBit(b, w);
      Value rem = uremW(na ? negW(a, w) : a, nb ? negW(b, w) : b);
      r = na ? negW(rem, w) : rem;
      break;
    }
    case BinOp::Shl: r = b >= w ? 0 : a << static_cast<unsigned>(b); break;
    case BinOp::LShr: r = b >= w ? 0 : a >> static_cast<unsigned>(b); break;
    case BinOp::AShr:
      if (b >= w)
        r = signBit(a, w) ? m : 0;
      else
        r = static_cast<Value>(sextW(a, w) >> static_cast<unsigned>(b));
      break;
    case BinOp::And: r = a & b; break;
    case BinOp::Or: r = a | b; break;
    case BinOp::Xor: r = a ^ b; break;
    case BinOp::Eq: r = a == b; break;
    case BinOp::Ne: r = a != b; break;
    case BinOp::SLt: r = sextW(a, w) < sextW(b, w); break;
    case BinOp::SLe: r = sextW(a, w) <= sextW(b, w); break;
    case BinOp::ULt: r = a < b; break;
    case BinOp::ULe: r = a <= b; break;
    case BinOp::LAnd: r = (a != 0) && (b != 0); break;
    case BinOp::LOr: r = (a != 0) || (b != 0); break;
    case BinOp::FAdd: r = w == 32 ? bitsF(asF(a) + asF(b)) : bitsD(asD(a) + asD(b)); break;
    case BinOp::FSub: r = w == 32 ? bitsF(asF(a) - asF(b)) : bitsD(asD(a) - asD(b)); break;
    case BinOp::FMul: r = w == 32 ? bitsF(asF(a) * asF(b)) : bitsD(asD(a) * asD(b)); break;
    case BinOp::FDiv: r = w == 32 ? bitsF(asF(a) / asF(b)) : bitsD(asD(a) / asD(b)); break;
    case BinOp::FEq: r = w == 32 ? asF(a) == asF(b) : asD(a) == asD(b); break;
    case BinOp::FLt: r = w == 32 ? asF(a) < asF(b) : asD(a) < asD(b); break;
    case BinOp::FLe: r = w == 32 ? asF(a) <= asF(b) : asD(a) <= asD(b); break;
    case BinOp::FRem: r = w == 32 ? bitsF(std::remainder(asF(a), asF(b))) : bitsD(std::remainder(asD(a), asD(b))); break;
  }
  return r & maskOf(rw);
}

Value evalCast(CastKind k, Value a, uint32_t from, uint32_t to) {
  a &= maskOf(from);
  switch (k) {
    case CastKind::ZExt: return a & maskOf(to);
    case CastKind::SExt: return static_cast<Value>(sextW(a, from)) & maskOf(to);
    case CastKind::Trunc: return a & maskOf(to);
    case CastKind::ToBool: return a != 0 ? 1 : 0;
    case CastKind::FToF:
      if (from == to) return a;
      return to == 32 ? bitsF(static_cast<float>(asD(a))) : bitsD(static_cast<double>(asF(a)));
    case CastKind::SToF: {
      if (from <= 64) {
        int64_t x = static_cast<int64_t>(sextW(a, from));
        return to == 32 ? bitsF(static_cast<float>(x)) : bitsD(static_cast<double>(x));
      }
      __int128 x = sextW(a, from);  // the host's conversion rounds to nearest even too
      return to == 32 ? bitsF(static_cast<float>(x)) : bitsD(static_cast<double>(x));
    }
    case CastKind::UToF:
      if (from <= 64) {
        uint64_t x = static_cast<uint64_t>(a);
        return to == 32 ? bitsF(static_cast<float>(x)) : bitsD(static_cast<double>(x));
      }
      return to == 32 ? bitsF(static_cast<float>(a)) : bitsD(static_cast<double>(a));
    case CastKind::FToS: return fpToInt(a, from, to, true);
    case CastKind::FToU: return fpToInt(a, from, to, false);
  }
  return 0;
}

namespace {

// Recursive evaluator shared by evalExpr and the interpreter. VarF: Value(VarId);
// MemF: uint8_t(uint64_t addr) (addresses already masked).
template <class VarF, class MemF>
Value evalRec(const Expr& e, VarF& var, MemF& mem, uint64_t amask) {
  const Value m = maskOf(e.width);
  switch (e.kind) {
    case ExprKind::Const: return e.value & m;
    case ExprKind::Var: return var(e.var) & m;
    case ExprKind::Load: {
      uint64_t addr = static_cast<uint64_t>(evalRec(*e.ops.at(0), var, mem, amask));
      uint32_t bytes = (e.width + 7) / 8;
      Value v = 0;
      for (uint32_t i = 0; i < bytes && i < cfa::kMaxWidth / 8; ++i)
        v |= Value{mem((addr + i) & amask)} << (8 * i);
      return v & m;
    }
    case ExprKind::Unary:
      return evalUnary(e.unop, evalRec(*e.ops.at(0), var, mem, amask), e.width);
    case ExprKind::Binary: {
      const Expr& a = *e.ops.at(0);
      Value va = evalRec(a, var, mem, amask);
      Value vb = evalRec(*e.ops.at(1), var, mem, amask);
      return evalBinary(e.binop, va, vb, a.width, e.width);
    }
    case ExprKind::Cast: {
      const Expr& a = *e.ops.at(0);
      return evalCast(e.cast, evalRec(a, var, mem, amask), a.width, e.width);
    }
    case ExprKind::Ite: {
      // Both branches are pure; evaluating only the chosen one gives the same value.
      Value c = evalRec(*e.ops.at(0), var, mem, amask);
      return evalRec(*e.ops.at(c != 0 ? 1 : 2), var, mem, amask) & m;
    }
  }
  return 0;
}

// An expression flattened for a hot loop (Interpreter::fastIterations): the same cases
// and the same evalUnary/evalBinary/evalCast as evalRec, with each register read through
// a pointer to its slot instead of a lookup, and no shared pointers on the way.
class FlatExpr {
 public:
  template <class SlotF>
  FlatExpr(const Expr& e, SlotF& slotOf) { root_ = add(e, slotOf); }
  template <class MemF>
  Value eval(MemF& mem, uint64_t amask) const { return run(root_, mem, amask); }

 private:
  struct Node {
    ExprKind kind;
    uint8_t op = 0;       // BinOp, UnOp or CastKind
    uint32_t width = 0;   // the node's
    uint32_t opWidth = 0; // the first operand's (Binary, Cast)
    Value mask = 0, value = 0;
    const Value* slot = nullptr;
    uint32_t a = 0, b = 0, c = 0;
  };
  template <class SlotF>
  uint32_t add(const Expr& e, SlotF& slotOf) {
    Node n;
    n.kind = e.kind;
    n.width = e.width;
    n.mask = maskOf(e.width);
    switch (e.kind) {
      case ExprKind::Const: n.value = e.value & n.mask; break;
      case ExprKind::Var: n.slot = slotOf(e.var); break;
      case ExprKind::Load: n.a = add(*e.ops.at(0), slotOf); break;
      case ExprKind::Unary:
        n.op = static_cast<uint8_t>(e.unop);
        n.a = add(*e.ops.at(0), slotOf);
        break;
      case ExprKind::Binary:
        n.op = static_cast<uint8_t>(e.binop);
        n.opWidth = e.ops.at(0)->width;
        n.a = add(*e.ops.at(0), slotOf);
        n.b = add(*e.ops.at(1), slotOf);
        break;
      case ExprKind::Cast:
        n.op = static_cast<uint8_t>(e.cast);
        n.opWidth = e.ops.at(0)->width;
        n.a = add(*e.ops.at(0), slotOf);
        break;
      case ExprKind::Ite:
        n.a = add(*e.ops.at(0), slotOf);
        n.b = add(*e.ops.at(1), slotOf);
        n.c = add(*e.ops.at(2), slotOf);
        break;
    }
    nodes_.push_back(n);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  template <class MemF>
  Value run(uint32_t i, MemF& mem, uint64_t amask) const {
    const Node& n = nodes_[i];
    switch (n.kind) {
      case ExprKind::Const: return n.value;
      case ExprKind::Var: return *n.slot & n.mask;
      case ExprKind::Load: {
        uint64_t addr = static_cast<uint64_t>(run(n.a, mem, amask));
        uint32_t bytes = (n.width + 7) / 8;
        Value v = 0;
        for (uint32_t k = 0; k < bytes && k < cfa::kMaxWidth / 8; ++k)
          v |= Value{mem((addr + k) & amask)} << (8 * k);
        return v & n.mask;
      }
      case ExprKind::Unary: return evalUnary(static_cast<UnOp>(n.op), run(n.a, mem, amask), n.width);
      case ExprKind::Binary: {
        Value va = run(n.a, mem, amask);
        Value vb = run(n.b, mem, amask);
        return evalBinary(static_cast<BinOp>(n.op), va, vb, n.opWidth, n.width);
      }
      case ExprKind::Cast:
        return evalCast(static_cast<CastKind>(n.op), run(n.a, mem, amask), n.opWidth, n.width);
      case ExprKind::Ite: return run(run(n.a, mem, amask) != 0 ? n.b : n.c, mem, amask) & n.mask;
    }
    return 0;
  }
  std::vector<Node> nodes_;
  uint32_t root_ = 0;
};

// Flat byte memory: bytes written by Store, zero-initialised ranges from Alloc, and the
// caller-provided initial contents for everything else; the zero page (cfa::zeroPageEnd)
// reads as zero, as the encoders read it.
class Memory {
 public:
  Memory(uint32_t ptrWidth, const ReplayInput& in, uint64_t zeroPageEnd)
      : amask_(maskOf64(ptrWidth)), zeroPageEnd_(zeroPageEnd), in_(in) {}

  uint8_t read(uint64_t addr) const {
    addr &= amask_;
    if (addr < zeroPageEnd_) return 0;
    if (auto it = bytes_.find(addr); it != bytes_.end()) return it->second;
    if (inZero(addr)) return 0;
    ++uninitialisedReads_;
    if (in_.initialMemory)
      if (auto v = in_.initialMemory(addr)) return *v;
    return 0;
  }
  // read() without counting an uninitialised read (the input tracking's own evaluation)
  uint8_t peek(uint64_t addr) const {
    addr &= amask_;
    if (addr < zeroPageEnd_) return 0;
    if (auto it = bytes_.find(addr); it != bytes_.end()) return it->second;
    if (inZero(addr)) return 0;
    if (in_.initialMemory)
      if (auto v = in_.initialMemory(addr)) return *v;
    return 0;
  }
  // written or zeroed before
  bool known(uint64_t addr) const {
    addr &= amask_;
    return addr < zeroPageEnd_ || bytes_.count(addr) != 0 || inZero(addr);
  }

  void write(uint64_t addr, uint8_t v) { bytes_[addr & amask_] = v; }
  size_t uninitialisedReads() const { return uninitialisedReads_; }

  // Sets [start, start+len) (wrapping modulo 2^ptrWidth) to zero.
  void zero(uint64_t start, uint64_t len) {
    if (len == 0) return;
    start &= amask_;
    uint64_t last = (start + (len - 1)) & amask_;
    if (len - 1 > amask_ - start) {  // wraps around: split in two
      addZero(start, amask_);
      addZero(0, last);
    } else {
      addZero(start, last);
    }
    // Bytes written earlier in the range are overwritten by the zeroes.
    if (len <= 4096 && len < bytes_.size()) {
      for (uint64_t i = 0; i < len; ++i) bytes_.erase((start + i) & amask_);
    } else {
      for (auto it = bytes_.begin(); it != bytes_.end();)
        it = ((it->first - start) & amask_) < len ? bytes_.erase(it) : std::next(it);
    }
  }

 private:
  bool inZero(uint64_t addr) const {
    auto it = zero_.upper_bound(addr);
    if (it == zero_.begin()) return false;
    --it;
    return addr <= it->second;
  }

  // Adds the inclusive range [s, l] to the disjoint set of zero ranges, merging
  // overlapping and adjacent ranges.
  void addZero(uint64_t s, uint64_t l) {
    auto it = zero_.upper_bound(s);
    if (it != zero_.begin()) {
      auto prev = std::prev(it);
      if (prev->second == UINT64_MAX || prev->second + 1 >= s) it = prev;
    }
    while (it != zero_.end() && (l == UINT64_MAX || it->first <= l + 1)) {
      s = std::min(s, it->first);
      l = std::max(l, it->second);
      it = zero_.erase(it);
    }
    zero_.emplace(s, l);
  }

  uint64_t amask_;
  uint64_t zeroPageEnd_;
  mutable size_t uninitialisedReads_ = 0;
  const ReplayInput& in_;
  std::unordered_map<uint64_t, uint8_t> bytes_;
  std::map<uint64_t, uint64_t> zero_;  // start -> last (inclusive)
};

struct Frame {
  FuncId func;
  LocId loc;
  std::optional<VarId> retLhs;  // the caller's lhs, assigned when this frame returns
  std::unordered_map<VarId, Value> regs;
  std::unordered_set<VarId> taint;  // registers whose value depends on entry inputs
};

class Interpreter {
 public:
  Interpreter(const cfa::Program& p, const ReplayInput& in, size_t maxSteps, bool record)
      : p_(p), in_(in), maxSteps_(maxSteps), record_(record), amask_(maskOf64(p.ptrWidth)),
        mem_(p.ptrWidth, in, cfa::zeroPageEnd(p)), globals_(p.vars.size(), 0) {}

  ReplayResult run(FuncId entry);

 private:
  bool isGlobal(VarId v) const { return v < p_.vars.size() && p_.vars[v].func == cfa::kNoFunc; }
  uint32_t varWidth(VarId v) const { return v < p_.vars.size() ? p_.vars[v].width : 64; }

  Value readVar(VarId v) const {
    if (isGlobal(v)) return globals_[v];
    const auto& regs = stack_.back().regs;
    auto it = regs.find(v);
    return it == regs.end() ? 0 : it->second;
  }

  // Writes into the current (top) frame or the globals; returns the stored value.
  Value writeVar(VarId v, Value val) {
    val &= maskOf(varWidth(v));
    if (isGlobal(v))
      globals_[v] = val;
    else
      stack_.back().regs[v] = val;
    return val;
  }

  // A property check's Error edge (Edge::check): recomputes from the operands' values,
  // in exact 128-bit arithmetic and without the lowering's violation condition,
  // whether the operation really violates the property.
  bool checkViolated(const cfa::Edge& e) {
    using cfa::CheckKind;
    std::vector<Value> v;
    for (const auto& a : e.args) v.push_back(eval(a));
    // exact: operands of up to 128 bits, results computed in 128 bits with the host's
    // overflow test (a result that does not fit 128 bits does not fit `w` <= 128 either)
    auto sval = [&](size_t i) -> __int128 {
      uint32_t w = e.args[i]->width;
      Value x = v[i] & maskOf(w);
      return sextW(x, w);
    };
    // (the result is passed by pointer: the order in which a call's arguments are
    // evaluated is unspecified, so `f(__builtin_add_overflow(a, b, &r), r)` may read r first)
    auto outOfRange = [&](bool wrapped, const __int128* res) {
      if (wrapped) return true;
      const __int128 r = *res;
      uint32_t w = e.args[0]->width;
      if (w >= 128) return false;
      __int128 hi = static_cast<__int128>((Value{1} << (w - 1)) - 1), lo = -hi - 1;
      return r < lo || r > hi;
    };
    __int128 r = 0;
    switch (e.check) {
      case CheckKind::None: return true;
      case CheckKind::SignedAdd: return v.size() == 2 && outOfRange(__builtin_add_overflow(sval(0), sval(1), &r), &r);
      case CheckKind::SignedSub: return v.size() == 2 && outOfRange(__builtin_sub_overflow(sval(0), sval(1), &r), &r);
      case CheckKind::SignedMul: return v.size() == 2 && outOfRange(__builtin_mul_overflow(sval(0), sval(1), &r), &r);
      case CheckKind::SignedDiv: {
        if (v.size() != 2 || sval(1) == 0) return false;
        if (sval(1) == -1) return outOfRange(__builtin_sub_overflow(__int128{0}, sval(0), &r), &r);
        r = sval(0) / sval(1);
        return outOfRange(false, &r);
      }
      case CheckKind::SignedNeg: return v.size() == 1 && outOfRange(__builtin_sub_overflow(__int128{0}, sval(0), &r), &r);
      case CheckKind::DivByZero: return v.size() == 1 && (v[0] & maskOf(e.args[0]->width)) == 0;
      case CheckKind::ShiftSigned:
      case CheckKind::ShiftUnsigned: {
        if (v.size() != 2) return false;
        __int128 amount = e.check == CheckKind::ShiftSigned ? sval(0) : static_cast<__int128>(v[0] & maskOf(e.args[0]->width));
        return amount < 0 || amount >= static_cast<__int128>(v[1]);
      }
      case CheckKind::Deref: {
        if (v.size() < 2 || !p_.objectBits) return false;
        if (v.size() == 3 && ((v[0] & amask_) >> p_.objectBits) != provId(v[2])) return true;
        const Object* o = objectOf(v[0] & amask_);
        unsigned __int128 off = (v[0] & amask_) & ((uint64_t(1) << p_.objectBits) - 1);
        return !o || o->state != cfa::memlayout::kLive || off + (v[1] & amask_) > o->size;
      }
      case CheckKind::Index:
        return v.size() == 2 && (v[0] & amask_) >= (v[1] & amask_);
      case CheckKind::Free: {
        if (v.size() != 1 || !p_.objectBits) return false;
        uint64_t ptr = v[0] & amask_;
        return ptr != 0 && !isHeapBlockStart(ptr);
      }
      case CheckKind::Leak:
        if (!p_.objectBits) return false;
        if (!v.empty()) return !lostHeapBlocks().empty();  // valid-memtrack at main's return, globals as roots
        for (const auto& [id, o] : objects_)
          if (o.kind == cfa::memlayout::kHeap && o.state == cfa::memlayout::kLive) return true;
        return false;
    }
    return false;
  }

  // The live heap blocks no pointer reaches from the globals (main's frame is gone): the
  // roots are every global register of at least pointer width and every pointer-sized
  // window, at any byte offset, of the live global objects; a reached block's contents
  // are scanned the same way. A value points to a block when its object or its
  // provenance (provId) is that block. A global object too large to scan reaches
  // everything (no block is reported lost).
  std::vector<uint64_t> lostHeapBlocks() const {
    std::set<uint64_t> reached;
    std::vector<uint64_t> todo;
    auto mark = [&](uint64_t val) {
      val &= amask_;
      for (uint64_t id : {val >> p_.objectBits, provId(val)}) {
        auto it = objects_.find(id);
        if (it != objects_.end() && it->second.kind == cfa::memlayout::kHeap &&
            it->second.state == cfa::memlayout::kLive && reached.insert(id).second)
          todo.push_back(id);
      }
    };
    const uint32_t pb = p_.ptrWidth / 8;
    bool tooLarge = false;
    auto scan = [&](uint64_t id, uint64_t size) {
      if (size > (uint64_t(1) << 22)) {
        tooLarge = true;
        return;
      }
      uint64_t base = (id << p_.objectBits) & amask_;
      for (uint64_t off = 0; off + pb <= size; ++off) {
        uint64_t val = 0;
        for (uint32_t b = 0; b < pb; ++b) val |= uint64_t(mem_.peek(base + off + b)) << (8 * b);
        mark(val);
      }
    };
    for (VarId x = 0; x < p_.vars.size(); ++x)
      if (isGlobal(x) && p_.vars[x].width >= p_.ptrWidth)
        for (uint32_t sh = 0; sh + p_.ptrWidth <= p_.vars[x].width && sh < 64; sh += 8) mark(globals_[x] >> sh);
    for (const auto& [id, o] : objects_)
      if (o.kind == cfa::memlayout::kGlobal && o.state == cfa::memlayout::kLive) scan(id, o.size);
    while (!todo.empty() && !tooLarge) {
      uint64_t id = todo.back();
      todo.pop_back();
      scan(id, objects_.at(id).size);
    }
    std::vector<uint64_t> lost;
    if (tooLarge) return lost;
    for (const auto& [id, o] : objects_)
      if (o.kind == cfa::memlayout::kHeap && o.state == cfa::memlayout::kLive && !reached.count(id)) lost.push_back(id);
    return lost;
  }

  // The object a pointer belongs to (cfa::memlayout: it may point up to belowRoom bytes
  // before the object's start), as an id and as that object's start address.
  uint64_t provId(uint64_t ptr) const {
    return ((ptr + cfa::memlayout::belowRoom(p_.objectBits)) & amask_) >> p_.objectBits;
  }
  uint64_t provIdAddr(uint64_t ptr) const { return (provId(ptr) << p_.objectBits) & amask_; }

  // The memory-safety layout's objects (Program::objectBits), kept from the Alloc and
  // Free edges alone, independently of the metadata the program writes to memory.
  struct Object {
    uint64_t size = 0;
    uint8_t state = 0, kind = 0;
    std::string what;  // "`buf` (f.c:3)", "block from f.c:12"
  };
  // The violation at a memory-safety check's Error edge, in words.
  std::string describeViolation(const cfa::Edge& e) {
    std::vector<uint64_t> v;
    for (const auto& a : e.args) v.push_back(static_cast<uint64_t>(eval(a)) & amask_);
    auto objText = [&](const Object& o) {
      const char* kind = o.kind == cfa::memlayout::kHeap ? "heap block" : o.kind == cfa::memlayout::kStack ? "stack object" : "object";
      const char* state = o.state == cfa::memlayout::kFreed ? "freed " : o.state == cfa::memlayout::kDead ? "dead " : "";
      return std::string(state) + kind + " " + o.what + " of " + std::to_string(o.size) + " bytes";
    };
    uint64_t mask = (uint64_t(1) << p_.objectBits) - 1;
    switch (e.check) {
      case cfa::CheckKind::Deref: {
        if (v.size() < 2) return "";
        if (v[0] == 0) return "null pointer dereference";
        const Object* o = objectOf(v[0]);
        std::string acc = "access of " + std::to_string(v[1]) + " bytes at offset " + std::to_string(v[0] & mask);
        if (v.size() == 3 && (v[0] >> p_.objectBits) != provId(v[2])) {
          const Object* b = objectOf(provIdAddr(v[2]));
          return "access outside the object indexed from" + (b ? " (" + objText(*b) + ")" : std::string());
        }
        if (!o) return acc + " of no object";
        return acc + " of the " + objText(*o);
      }
      case cfa::CheckKind::Index:
        return v.size() == 2 ? "index " + std::to_string(v[0]) + " of an array of " + std::to_string(v[1]) + " elements" : "";
      case cfa::CheckKind::Free: {
        if (v.empty()) return "";
        const Object* o = objectOf(v[0]);
        if (!o) return "free of a pointer to no object";
        if ((v[0] & mask) != 0) return "free at offset " + std::to_string(v[0] & mask) + " of the " + objText(*o);
        return "free of the " + objText(*o);
      }
      case cfa::CheckKind::Leak: {
        std::string s;
        size_t n = 0;
        if (!v.empty()) {
          for (uint64_t id : lostHeapBlocks())
            if (n++ < 3) s += (s.empty() ? "" : ", ") + objects_.at(id).what;
          return std::to_string(n) + " heap block(s) unreachable from every global when main returns: " + s +
                 (n > 3 ? ", ..." : "");
        }
        for (const auto& [id, o] : objects_)
          if (o.kind == cfa::memlayout::kHeap && o.state == cfa::memlayout::kLive && n++ < 3)
            s += (s.empty() ? "" : ", ") + o.what;
        return std::to_string(n) + " heap block(s) still allocated: " + s + (n > 3 ? ", ..." : "");
      }
      default: return "";
    }
  }
  std::map<uint64_t, Object> objects_;
  const Object* objectOf(uint64_t addr) const {
    auto it = objects_.find(addr >> p_.objectBits);
    return it == objects_.end() ? nullptr : &it->second;
  }
  bool isHeapBlockStart(uint64_t ptr) const {
    const Object* o = objectOf(ptr);
    return o && (ptr & ((uint64_t(1) << p_.objectBits) - 1)) == 0 && o->kind == cfa::memlayout::kHeap &&
           o->state == cfa::memlayout::kLive;
  }
  void freeEdge(const cfa::Edge& e) {
    uint64_t ptr = eval(e.addr) & amask_;
    if (e.bytes == 0) {
      if (ptr != 0 && isHeapBlockStart(ptr)) objects_[ptr >> p_.objectBits].state = cfa::memlayout::kFreed;
    } else if (auto it = objects_.find(ptr >> p_.objectBits);
               ptr != 0 && it != objects_.end() && it->second.kind == cfa::memlayout::kStack &&
               it->second.state == cfa::memlayout::kLive) {
      it->second.state = cfa::memlayout::kDead;
    }
  }

  // ---- entry inputs (see replay.h): taint bits beside the values
  static bool isHarnessEdge(const cfa::Edge& e) { return e.text.rfind(cfa::kEntryModelText, 0) == 0; }
  // the harness's null in a pointer slot beyond its depth (entry_harness.cpp): a modelling
  // bound, not a fact about the callers, so the slot is an input like a nullable choice (a
  // finding that needs it is latent: SQLite's `p->pNext->pBt > p->pBt` failed "manifestly"
  // with pNext's pBt null only because the harness stops at depth 2)
  static bool harnessEdgeEndsWith(const cfa::Edge& e, const std::string& tail) {
    return isHarnessEdge(e) && e.text.size() >= tail.size() &&
           e.text.compare(e.text.size() - tail.size(), tail.size(), tail) == 0;
  }
  static bool isHarnessDepthBound(const cfa::Edge& e) { return harnessEdgeEndsWith(e, "(depth bound)"); }
  // the null the harness chose for a nullable pointer (entry_harness.cpp: a slot's
  // " = null", a parameter's " = NULL"): an input like the depth bound's. The choice
  // itself is no input decision: the program's own tests of the pointer (or of what is
  // read through it) are, where the path makes them — a null nothing reads is no part of
  // a precondition (SQLite: 30 nulls of globals such as pcache1_g the path never read
  // filled exprMightBeIndexed's precondition before its own conditions).
  static bool isHarnessNullChoice(const cfa::Edge& e) {
    return harnessEdgeEndsWith(e, " = null") || harnessEdgeEndsWith(e, " = NULL");
  }
  // an Assume on the harness's null choice (entry_harness.cpp: Builder::maybe), either side
  bool isHarnessChoice(const cfa::Edge& e) const {
    if (!e.cond || e.cond->kind != ExprKind::Binary || e.cond->ops.empty()) return false;
    const Expr& a = *e.cond->ops[0];
    if (a.kind != ExprKind::Var || a.var >= p_.vars.size()) return false;
    const std::string& n = p_.vars[a.var].name;
    return n.find("::$entry") != std::string::npos && n.size() >= 7 && n.compare(n.size() - 7, 7, "$choice") == 0;
  }
  bool varTainted(VarId v) const {
    if (isGlobal(v)) return gtaint_.size() > v && gtaint_[v];
    return stack_.back().taint.count(v) != 0;
  }
  void setTaint(VarId v, bool t) {
    if (!track_) return;
    if (isGlobal(v)) {
      if (gtaint_.size() > v) gtaint_[v] = t;
      return;
    }
    if (t)
      stack_.back().taint.insert(v);
    else
      stack_.back().taint.erase(v);
  }
  bool inBodyBlock(uint64_t a) const {
    auto it = bodyBlocks_.upper_bound(a);
    if (it == bodyBlocks_.begin()) return false;
    --it;
    return a - it->first < it->second;
  }
  bool byteTainted(uint64_t a) {
    a &= amask_;
    if (mtaint_.count(a)) {
      if (auto it = nullSlot_.find(a); it != nullSlot_.end()) nullRead_.insert(it->second);
      return true;
    }
    if (mem_.known(a)) return false;
    return !inBodyBlock(a);  // never written: an input unless the program's own block
  }
  void clearTaint(uint64_t start, uint64_t len) {
    if (mtaint_.empty() || len == 0) return;
    for (auto it = mtaint_.begin(); it != mtaint_.end();)
      it = ((*it - start) & amask_) < len ? mtaint_.erase(it) : std::next(it);
  }
  bool tainted(const cfa::ExprPtr& e) { return track_ && e && taintRec(*e); }
  bool taintRec(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const: return false;
      case ExprKind::Var: return varTainted(e.var);
      case ExprKind::Load: {
        const Expr& a = *e.ops.at(0);
        if (wildStore_ || taintRec(a)) return true;
        auto var = [this](VarId v) { return readVar(v); };
        auto mem = [this](uint64_t x) { return mem_.peek(x); };
        uint64_t addr = static_cast<uint64_t>(evalRec(a, var, mem, amask_));
        uint32_t bytes = (e.width + 7) / 8;
        for (uint32_t i = 0; i < bytes && i < cfa::kMaxWidth / 8; ++i)
          if (byteTainted(addr + i)) return true;
        return false;
      }
      default:
        for (const auto& o : e.ops)
          if (o && taintRec(*o)) return true;
        return false;
    }
  }
  void decision(FuncId f, uint32_t edge) {
    if (preFlag_ && readVar(*preFlag_) == 1 && plainBranch(f, edge)) preDecisions_.push_back(res_.inputDecisions.size());
    res_.inputDecisions.push_back({f, edge});
  }
  // A branch that is no property check's (nor leads to one), as the frontend marks the
  // entry's own assertion conditions (Lowerer::lowerLeadingAssert).
  bool plainBranch(FuncId f, uint32_t edge) const {
    const cfa::Function& fn = p_.functions[f];
    const cfa::Edge& a = fn.edges[edge];
    if (a.kind != EdgeKind::Assume || a.check != cfa::CheckKind::None) return false;
    for (uint32_t o : fn.locs[a.to].out)
      if (fn.edges[o].kind == EdgeKind::Error && (fn.edges[o].check != cfa::CheckKind::None || !fn.edges[o].property.empty()))
        return false;
    return true;
  }
  // The calls an assumed leading assertion makes (cfa::withContracts marks them with the
  // flag `$precondition$f`), when everything they reach only reads the program's state:
  // then which way a branch inside them went changes nothing of the path after them but
  // the assertion's value, which the contract fixes, so those branches are no decisions of
  // a finding reached after the calls (as the condition's own branches, assumedContract).
  // Anything that writes memory or a global, allocates, frees or is unsupported keeps them.
  std::optional<VarId> pureCallsFlag(FuncId entry) const {
    const std::string name = cfa::kPreconditionPrefix + p_.functions[entry].name;
    std::optional<VarId> flag;
    for (VarId v = 0; v < p_.vars.size() && !flag; ++v)
      if (p_.vars[v].func == cfa::kNoFunc && p_.vars[v].name == name) flag = v;
    if (!flag) return std::nullopt;
    std::vector<bool> seen(p_.functions.size(), false);
    std::vector<FuncId> work;
    for (const cfa::Edge& e : p_.functions[entry].edges)
      if (e.kind == EdgeKind::Call && e.gate == cfa::ContractGate::AssertCondition && e.callee < seen.size() &&
          !seen[e.callee])
        seen[e.callee] = true, work.push_back(e.callee);
    while (!work.empty()) {
      const FuncId g = work.back();
      work.pop_back();
      for (const cfa::Edge& e : p_.functions[g].edges) {
        switch (e.kind) {
          case EdgeKind::Store:
          case EdgeKind::Alloc:
          case EdgeKind::Free:
          case EdgeKind::Unsupported: return std::nullopt;
          case EdgeKind::Assign:
          case EdgeKind::Havoc:
            if (!e.lhs || isGlobal(*e.lhs)) return std::nullopt;
            break;
          case EdgeKind::Call:
            if (e.callee >= seen.size()) return std::nullopt;
            if (!seen[e.callee]) seen[e.callee] = true, work.push_back(e.callee);
            if (e.lhs && isGlobal(*e.lhs)) return std::nullopt;
            break;
          default: break;
        }
      }
    }
    return flag;
  }
  // A branch of the entry's own contract where the engine closed its gates (the contract
  // is assumed there, cfa::withContracts): what the entry may assume, not an input
  // decision of a finding (a manifest finding stays manifest under `requires x > 0`).
  bool assumedContract(const cfa::Edge& e, FuncId f) const {
    if (f != entry_ || stack_.size() != 1) return false;
    // a contract's condition and the gates that assume it: requires and leading assumes,
    // or leading assertions (README "Contracts")
    auto gateOf = [&e](cfa::ContractGate g) {
      return e.gate == cfa::ContractGate::Condition
                 ? g == cfa::ContractGate::Requires || g == cfa::ContractGate::LeadingAssume
                 : e.gate == cfa::ContractGate::AssertCondition && g == cfa::ContractGate::LeadingAssert;
    };
    for (const cfa::Edge& g : p_.functions[f].edges)
      if (g.kind == EdgeKind::Assume && gateOf(g.gate))
        // closed; or a recursive entry's leading assertion, closed on its first invocation
        return g.cond && (g.cond->kind == cfa::ExprKind::Const ? g.cond->value == 0
                                                               : g.gate == cfa::ContractGate::LeadingAssert);
    return false;
  }

  Value eval(const cfa::ExprPtr& e) {
    if (!e) throw std::invalid_argument("missing expression");
    auto var = [this](VarId v) { return readVar(v); };
    auto mem = [this](uint64_t a) { return mem_.read(a); };
    return evalRec(*e, var, mem, amask_);
  }

  bool nextNondet(Value& v) {
    if (res_.nondetsUsed >= in_.nondets.size()) return false;
    v = in_.nondets[res_.nondetsUsed++];
    return true;
  }

  std::string where(FuncId f, LocId l, const cfa::Edge* e = nullptr) const {
    std::string s = f < p_.functions.size() ? p_.functions[f].name : "?";
    s += ":L" + std::to_string(l);
    const cfa::SourceRange* r = e ? &e->range
                                  : (f < p_.functions.size() && l < p_.functions[f].locs.size()
                                         ? &p_.functions[f].locs[l].range
                                         : nullptr);
    if (r && r->line) s += " (" + (r->file.empty() ? p_.mainFile : r->file) + ":" +
                           std::to_string(r->line) + ")";
    if (e && !e->text.empty()) s += " `" + e->text + "`";
    return s;
  }

  ReplayResult finish(ReplayOutcome o, std::string msg) {
    res_.outcome = o;
    res_.uninitialisedReads = mem_.uninitialisedReads();
    res_.message = std::move(msg);
    res_.nullChoicesRead.assign(nullRead_.begin(), nullRead_.end());
    if (!stack_.empty()) {
      res_.endFunc = stack_.back().func;
      res_.endLoc = stack_.back().loc;
    }
    return std::move(res_);
  }

  void pushEntry() {
    const auto& f = p_.functions[entry_];
    stack_.push_back(Frame{entry_, f.entry, std::nullopt, {}, {}});
    for (auto& [v, val] : res_.entryArgs) {
      writeVar(v, val);
      setTaint(v, true);  // the caller's arguments
    }
  }

  // Pops the top frame; returns false when the execution is over (entry returned).
  bool doReturn(ReplayStep* step) {
    const auto& f = p_.functions[stack_.back().func];
    Value rv = f.retVar ? readVar(*f.retVar) : 0;
    bool rt = track_ && f.retVar && varTainted(*f.retVar);
    auto lhs = stack_.back().retLhs;
    stack_.pop_back();
    if (stack_.empty()) {
      if (inInit_) {
        inInit_ = false;
        pushEntry();
        return true;
      }
      return false;
    }
    if (lhs) {
      Value v = writeVar(*lhs, rv);
      setTaint(*lhs, rt);
      if (step) step->assigned.emplace_back(*lhs, v);
    }
    return true;
  }

  // The ordinary iterations of an accelerated loop (core/cfa/accelerate.h) without the
  // per-step bookkeeping, once the head of the run is recorded. `havoc` is the shortcut's
  // choice at C (count 0: one ordinary iteration); from its target D the enabled edge
  // (`n == 0`) leads to the body, whose Blank and Assign edges lead back to the loop head
  // L, where the first enabled out-edge is the guard edge back to C as long as the guard
  // holds. The same edges and expressions as step by step (evalRec, the widths' masks),
  // every step counted; only the recording differs: the steps of the last iterations
  // (about kRecordTail steps of them) are kept, and the index where the left-out ones
  // were taken is ReplayResult::omittedAt.
  // Returns false, having done nothing, if the loop does not have that shape. Leaves the
  // frame at L (the guard edge no longer taken) or at C (the step limit is near).
  bool fastIterations(Frame& fr, const cfa::Edge& havoc) {
    const cfa::Function& f = p_.functions[fr.func];
    if (!havoc.lhs) return false;
    const VarId nv = *havoc.lhs;
    const LocId C = havoc.from, D = havoc.to;
    auto maskVar = [&](VarId v) { return maskOf(varWidth(v)); };
    // the shape (checked with n = 0 written, as the step would)
    writeVar(nv, 0);
    const cfa::Edge* zero = nullptr;
    for (uint32_t ei : f.locs[D].out) {
      const cfa::Edge& e = f.edges[ei];
      if (e.kind == EdgeKind::Assume && (eval(e.cond) != 0) == e.positive) {
        if (zero) return false;
        zero = &e;
      }
    }
    if (!zero) return false;
    std::vector<const cfa::Edge*> body;
    LocId at = zero->to;
    while (f.locs[at].out.size() == 1) {
      const cfa::Edge& e = f.edges[f.locs[at].out[0]];
      if ((e.kind != EdgeKind::Blank && e.kind != EdgeKind::Assign) || (e.kind == EdgeKind::Assign && !e.lhs) ||
          body.size() > 64)
        return false;
      body.push_back(&e);
      at = e.to;
    }
    const LocId L = at;
    bool guardToC = false;
    for (uint32_t ei : f.locs[L].out) {
      const cfa::Edge& e = f.edges[ei];
      if (e.kind != EdgeKind::Assume) return false;
      guardToC = guardToC || e.to == C;
    }
    if (!guardToC) return false;
    // register slots (no register is added while the loop runs, so the pointers stay)
    std::vector<std::pair<VarId, Value*>> slots;
    auto slotOf = [&](VarId v) -> Value* {
      for (auto& [id, ptr] : slots)
        if (id == v) return ptr;
      Value* ptr = isGlobal(v) ? &globals_[v] : &stack_.back().regs[v];  // an unassigned register reads 0
      slots.emplace_back(v, ptr);
      return ptr;
    };
    std::vector<VarId> used;
    auto collect = [&](const cfa::ExprPtr& x, auto&& self) -> void {
      if (!x) return;
      if (x->kind == ExprKind::Var) used.push_back(x->var);
      for (const auto& o : x->ops) self(o, self);
    };
    collect(zero->cond, collect);
    for (const cfa::Edge* e : body) {
      used.push_back(*(e->kind == EdgeKind::Assign ? e->lhs : std::optional<VarId>(nv)));
      collect(e->rhs, collect);
    }
    for (uint32_t ei : f.locs[L].out) collect(f.edges[ei].cond, collect);
    used.push_back(nv);
    for (VarId v : used) slotOf(v);
    auto mem = [this](uint64_t a) { return mem_.read(a); };
    // every expression of the loop, flattened once (slotOf gives each register's slot)
    std::unordered_map<const cfa::Expr*, FlatExpr> flat;
    auto constSlot = [&](VarId v) -> const Value* { return slotOf(v); };
    auto flatten = [&](const cfa::ExprPtr& x) {
      if (x) flat.try_emplace(x.get(), *x, constSlot);
    };
    flatten(zero->cond);
    for (const cfa::Edge* e : body) flatten(e->rhs);
    for (uint32_t ei : f.locs[L].out) flatten(f.edges[ei].cond);
    const FlatExpr& zeroCond = flat.at(zero->cond.get());
    std::vector<const FlatExpr*> bodyRhs;
    for (const cfa::Edge* e : body) bodyRhs.push_back(e->rhs ? &flat.at(e->rhs.get()) : nullptr);
    std::vector<std::pair<const cfa::Edge*, const FlatExpr*>> guards;  // L's out-edges, in order
    for (uint32_t ei : f.locs[L].out) guards.emplace_back(&f.edges[ei], &flat.at(f.edges[ei].cond.get()));
    Value* nslot = slotOf(nv);
    std::vector<Value*> lhs;
    std::vector<Value> masks;
    for (const cfa::Edge* e : body) {
      lhs.push_back(e->kind == EdgeKind::Assign ? slotOf(*e->lhs) : nullptr);
      masks.push_back(e->kind == EdgeKind::Assign ? maskVar(*e->lhs) : 0);
    }
    const size_t perIteration = 3 + body.size();  // havoc, n == 0, body, the guard edge
    // the values the body assigned in the last `kept` iterations (a ring, iteration i in
    // row i % kept), recorded when the run leaves the fast path
    const size_t kept = record_ ? std::max<size_t>(1, kRecordTail / perIteration) : 0;
    std::vector<Value> ring(kept * body.size(), 0);
    size_t iterations = 0;
    const cfa::Edge* guard = nullptr;  // the edge L -> C (taken before every iteration but the first)
    auto recordKept = [&] {
      if (!record_ || iterations == 0) return;
      size_t shown = std::min(iterations, kept);
      if (iterations > shown) res_.omittedAt = std::min(res_.omittedAt, res_.steps.size());
      auto push = [&](const cfa::Edge& e, std::optional<std::pair<VarId, Value>> a) {
        ReplayStep st;
        st.func = fr.func;
        st.edge = static_cast<uint32_t>(&e - f.edges.data());
        st.depth = static_cast<uint32_t>(stack_.size() - 1);
        if (a) st.assigned.push_back(*a);
        res_.steps.push_back(std::move(st));
      };
      for (size_t it = iterations - shown; it < iterations; ++it) {
        // the guard edge before this iteration: the first one was recorded step by step
        if (it > 0 && guard) push(*guard, std::nullopt);
        push(havoc, std::make_pair(nv, Value{0}));
        push(*zero, std::nullopt);
        const Value* row = &ring[(it % kept) * body.size()];
        for (size_t i = 0; i < body.size(); ++i)
          push(*body[i], lhs[i] ? std::optional(std::make_pair(*body[i]->lhs, row[i])) : std::nullopt);
      }
      if (res_.steps.size() >= compactAt_) compactSteps();
    };
    fr.loc = C;
    for (;;) {
      if (res_.stepCount + perIteration >= maxSteps_) {  // step by step from C
        recordKept();
        return true;
      }
      *nslot = 0;
      if ((zeroCond.eval(mem, amask_) != 0) != zero->positive) {  // cannot happen: step by step
        recordKept();
        return true;
      }
      Value* row = kept ? &ring[(iterations % kept) * body.size()] : nullptr;
      for (size_t i = 0; i < body.size(); ++i)
        if (lhs[i]) {
          Value v = *lhs[i] = bodyRhs[i]->eval(mem, amask_) & masks[i];
          if (row) row[i] = v;
        }
      res_.stepCount += 2 + body.size();
      ++iterations;
      fr.loc = L;
      const cfa::Edge* next = nullptr;
      for (const auto& [e, cond] : guards)
        if ((cond->eval(mem, amask_) != 0) == e->positive) {
          next = e;
          break;
        }
      if (!next || next->to != C) break;  // the loop is left (or blocked) at L: step by step
      guard = next;
      ++res_.stepCount;
      fr.loc = C;
    }
    recordKept();
    return true;
  }

  // Drops the Blank, Assume and Assign steps between the first kRecordHead and the last
  // kRecordTail recorded ones (core/result/long_runs.h).
  void compactSteps() {
    std::vector<ReplayStep>& st = res_.steps;
    size_t keepTail = st.size() - kRecordTail;
    size_t out = kRecordHead;
    for (size_t i = kRecordHead; i < st.size(); ++i) {
      EdgeKind k = p_.functions[st[i].func].edges[st[i].edge].kind;
      if (i < keepTail && (k == EdgeKind::Blank || k == EdgeKind::Assume || k == EdgeKind::Assign)) {
        res_.omittedAt = std::min(res_.omittedAt, out);  // steps before index `out` stay where they are
        continue;
      }
      if (out != i) st[out] = std::move(st[i]);
      ++out;
    }
    st.resize(out);
    compactAt_ = st.size() + 200'000;
  }

  const cfa::Program& p_;
  const ReplayInput& in_;
  size_t maxSteps_;
  bool record_;
  uint64_t amask_;
  Memory mem_;
  std::vector<Value> globals_;
  std::vector<Frame> stack_;
  ReplayResult res_;
  FuncId entry_ = cfa::kNoFunc;
  bool inInit_ = false;
  uint64_t brk_ = 0;
  // entry inputs
  bool track_ = false;
  std::optional<VarId> preFlag_;      // pureCallsFlag
  std::vector<size_t> preDecisions_;  // indices in res_.inputDecisions taken while it was 1
  std::vector<char> gtaint_;                 // global registers
  std::unordered_set<uint64_t> mtaint_;      // memory bytes
  // bytes holding a null the harness chose, each with its choice's index in the nondets
  // (ReplayResult::nullChoicesRead), and the choices whose null was read
  std::unordered_map<uint64_t, size_t> nullSlot_;
  std::set<size_t> nullRead_;
  std::map<uint64_t, uint64_t> bodyBlocks_;  // blocks of the program's own Allocs: start -> length
  bool wildStore_ = false;                   // a store through a tainted address happened
  size_t compactAt_ = kRecordHead + kRecordTail + 200'000;
};

ReplayResult Interpreter::run(FuncId entry) {
  entry_ = entry;
  if (entry >= p_.functions.size() || p_.functions[entry].locs.empty())
    return finish(ReplayOutcome::Malformed, "entry function " + std::to_string(entry) +
                                                " does not exist or has no body");
  const auto& ef = p_.functions[entry];
  for (VarId v : ef.params) {
    Value val;
    if (!nextNondet(val))
      return finish(ReplayOutcome::OutOfNondets, "no value for parameter " +
                                                     (v < p_.vars.size() ? p_.vars[v].name
                                                                         : std::to_string(v)) +
                                                     " of " + ef.name);
    res_.entryArgs.emplace_back(v, val & maskOf(varWidth(v)));
  }
  brk_ = p_.heapBase & amask_;
  track_ = in_.trackInputs && ef.name != "main";
  res_.inputsTracked = track_;
  if (track_) gtaint_.assign(p_.vars.size(), 0);
  if (track_) preFlag_ = pureCallsFlag(entry);
  FuncId init = ef.name == "main" ? p_.initFunc : p_.initNondetFunc;
  if (init != cfa::kNoFunc) {
    if (init >= p_.functions.size() || p_.functions[init].locs.empty())
      return finish(ReplayOutcome::Malformed, "init function " + std::to_string(init) +
                                                  " does not exist or has no body");
    inInit_ = true;
    stack_.push_back(Frame{init, p_.functions[init].entry, std::nullopt, {}, {}});
  } else {
    pushEntry();
  }

  try {
    for (;;) {
      Frame& fr = stack_.back();
      const cfa::Function& f = p_.functions[fr.func];
      if (fr.loc >= f.locs.size())
        return finish(ReplayOutcome::Malformed, "location out of range in " + f.name);
      const cfa::Location& loc = f.locs[fr.loc];

      if (loc.out.empty()) {
        if (fr.loc == f.exit) {  // reached the exit without a Return edge: return
          if (!doReturn(nullptr))
            return finish(ReplayOutcome::Terminated, "returned from " + p_.functions[entry].name);
          continue;
        }
        return finish(ReplayOutcome::Blocked, "no out-edge at " + where(fr.func, fr.loc));
      }

      // Pick the first enabled out-edge.
      const cfa::Edge* edge = nullptr;
      uint32_t edgeIdx = 0;
      size_t enabled = 0;
      for (uint32_t ei : loc.out) {
        if (ei >= f.edges.size())
          return finish(ReplayOutcome::Malformed, "edge index out of range in " + f.name);
        const cfa::Edge& e = f.edges[ei];
        bool on = e.kind != EdgeKind::Assume || ((eval(e.cond) != 0) == e.positive);
        if (!on) continue;
        if (enabled++ == 0) {
          edge = &e;
          edgeIdx = ei;
        }
      }
      if (enabled > 1) ++res_.ambiguousChoices;
      if (!edge)
        return finish(ReplayOutcome::Blocked, "no enabled out-edge at " + where(fr.func, fr.loc));
      if (res_.stepCount >= maxSteps_)
        return finish(ReplayOutcome::StepLimit,
                      "step limit " + std::to_string(maxSteps_) + " reached");
      ++res_.stepCount;

      const cfa::Edge& e = *edge;
      ReplayStep step;
      step.func = fr.func;
      step.edge = edgeIdx;
      step.depth = static_cast<uint32_t>(stack_.size() - 1);
      auto record = [&] {
        if (!record_) return;
        res_.steps.push_back(std::move(step));
        if (res_.steps.size() >= compactAt_) compactSteps();
      };
      const FuncId curFunc = fr.func;
      const LocId curLoc = fr.loc;
      auto finishAt = [&](ReplayOutcome o, const std::string& what) {
        record();
        return finish(o, what + " at " + where(curFunc, curLoc, &e));
      };

      switch (e.kind) {
        case EdgeKind::Blank:
          fr.loc = e.to;
          break;
        case EdgeKind::Assume:
          // the passing side of a memory-safety check: the interpreter's own object table
          // must agree (a disagreement is a path the encoding allowed wrongly)
          if (p_.objectBits && e.check != cfa::CheckKind::None && !e.positive && checkViolated(e))
            return finishAt(ReplayOutcome::Blocked, "a memory-safety check passed on the path, but the interpreter's "
                                                    "object table shows a violation");
          // (the harness's own assumptions, such as a function pointer's choice, are the
          // model, not decisions of the path)
          if (track_ && !inInit_ && !isHarnessChoice(e) && !isHarnessEdge(e) && !assumedContract(e, curFunc) &&
              tainted(e.cond))
            decision(curFunc, edgeIdx);
          fr.loc = e.to;
          break;
        case EdgeKind::Free:
          if (e.addr) step.freed = static_cast<uint64_t>(eval(e.addr)) & amask_;
          if (p_.objectBits) freeEdge(e);
          fr.loc = e.to;
          break;
        case EdgeKind::Assign: {
          Value v = eval(e.rhs);
          if (e.lhs) {
            step.assigned.emplace_back(*e.lhs, writeVar(*e.lhs, v));
            bool nullChoice = isHarnessNullChoice(e);
            setTaint(*e.lhs, tainted(e.rhs) || nullChoice);
            if (nullChoice && track_ && res_.nondetsUsed > 0) nullRead_.insert(res_.nondetsUsed - 1);  // a parameter's
          }
          fr.loc = e.to;
          break;
        }
        case EdgeKind::Havoc: {
          Value v = 0;
          // a loop-acceleration shortcut's count: 0, one ordinary iteration (the loop runs
          // itself; core/cfa/accelerate.h); no value of the input is consumed
          if (cfa::isAccelerationCount(e) && !track_ && (!record_ || res_.steps.size() >= kRecordHead)) {
            --res_.stepCount;  // counted again by fastIterations
            if (fastIterations(fr, e)) continue;
            ++res_.stepCount;
          }
          if (!cfa::isAccelerationCount(e) && !nextNondet(v)) {
            --res_.stepCount;  // not taken
            return finish(ReplayOutcome::OutOfNondets,
                          "no value for havoc at " + where(curFunc, curLoc, &e));
          }
          if (e.lhs) {
            step.assigned.emplace_back(*e.lhs, writeVar(*e.lhs, v));
            setTaint(*e.lhs, inInit_ || isHarnessEdge(e));  // the entry model's choices are inputs
          }
          fr.loc = e.to;
          break;
        }
        case EdgeKind::Alloc: {
          uint64_t size = static_cast<uint64_t>(eval(e.size)) & amask_;
          uint64_t base = brk_;
          step.allocSize = size;
          uint64_t inc = ((size == 0 ? 1 : size) + 7) & ~uint64_t{7} & amask_;
          brk_ = (brk_ + inc) & amask_;
          if (e.zeroInit) mem_.zero(base, size);
          if (track_) {
            if (e.zeroInit) clearTaint(base, size);
            if (!inInit_ && !isHarnessEdge(e)) bodyBlocks_[base] = inc == 0 ? 1 : inc;
          }
          if (p_.objectBits && e.rhs) {
            Object o;
            o.size = static_cast<uint64_t>(eval(e.rhs)) & amask_;
            step.allocSize = o.size;  // e.size is the id step
            o.state = cfa::memlayout::kLive;
            o.kind = static_cast<uint8_t>(e.bytes);
            std::string file = e.range.file;
            if (auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
            std::string at = file + ":" + std::to_string(e.range.line);
            std::string name = e.lhs && *e.lhs < p_.vars.size() ? p_.vars[*e.lhs].cName : std::string();
            o.what = name.empty() ? "allocated at " + at : "`" + name + "` (" + at + ")";
            objects_[base >> p_.objectBits] = o;
          }
          if (e.lhs) {
            step.assigned.emplace_back(*e.lhs, writeVar(*e.lhs, base));
            setTaint(*e.lhs, tainted(e.size) || tainted(e.rhs));
          }
          fr.loc = e.to;
          break;
        }
        case EdgeKind::Store: {
          uint64_t addr = static_cast<uint64_t>(eval(e.addr)) & amask_;
          Value v = eval(e.value);
          for (uint32_t i = 0; i < e.bytes; ++i)
            mem_.write(addr + i, i < cfa::kMaxWidth / 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0);
          if (track_) {
            bool at = tainted(e.addr);
            bool nullChoice = isHarnessNullChoice(e);
            bool t = at || tainted(e.value) || isHarnessDepthBound(e) || nullChoice;
            if (at) wildStore_ = true;
            for (uint32_t i = 0; i < e.bytes; ++i) {
              // (the choice was the havoc just before: Builder::maybe)
              if (nullChoice && res_.nondetsUsed > 0)
                nullSlot_[(addr + i) & amask_] = res_.nondetsUsed - 1;
              else if (!nullSlot_.empty())
                nullSlot_.erase((addr + i) & amask_);
              if (t)
                mtaint_.insert((addr + i) & amask_);
              else if (!mtaint_.empty())
                mtaint_.erase((addr + i) & amask_);
            }
          }
          step.stored = std::make_pair(addr, v & maskOf(8 * e.bytes));
          fr.loc = e.to;
          break;
        }
        case EdgeKind::Call: {
          if (e.callee >= p_.functions.size() || p_.functions[e.callee].locs.empty())
            return finishAt(ReplayOutcome::Malformed, "call of a function without body");
          const cfa::Function& callee = p_.functions[e.callee];
          std::vector<Value> args;
          std::vector<char> argTaint;
          args.reserve(e.args.size());
          for (const auto& a : e.args) {
            args.push_back(eval(a));
            argTaint.push_back(tainted(a));
          }
          if (stack_.size() >= kMaxCallDepth)
            return finishAt(ReplayOutcome::DepthLimit,
                            "call depth " + std::to_string(kMaxCallDepth) + " exceeded");
          fr.loc = e.to;  // where the caller resumes
          stack_.push_back(Frame{e.callee, callee.entry, e.lhs, {}, {}});  // invalidates fr
          for (size_t i = 0; i < callee.params.size(); ++i) {
            VarId pv = callee.params[i];
            step.assigned.emplace_back(pv, writeVar(pv, i < args.size() ? args[i] : 0));
            setTaint(pv, i < argTaint.size() && argTaint[i]);
          }
          break;
        }
        case EdgeKind::Return: {
          fr.loc = e.to;
          res_.endFunc = curFunc;
          res_.endLoc = e.to;
          if (!doReturn(&step)) {  // invalidates fr
            record();
            return finish(ReplayOutcome::Terminated, "returned from " + p_.functions[entry].name);
          }
          break;
        }
        case EdgeKind::Error:
          if (e.check != cfa::CheckKind::None && !checkViolated(e))
            return finishAt(ReplayOutcome::Blocked, "check edge of " + e.property +
                                                        " taken, but its operands do not violate it");
          if (p_.objectBits && e.check != cfa::CheckKind::None) res_.violation = describeViolation(e);
          if (e.gate != cfa::ContractGate::None) res_.violation = e.text;  // a contract check
          if (track_ && !inInit_ && e.check != cfa::CheckKind::None) {
            bool t = false;
            for (const auto& a : e.args) t = t || tainted(a);
            if (t) decision(curFunc, edgeIdx);
          }
          fr.loc = e.to;
          record();
          // reached after the precondition's calls: their branches were the contract's
          if (preFlag_ && readVar(*preFlag_) != 1)
            for (size_t k = preDecisions_.size(); k-- > 0;)
              res_.inputDecisions.erase(res_.inputDecisions.begin() + static_cast<std::ptrdiff_t>(preDecisions_[k]));
          return finish(ReplayOutcome::ReachedError, "error reached at " +
                                                         where(curFunc, curLoc, &e));
        case EdgeKind::Abort:
          fr.loc = e.to;
          record();
          return finish(ReplayOutcome::Terminated, "abort at " + where(curFunc, curLoc, &e));
        case EdgeKind::Unsupported:
          return finishAt(ReplayOutcome::Unsupported, "unsupported construct");
      }
      record();
    }
  } catch (const std::exception& ex) {
    return finish(ReplayOutcome::Malformed, std::string("malformed program: ") + ex.what());
  }
}

}  // namespace

size_t replayStepLimit(const cfa::Program& p) {
  for (const cfa::Function& f : p.functions)
    for (const cfa::Edge& e : f.edges)
      if (cfa::isAccelerationCount(e)) return kAcceleratedMaxSteps;
  return 10'000'000;  // replay()'s default
}

ReplayResult replay(const cfa::Program& p, FuncId entry, const ReplayInput& in, size_t maxSteps,
                    bool recordSteps) {
  Interpreter it(p, in, maxSteps, recordSteps);
  return it.run(entry);
}

Value evalExpr(const cfa::Expr& e, const std::function<Value(VarId)>& var,
                const std::function<uint8_t(uint64_t)>& memByte, uint32_t ptrWidth) {
  auto v = [&](VarId id) -> Value { return var ? var(id) : 0; };
  auto m = [&](uint64_t a) -> uint8_t { return memByte ? memByte(a) : 0; };
  return evalRec(e, v, m, maskOf64(ptrWidth));
}

}  // namespace argus::result
