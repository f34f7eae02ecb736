// A bounded unwinding of a Program into a DAG, encoded incrementally into SMT.
//
// Nodes are keyed by (call instance, location, iteration counts of the loops that
// contain the location). A loop's count rises by one on each back edge and is reset
// when its head is entered from outside; calls are inlined (one instance per calling
// node), and recursion depth counts like loop iterations. An edge that would exceed
// the bound k is a *cut*: it is recorded, not explored. Every cycle of the CFA contains
// a back edge whose loop body contains the whole cycle, so every path is either
// explored or cut: if no cut is reachable (the forward condition), the unwinding
// covers every execution.
//
// Encoding (Günther & Weissenbacher, "Incremental bounded software model checking"):
// every node v has an activation term a_v (a feasible path reaches v). A node with one
// predecessor edge gets a_v = a_u ∧ γ and the predecessor's post-state directly; a node
// whose predecessors are all known gets a_v = ⋁ taken_i and ite-merged values. A node
// that may gain predecessors when the bound grows (a loop-exit target) gets a fresh variable
// a_v with a_v ⇔ (p_v ∨ ⋁ taken_i), fresh SSA variables x_v with taken_i ⇒ x_v = x_i
// for the variables that can differ, and a proxy p_v that is assumed false ("dangling")
// in every check. extend() raises the bound by exploring the cuts: new edges into an
// existing merge node v are added through p_v ⇔ (⋁ taken_new ∨ p_w), with p_w the new
// dangling proxy — nothing is rebuilt and the solver keeps its state.
//
// Call depth (issue 29 item 6): with setMaxCallDepth(d), a call nested deeper than d
// below the entry (the entry's own calls are depth 1) is not expanded; it is a *depth
// cut*: recorded like a cut (the forward condition sees it, so the answer is never
// `true` while one is reachable) but never explored by raising k. BMC chooses d from
// the node budget before it builds the unwinding (unwinding_estimate.h).
//
// Globals beyond the call depth: with a depth limit d, an initialisation piece
// (Program::initParts: a global's allocation, its initialiser, a string literal) that no
// function expanded within depth d needs (cfa::Dependencies, the same graph the entry's
// slice is cut by) is not unwound: its allocations become one gap of the same size, as
// slice() does for what lies outside the closure, so every kept address stays where it
// was, and its bytes stay nondeterministic. No expanded edge names such a global, and a
// depth cut ends its path, so no check sees the difference; a counterexample is replayed on
// the whole program. Only pieces with no nondeterministic choice are dropped (the
// replay's inputs stay in step). On SQLite a one-level-deep unwinding of a five-line
// function carried 19,000 initialiser stores of globals only its deeper callees use.
//
// Calls that cannot matter (issue 29 item 1, cone of influence): a call whose callee's
// closure has no error, unsupported, abort, havoc, store, allocation or free edge and
// assigns no global, and whose result is dead (or absent), cannot influence a check:
// it is not unwound but passed over like a Blank edge. That over-approximates the call
// (an execution in which the callee does not return continues as well), so a `true`
// stays sound, and a counterexample through it is replayed with the real callee.
//
// Dead ends (core/cfa/dead_ends.h): an edge into a location from which no error,
// unsupported construct or other check is reachable is not explored, like an Abort edge:
// no execution through it can reach a check, so neither the error query nor the forward
// condition needs it (a program's own `exit` that loops forever is not unrolled).
//
// The formula for errors, cuts and unsupported constructs is exposed as lists of
// Boolean terms; algorithms (bmc.cpp) decide what to ask.
#pragma once

#include <algorithm>
#include <array>
#include <stdexcept>
#include <chrono>
#include <deque>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/encoding/expr_encoder.h"
#include "core/smt/solver.h"
#include "core/smt/term.h"

namespace argus::algorithms {

struct LoopInfo;  // per-function loop structure (unwinding.cpp)
}  // namespace argus::algorithms
namespace argus::cfa {
struct DeadEnds;
}
namespace argus::algorithms {

// The loop structure the unwinding counts iterations by: per edge, whether it is a
// back edge of the DFS from the function's entry; per location, the heads of the
// natural loops that contain it (sorted). bound_condition.cpp expresses the bound as
// an assumption automaton with exactly these counts.
struct LoopStructure {
  std::vector<bool> backEdge;
  std::vector<std::vector<cfa::LocId>> loopsOf;
};
LoopStructure loopStructure(const cfa::Program& prog, const cfa::Function& f);

// Per function: its closure has no error, unsupported, abort, havoc, store, allocation
// or free edge and assigns no global, so a call of it cannot influence a check.
std::vector<bool> noEffectFunctions(const cfa::Program& prog);

class Unwinding {
public:
  // entry: the function verified; when it is "main" the program starts with
  // __argus_init, otherwise with __argus_init_nondet and nondeterministic parameters.
  // incremental: merge nodes get proxies so the bound can be raised later (ibmc);
  // otherwise merges are plain ite terms and the unwinding is built once (bmc).
  Unwinding(const cfa::Program& prog, cfa::FuncId entry, smt::TermManager& tm, bool incremental);
  ~Unwinding();

  // Explores everything reachable within bound k (first call) or raises the bound to
  // k (later calls; k must grow). New constraints are handed to `sink` (usually
  // Solver::add). Throws DeadlineExceeded when the deadline passes.
  void unwindTo(uint32_t k, const std::function<void(smt::Term)>& sink);
  uint32_t bound() const { return bound_; }

  struct Marked {
    smt::Term taken;          // Boolean: this edge is taken on a feasible path
    uint32_t node;            // source node
    const cfa::Edge* edge;    // CFA edge (null for recursion cuts)
    cfa::FuncId func;
  };
  const std::vector<Marked>& errors() const { return errors_; }
  std::vector<Marked> currentCuts() const;       // cuts not yet explored
  // Nodes where a path ends other than at an error, a cut or an unsupported construct
  // (the entry returns, an abort, a dead end follows): with none of them reachable, and
  // no error, cut or unsupported construct either, no execution gets through the entry's
  // assumptions (a precondition the entry model cannot meet).
  std::vector<Marked> pathEnds() const;
  const std::vector<Marked>& unsupported() const { return unsupported_; }
  // Proxies that must be assumed false in every check (the dangling ones).
  std::vector<smt::Term> danglingAssumptions() const;

  size_t nodeCount() const { return nodes_.size(); }

  // Calls nested deeper than d below the entry are depth cuts (default: no limit).
  // Set before the first unwindTo.
  void setMaxCallDepth(uint32_t d) { maxCallDepth_ = d; }
  uint32_t maxCallDepth() const { return maxCallDepth_; }
  // Depth cuts recorded so far (reachable or not): 0 means the depth limit cut nothing.
  size_t depthCutCount() const { return depthCuts_; }
  // Initialisation pieces not unwound because no function within the depth limit needs them.
  size_t droppedInitParts() const { return droppedParts_; }
  // Calls passed over because they cannot influence a check.
  size_t skippedCalls() const { return skippedCalls_; }
  // Cuts a larger bound would explore (loop iterations, recursion): none means raising
  // k changes nothing.
  size_t boundCutCount() const {
    return static_cast<size_t>(std::count_if(cuts_.begin(), cuts_.end(), [](const Cut& c) { return !c.depth; }));
  }

  // A path through the unwinding, read from a model.
  struct PathStep {
    cfa::FuncId func;
    uint32_t edge;            // index into Function::edges
  };
  struct ModelPath {
    std::vector<PathStep> steps;   // CFA edges in execution order (calls/returns included)
    std::vector<cfa::Value> nondets; // entry parameters first, then each Havoc in path order
    bool reachedError = false;
  };
  // Follows the taken edges from the root in the current model (after a Sat check)
  // until an error edge.
  ModelPath extractPath(smt::Solver& solver) const;
  smt::Term initialMemory() const { return mem0_; }

  struct DeadlineExceeded {};
  void setDeadline(std::chrono::steady_clock::time_point d) { deadline_ = d; }
  void setMaxNodes(size_t n) { maxNodes_ = n; }
  struct TooLarge {};

private:
  // The globals' current terms, shared between states: a copy shares everything, a write
  // copies the index (64 pointers) and one of its 64 pieces. A single map copied on every
  // write made an init function of n global stores cost n^2/2 entry copies (SQLite's:
  // 8 % of a bmc stage).
  class GlobalTerms {
   public:
    const smt::Term* find(cfa::VarId v) const {
      if (!table_) return nullptr;
      const auto& c = (*table_)[v % kPieces];
      if (!c) return nullptr;
      auto it = c->find(v);
      return it == c->end() ? nullptr : &it->second;
    }
    bool has(cfa::VarId v) const { return find(v) != nullptr; }
    smt::Term at(cfa::VarId v) const {
      const smt::Term* t = find(v);
      if (!t) throw std::out_of_range("Unwinding: no term for a merged global");
      return *t;
    }
    void set(cfa::VarId v, smt::Term t) {
      if (!table_) table_ = std::make_shared<Table>();
      else if (table_.use_count() > 1) table_ = std::make_shared<Table>(*table_);
      auto& c = (*table_)[v % kPieces];
      if (!c) c = std::make_shared<Piece>();
      else if (c.use_count() > 1) c = std::make_shared<Piece>(*c);
      (*c)[v] = t;
    }
    template <class F>
    void forEach(F&& f) const {  // f(VarId, Term)
      if (!table_)
        return;
      for (const auto& c : *table_)
        if (c)
          for (const auto& [v, t] : *c) f(v, t);
    }

   private:
    static constexpr size_t kPieces = 64;
    using Piece = std::unordered_map<cfa::VarId, smt::Term>;
    using Table = std::array<std::shared_ptr<Piece>, kPieces>;
    std::shared_ptr<Table> table_;  // pieces and index are written only when not shared
  };
  struct State {
    std::unordered_map<cfa::VarId, smt::Term> locals;   // of the node's instance
    GlobalTerms globals;
    smt::Term mem = nullptr;
    smt::Term brk = nullptr;
  };
  struct Instance {
    cfa::FuncId func;
    int parent = -1;          // parent instance, -1 for the two top-level ones
    uint32_t callNode = 0;    // node holding the Call edge in the parent
    const cfa::Edge* callEdge = nullptr;
    uint32_t exitNode = UINT32_MAX;
    std::map<cfa::FuncId, uint32_t> depthOf;  // occurrences of each function on the stack
    uint32_t level = 0;       // calls nested below the entry (the entry and the initialisation: 0)
  };
  using Counts = std::vector<std::pair<cfa::LocId, uint32_t>>;
  struct Key {
    uint32_t inst;
    cfa::LocId loc;
    Counts counts;
    bool operator<(const Key& o) const;
  };
  enum class InKind { Cfa, CallEnter, Return, Start };
  struct InEdge {
    uint32_t from;
    InKind kind;
    const cfa::Edge* edge = nullptr;  // Cfa: the edge; CallEnter: the Call edge
    uint32_t edgeIndex = 0;
    smt::Term taken = nullptr;        // filled when encoded
    smt::Term nondet = nullptr;       // Havoc value on this edge
    std::vector<smt::Term> paramNondets;  // Start of the entry: nondet parameters
  };
  struct Node {
    Key key;
    std::vector<InEdge> in;
    std::vector<std::pair<uint32_t, size_t>> out;  // (target node, index in its `in`)
    bool encoded = false;
    bool isMerge = false;
    smt::Term act = nullptr;
    smt::Term proxy = nullptr;        // dangling proxy (merge nodes)
    State state;
    std::vector<cfa::VarId> mergedLocals, mergedGlobals;  // variables with SSA proxies
    bool mergeMem = false, mergeBrk = false;              // memory / brk have SSA proxies
  };
  struct Cut {
    uint32_t node;
    const cfa::Edge* edge;
    uint32_t edgeIndex;
    smt::Term taken;
    bool explored = false;
    bool depth = false;       // a call beyond the call-depth limit: never explored
  };

  const cfa::Program& prog_;
  cfa::FuncId entry_;
  smt::TermManager& tm_;
  encoding::ExprEncoder enc_;
  std::vector<std::unique_ptr<LoopInfo>> loops_;
  std::vector<Instance> instances_;
  std::map<std::tuple<uint32_t, const cfa::Edge*>, uint32_t> instanceOfCall_;
  std::vector<Node> nodes_;
  std::map<Key, uint32_t> index_;
  std::vector<Cut> cuts_;
  std::vector<Marked> errors_, unsupported_;
  std::vector<uint32_t> pending_;     // nodes created but not yet encoded
  std::vector<uint32_t> deferred_;    // nodes with no live in-edge yet (incremental mode)
  std::vector<uint32_t> proxyNodes_;  // nodes with a dangling proxy
  std::unordered_map<uint32_t, std::vector<size_t>> cutsAt_;  // pending node -> cuts_ indices
  uint32_t bound_ = 0;
  smt::Term mem0_ = nullptr;
  std::vector<bool> globalAssigned_;
  std::vector<cfa::VarId> globalVars_;
  std::vector<bool> recursive_;  // per function: on a call-graph cycle
  std::vector<bool> noEffect_;   // per function: its closure cannot influence a check (see above)
  std::unique_ptr<cfa::DeadEnds> deadEnds_;  // locations no check is reachable from (see above)
  bool dead(cfa::FuncId f, cfa::LocId l) const;
  size_t skippedCalls_ = 0;
  bool incremental_;
  bool memChanges_ = false;   // some function other than the initialisation writes memory
  bool brkChanges_ = false;   // ... or allocates
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  size_t maxNodes_ = 2'000'000;
  uint32_t maxCallDepth_ = UINT32_MAX;
  size_t depthCuts_ = 0;
  std::set<uint32_t> endNodes_;  // pathEnds
  void endsHere(uint32_t n) { endNodes_.insert(n); }
  // globals beyond the call depth (above): location of the initialisation where a dropped
  // piece starts -> the gap edge that replaces it (owned by gapEdges_)
  std::unordered_map<cfa::LocId, std::pair<const cfa::Edge*, uint32_t>> gapAt_;
  std::deque<cfa::Edge> gapEdges_;
  size_t droppedParts_ = 0;
  void dropPartsBeyondDepth(cfa::FuncId initF);

  const LoopInfo& loopInfo(cfa::FuncId f);
  uint32_t getNode(const Key& k, bool& created);
  void addIn(uint32_t target, InEdge in);
  // A Cfa in-edge (edge `e`, index `edgeIndex` of its function) from node `from` into the
  // node of `target` (created if new).
  void addCfaIn(uint32_t from, const Key& target, const cfa::Edge& e, uint32_t edgeIndex);
  void exploreFrom(uint32_t node);
  void exploreEdge(uint32_t node, uint32_t edgeIndex);
  void encodePending(const std::function<void(smt::Term)>& sink);
  void setCutTaken(Cut& c);
  // Encodes node n; false when it is deferred (incremental mode: no live in-edge yet).
  bool encodeNode(uint32_t n, const std::function<void(smt::Term)>& sink);
  void mergeWithProxies(Node& node, uint32_t n, std::vector<std::pair<smt::Term, State>>& posts,
                        const LoopInfo& li, const std::function<void(smt::Term)>& sink);
  void mergeWithIte(Node& node, std::vector<std::pair<smt::Term, State>>& posts, const LoopInfo& li);
  // Post-state and guard of an in-edge, from its source's encoding.
  std::pair<smt::Term, State> transfer(const InEdge& in, uint32_t target);
  smt::Term lookup(const State& s, cfa::VarId v);
  void assign(State& s, cfa::VarId v, smt::Term t);
  void checkDeadline() const;
};

}  // namespace argus::algorithms
