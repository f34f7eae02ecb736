// kIkI: k-invariants and k-induction (Brain, Joshi, Kroening, Schrammel, SAS 2015;
// /work/shared/papers/kiki-k-invariants-k-induction.txt, Sect. 2 and 3).
//
// For k = 1, 2, ... (Fig. 1):
//  1. base case: the incremental BMC unwinding (bmc/unwinding.h) with bound k has no error
//     path — otherwise `false` after the concrete replay, exactly as ibmc; no path
//     exceeds the bound (forward condition) — `true`;
//  2. k-invariant inference in a guarded template domain (KInvariantEngine::infer):
//     the least template value d such that every loop-head state on an error-free
//     prefix satisfies T(d) — checked as a k-invariant (Eq. 7/11): from the program
//     start, the first j <= k loop-head states are in T(d); and k consecutive loop-head
//     states in T(d) are followed by one in T(d). The template parameters are found by
//     the paper's binary-search optimisation (Eq. 13/14) over bit-vectors;
//  3. k-induction with the invariant: from k+1 consecutive loop-head states that satisfy
//     every invariant found so far, no error (or unsupported construct) is reachable in
//     one segment — then `true` (the base case for k passed, see kinduction.h for why
//     this is sound).
// Invariant inference and the k-induction check share one incremental solver (the
// segment encoding is asserted once and grows with k; each query's constraints live
// in a push/pop frame or under assumption literals). The base case (BMC with its
// counterexample replay) runs on the unwinding's own incremental solver.
//
// The SSA of the paper (loop-head multiplexers with free feedback variables) is the
// segment encoding of segment_encoding.h: a state at a loop head is a vector of free
// variables (the feedback variables), constrained by the template; "pc" plays the role
// of the loop-head guards, so a template row at loop head c is guarded by pc == c.
//
// Template domain (per loop head): intervals (±x), zones (x − y, y − x) and octagon sums
// (x + y, −x − y) over register variables of at most 32 bits (no frontend temporaries)
// of the loop's function instance and the globals: by priority those the loop assigns
// and tests, assigns, tests, and those compared after it (intervals for at most
// maxIntervalVars of them; zones and octagons among the first maxVars); pairs:
// compared or assigned together first, then pairs the loop assigns (at most maxPairs).
// Template expressions are evaluated
// in 34-bit (type promotion: sign- or zero-extension by the variable's signedness), so
// they cannot overflow. Memory contents, pointers and wider variables are not in the
// template (they stay unconstrained).
//
// Inference details (KInvariantEngine::infer), Sect. 3.4 with these choices:
//  - start from ⊥; each model of (13) names the violated rows R at one loop head; a
//    loop head still ⊥ is joined with the model's point; otherwise each row r in R is
//    raised by the binary search of (14) for R = {r} (⊤ tried first, then galloping up
//    from the model's value, then bisection) — row by row, because the joint system
//    pins the post-state to a point when R holds opposite rows (x and −x);
//  - the binary search's pre-states have the row below δ (δ − 1), so a value a loop
//    merely keeps (x' = x) does not raise it;
//  - a row raised more than three times in one inference is widened: to the next
//    threshold (the constants the program's conditions compare with, ±1, and their
//    negations), after eight of those to ⊤; after convergence the widened rows are
//    narrowed by descending steps while they shrink (each checked by (13) again);
//  - the invariants found before are assumed in every state (they are invariants), and
//    the new one is conjoined with them;
//  - an inference stopped by its time share is resumed (same k) at the next step; the
//    next inference is for the k after the last completed one (it lags the BMC bound),
//    and a new invariant is first tried with k-induction at that k.
//
// Relational equalities beyond the zones and octagons (j == 2*i) come from the affine
// analysis (affine_invariants.h), run once at the first step in the full mode and
// assumed in every state like the known invariant (stats.affine_equalities).
//
// Modes (the restrictions of Sect. 2.3): full (kIkI); ibmc (steps 1 only);
// kind (k-induction without invariants: the template is {⊤}); ai (abstract
// interpretation only: k = 1 inference, then "no error reachable from the program
// start or an invariant state in one segment", else `unknown` — never `false`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithms/kinduction/affine_invariants.h"
#include "core/algorithms/kinduction/flat_program.h"
#include "core/cfa/cfa.h"
#include "core/result/result.h"
#include "core/smt/solver.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

enum class KikiMode { Full, Ibmc, Kind, Ai };
// "full" / "ibmc" / "kind" / "ai"; throws std::invalid_argument otherwise.
KikiMode parseKikiMode(const std::string& s);
const char* kikiModeName(KikiMode m);

struct TemplateOptions {
  bool zones = true;     // x - y, y - x
  bool octagons = true;  // x + y, -x - y
  size_t maxVars = 10;   // per loop head, for zones and octagons (0: no rows at all)
  size_t maxIntervalVars = 64;  // per loop head, for intervals (at least maxVars)
  size_t maxPairs = 12;  // per loop head
  // Encode the path from the program start (needed by infer() and by
  // checkProperty(fromStart)); off for k-induction without templates.
  bool rootStart = true;
};

struct KikiOptions {
  smt::SolverKind solver = smt::SolverKind::Z3;
  KikiMode mode = KikiMode::Full;
  TemplateOptions templates;
  double timeoutS = 0;
  bool stopAtUnsupported = false;  // BmcOptions::stopAtUnsupported for the base case
  uint32_t maxBound = 1u << 20;
  size_t maxNodes = 2'000'000;  // the base case's unwinding budget (BmcOptions::maxNodes)
  std::function<void(const std::string&)> progress;
  std::function<void(const result::VerificationResult&)> checkpoint;  // as KInductionOptions::checkpoint
  bool corruptReplayForTest = false;
};

result::VerificationResult runKiki(const cfa::Program& prog, cfa::FuncId entry, const KikiOptions& opts);

// One template row at a loop head: e(x) = cx*x + cy*y (cy == 0: an interval row),
// evaluated in kTemplateWidth bits; the row states e(x) <= d.
struct TemplateRow {
  uint32_t cut = 0;  // FlatProgram::cuts index
  FlatVar x = 0, y = 0;
  int cx = 1, cy = 0;
};
constexpr uint32_t kTemplateWidth = 34;

// A template value: per loop head reached or not (⊥), per row its bound (the maximum
// of the row expression = ⊤ for that row).
struct TemplateValue {
  std::vector<bool> reached;  // per cut
  std::vector<int64_t> d;     // per row
};

// The template domain, invariant inference and k-induction on one incremental solver
// (exposed for tests).
class KInvariantEngine {
public:
  KInvariantEngine(const FlatProgram& fp, smt::SolverKind solver, const TemplateOptions& topts = {});
  ~KInvariantEngine();

  const std::vector<TemplateRow>& rows() const;
  int64_t rowMax(size_t r) const;  // ⊤ of row r
  // The least k-invariant in the template (nullopt: solver unknown, or the deadline; an
  // inference stopped by its deadline is resumed, with the k it started with, by the
  // next call).
  // It is checked to be a k-invariant by the solver before it is returned; it holds at
  // every loop-head state of every error-free execution prefix, and is conjoined with
  // the invariants found before (which the inference assumes).
  // intervalsOnly: the zone and octagon rows stay ⊤ (a cheap first invariant; it does
  // not count as the k inferred, see lastInferredK()). A resumed inference keeps the
  // k and the intervalsOnly it was started with.
  std::optional<TemplateValue> infer(uint32_t k, const support::Deadline& deadline, bool intervalsOnly = false);
  // The conjunction of the invariants found so far (none: every cut reached, rows ⊤).
  const TemplateValue& known() const;
  // Assumes affine equalities (true in every reachable loop-head state, see
  // affine_invariants.h) in every present and later state; formula() includes them.
  void assumeAffine(const AffineInvariant& inv);
  // k-induction under the known invariant: can an error (or unsupported construct) be
  // reached in one segment after k+1 consecutive loop-head states satisfying it?
  // fromStart: also from the program start (k must be 0; used by the ai mode).
  // Unsat means the step case holds. With fromStart an unsat answer is checked for
  // vacuity: the constraints without the error must be satisfiable, else Unknown (and
  // vacuityGuardFailed()).
  smt::CheckResult checkProperty(uint32_t k, unsigned timeoutMs, bool fromStart = false);
  // The known invariant at cut c as a C formula over source names ("" when ⊤).
  std::string formula(uint32_t cut) const;
  uint64_t queries() const;
  double solverSeconds() const;
  uint64_t iterations() const;  // template improvement steps over all inferences
  uint64_t narrowingSteps() const;  // descending steps kept, over all inferences
  bool vacuityGuardFailed() const;  // a fromStart proof was refused as vacuous
  // Tests only: makes every later query unsatisfiable (a broken encoding).
  void breakEncodingForTest();
  bool inferencePending() const;  // an inference was interrupted by its deadline
  uint32_t lastInferredK() const;  // k of the last completed inference (0: none)

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace argus::algorithms
