// Bit-precise encoding of CFA expressions and the flat memory model into SMT terms.
//
// Semantics are exactly those documented in core/cfa/expr.h (the concrete interpreter
// in core/result/replay.h implements the same ones; tests compare both). Memory is an
// SMT array from pointer-width bit-vectors to bytes; multi-byte accesses are
// little-endian concatenations of byte selects.
#pragma once

#include <functional>
#include <unordered_map>
#include <utility>

#include "core/cfa/expr.h"
#include "core/smt/ranges.h"
#include "core/smt/term.h"

namespace argus::encoding {

// The values an expression is evaluated against.
struct Env {
  std::function<smt::Term(cfa::VarId)> var;  // current value of a register variable
  smt::Term mem = nullptr;                   // current memory
};

class ExprEncoder {
public:
  // zeroPageEnd: reads below it are zero (cfa::zeroPageEnd; 0 = none); at constant
  // addresses only, without symbolicZeroPage (see readByte)
  ExprEncoder(smt::TermManager& tm, uint32_t ptrWidth, uint64_t zeroPageEnd = 0, bool symbolicZeroPage = true);

  smt::Term encode(const cfa::ExprPtr& e, const Env& env);
  // bv != 0 as a Boolean term
  smt::Term nonZero(smt::Term bv);

  smt::Sort memSort() const { return memSort_; }
  // A load reads each byte with readByte.
  smt::Term load(smt::Term mem, smt::Term addr, uint32_t bytes);
  // The byte of `mem` at `addr`, with the array reads resolved where that is cheap
  // (issue 21, eureka_01-1: a few int arrays initialised by constant lists and read
  // at symbolic indices; Z3 spent > 10 s per bound on selects over chains of ~900
  // byte stores below if-then-else merges of memories):
  //  - a store at an index provablyDistinct from addr is skipped, one at addr itself
  //    gives its value, a store at a constant index that a store above it shadows is
  //    skipped;
  //  - so is a store whose index's value ranges (smt::ValueRanges) do not meet addr's,
  //    and a whole stretch of stores at constant indices (ConstSegment) whose span does
  //    not (issue 29: `p->aVar[i-1].z` with p->aVar a harness object lies at or above
  //    that object, so the globals' initialiser stores below it are not its cases);
  //  - any other store at index j becomes ite(addr = j, value, read below), at most
  //    kExpandStores of them per walk and kExpandBudget in all (per encoder), so that
  //    programs whose addresses are all symbolic keep the terms small;
  //  - a run of at least kMinRun stores of the same value term at consecutive constant
  //    indices lo..hi (a zero-initialised global array, a memset) becomes one case
  //    ite(lo <= addr <= hi, value, read below) (issue 21, github_1590-generic: a read
  //    at a symbolic index into a 1024-byte zeroed buffer was 1024 cases, the last 512
  //    of them a select over the rest of the chain); so does a run of at least
  //    kMinSymbolicRun stores at consecutive offsets b+lo..b+hi of one symbolic base b
  //    (a memset through a pointer), as
  //    ite(addr - (b+lo) <= hi - lo, value, read below) (issue 29: SQLite's debug
  //    memset(p, 0xaa, 128) of a freed lookaside slot made every later read through
  //    an unrelated pointer 128 cases per byte);
  //  - a store at the very index term of a store above it is skipped (its case came
  //    first);
  //  - an if-then-else of memories (the unwinding's merges) becomes an if-then-else of
  //    the reads of both sides (memoised per memory and address);
  //  - whatever remains (an array variable, a chain beyond the limits) is an SMT select.
  // Each step is an equivalence of the array theory, so the term equals select(mem,
  // addr) in every model; only its shape changes. The one exception is the zero page
  // (cfa::zeroPageEnd, issue 29): a read at an address below zeroPageEnd is 0 — at once
  // for a constant address (and each constant of an if-then-else of constants) and for
  // an address whose value ranges lie below it, as ite(addr < end, 0, read) for any
  // other (the read then compared only with stores that can lie above) — whatever was
  // stored there. On SQLite, a
  // nullable field read as `p->db->mutex` took, with `db` null, a pointer from the
  // arbitrary bytes at address 24, and every read through it was compared with every
  // store of the closure (sqlite3BtreeGetAutoVacuum: no answer in 25 s; now its latent
  // findings in 0.07 s). Predicate analysis' path formulas fold only the constant
  // addresses (symbolicZeroPage false): the if-then-else at every symbolic read made its
  // abstraction queries under cvc5 exceed 60 s on the atexit cases of
  // test_constructs.cpp. A path of pred's that reads the zero page at a symbolic address
  // where something was stored reads the stored byte there, the replay reads 0: it does
  // not replay (unknown, never `false`); a proof of pred's can miss that zero, on a path
  // a real run crashes on before (a store through a null pointer).
  smt::Term readByte(smt::Term mem, smt::Term addr);
  static constexpr size_t kExpandStores = 512;
  static constexpr size_t kMinRun = 4;
  // On a symbolic base only runs longer than any scalar (a memset, not `p->next = NULL`):
  // a range case for the 4 or 8 zero bytes of a scalar store made Z3 slower than their
  // equalities (list-ext_1: solver 22 s -> 35 s).
  static constexpr size_t kMinSymbolicRun = 17;
  static constexpr size_t kWalkSteps = 8192;
  static constexpr size_t kExpandBudget = 1 << 18;
  smt::Term store(smt::Term mem, smt::Term addr, smt::Term value, uint32_t bytes);
  // Bytes an allocation of `size` advances brk by: max(size, 1) rounded up to 8.
  smt::Term allocStep(smt::Term size);
  // An allocation of `size` bytes at the break `brk`: the block's base (= brk), the
  // break after it, and the condition that it does not wrap around the address space
  // (nullptr when a constant size below 2^(ptrWidth-2) cannot make it wrap).
  struct Allocation {
    smt::Term base = nullptr, next = nullptr, noWrap = nullptr;
  };
  Allocation allocate(smt::Term brk, smt::Term size);
  // `mem` with the `size` bytes from `base` set to zero; nullptr when `size` is not a
  // constant or exceeds 1 MiB (the caller decides what the contents are then).
  smt::Term zeroFill(smt::Term mem, smt::Term base, smt::Term size);
  static bool canZeroFill(const smt::Term& size);  // zeroFill gives a term
  // For a size that is not a constant: `mem` with the bytes base + i, i < min(size,
  // kSymbolicZeroFill), set to zero (one store per byte, each guarded by i < size), and
  // `fits` = size <= kSymbolicZeroFill. The term is the exact zero fill only under `fits`.
  static constexpr uint64_t kSymbolicZeroFill = 16;
  struct BoundedFill {
    smt::Term mem = nullptr, fits = nullptr;
  };
  BoundedFill zeroFillBounded(smt::Term mem, smt::Term base, smt::Term size);
  uint32_t ptrWidth() const { return ptrWidth_; }
  smt::TermManager& tm() { return tm_; }

private:
  // `where`: the values addr can take here (ranges_, less the zero page once its
  // if-then-else has taken it)
  smt::Term readByte(smt::Term mem, smt::Term addr, unsigned depth, const smt::Ranges& where);
  // The stores at constant indices from `m` down to `bottom` (lo..hi: their indices).
  struct ConstSegment {
    smt::Term bottom = nullptr;
    uint64_t lo = 1, hi = 0;
  };
  const ConstSegment& constSegment(smt::Term m);
  bool segmentMeets(smt::Term m, const smt::Ranges& where) {
    const ConstSegment& s = constSegment(m);
    return s.lo <= s.hi && smt::ValueRanges::meet(where, {{s.lo, s.hi}});
  }
  std::unordered_map<smt::Term, ConstSegment> segments_;
  smt::ValueRanges ranges_;
  // When `m` (a store) starts a run of >= kMinRun stores of its value at consecutive
  // indices base+lo .. base+hi (base nullptr: constants lo..hi), the result is the
  // memory below the run; otherwise nullptr.
  smt::Term storeRun(smt::Term m, smt::Term& base, uint64_t& lo, uint64_t& hi) const;
  smt::Term fp(smt::Term bits);
  struct PairHash {
    size_t operator()(const std::pair<smt::Term, smt::Term>& p) const {
      return std::hash<const void*>{}(p.first) * 31 ^ std::hash<const void*>{}(p.second);
    }
  };
  std::unordered_map<std::pair<smt::Term, smt::Term>, smt::Term, PairHash> reads_;
  size_t expanded_ = 0;  // ite cases made by readByte so far
  uint64_t zeroPageEnd_ = 0;
  bool symbolicZeroPage_ = true;
  smt::TermManager& tm_;
  uint32_t ptrWidth_;
  smt::Sort memSort_;
};

}  // namespace argus::encoding
