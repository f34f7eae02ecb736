// The closure of an entry function: everything verifying it can depend on.
//
// Nodes are the functions and the pieces of the two global-initialisation functions
// (Program::initParts: one per allocated global, string literal, initialiser, ...).
// A node depends on
//  * the callee of each of its Call edges (an indirect call is lowered as Call edges to
//    every function whose address is taken, so those are callees too), and
//  * every init piece that defines a variable one of its edges names (transitively:
//    a global initialiser that takes the address of another global needs that one).
// closure(p, entry) is everything reachable from the entry, plus what is always kept:
// init functions without recorded pieces (whole), and pieces whose allocation size is
// not a constant (the addresses of later globals depend on them). Nothing outside it
// can affect a verdict: no edge the entry can execute names it, and the addresses of
// the globals it keeps do not move (slice() reserves the dropped allocations' bytes).
//
// slice(p, entry) is the program restricted to the closure (functions, variables and
// init pieces renumbered in their original order); the engine verifies that, so the
// cost follows the entry, not the translation unit. closureHashes (cfa_hash.h) hashes
// the same dependency graph.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::cfa {

// The dependency graph, computed node by node (a closure touches only its own nodes):
// nodes 0..F-1 are functions (by FuncId), F.. are init pieces (by index into
// Program::initParts). Init functions that have pieces are represented by them; their
// own node has no successors.
class Dependencies {
 public:
  explicit Dependencies(const Program& p);  // O(number of init pieces)
  // What the constructor above derives from the program's edges, so that a graph can be
  // stored beside a serialized program (core/cfa/serialize.h) and rebuilt over a program
  // whose bodies are not decoded (ProgramImage): successors per node, the nodes always
  // kept, which init functions are represented by their pieces, and each piece's
  // allocation bytes (what a dropped piece leaves as a gap).
  struct Precomputed {
    std::vector<std::vector<uint32_t>> successors;  // by node
    std::vector<uint32_t> always;
    std::vector<bool> hasParts;                     // by FuncId
    std::vector<uint64_t> gaps;                     // by init piece
  };
  Dependencies(const Program& shell, Precomputed pre);  // shell: functions, vars and initParts
  Precomputed precompute() const;
  const Program& program() const { return p_; }
  uint32_t numNodes() const { return numFunctions_ + static_cast<uint32_t>(p_.initParts.size()); }
  uint32_t numFunctions() const { return numFunctions_; }
  // The node's successors (deduplicated), appended to out.
  void successors(uint32_t node, std::vector<uint32_t>& out) const;
  const std::vector<uint32_t>& alwaysKept() const { return always_; }
  // True for an init function that is represented by its pieces: they chain from its
  // entry (after at most 8 single edges outside them: a recursive entry's harness clears
  // its flag there, entry_harness.h) and cover every other edge but one Return.
  bool hasParts(FuncId f) const { return f < partsOf_.size() && !partsOf_[f].empty(); }
  const std::vector<uint32_t>& partsOf(FuncId f) const { return partsOf_[f]; }
  // The bytes the allocations of init piece `part` take (each rounded as Alloc does).
  uint64_t partGap(uint32_t part) const { return part < gaps_.size() ? gaps_[part] : 0; }

 private:
  const Program& p_;
  uint32_t numFunctions_;
  std::vector<std::pair<VarId, uint32_t>> definers_;  // (variable, piece), sorted
  std::vector<std::vector<uint32_t>> partsOf_;         // init function -> its pieces
  std::vector<uint32_t> always_;
  std::vector<uint64_t> gaps_;
  std::vector<std::vector<uint32_t>> stored_;  // precomputed successors (empty: derived from edges)
};

struct Closure {
  std::vector<bool> functions;  // by FuncId
  std::vector<bool> parts;      // by index into Program::initParts
  size_t numFunctions = 0, numParts = 0;
};

// `deps`: the dependency graph of `p` built before (a caller that slices many entries of
// one program builds it once: it costs a pass over every init piece); null = built here.
Closure closure(const Program& p, FuncId entry, const Dependencies* deps = nullptr);

// The program restricted to closure(p, entry); its entry keeps its name (find it by
// name). Counterexamples, conditions and hashes of the result refer to the slice.
std::unique_ptr<Program> slice(const Program& p, FuncId entry, const Dependencies* deps = nullptr);

// Where slice() reads the bodies (locations and edges) of the functions it keeps: the
// program itself, or a serialized image that decodes only what the closure keeps
// (ProgramImage, core/cfa/serialize.h). Everything else (names, parameters, entry model,
// entry/exit locations, variables, init pieces) comes from the `meta` program.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // A kept function that is not represented by init pieces: all its locations and edges.
  virtual const Function& body(FuncId f) const = 0;
  // An init function represented by its pieces: its edge count, an edge of a kept piece
  // (or its final Return), and the source range of a location such an edge touches.
  virtual uint32_t numEdges(FuncId f) const = 0;
  virtual const Edge& edge(FuncId f, uint32_t k) const = 0;
  virtual const SourceRange& locRange(FuncId f, LocId l) const = 0;
};
std::unique_ptr<Program> slice(const Program& meta, FuncId entry, const Dependencies& deps, const BodySource& bodies);

// Issue 29 item 1: for every function (by FuncId), whether its closure holds no Error and
// no Unsupported edge, i.e. whether the engine answers it `true` at once as an entry ("no
// error call or assertion in f or anything it calls"; an Unsupported edge could hide one,
// an indirect call with no possible target is one). One pass over the dependency graph:
// the nodes that hold such an edge, and everything that depends on them, are marked; a
// marked node that every closure keeps marks all. `argus project` routes with it (a
// function answered at once needs no worker); the engine's own check on the slice decides.
std::vector<bool> closuresWithoutChecks(const Program& p);

// The variables an edge names (lhs and every Var in its expressions), unsorted.
void edgeVars(const Edge& e, std::vector<VarId>& out);

}  // namespace argus::cfa
