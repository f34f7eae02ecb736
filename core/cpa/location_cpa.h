// The location CPA L (program-counter tracking) and the interprocedural control flow
// it walks (see step.h: calls are inlined; returns go to every call site and the
// callstack CPA keeps the right one).
//
// A state reached through an Error edge is a target (Property::Error); one reached
// through an Unsupported edge is a target of kind Property::Unsupported and has no
// successors ("an analysis stops the path here", cfa.h). Operators: flat domain,
// merge-sep, stop-sep, static precision.
#pragma once

#include <memory>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/cpa/cpa.h"
#include "core/cpa/operators.h"

namespace argus::cpa {

// What a target state stands for. Unsupported and Recursion targets are not property
// violations: if one is reachable the analysis must not answer `true`.
enum class Property : uint8_t { None, Error, Unsupported, Recursion };
const char* propertyName(Property p);

// The steps leaving every location of a program, with the functions' reverse
// postorder (for the waitlist) and the start function (__argus_init or the entry).
class ControlFlow {
public:
  ControlFlow(const cfa::Program& prog, cfa::FuncId entry);
  const cfa::Program& program() const { return prog_; }
  cfa::FuncId entry() const { return entry_; }
  cfa::FuncId startFunc() const { return start_; }
  const std::vector<cfa::Step>& outgoing(cfa::FuncId f, cfa::LocId l) const { return out_[f][l]; }
  uint32_t reversePostorder(cfa::FuncId f, cfa::LocId l) const { return rpo_[f][l]; }
  bool isLoopHead(cfa::FuncId f, cfa::LocId l) const { return prog_.functions[f].locs[l].isLoopHead; }

private:
  const cfa::Program& prog_;
  cfa::FuncId entry_, start_;
  std::vector<std::vector<std::vector<cfa::Step>>> out_;
  std::vector<std::vector<uint32_t>> rpo_;
};

class LocationState final : public AbstractState {
public:
  LocationState(cfa::FuncId f, cfa::LocId l, Property prop = Property::None, const cfa::Edge* via = nullptr)
      : func(f), loc(l), property(prop), via(via) {}
  cfa::FuncId func;
  cfa::LocId loc;
  Property property;       // target kind (None for ordinary states)
  const cfa::Edge* via;    // the Error/Unsupported edge that led here
  bool equals(const AbstractState& o) const override;
  std::string str() const override;
};

class LocationCpa final : public FlatCpa {
public:
  explicit LocationCpa(const ControlFlow& cf);
  StatePtr initialState() override;
  bool isTarget(const AbstractState& e) const override;

private:
  const ControlFlow& cf_;
};

}  // namespace argus::cpa
