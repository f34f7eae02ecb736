// The explicit-value CPA (conditional-model-checking paper, Sect. IV: "explicit-value
// analysis, which keeps track of integer values explicitly"; no merge, stop-sep).
//
// A state maps register variables to concrete bit-vector values; a variable without
// an entry is "top" (any value). The same for the allocator pointer `brk` and for the
// bytes of the flat memory: a byte without an entry may hold anything. Expression
// evaluation uses the concrete interpreter's helpers (core/result/replay.h), so
// wraparound, division by zero and shifts are bit-for-bit the semantics of
// core/cfa/expr.h; an operation whose operand is top yields top.
//
// Transfer (per step, see step.h):
//  - Assign: lhs := value of rhs (or top); Havoc: lhs := top;
//  - Assume: blocked iff the condition evaluates to a known value of the wrong truth;
//    an equality `v == c` (or `v != c` on the negative branch) with v top sets v := c;
//  - Alloc: lhs := brk, brk += align8(max(size,1)) (top when brk or size is top);
//    zeroInit of a known block up to kMaxTrackedZeroInit bytes records zero bytes;
//  - Store: known address and value: the bytes; known address, unknown value: those
//    bytes become top; unknown address: every byte becomes top;
//  - CallEnter: the callee's own variables become top, then its parameters get the
//    arguments' values; Return: the call's lhs := the callee's return variable (top
//    for a void callee); Start: the entry's parameters are top.
// The initial state knows nothing except brk = Program::heapBase (the global
// initialisation function assigns the globals before the entry runs).
//
// Domain: e ⊑ e' iff every fact of e' (variable value, brk, memory byte) is also a
// fact of e. Operators: merge-sep, stop-sep, static precision.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/cpa/location_cpa.h"
#include "core/cpa/monitor_cpa.h"

namespace argus::cpa {

constexpr uint64_t kMaxTrackedZeroInit = 4096;  // bytes; larger zeroed blocks are left unknown

class ExplicitState final : public AbstractState, public AssumptionSource {
public:
  using Vars = std::vector<std::pair<cfa::VarId, uint64_t>>;  // sorted by VarId
  using Memory = std::map<uint64_t, uint8_t>;                  // known bytes

  std::shared_ptr<const Vars> vars;
  std::optional<uint64_t> brk;
  std::shared_ptr<const Memory> mem;
  size_t hash = 0;
  // Overflow monitoring (ExplicitCpa::monitorArithmetic): the step into this state did
  // something the analysis cannot track soundly or precisely; the assumption storage
  // excludes the state with this text ("" = nothing).
  std::string issue;
  PathLimit issueKind = PathLimit::None;
  const std::string& excludingAssumption() const override { return issue; }
  PathLimit excludingKind() const override { return issueKind; }

  std::optional<uint64_t> value(cfa::VarId v) const;
  bool equals(const AbstractState& o) const override;
  std::string str() const override;
  // every fact of `weaker` holds in this state
  bool entails(const ExplicitState& weaker) const;
};

// Overflow monitoring (conditional-model-checking paper, "CPA for Overflow
// Monitoring", adapted to explicit values; on when monitorArithmetic): the successor of
//  - an assignment `x := a op b` (op +, -, *) with x a signed variable, both operands
//    known and signed (signed variables, sign extensions or constants) whose exact
//    result does not fit x's width (a signed overflow: undefined in C; the analysis
//    would otherwise go on with the wrapped value), and
//  - a step whose assignment or condition contains a multiplication, division or
//    remainder of two non-constant operands that the analysis cannot evaluate (its
//    value becomes unknown: non-linear arithmetic explicit values cannot track)
// carries an issue ("the path through main.c:14 where x*y is non-linear"), which the
// assumption storage turns into an excluding assumption: the path is cut there and
// the rest goes on. The ExplicitState with an issue differs from the same values
// without one.
class ExplicitCpa final : public ConfigurableProgramAnalysis {
public:
  explicit ExplicitCpa(const cfa::Program& prog, bool monitorArithmetic = false);
  ~ExplicitCpa() override;
  AbstractDomain& domain() override;
  TransferRelation& transfer() override;
  MergeOperator& merge() override { return merge_; }
  StopOperator& stop() override;
  PrecisionAdjustment& precisionAdjustment() override { return prec_; }
  StatePtr initialState() override;
  PrecisionPtr initialPrecision() override { return NoPrecision::get(); }

private:
  struct Ops;
  std::unique_ptr<Ops> ops_;
  MergeSep merge_;
  StaticPrecision prec_;
};

}  // namespace argus::cpa
