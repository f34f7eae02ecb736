// A step of the program's interprocedural control flow, as the CPAs, the path formulas
// and the assumption automata see it.
//
// Function calls are inlined by the analysis: a Call edge of a CFA becomes a
// CallEnter step into the callee's entry; the callee's exit location has one Return
// step back to every call site of that function (the callstack CPA keeps only the one
// matching the top of the stack); the initialisation function's exit has a Start step
// into the entry function (whose parameters are nondeterministic). Every other step is
// one intra-procedural CFA edge.
#pragma once

#include <cstdint>
#include <string>

#include "core/cfa/cfa.h"

namespace argus::cfa {

enum class StepKind : uint8_t { Edge, CallEnter, Return, Start };

struct Step {
  StepKind kind = StepKind::Edge;
  FuncId func = kNoFunc;    // Edge/CallEnter: the function owning `edge`; Return: the callee
  uint32_t edge = 0;        // Edge/CallEnter: edge index in func; Return: the Call edge index in `caller`
  FuncId caller = kNoFunc;  // Return only
  FuncId toFunc = kNoFunc;  // target function
  LocId toLoc = 0;          // target location

  // The CFA edge this step executes (Call edge for CallEnter and Return), or null (Start).
  const Edge* cfaEdge(const Program& p) const {
    switch (kind) {
      case StepKind::Edge:
      case StepKind::CallEnter: return &p.functions[func].edges[edge];
      case StepKind::Return: return &p.functions[caller].edges[edge];
      case StepKind::Start: return nullptr;
    }
    return nullptr;
  }
  bool operator==(const Step&) const = default;
  std::string str(const Program& p) const;  // e.g. "call f", for traces and tests
};

}  // namespace argus::cfa
