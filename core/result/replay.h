// Concrete interpreter of a CFA program.
//
// Every counterexample is replayed here before it is reported: the nondeterministic
// values chosen by a solver model are fed to a deterministic execution, which must reach
// the error location. Expression evaluation follows the semantics documented in
// core/cfa/expr.h bit for bit (SMT-LIB bit-vector semantics).
//
// Execution:
//  * brk starts at Program::heapBase; memory is empty (bytes never written read from
//    ReplayInput::initialMemory, else 0).
//  * The values of the entry function's parameters are taken first from `nondets` (one
//    per parameter, in parameter order). Then the init function runs to its exit
//    (Program::initFunc if the entry is named "main", else Program::initNondetFunc;
//    skipped if kNoFunc), then the entry function with those parameter values. Every
//    executed Havoc edge (init function included) consumes the next value of `nondets`.
//  * Register variables owned by a function (Variable::func != kNoFunc) live in a frame
//    per call, so recursion works; global register variables (func == kNoFunc) are
//    shared. An unassigned register reads as 0.
//  * Choice of edge at a location: the first out-edge (in Location::out order) that is
//    enabled; an Assume edge is enabled iff (cond != 0) == positive, every other edge is
//    always enabled. A deterministic program has exactly one enabled edge; when several
//    are enabled the first is taken and ReplayResult::ambiguousChoices is incremented.
//    No enabled edge: Blocked. A location without out-edges other than the exit: Blocked.
//  * Call: the arguments are evaluated in the caller's frame, a new frame is pushed and
//    the parameters assigned (extra arguments of variadic calls are ignored, missing ones
//    read 0). A Return edge (or arriving at the exit location, which has no out-edges)
//    pops the frame and assigns the call's lhs from the callee's return variable (0 if
//    void). Returning from the entry function ends the execution (Terminated).
//  * Alloc: lhs := brk; brk += align8(max(size, 1)), in ptrWidth-bit wraparound
//    arithmetic; zeroInit sets the `size` bytes of the block to 0 (the padding up to the
//    next multiple of 8 is left alone). Store writes little-endian bytes;
//    addresses are masked to Program::ptrWidth bits. Free has no effect.
//
// Entry inputs (issue 29 item 4, manifest vs latent findings): when the entry is not
// "main" (and ReplayInput::trackInputs is set), every value carries a taint bit that says
// whether it depends on what the entry's caller supplies. Sources: the entry's parameter
// values; values the init function havocs (globals the entry model leaves arbitrary);
// values the entry harness chooses (its Havoc edges, text "entry model: ..."), and the
// nulls it stores in pointer slots beyond its depth bound ("... = null (depth bound)": a
// bound of the model, not of the callers); bytes of
// memory read without having been written or zeroed, unless they lie in a block allocated
// by an Alloc edge of the program's own code (a local or malloc'd block: its contents are
// the program's own nondeterminism, not an input). The zero page (cfa::zeroPageEnd) reads
// as zero and is no input. Nondeterministic values the function
// itself asks for (__VERIFIER_nondet_*, body-less calls) are not inputs. Taint flows
// through expressions, register assignments, calls and returns, stores (a byte is tainted
// iff the stored value or the address is) and loads (tainted if the address or a loaded
// byte is). A store through a tainted address could have written elsewhere under other
// inputs, so after one every later load counts as tainted. An Alloc with a tainted size
// gives a tainted address. Control dependence is not propagated into values: instead every
// taken Assume edge whose condition is tainted is recorded as an *input decision*
// (ReplayResult::inputDecisions), and so is an Error edge whose check operands are tainted.
// The harness's "X is not null" choice is not recorded: a valid object is the model's
// ordinary case, not a condition on the caller. A path without input decisions reaches
// the error whatever the calling context supplies (given the entry model's fresh
// objects): a *manifest* finding; otherwise it is *latent*, and the decisions, in path
// order, are a sufficient (not necessary) precondition for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::result {

struct ReplayInput {
  // One value per entry parameter, then one per executed Havoc edge (masked to the
  // variable's width).
  std::vector<cfa::Value> nondets;
  // Content of a memory byte never written (or zero-initialised) before; nullopt or an
  // empty function → 0. Must be deterministic.
  std::function<std::optional<uint8_t>(uint64_t addr)> initialMemory;
  // Track which decisions depend on the entry's inputs (see the top of this file); only
  // for an entry other than "main".
  bool trackInputs = true;
};

// A decision on the path that depends on the entry's inputs: the taken edge (an Assume,
// or an Error edge whose check operands are inputs), in path order; repeated as often as
// it is taken.
struct InputDecision {
  cfa::FuncId func = cfa::kNoFunc;
  uint32_t edge = 0;
};

enum class ReplayOutcome {
  ReachedError,  // an Error edge was taken
  Terminated,    // returned from the entry function, or an Abort edge was taken
  Blocked,       // no enabled out-edge
  OutOfNondets,  // a parameter or Havoc needed a value beyond the end of `nondets`
  StepLimit,     // maxSteps edges were taken
  Unsupported,   // an Unsupported edge was chosen (recorded as the last step)
  DepthLimit,    // call stack deeper than kMaxCallDepth
  Malformed,     // the program is inconsistent (bad callee, location or edge index)
};

const char* outcomeName(ReplayOutcome o);

struct ReplayStep {
  cfa::FuncId func = cfa::kNoFunc;
  uint32_t edge = 0;  // index in Function::edges
  // Register variables assigned by this edge: Assign/Havoc/Alloc lhs; for a Call the
  // callee's parameters; for a Return the caller's lhs (its value after the call).
  std::vector<std::pair<cfa::VarId, cfa::Value>> assigned;
  std::optional<std::pair<uint64_t, cfa::Value>> stored;  // (address, value) for a Store
  std::optional<uint64_t> allocSize;                    // the size asked for, for an Alloc
  std::optional<uint64_t> freed;                        // the address freed, for a Free
  uint32_t depth = 0;  // call depth of the frame executing the edge (entry/init: 0)
};

struct ReplayResult {
  ReplayOutcome outcome = ReplayOutcome::Terminated;
  std::vector<ReplayStep> steps;  // every edge taken (empty if recordSteps was false)
  std::vector<std::pair<cfa::VarId, cfa::Value>> entryArgs;  // entry parameters' values
  std::string message;            // what stopped the execution, with file:line if known
  std::string violation;          // a memory-safety violation reached: what and which object
  size_t stepCount = 0;           // edges taken (also when steps are not recorded)
  // A long run (core/result/long_runs.h): the index in `steps` before which the first
  // steps left out of the recording were taken (steps[omittedAt - 1] is the last one
  // recorded before them); SIZE_MAX when every step was recorded.
  size_t omittedAt = SIZE_MAX;
  size_t nondetsUsed = 0;         // values consumed from ReplayInput::nondets
  size_t ambiguousChoices = 0;    // locations where more than one out-edge was enabled
  // Memory bytes read that were never written nor zeroed (their value came from
  // ReplayInput::initialMemory, else 0): a native run cannot choose them.
  size_t uninitialisedReads = 0;
  cfa::FuncId endFunc = cfa::kNoFunc;  // where execution stopped
  cfa::LocId endLoc = 0;
  // Whether inputs were tracked (entry not "main", ReplayInput::trackInputs), and the
  // decisions on the path that depend on them (see the top of this file).
  bool inputsTracked = false;
  std::vector<InputDecision> inputDecisions;
  // The harness's null choices taken as null that the path may depend on (indices into
  // ReplayInput::nondets, ascending): a pointer slot's null that an expression read before
  // the program overwrote it, and every parameter's. A null nothing reads cannot matter
  // (algorithms::withoutNeedlessNulls tries the others only).
  std::vector<size_t> nullChoicesRead;
};

constexpr size_t kMaxCallDepth = 100'000;

ReplayResult replay(const cfa::Program& p, cfa::FuncId entry, const ReplayInput& in,
                    size_t maxSteps = 10'000'000, bool recordSteps = true);

// Pure evaluation helpers (the same code the interpreter uses). Operands are taken
// modulo 2^width; results are masked to their width.
// Values are cfa::Value (up to 128 bits).
cfa::Value evalUnary(cfa::UnOp op, cfa::Value a, uint32_t width);
// `opWidth`: the operands' width; `resultWidth`: the expression's width (differs from
// opWidth only for comparisons and LAnd/LOr).
cfa::Value evalBinary(cfa::BinOp op, cfa::Value a, cfa::Value b, uint32_t opWidth,
                      uint32_t resultWidth);
cfa::Value evalCast(cfa::CastKind k, cfa::Value a, uint32_t fromWidth, uint32_t toWidth);

// Evaluates an expression with the given register values and memory contents.
cfa::Value evalExpr(const cfa::Expr& e, const std::function<cfa::Value(cfa::VarId)>& var,
                  const std::function<uint8_t(uint64_t)>& memByte, uint32_t ptrWidth = 64);

}  // namespace argus::result
