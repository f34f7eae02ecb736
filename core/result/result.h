// Verification results: verdict, counterexample, condition, statistics.
//
// A `false` verdict always carries a counterexample that the concrete interpreter
// replayed (core/result/replay.h); an `unknown` always carries a reason and the
// condition under which the program *was* verified (e.g. "no error within 8 loop
// unwindings").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/cfa/expr.h"

namespace argus::result {

struct AssumptionAutomaton;  // result/assumption_automaton.h

enum class Verdict { True, False, Unknown };
const char* verdictName(Verdict v);

struct TraceStep {
  std::string file;
  uint32_t line = 0, column = 0;
  std::string function;
  std::string statement;
  // variable -> value (decimal, signed if the variable is signed), in assignment order
  std::vector<std::pair<std::string, std::string>> values;
  bool nondet = false;     // this step chose a nondeterministic value
};

// A value the environment supplied on a counterexample's path: the result of a call to
// a function without a body (__VERIFIER_nondet_int, nondet_x, a user-declared external
// function), in path order. A native harness (core/result/harness.h) returns them.
struct PathInput {
  std::string function;    // the called function
  cfa::Value value = 0;    // masked to `width` bits (JSON: a number, or a decimal string when wider than 64 bits)
  uint32_t width = 0;      // bits of the result type
  bool isSigned = false;
  std::string file;        // the call's position
  uint32_t line = 0;
};

// One input decision of a latent finding's path (core/result/replay.h): the C text of the
// branch in the direction taken (or of a property check), where it is.
struct PreconditionPart {
  std::string condition;   // e.g. "op >= 10", "p is null"
  std::string function;
  std::string file;        // base name
  uint32_t line = 0;
};

struct Counterexample {
  std::vector<TraceStep> steps;
  std::string entry;       // function the path starts from
  bool replayed = false;   // confirmed by the concrete interpreter
  // What the path takes for granted, in the order met: one "NAME() may return any value"
  // per function the program declares without a body (not a library function, not a
  // __VERIFIER_nondet_*/nondet_* input) whose result the path uses.
  std::vector<std::string> assumptions;
  // What a native run of the program needs to follow the path (concrete playback):
  // the results of the nondeterministic calls, and the choices it cannot control
  // (an uninitialised variable, scanf input, entry parameters, uninitialised memory),
  // each "what at file:line".
  std::vector<PathInput> inputs;
  std::vector<std::string> uncontrolled;
  // The checks that confirmed the path: "interpreter" (always, see replayed), "native"
  // (the program compiled with the system compiler and the counterexample's harness
  // reached the error). nativeNote: why the native run could not confirm it (not run,
  // or run without reaching the error when the path has uncontrolled choices); empty
  // when native confirmed it.
  std::vector<std::string> confirmedBy;
  std::string nativeNote;
  // The property the path violates, from the Error edge it ends with (cfa::Edge::property):
  // "no-overflow", "div-by-zero", "shift", ...; "" for an error call or a failed
  // assertion (unreach-call).
  std::string property;
  // A memory-safety violation as the interpreter saw it, naming the object ("access of
  // 4 bytes at offset 40 of `a` (f.c:3), a stack object of 40 bytes"); "" otherwise.
  // (Or, for a contract check, its text: "precondition of f (f.c:3) violated at call site: requires ...".)
  std::string violation;
  // Issue 29 item 4. "manifest": the path does not depend on the entry's inputs (every
  // path from main is); "latent": it does, and `precondition` lists the input decisions
  // in path order (deduplicated, at most kMaxPreconditionParts; `preconditionOmitted`
  // more) — the condition of this path, sufficient, not necessary. A counterexample of
  // another entry (a caller) that reaches the same error through the function makes a
  // latent finding manifest: `entry` then names that caller.
  std::string finding = "manifest";
  // A manifest finding met after latent ones (engine continueAfterLatent) whose path's only
  // input decisions pass their checks: why it is manifest all the same; "" otherwise.
  std::string manifestGiven;
  std::vector<PreconditionPart> precondition;
  size_t preconditionOmitted = 0;
};

constexpr size_t kMaxPreconditionParts = 8;

// "fails if on entry: op >= 10 (status.c:12), p is null (list.c:40)"; "" for a manifest
// finding.
std::string preconditionText(const Counterexample& cex);
// Whether `caller`'s counterexample is evidence that `latent`'s finding is manifest: it is
// manifest, comes from another entry, passes through `latent`'s entry function and ends at
// the same error location (function, file, line, column).
bool reachesSameError(const Counterexample& caller, const Counterexample& latent);

// What a run that did not reach a full proof still verified.
struct Condition {
  std::string kind;        // "none" (nothing excluded), "bound", "unsupported", "timeout", ...
  std::string summary;     // human sentence, e.g. "verified for loops unrolled <= 8 times"
  std::optional<uint32_t> bound;  // loop/recursion unwinding bound that was fully checked
  // With `bound`: calls nested deeper than this were not expanded (BMC's unwinding budget,
  // core/algorithms/bmc/unwinding_estimate.h); absent when every call was expanded.
  std::optional<uint32_t> callDepth;
  // With `bound`: no path goes beyond it (BMC's forward condition held) but a construct
  // that cannot be verified is reachable, so the run is unknown. Every path that avoids the
  // excluded constructs was verified, whatever the bound; no algorithm can verify more.
  bool complete = false;
  // With `complete`: no check can be reached without passing an excluded construct
  // (cfa::checkReachableAvoidingUnsupported), so nothing was verified. Still the end of a
  // chain: no algorithm gets past the construct either.
  bool vacuous = false;
  std::vector<std::string> excluded;  // parts not verified, each "what at file:line"
  // The assumption formula (conditional model checking): one clause pc = l => psi per
  // part that was not verified; empty when nothing is excluded or the run cannot say.
  std::vector<std::string> assumptions;
  // The assumption automaton of the run (result/assumption_automaton.h), when the
  // algorithm builds one; null otherwise.
  std::shared_ptr<const AssumptionAutomaton> automaton;
  // Its size and initial state ("verified", "open", "restricted") once the automaton itself
  // was dropped (dropAutomaton: argusd keeps no automaton that no later stage reads).
  uint64_t automatonStates = 0;
  std::string automatonInitial;
};
// Drops the condition's automaton, keeping what the summaries show of it.
void dropAutomaton(Condition& c);

struct Stats {
  double cpuTimeS = 0, wallTimeS = 0;
  uint64_t solverQueries = 0;
  double solverTimeS = 0;
  uint32_t bound = 0;           // last unwinding bound explored
  uint64_t unrollNodes = 0;     // size of the last unwinding
  uint64_t formulaTerms = 0;    // terms created
  std::map<std::string, double> extra;
};

// One stage of a chain (`auto`, `cmc`): what ran, what it answered, what it cost. A
// parallel stage ("kind|pred") names the member whose answer it took in `decidedBy`.
struct StageRecord {
  std::string spec;        // the stage as written, e.g. "ibmc:k=2", "kind|pred"
  std::string decidedBy;   // the algorithm whose answer the stage took, e.g. "pred"
  Verdict verdict = Verdict::Unknown;
  double wallTimeS = 0, cpuTimeS = 0;  // CPU: this process and its children
  std::string reason;      // for unknown
};

struct VerificationResult {
  Verdict verdict = Verdict::Unknown;
  std::string algorithm;
  std::string solver;
  std::string reason;      // for unknown: why (timeout, unsupported construct at file:line, ...)
  std::optional<Counterexample> counterexample;
  Condition condition;
  Stats stats;
  // For a proof that used auxiliary invariants (k-induction): location -> formula
  // (C syntax) that holds there on every execution. Empty otherwise.
  std::map<std::string, std::string> invariant;
  // The stages of a chain in the order they ran (empty for a single algorithm).
  std::vector<StageRecord> stages;
  // Where the entry function is defined (0: unknown).
  std::string entryName, entryFile;
  uint32_t entryLine = 0, entryColumn = 0;
  // cfa::closureHashes of the entry (its code and everything it calls, independent of
  // absolute lines): the identity of a finding across edits (SARIF partialFingerprints).
  std::string closureHash;
  // The properties checked, as given (`--property no-overflow,div-by-zero`); "" for
  // reachability (unreach-call).
  std::string property;
  // What the frontend left out of the program it was given, each naming its file:line
  // (cfa::Program::notes: contract clauses outside the supported subset, contracts Clang
  // rejected), "f.c:3: warning: ...". JSON "warnings", text "warning:" lines.
  std::vector<std::string> warnings;
  // The entry's own contract the run assumed (README "Contracts": its `requires` clauses,
  // leading __VERIFIER_assume calls and leading assertions when it is verified on its
  // own), each "assert(s != NULL) (f.c:6)": every verdict holds for the inputs that meet
  // them; the callers' runs check them. JSON "assumed_precondition", text "assuming its
  // precondition:".
  std::vector<std::string> assumedPrecondition;
  // Further latent findings (issue 29 item 4: "a function with only latent findings is
  // unknown listing them"): after a latent `counterexample`, the run goes on with that
  // error location cut (engine/verify.cpp, continueAfterLatent) and lists here each
  // latent finding it meets at another error location, in the order found, each with its
  // own path and precondition. The condition then says what the run verified of every
  // other check. Empty otherwise.
  std::vector<Counterexample> moreLatent;
};

// A latent finding: an unknown verdict that carries its (latent) counterexample.
bool isLatent(const VerificationResult& r);
// The reason of a latent result: "latent finding: fails if on entry: ..." for each of its
// findings ("; " between them, the further ones naming their place), then what the rest of
// the run verified (the condition's summary after its first "; ", when there is one).
std::string latentReason(const VerificationResult& r);

// "false(no-overflow)" for a violated property other than reachability, else the
// verdict's name ("true", "false", "unknown").
std::string verdictText(const VerificationResult& r);

nlohmann::json toJson(const VerificationResult& r);
std::string toText(const VerificationResult& r);  // ends with "VERDICT: ..." line

}  // namespace argus::result
