// Solver-neutral SMT terms.
//
// Terms are immutable, hash-consed DAG nodes owned by a TermManager; a `Term` is a
// cheap handle (pointer) that compares by identity, so structurally equal terms are
// the same handle. Algorithms and encodings build terms here and never see a solver
// backend: a backend (core/smt/z3, core/smt/cvc5) translates terms on demand and
// caches the translation.
//
// Constructors apply cheap local simplifications (constant folding for bit-vectors up
// to 64 bits, neutral/absorbing elements, ite with a constant condition, ...), so a
// formula over concrete values often folds to a constant before any solver runs.
//
// Thread safety: a TermManager is not thread-safe; each verification run owns one
// (or guards it with its own mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace argus::smt {

enum class SortKind : uint8_t { Bool, BV, Int, Array, FP };

class SortNode;
using Sort = const SortNode*;

class SortNode {
public:
  SortKind kind;
  uint32_t width = 0;        // BV; FP: eb + sb (the width of its IEEE bit image)
  Sort index = nullptr;      // Array only
  Sort elem = nullptr;       // Array only
  uint32_t eb = 0, sb = 0;   // FP only: exponent and significand bits (sb counts the hidden bit)
  bool isBool() const { return kind == SortKind::Bool; }
  bool isBV() const { return kind == SortKind::BV; }
  bool isInt() const { return kind == SortKind::Int; }
  bool isArray() const { return kind == SortKind::Array; }
  bool isFP() const { return kind == SortKind::FP; }
  std::string str() const;
};

enum class Kind : uint8_t {
  // leaves
  BoolConst, BVConst, IntConst, Var, ConstArray /* child: the element value */,
  // boolean
  Not, And, Or, Implies, Xor, Ite, Eq,
  // bit-vectors (signedness explicit per operation)
  BVNeg, BVNot, BVAdd, BVSub, BVMul, BVUDiv, BVSDiv, BVURem, BVSRem,
  BVAnd, BVOr, BVXor, BVShl, BVLShr, BVAShr,
  BVUlt, BVUle, BVSlt, BVSle,
  Concat, Extract /* p0 = hi, p1 = lo */, ZeroExt /* p0 = extra bits */, SignExt /* p0 */,
  // integers
  IntAdd, IntSub, IntMul, IntNeg, IntLe, IntLt,
  // arrays
  Select, Store,
  // uninterpreted function application: name is the function's name
  Apply,
  // floating point (SMT-LIB FloatingPoint theory); p0 of the rounding operations is the
  // RoundingMode. FPFromBits: IEEE bit image -> FP (exact, total). FPToBits: FP -> its
  // bit image; a NaN gives *some* NaN pattern (each FPToBits term its own, chosen by
  // the solver), every other value its unique image. FPToSBV/FPToUBV: p1 = result
  // width; unspecified out of range (callers guard them).
  FPFromBits, FPToBits, FPAdd, FPSub, FPMul, FPDiv, FPSqrt, FPRti, FPEq, FPLt, FPLe, FPIsNaN,
  FPToFP, SBVToFP, UBVToFP, FPToSBV, FPToUBV,
  FPRem /* IEEE remainder: x - y*n, n = x/y rounded to nearest even (exact, no rounding mode) */,
};

// Rounding modes of the floating-point operations.
enum class RoundingMode : uint8_t { RNE, RNA, RTP, RTN, RTZ };

const char* kindName(Kind k);

class TermNode;
using Term = const TermNode*;

class TermNode {
public:
  Kind kind;
  Sort sort;
  uint32_t p0 = 0, p1 = 0;       // Extract hi/lo, ZeroExt/SignExt amount
  uint64_t value = 0;            // BoolConst (0/1), BVConst (width <= 64)
  int64_t ivalue = 0;            // IntConst
  std::string name;              // Var, Apply
  std::vector<Term> children;
  uint64_t id = 0;               // creation order; stable within one manager

  bool isConst() const { return kind == Kind::BoolConst || kind == Kind::BVConst || kind == Kind::IntConst; }
  bool isTrue() const { return kind == Kind::BoolConst && value == 1; }
  bool isFalse() const { return kind == Kind::BoolConst && value == 0; }
  uint32_t width() const { return sort->width; }
  std::string str() const;  // SMT-LIB-like rendering, for debugging and tests
};

// True when the two index terms differ in every model: distinct constants, one
// bit-vector base plus different constant offsets (x + c1, x + c2), or constants and
// if-then-else trees of at most 8 constant leaves without a common leaf. A syntactic test;
// false means "not known".
bool provablyDistinct(Term a, Term b);
// An if-then-else tree whose leaves are all bit-vector constants (at most 8 leaves): a
// pointer that is one of a few blocks, a merged constant.
bool isConstTree(Term t);
// Splits a bit-vector index into base + constant offset: base is nullptr for a constant
// (off is its value), t itself with off 0 when t is not `x + c`.
void splitOffset(Term t, Term& base, uint64_t& off);

class TermManager {
public:
  TermManager();
  ~TermManager();
  TermManager(const TermManager&) = delete;
  TermManager& operator=(const TermManager&) = delete;

  // sorts
  Sort boolSort();
  Sort bvSort(uint32_t width);
  Sort intSort();
  Sort arraySort(Sort index, Sort elem);
  Sort fpSort(uint32_t eb, uint32_t sb);   // e.g. (8, 24) binary32, (11, 53) binary64
  // The IEEE format whose bit image has `width` bits (32 or 64; throws otherwise).
  Sort fpSortOfWidth(uint32_t width);

  // leaves
  Term boolVal(bool b);
  Term trueTerm() { return boolVal(true); }
  Term falseTerm() { return boolVal(false); }
  // Value truncated to width. A constant wider than 64 bits (up to 128, __int128) is
  // never a BVConst: it is the Concat of a high and a low BVConst of at most 64 bits
  // each, so the constant folder (64-bit arithmetic on TermNode::value) never sees it;
  // read it back with constBits().
  Term bvVal(uint64_t v, uint32_t width);
  Term bvValWide(unsigned __int128 v, uint32_t width);  // width <= 128
  Term intVal(int64_t v);
  // A named constant. The same name and sort give the same term; the same name with
  // another sort is a programming error (throws).
  Term var(const std::string& name, Sort sort);
  // A fresh constant whose name starts with `prefix` and is unique in this manager.
  Term freshVar(const std::string& prefix, Sort sort);
  Term constArray(Sort arraySort, Term elem);

  // boolean
  Term mkNot(Term a);
  Term mkAnd(Term a, Term b);
  Term mkAnd(std::span<const Term> ts);
  Term mkOr(Term a, Term b);
  Term mkOr(std::span<const Term> ts);
  Term mkImplies(Term a, Term b);
  Term mkXor(Term a, Term b);
  Term mkIte(Term c, Term t, Term e);
  Term mkEq(Term a, Term b);
  Term mkDistinct(Term a, Term b) { return mkNot(mkEq(a, b)); }

  // bit-vectors
  Term bvNeg(Term a);
  Term bvNot(Term a);
  Term bvAdd(Term a, Term b);
  Term bvSub(Term a, Term b);
  Term bvMul(Term a, Term b);
  Term bvUDiv(Term a, Term b);
  Term bvSDiv(Term a, Term b);
  Term bvURem(Term a, Term b);
  Term bvSRem(Term a, Term b);
  Term bvAnd(Term a, Term b);
  Term bvOr(Term a, Term b);
  Term bvXor(Term a, Term b);
  Term bvShl(Term a, Term b);
  Term bvLShr(Term a, Term b);
  Term bvAShr(Term a, Term b);
  Term bvUlt(Term a, Term b);
  Term bvUle(Term a, Term b);
  Term bvUgt(Term a, Term b) { return bvUlt(b, a); }
  Term bvUge(Term a, Term b) { return bvUle(b, a); }
  Term bvSlt(Term a, Term b);
  Term bvSle(Term a, Term b);
  Term bvSgt(Term a, Term b) { return bvSlt(b, a); }
  Term bvSge(Term a, Term b) { return bvSle(b, a); }
  Term concat(Term hi, Term lo);
  Term extract(Term a, uint32_t hi, uint32_t lo);
  Term zeroExt(Term a, uint32_t extra);
  Term signExt(Term a, uint32_t extra);

  // integers
  Term intAdd(Term a, Term b);
  Term intSub(Term a, Term b);
  Term intMul(Term a, Term b);
  Term intNeg(Term a);
  Term intLe(Term a, Term b);
  Term intLt(Term a, Term b);

  // arrays
  // select reads over stores at indices provablyDistinct from `index` (bounded walk).
  Term select(Term array, Term index);
  Term store(Term array, Term index, Term value);

  // floating point (operands of FP sort unless stated)
  Term fpFromBits(Term bv, Sort fp);       // bv has fp's width
  Term fpToBits(Term a);
  Term fpAdd(Term a, Term b, RoundingMode rm = RoundingMode::RNE);
  Term fpSub(Term a, Term b, RoundingMode rm = RoundingMode::RNE);
  Term fpMul(Term a, Term b, RoundingMode rm = RoundingMode::RNE);
  Term fpDiv(Term a, Term b, RoundingMode rm = RoundingMode::RNE);
  Term fpSqrt(Term a, RoundingMode rm = RoundingMode::RNE);
  Term fpRem(Term a, Term b);  // SMT-LIB fp.rem (IEEE 754 remainder, exact)
  Term fpRoundToIntegral(Term a, RoundingMode rm);
  Term fpEq(Term a, Term b);  // IEEE equality: false on NaN, -0 = +0
  Term fpLt(Term a, Term b);
  Term fpLe(Term a, Term b);
  Term fpIsNaN(Term a);
  Term fpToFP(Term a, Sort to, RoundingMode rm = RoundingMode::RNE);
  Term sbvToFP(Term bv, Sort to, RoundingMode rm = RoundingMode::RNE);
  Term ubvToFP(Term bv, Sort to, RoundingMode rm = RoundingMode::RNE);
  Term fpToSBV(Term a, uint32_t width, RoundingMode rm = RoundingMode::RTZ);
  Term fpToUBV(Term a, uint32_t width, RoundingMode rm = RoundingMode::RTZ);

  // uninterpreted functions
  Term apply(const std::string& fn, Sort result, std::span<const Term> args);

  // Replaces leaves (usually Vars) by the mapped terms, rebuilding with simplification.
  Term substitute(Term t, const std::unordered_map<Term, Term>& map);
  // Every Var occurring in t (each once).
  std::vector<Term> freeVars(Term t);

  size_t size() const;  // number of distinct terms created

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Term make(Kind k, Sort s, std::vector<Term> children, uint32_t p0 = 0, uint32_t p1 = 0,
            uint64_t value = 0, int64_t ivalue = 0, const std::string& name = {});
};

// The value of a bit-vector constant term: a BVConst, or a Concat of such (how
// bvValWide builds constants wider than 64 bits); nullopt for anything else or wider
// than 128 bits.
std::optional<unsigned __int128> constBits(Term t);
// Parses a decimal numeral of at most 128 bits (throws std::invalid_argument otherwise).
unsigned __int128 parseDecimal128(const std::string& s);

// Helpers for bit-vector constants of width <= 64.
uint64_t maskOf(uint32_t width);
int64_t toSigned(uint64_t v, uint32_t width);

}  // namespace argus::smt
