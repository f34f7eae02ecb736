// The assumption-automaton CPA: runs an input condition (result/assumption_automaton.h)
// alongside the analysis, so that only the parts an earlier run left unverified are
// explored (conditional-model-checking paper, Sect. III-C: "letting the automaton run
// in parallel to the analysis ... the exploration of a path can be stopped as soon as
// the automaton reaches the sink state").
//
// A state is an automaton state. Along a step: from the open state, the open state;
// from an ordinary state, the targets of the transitions labelled with that step; a
// step without a transition, or one into the verified sink, has no successor (that
// part was verified). Flat domain, merge-sep, stop-sep, static precision.
#pragma once

#include <memory>

#include "core/cpa/operators.h"
#include "core/result/assumption_automaton.h"

namespace argus::cpa {

class AutomatonState final : public AbstractState {
public:
  explicit AutomatonState(uint32_t q) : q(q) {}
  uint32_t q;
  bool equals(const AbstractState& o) const override;
  std::string str() const override { return "q" + std::to_string(q); }
};

class AutomatonCpa final : public FlatCpa {
public:
  // The automaton is borrowed; it must outlive the CPA.
  explicit AutomatonCpa(const result::AssumptionAutomaton& a);
  StatePtr initialState() override;

private:
  const result::AssumptionAutomaton& a_;
};

}  // namespace argus::cpa
