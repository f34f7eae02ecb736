// The callstack CPA: the stack of call sites of the current (inlined) call.
//
// CallEnter pushes the call site; a Return step is followed only if it returns to the
// call site on top of the stack. A call to a function already on the stack
// (recursion) cannot be inlined: the successor is a target of kind
// Property::Recursion without successors, so an analysis that reaches it feasibly
// answers unknown naming the call. Stacks are persistent linked lists (shared tails).
// Operators: flat domain, merge-sep, stop-sep, static precision.
#pragma once

#include <memory>

#include "core/cpa/location_cpa.h"

namespace argus::cpa {

class CallstackState final : public AbstractState {
public:
  CallstackState(std::shared_ptr<const CallstackState> below, cfa::FuncId func, cfa::FuncId caller, uint32_t callEdge,
                 bool recursion = false);
  static std::shared_ptr<const CallstackState> root(cfa::FuncId func);

  std::shared_ptr<const CallstackState> below;  // null at the bottom
  cfa::FuncId func;          // the function executing in this frame
  cfa::FuncId caller;        // kNoFunc at the bottom
  uint32_t callEdge;         // index of the Call edge in `caller`
  uint32_t depth;            // 0 at the bottom
  bool recursion;            // this frame would be a recursive call (target, no successors)
  size_t hash;

  bool onStack(cfa::FuncId f) const;
  bool equals(const AbstractState& o) const override;
  std::string str() const override;
};

class CallstackCpa final : public FlatCpa {
public:
  explicit CallstackCpa(const ControlFlow& cf);
  StatePtr initialState() override;
  bool isTarget(const AbstractState& e) const override;

private:
  const ControlFlow& cf_;
};

}  // namespace argus::cpa
