// The program with every call inlined: one graph of (call instance, location) nodes
// over instance-specific variables, for the k-induction step case and the interval
// invariant generator.
//
// Instance 0 is the initialisation function (__argus_init for main, __argus_init_nondet
// otherwise); at its exit a Start edge enters the entry function with nondeterministic
// parameters. Each Call edge of an instance creates one callee instance (the call tree
// is finite because recursive programs are rejected; the engine inlines recursion up
// to a depth first, core/cfa/recursion.h). The entry edge of a callee
// havocs all its locals and then assigns the parameters; the return edge assigns the
// caller's lhs from the callee's return variable.
//
// Error and Unsupported edges are kept (to their target locations); the step case
// treats both as bad. Edges into dead ends (core/cfa/dead_ends.h: no error or
// unsupported edge is reachable from there) are left out.
//
// Cut points are the loop heads of the per-function DFS (the same ones the unwinding
// counts): every cycle of the flat graph passes through one. Their order defines the
// "pc" values of the step case.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::algorithms {

using FlatVar = uint32_t;  // index into FlatProgram::vars

struct FlatVarInfo {
  cfa::VarId var;
  int inst;  // -1 for globals
  uint32_t width;
  bool isSigned;
};

struct FlatEdge {
  enum class Kind : uint8_t { Cfa, CallEnter, Return, Start };
  Kind kind = Kind::Cfa;
  uint32_t from = 0, to = 0;  // flat nodes
  const cfa::Edge* edge = nullptr;  // Cfa: the edge; CallEnter: the Call edge; Return: the Call edge
  uint32_t inst = 0;          // instance the edge's expressions are evaluated in (caller for CallEnter/Return)
  uint32_t calleeInst = 0;    // CallEnter / Return: the callee instance
};

struct FlatNode {
  uint32_t inst;
  cfa::LocId loc;
  std::vector<uint32_t> out, in;  // FlatProgram::edges indices
  int cut = -1;                   // index into FlatProgram::cuts, or -1
};

struct FlatInstance {
  cfa::FuncId func;
  int parent = -1;
  const cfa::Edge* callEdge = nullptr;
};

struct FlatProgram {
  const cfa::Program* prog = nullptr;
  cfa::FuncId entry = 0;
  std::vector<FlatInstance> instances;
  std::vector<FlatNode> nodes;
  std::vector<FlatEdge> edges;
  std::vector<FlatVarInfo> vars;
  std::vector<uint32_t> cuts;  // nodes that are cut points (loop heads)
  uint32_t root = 0;
  // Not usable for the step case (recursion, too large): why.
  std::string unusable;

  // Flat variable of register variable v in instance inst.
  FlatVar varOf(uint32_t inst, cfa::VarId v) const;
  std::vector<std::vector<FlatVar>> localIndex;  // per instance: VarId -> FlatVar (UINT32_MAX if none)
  std::vector<FlatVar> globalIndex;              // VarId -> FlatVar
  // Locals of an instance's function (without parameters), havocked on entry.
  std::vector<std::vector<FlatVar>> instLocals;
  // "file:line in function" for a node, with the call chain for inlined instances.
  std::string describe(uint32_t node) const;
  std::string varName(FlatVar v) const;  // C name (with the function for locals)
};

// Builds the flat graph of `prog` for entry `entry`; maxNodes limits its size.
std::shared_ptr<const FlatProgram> buildFlatProgram(const cfa::Program& prog, cfa::FuncId entry,
                                                    size_t maxNodes = 200000);

}  // namespace argus::algorithms
