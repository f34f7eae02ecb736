// The verification service's synchronous core: one request in, one result out.
// No JSON here — the CLI, the LSP server and the RPC server format results themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/frontend/frontend.h"
#include "core/result/assumption_automaton.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::cfa {
class Dependencies;  // core/cfa/closure.h
}

namespace argus::engine {

// Kind: k-induction with the concurrent interval invariant generator; KindNoInv: without
// it; Ai: the generator's interval analysis alone. Kiki: kIkI (k-invariants in template
// domains and k-induction); KikiIbmc / KikiKind / KikiAi: its restrictions (incremental
// BMC, k-induction without invariants, abstract interpretation only), see
// core/algorithms/kinduction/kiki.h. BmcCpa: BMC as a configuration of the CPA core
// (runCpaBmc in core/algorithms/predicate/predicate_analysis.h).
// Auto: the default strategy, the chain kAutoChain (a cheap incremental-BMC stage, then
// k-induction and predicate abstraction in parallel); Cmc: the chain of
// VerifyRequest::chain (kDefaultChain when empty). Both run through runChain.
enum class Algorithm { Bmc, Ibmc, Pred, Impact, Explicit, Cmc, Kind, KindNoInv, Ai, Kiki, KikiIbmc, KikiKind, KikiAi, BmcCpa, Auto };
// Parses an --algorithm value; throws std::invalid_argument naming the known ones.
Algorithm parseAlgorithm(const std::string& s);
const char* algorithmName(Algorithm a);

// How a function other than main starts when it is verified as its own entry (README
// "Entry models"; core/cfa/entry_harness.h): Harness (the default) gives pointer
// parameters fresh objects, to a bounded depth, null only where the function tests for
// it; Arbitrary leaves every parameter an arbitrary value (a pointer any address). main
// always starts from C's initial state.
enum class EntryModel { Harness, Arbitrary };
// Parses an --entry-model value; throws std::invalid_argument naming the known ones.
EntryModel parseEntryModel(const std::string& s);
const char* entryModelName(EntryModel m);

class SessionCache;  // core/engine/sessions.h

// ---- chains (conditional model checking), the one plan of every front end -------------
// A chain spec is a comma-separated list of stages; a stage is `alg[:key=value…]`, or
// several such members joined by `|`, which run in parallel (one process each, on
// separate cores): the first true/false answer wins and the others are stopped. Each
// stage is restricted by the previous stage's output condition (the stages that can use
// one: explicit, pred, impact) and the first true/false answer ends the chain.
// Keys: time=S (every stage), k=N (bmc, ibmc, kind, kind-noinv, kiki; `alg:N` is short
// for `alg:k=N`), and the monitors of explicit/pred/impact (mem, edgeposts, post,
// refine, pfsize, overflow, states, repeats, length, perloc, assumes), and cond=ignore
// (explicit, pred, impact: do not use the input condition), and after=S (a parallel
// member that starts once the members already running have used S seconds of CPU between
// them, or when none is left running; it gets what is left of the stage's time). Examples:
// "bmc:k=1,explicit:time=10,pred", "ibmc:k=2:time=2,kind|pred:cond=ignore".
struct StageParams {
  double timeS = 0;        // 0 = an equal share of what is left (the last stage: all of it)
  uint32_t bound = 0;      // bmc/ibmc/kind/kiki: k
  uint64_t maxStates = 0;  // explicit
  uint32_t maxPathLength = 0, maxAssumeEdges = 0, maxRepeats = 0, maxStatesPerLocation = 0;  // explicit
  // monitors (explicit, pred/impact; see VerifyRequest)
  uint64_t maxMemoryMb = 0;
  uint32_t maxEdgePosts = 0;
  unsigned maxTimePerPostMs = 0, maxTimePerRefinementMs = 0;
  uint64_t maxPathFormulaSize = 0;
  bool monitorOverflow = false;
  // cond=ignore: the stage explores everything instead of what the previous stage's
  // condition leaves open (sound: a verifier may always ignore its input condition).
  // Worth it where the restriction costs more than it saves: a bound automaton
  // multiplies pred's abstract states by its unrolling counters (docs/STRATEGY.md).
  bool ignoreCondition = false;
  // after=S (a parallel stage's member): the member starts once the running members have
  // used S s of CPU (or none is left running), so a task another member decides sooner
  // costs no CPU in this one (docs/STRATEGY.md).
  double afterS = 0;
};

struct Stage {
  Algorithm algorithm = Algorithm::Ibmc;  // of a single stage
  std::string spec;                       // as written
  StageParams params;
  std::vector<Stage> parallel;            // a parallel stage's members (then algorithm is unused)
  bool isParallel() const { return !parallel.empty(); }
  // Whether the stage can use an input condition (explicit, pred, impact, or a parallel
  // stage with such a member).
  bool restrictable() const;
};
using Chain = std::vector<Stage>;

// Throws std::invalid_argument naming the problem (unknown stage or key, bad value).
Chain parseChain(const std::string& spec);
// The spec of a chain (the stages' specs joined by commas).
std::string chainSpec(const Chain& chain);
// The most processes any stage of the chain runs at once (bench counts them as cores).
unsigned chainWidth(const Chain& chain);
// Condition a verified more than b: a larger bound, or at the same bound more calls
// expanded (no depth cut is best); nothing verified (no bound) is least.
bool conditionVerifiedMore(const result::Condition& a, const result::Condition& b);

// What a run computes once about its slice and reads at every checkpoint (verify.cpp):
// on SQLite-sized closures the closure hashes and the loop list cost more than a
// checkpoint's bound automaton.
struct SliceFacts;

struct VerifyRequest {
  std::string file;                    // path (also the name used in diagnostics)
  std::optional<std::string> source;   // contents; read from `file` when absent
  Algorithm algorithm = Algorithm::Bmc;
  smt::SolverKind solver = smt::SolverKind::Z3;
  // pred/impact: the refinement engine (algorithms::RefinerConfig names: craig,
  // newton-{sp,wp}-{core,all}-{live,all}); empty = the algorithm's default
  // (defaultRefiner).
  std::string refiner;
  // pred/impact: cartesian instead of boolean predicate abstraction; abstraction
  // formulas as BDDs (coverage decided on them) instead of SMT formulas.
  bool cartesian = false;
  bool bddAbstractions = false;
  double timeoutS = 0;                 // whole run, wall clock; 0 = none
  uint32_t maxBound = 0;               // stop BMC deepening at this bound (unknown + condition); 0 = no limit
  // The BMC unwinding's node budget (bmc, ibmc, and the base case of kind and kiki):
  // calls nested too deep for it are not expanded (BmcOptions::maxNodes); 0 = default.
  size_t maxUnwindNodes = 0;
  // bmc: BmcOptions::splitAtOnceTerms (tests set 0: every disjunction split at once).
  std::optional<size_t> splitAtOnceTerms;
  frontend::DataModel dataModel = frontend::DataModel::LP64;
  std::string function = "main";       // entry
  EntryModel entryModel = EntryModel::Harness;  // a non-main entry's parameters
  // Latent findings (issue 29 item 4, README "Manifest and latent findings"): a
  // counterexample of a non-main entry that depends on the entry's inputs makes the verdict
  // unknown ("latent finding: fails if on entry: ..."), never false. With checkCallers, each
  // direct caller of the function in the program (at most kMaxCallersChecked, those with
  // the fewest functions reached by direct calls first) is then verified as its own
  // entry, with only that error location kept, for at most kCallerCheckS seconds each
  // (within timeoutS; after continueAfterLatent, which leaves them kCallerCheckShare of the
  // time); a caller's manifest counterexample through the function to the same error
  // makes the finding manifest: verdict false with the caller's whole path. `argus
  // verify` sets it; `argus project` and argusd look at the callers' own results instead.
  bool checkCallers = false;
  // Internal (the caller check): keep only the Error edges at this position (function name,
  // file, line, column); every other Error edge becomes an Abort.
  struct ErrorSite {
    std::string function, file;
    uint32_t line = 0, column = 0;
  };
  std::optional<ErrorSite> onlyErrorAt;
  // After a latent finding (issue 29 item 4: "unknown listing them"), go on with its error
  // location cut (its Error edges become Abort edges: the paths on which that check fails
  // end there) for what is left of timeoutS, listing each further latent finding
  // (VerificationResult::moreLatent, at most kMaxLatentFindings in all) until the run
  // proves every other check, reaches a bound, finds a manifest error (then the verdict is
  // false with that path) or runs out of time. Needs timeoutS > 0 or maxBound > 0 (a run
  // without either would not end where it ended before).
  bool continueAfterLatent = true;
  // Internal (the continuation): error locations cut as above.
  std::vector<ErrorSite> cutErrors;
  // Answer only when nothing is to be checked: the entry's closure (after its harness and
  // contracts) holds no Error and no Unsupported edge, so the answer is `true` at once with
  // no solver. Anything else returns VerifyOutcome::notAnswered without running an
  // algorithm (`argus project` answers such functions in its own process, issue 29 item 1,
  // and forks a worker for the rest).
  bool onlyNothingToCheck = false;
  // The parsed program's dependency graph (cfa::Dependencies), when the caller verifies
  // many entries of one program (`argus project`): each entry's slice then costs its own
  // closure only, not a pass over every global initialiser. Ignored unless built for the
  // very program verified.
  std::shared_ptr<const cfa::Dependencies> dependencies;
  // The program given to verifyParsed is already the entry's slice (cfa::slice, or an
  // argusd worker's cfa::ProgramImage::slice): verified as it is, not sliced again.
  bool presliced = false;
  // The entry's program as an earlier run of this very request prepared it (slice, entry
  // harness, --entry-model arbitrary, contract gates), before any cutErrors/onlyErrorAt:
  // used as it is (the continuation after a latent finding runs the same entry again with
  // more checks cut; slicing and the harness cost seconds on a closure of SQLite's size).
  std::shared_ptr<const cfa::Program> prepared;
  bool preparedHarnessed = false;  // whether `prepared` carries the entry harness
  std::vector<std::string> extraArgs;  // compiler flags
  // The properties to check (`--property`): SV-COMP names, comma-separated (see
  // parseProperties); "" = unreach-call. Only verify() parses with them; verifyParsed
  // takes the program as it was parsed.
  std::string property;
  std::function<void(const std::string&)> progress;
  bool corruptReplayForTest = false;
  // A chain of several stages runs each single stage in a child process, stopped at the
  // stage's deadline plus a grace period when a step ignores that deadline (runChain).
  // On for per-function runs of `argus project` (real code: a Z3 query on floating-point
  // code that ignores its limit must not take the function's whole budget); off by
  // default, where an overrunning first stage still answers (a counterexample whose
  // replay runs long on a loaded machine) and no fork is spent on the benchmark's tasks.
  bool isolateStages = false;
  // Called first in every process a run forks for a stage or a parallel member (runChain,
  // `kind|pred`): the caller drops what the child need not carry. A child starts with
  // every page of its parent; an argusd worker's images of whole translation units (~65 MB
  // for SQLite) are not read by the stage, which has its slice.
  std::function<void()> inChildProcess;
  // Called once the program is parsed and sliced and has its entry model, as its analysis
  // starts (after the progress line "prepared: ..."): a caller that stops a run from
  // outside tells a run stopped while preparing from one stopped in its analysis.
  std::function<void()> analysisStarted;
  // ibmc on a parsed program: continue the deepening stored under sessionKey (same
  // program, entry and solver) and store it again if it can go deeper (see sessions.h).
  // keepAlive must own the program.
  SessionCache* sessions = nullptr;
  std::string sessionKey;
  std::shared_ptr<const void> keepAlive;
  // set by verify for its slice; not a caller's setting
  std::shared_ptr<SliceFacts> sliceFacts;

  // Conditional model checking (see runChain in verify.cpp).
  // Input condition: only what it leaves open is explored (explicit, pred, and the
  // CPA-based stages of a chain); it must have been built for this program and entry.
  std::shared_ptr<const result::AssumptionAutomaton> conditionIn;
  // Output condition file: our JSON if it ends in .json (or conditionFormat == "json"),
  // else CPAchecker's automaton language (or conditionFormat == "cpachecker").
  std::string conditionOut;
  std::string conditionFormat;
  // --algorithm cmc / auto: the stages (see parseChain); empty = kDefaultChain (cmc) or
  // kAutoChain (auto).
  std::string chain;
  // Called when a chain stage finishes: (index from 0, stage spec, its result).
  std::function<void(size_t, const std::string&, const result::VerificationResult&)> stageFinished;
  // Called with the answer so far before each verification the run makes of its own after
  // a latent finding (a caller check, a continuation): the finding, complete as the final
  // result would carry it, so that a caller that must answer by a deadline (argus verify's
  // watchdog) never loses it to a follow-up that overruns.
  std::function<void(const result::VerificationResult&)> provisional;
  // Called while a stage runs, each time it has verified more (bmc, ibmc and the base case
  // of kind and kind-noinv: after each bound, at each call depth): the unknown result with the condition so far that the run
  // would answer if it were stopped now. A caller that stops a run from outside when a
  // solver ignores its limit (a chain stage's member process, argus verify's watchdog, a
  // project worker) answers with the last one instead of "nothing verified". In a chain,
  // only checkpoints that verified more than the earlier stages are passed on.
  std::function<void(const result::VerificationResult&)> checkpoint;
  // Limits of the explicit-value analysis (0 = none; see core/algorithms/cmc/explicit_analysis.h).
  uint64_t maxStates = 0;
  uint32_t maxPathLength = 0, maxAssumeEdges = 0, maxRepeats = 0, maxStatesPerLocation = 0;
  // More condition monitors (0 = none; core/algorithms/common/cpa_algorithm.h,
  // core/algorithms/predicate/predicate_analysis.h):
  // total memory (explicit, pred, impact), busy edge and time per post (explicit, pred,
  // impact), time per refinement and path-formula size (pred, impact); overflow
  // monitoring (explicit_cpa.h; explicit).
  uint64_t maxMemoryMb = 0;
  uint32_t maxEdgePosts = 0;
  unsigned maxTimePerPostMs = 0, maxTimePerRefinementMs = 0;
  uint64_t maxPathFormulaSize = 0;
  bool monitorOverflow = false;
};

// Appended to the summary of a `true` whose entry model stops at its depth bound
// (cfa::entryModelDepthBounded).
extern const char* const kDepthBoundCaveat;
// The chain --algorithm cmc runs when --chain is not given.
extern const char* const kDefaultChain;
// The default strategy (`auto`): chosen by measurement on the shared benchmark set, see
// docs/STRATEGY.md.
extern const char* const kAutoChain;
// auto on a slice of more than kAutoLargeSliceFunctions functions runs kAutoLargeChain
// instead (bmc alone, the whole time). On SQLite (closures of hundreds of functions, many
// recursive) k-induction and predicate abstraction decided none of a sample of 137
// functions in 10 s; bmc alone, given their time, answered more of them (docs/STRATEGY.md,
// "Large slices"). SV-COMP-style programs stay below it (the largest slice of the
// benchmark set: 25 functions).
extern const char* const kAutoLargeChain;
extern const size_t kAutoLargeSliceFunctions;
// The chain a request runs: its own, or the default of its algorithm (auto, cmc); a
// single algorithm is a one-stage chain.
std::string effectiveChain(const VerifyRequest& req);

constexpr size_t kMaxCallersChecked = 4;
constexpr double kCallerCheckS = 5;
// With checkCallers, the continuation after a latent finding (continueAfterLatent) leaves
// at least this share of the time left to the callers' checks, which come after it.
constexpr double kCallerCheckShare = 0.5;
constexpr size_t kMaxLatentFindings = 16;

struct VerifyOutcome {
  bool inputError = false;             // the request could not be run (file, parse, entry)
  std::string error;                   // message for inputError
  // VerifyRequest::onlyNothingToCheck and the closure has something to check: no result
  bool notAnswered = false;
  result::VerificationResult result;
};

VerifyOutcome verify(const VerifyRequest& req);

// The process-wide cap on the solvers' own allocations for the verifications this process
// (and the processes it forks) runs from now on, in MB, 0 = none: a query that would pass
// it ends unknown "out of memory" (smt::setSolverMemoryLimitMb). argusd's workers and
// argus project set it; argus verify with --max-memory-mb.
void setSolverMemoryLimitMb(uint64_t mb);

// The properties of a `--property` value: names separated by commas, each one of
// unreach-call, no-overflow, div-by-zero, shift, valid-memsafety, valid-deref, valid-free,
// valid-memtrack, valid-memcleanup (checked: core/frontend/lower_checks.cpp), or the
// text of an SV-COMP property file
// (`CHECK( init(main()), LTL(G valid-free) )`, one CHECK per line). Throws
// std::invalid_argument naming the known properties for anything else.
std::set<std::string> parseProperties(const std::string& spec);
// The properties parseProperties accepts that Argus does not check yet.
bool isUncheckedProperty(const std::string& name);

// The refiner pred or impact uses when VerifyRequest::refiner is empty: for each
// algorithm the one that solved the most benchmark tasks (issue 3's refiner table),
// except that pred with cvc5 avoids weakest preconditions (slow over memory there).
const char* defaultRefiner(Algorithm alg, smt::SolverKind solver = smt::SolverKind::Z3);
// When VerifyRequest::refiner is empty and the run has a time limit, the refiner that
// takes over (or null: none) when the default one has used kPredFirstRefinerShare of the
// time without an answer, or could not refine a path.
const char* fallbackRefiner(Algorithm alg, smt::SolverKind solver = smt::SolverKind::Z3);
constexpr double kPredFirstRefinerShare = 0.25;

// Option checks for front ends (they see the algorithms only through the engine):
// each throws std::invalid_argument naming the choices when `name` is not a refiner
// (`--refiner`, see core/algorithms/predicate/refinement_engine.h) or not a kIkI mode
// (`--kiki-mode`: full, ibmc, kind, ai).
void checkRefinerName(const std::string& name);
void checkKikiMode(const std::string& name);

// Same as verify, for a program parsed before (req.source/file/extraArgs/dataModel must be what
// it was parsed from; req.file still names it in results). Lets a long-lived caller
// (argusd's workers) parse a translation unit once for all its entry functions.
VerifyOutcome verifyParsed(const cfa::Program& program, const VerifyRequest& req);

}  // namespace argus::engine
