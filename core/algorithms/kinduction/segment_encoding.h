// The loop-head-to-loop-head segments of the inlined program (flat_program.h) as
// formulas: the encoding shared by the k-induction step case (kinduction.h) and kIkI
// (kiki.h).
//
// States s_0, s_1, ... are symbolic states at loop heads: every flat register variable,
// the memory and the allocation pointer are fresh constants, plus a 32-bit "pc" naming
// the loop head (FlatProgram::cuts index). Segment i starts in s_i at the loop head pc_i
// (or, with rootStart and i == 0, at the program start when pc_0 == rootPc()) and follows the
// loop-free graph to the next loop head; the state it arrives in is s_{i+1}. Its
// formulas:
//  - reach(i): the segment arrives at some loop head; then s_{i+1} and pc_{i+1} are
//    that arrival (the defining constraints "arrival at c => pc_{i+1} == c and
//    s_{i+1} == merged values" are passed to `add` when the segment is encoded);
//  - err(i): the segment takes an Error or Unsupported edge (an unsupported construct
//    counts as bad: the path may go on to an error).
// Abort edges end a path. Paths ending in an error or unsupported edge do not continue.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/algorithms/kinduction/affine_invariants.h"
#include "core/algorithms/kinduction/flat_program.h"
#include "core/encoding/expr_encoder.h"
#include "core/smt/term.h"

namespace argus::algorithms {

struct SegState {
  std::shared_ptr<const std::vector<smt::Term>> vars;  // per flat variable
  smt::Term mem = nullptr, brk = nullptr;
};

class SegmentEncoding {
public:
  // Throws std::logic_error when a cycle has no loop head.
  SegmentEncoding(const FlatProgram& fp, smt::TermManager& tm, bool rootStart = false);

  // The pc value "at the program start" (only meaningful with rootStart).
  uint32_t rootPc() const { return static_cast<uint32_t>(fp_.cuts.size()); }

  std::vector<SegState> states;  // s_0, s_1, ...
  std::vector<smt::Term> pcs;    // pc of each state (32-bit)
  std::vector<smt::Term> errs;   // per encoded segment
  std::vector<smt::Term> reaches;
  // Called for each new state (its index), after it was created.
  std::function<void(size_t)> onNewState;

  // Encodes segment errs.size() (from the last state) and creates the next state; its
  // defining constraints go to `add`.
  void encodeNext(const std::function<void(smt::Term)>& add);
  // Creates s_0 (call once, after setting onNewState).
  void start();
  // The affine equalities in state i: for each loop head c with equalities,
  // pc_i == c => each sum(coeff * var) == rhs in its width's wrap-around arithmetic.
  smt::Term affineAt(const AffineInvariant& inv, size_t i);

  smt::TermManager& tm() { return tm_; }
  encoding::ExprEncoder& encoder() { return enc_; }

private:
  const FlatProgram& fp_;
  const cfa::Program& prog_;
  smt::TermManager& tm_;
  encoding::ExprEncoder enc_;
  bool rootStart_;
  std::vector<uint32_t> order_;  // topological order of the segment DAG

  smt::Term freshState(SegState& s, const std::string& tag);
  void addState();
  smt::Term value(const SegState& s, uint32_t inst, cfa::VarId v);
  void set(SegState& s, uint32_t inst, cfa::VarId v, smt::Term t);
  std::pair<smt::Term, SegState> transfer(const FlatEdge& fe, smt::Term act, const SegState& in);
  SegState merge(std::vector<std::pair<smt::Term, SegState>>& posts);
};

}  // namespace argus::algorithms
