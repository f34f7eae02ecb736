// SSA path formulas (unifying-view paper, Sect. 2: skolemised strongest post with SSA
// indices), the encoding the predicate CPA and the refiners share.
//
// A PathFormula is immutable: a Boolean term over *indexed* variables plus the SSA
// map giving each tracked value's current index. Tracked values (SsaKey) are the
// register variables, the byte memory (an SMT array) and the allocator pointer brk.
// The indexed variable of key k at index i is the SMT constant "name@i" ("$mem@i",
// "$brk@i"); the *unindexed* one ("name", "$mem", "$brk") is how abstraction formulas
// and predicates name the current value. Index 0 means "value at the start, unknown".
//
// extend(pf, step) adds one step of the inlined program (see core/cfa/step.h):
// assignments become equations x@(i+1) = e (so that a refiner can drop them, as the
// Newton refinement needs), havoc/nondet gives a fresh index without a constraint,
// assumptions become conjuncts. Semantics follow core/algorithms/bmc/unwinding.cpp,
// which encodes the same edges for BMC (the edge encoding is duplicated there; a later
// refactoring should let the unwinding call this class). Differences: an Alloc with
// zero-initialisation of non-constant size havocs the whole memory here (a sound
// over-approximation; the replay check rejects any spurious path it allows), where
// BMC reports it as unsupported; calls get fresh indices for all callee locals.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/cfa/step.h"
#include "core/encoding/expr_encoder.h"
#include "core/smt/term.h"

namespace argus::encoding {

using SsaKey = uint32_t;                    // a VarId, or one of:
constexpr SsaKey kMemKey = UINT32_MAX - 1;  // the byte memory
constexpr SsaKey kBrkKey = UINT32_MAX - 2;  // the allocator pointer

// The indices, persistent: a map derived from another by `with` shares its bulk (a base
// map behind a shared pointer) and holds its own changes in a small delta, merged into a
// new base once the delta reaches about the square root of the base's size. A path
// through SQLite's initialisation of 10,000 globals copied the whole map at each of its
// assignments (quadratic: a quarter of a predicate-analysis run went into those copies).
class SsaMap {
public:
  uint32_t index(SsaKey k) const {
    if (auto it = delta_.find(k); it != delta_.end()) return it->second;
    if (base_)
      if (auto it = base_->find(k); it != base_->end()) return it->second;
    return 0;
  }
  SsaMap with(SsaKey k, uint32_t idx) const {
    SsaMap r = *this;
    r.set(k, idx);
    return r;
  }
  void set(SsaKey k, uint32_t idx);  // in place (a map no one else holds)
  // Every entry in key order (a merged copy: O(size)).
  std::map<SsaKey, uint32_t> entries() const;
  size_t hash() const { return hash_; }  // independent of how the entries are stored
  bool operator==(const SsaMap& o) const;

private:
  std::shared_ptr<const std::map<SsaKey, uint32_t>> base_;
  std::map<SsaKey, uint32_t> delta_;  // entries set since base_ (over it)
  size_t hash_ = 0;                   // xor of one mixed hash per entry
};

struct PathFormula {
  smt::Term formula = nullptr;
  std::shared_ptr<const SsaMap> ssa;
  bool operator==(const PathFormula& o) const {
    return formula == o.formula && (ssa == o.ssa || *ssa == *o.ssa);
  }
  size_t hash() const { return std::hash<const void*>{}(formula) ^ (ssa->hash() * 31); }
};

class PathFormulaManager {
public:
  PathFormulaManager(const cfa::Program& prog, smt::TermManager& tm);

  smt::TermManager& tm() { return tm_; }
  const cfa::Program& program() const { return prog_; }

  PathFormula empty() const;                 // true, all indices 0
  PathFormula emptyWithSsa(const PathFormula& pf) const;  // true, pf's indices
  PathFormula extend(const PathFormula& pf, const cfa::Step& step);
  // Disjunction of two path formulas of the same block: the result's indices are the
  // maxima; the side with a lower index gets x@max = x@low (ABE merge).
  PathFormula makeOr(const PathFormula& a, const PathFormula& b);
  // With factoring on, makeOr pulls the top-level conjuncts both sides share (the
  // common prefix of the two paths) out of the disjunction: P ∧ (A ∨ B) instead of
  // (P ∧ A) ∨ (P ∧ B). Equivalent; over a whole unrolled program (BMC as a CPA
  // configuration) the unfactored nesting made Z3's queries blow up. Off by default
  // (predicate abstraction's blocks and refinements are measured without it).
  void setFactorMerges(bool on) { factorMerges_ = on; }
  // The conjunction of pf with a formula over the same indices.
  PathFormula conjoin(const PathFormula& pf, smt::Term f) const;

  // Variables.
  smt::Term indexed(SsaKey k, uint32_t idx);
  smt::Term current(SsaKey k, const SsaMap& ssa) { return indexed(k, ssa.index(k)); }
  smt::Term unindexed(SsaKey k);
  // Replaces unindexed variables by their indexed versions at `ssa`.
  smt::Term instantiate(smt::Term f, const SsaMap& ssa);
  // Replaces indexed variables by unindexed ones.
  smt::Term uninstantiate(smt::Term f);
  struct VarInfo {
    SsaKey key;
    uint32_t index;
    bool indexed;
  };
  // Information about a variable term created by this manager (null if foreign).
  const VarInfo* info(smt::Term var) const;

  // brk at the program start: heapBase (a formula over unindexed variables).
  smt::Term initialCondition();
  ExprEncoder& encoder() { return enc_; }

private:
  std::string keyName(SsaKey k) const;
  smt::Sort keySort(SsaKey k);
  uint32_t bump(SsaMap& ssa, SsaKey k);

  const cfa::Program& prog_;
  smt::TermManager& tm_;
  ExprEncoder enc_;
  std::vector<std::vector<cfa::VarId>> localsOf_;  // per function: its register variables
  std::unordered_map<smt::Term, VarInfo> info_;
  std::unordered_map<uint64_t, smt::Term> indexedCache_;
  std::unordered_map<SsaKey, smt::Term> unindexedCache_;
  std::shared_ptr<const SsaMap> emptySsa_;
  bool factorMerges_ = false;
};

// The top-level conjuncts of f (nested Ands flattened).
std::vector<smt::Term> conjuncts(smt::Term f);
// The atoms of a Boolean formula (maximal non-Boolean-connective subterms; constants
// and Boolean variables excluded).
std::vector<smt::Term> atoms(smt::Term f);

}  // namespace argus::encoding
