// The solver-neutral prover interface.
//
// A Solver is one assertion stack over terms of one TermManager. Backends (Z3, cvc5)
// live in core/smt/z3 and core/smt/cvc5 and are created only through makeSolver(); no
// other code includes a solver header.
//
// Contract:
//  - add() asserts into the current frame; push()/pop() open and close frames.
//  - check(assumptions) decides the conjunction of the stack and the assumptions
//    (Boolean terms, usually Vars used as activation literals); the assumptions are
//    retracted after the call.
//  - modelValue() is valid only right after a check() that returned Sat, and until the
//    next stack change; it returns a constant term (BoolConst/BVConst/IntConst).
//  - unsatCore() is valid only right after a check() that returned Unsat; it returns
//    the subset of that call's assumptions the backend found responsible.
//  - interrupt() may be called from any thread; the running check() returns Unknown. One
//    that comes while no check runs: Z3 absorbs it before the next operation (which
//    then runs normally); cvc5 gives up every later check.
//  - Z3: a check that overruns its time limit is interrupted (support::Watchdog, at
//    the limit plus max(1 s, limit / 4); SolverStats::overruns counts them).
//  - Per-query time limit: Options::timeoutMs (0 = none), also settable later; Z3 also
//    takes a per-query limit in units of work (setResourceLimit).
//  - interpolant(A, B) (needs Options::interpolants): for an unsatisfiable A ∧ B, a
//    Craig interpolant I with A ⇒ I, I ∧ B unsatisfiable, over the symbols A and B
//    share; the assertion stack is left as it was. Returns nullptr when the backend
//    cannot give one (reasonUnknown() says why: unsupported, timeout, a term it cannot
//    translate back). Only cvc5 supports it (SyGuS-based, cvc5 1.0.3); Z3 4.8.12 has
//    no interpolation and always returns nullptr.
// Violations of the "valid only right after" rules throw SolverError.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/smt/term.h"

namespace argus::smt {

enum class SolverKind { Z3, CVC5 };
const char* solverName(SolverKind k);
// Parses "z3" / "cvc5"; throws std::invalid_argument on anything else.
SolverKind parseSolverKind(const std::string& s);

enum class CheckResult { Sat, Unsat, Unknown };
const char* checkResultName(CheckResult r);

class SolverError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct SolverOptions {
  bool models = true;
  bool unsatCores = false;
  unsigned timeoutMs = 0;  // per check(); 0 = no limit
  bool interpolants = false;  // enable interpolant() (cvc5 only)
  // Z3: a check() with assumptions over arrays that runs out of oneShotAfterUnits units
  // of work (Z3's rlimit) is run again on a fresh solver holding the assertions and the
  // assumptions as assertions, so that Z3 takes its one-shot path (its tactics: equations
  // solved, unconstrained terms eliminated, before search) instead of its incremental
  // core, which a check with assumptions switches to for good. On SQLite's BMC queries
  // (memory: thousands of stores) the incremental core ran > 60 s where the one-shot path
  // answered in 4.8 s; without arrays it went the other way (a 128-bit multiplication:
  // 2.9 s incremental, > 40 s one-shot), so only checks over arrays. Most checks end
  // within the first units, and a fresh solver would cost each of them its set-up (some
  // milliseconds; a BMC run can make thousands). No unsat core after a one-shot check
  // (unsatCore() is empty). cvc5 ignores both.
  bool oneShotChecks = false;
  unsigned oneShotAfterUnits = 1'000'000;
};

struct SolverStats {
  uint64_t checks = 0;
  uint64_t sat = 0, unsat = 0, unknown = 0;
  double checkTimeS = 0;   // wall time spent inside check()
  uint64_t assertions = 0;
  uint64_t overruns = 0;   // checks stopped by the watchdog, far past their time limit
};

class Solver {
public:
  virtual ~Solver() = default;
  virtual SolverKind kind() const = 0;

  virtual void push() = 0;
  virtual void pop(unsigned n = 1) = 0;
  virtual unsigned depth() const = 0;
  virtual void add(Term formula) = 0;
  // Asserts guard => formula, for a guard that is a fresh Boolean variable occurring
  // nowhere else but in the assumptions of checks (a query literal): a check without the
  // guard among its assumptions is the same with or without the assertion, and a backend
  // may leave it out where that is cheaper (Z3's one-shot checks do: an old query's
  // disjunction, copied along, made one error location's check take 14.9 s instead of
  // 0.7 s on SQLite).
  virtual void addGuarded(Term guard, Term formula) = 0;
  virtual CheckResult check(std::span<const Term> assumptions = {}) = 0;

  virtual Term modelValue(Term t) = 0;
  virtual std::vector<Term> unsatCore() = 0;
  // The backend's reason for the last Unknown ("timeout", "interrupted", "incomplete", ...).
  virtual std::string reasonUnknown() const = 0;

  virtual bool supportsInterpolation() const { return false; }
  virtual Term interpolant(Term a, Term b) = 0;

  virtual void setTimeoutMs(unsigned ms) = 0;
  // A per-check limit in the backend's own units of work (0 = none): unlike a time
  // limit, where a check stops does not depend on how loaded the machine is. Z3: its
  // resource limit (rlimit); cvc5: not supported (returns false, no limit set).
  virtual bool setResourceLimit(unsigned units) = 0;
  virtual void interrupt() = 0;  // thread-safe
  // Z3 with SolverOptions::oneShotChecks: checks with assumptions over arrays go to the
  // fresh one-shot solver at once (no incremental attempt first) while set. For a check
  // whose assumptions fix one path's guard (one error location of a BMC unwinding), Z3's
  // one-shot tactics propagate it through the formula; the incremental core does not.
  // Others ignore it.
  virtual void setOneShotAtOnce(bool) {}

  const SolverStats& stats() const { return stats_; }

protected:
  SolverStats stats_;
};

std::unique_ptr<Solver> makeSolver(SolverKind kind, TermManager& tm, const SolverOptions& opts = {});

// A process-wide cap on the memory the solvers allocate (0 = none), in force at once for
// every solver of the process: Z3 counts its own allocations (its global parameter
// memory_max_size) and fails the operation that would pass the cap, which the backends
// report as std::bad_alloc (from add) or as an Unknown check ("out of memory"), so a
// run keeps what it verified. cvc5 1.0 has no such cap; it is left to the caller's
// process limits. A forked child inherits the cap.
void setSolverMemoryLimitMb(uint64_t mb);
uint64_t solverMemoryLimitMb();

// The model value of a bit-vector term of up to 128 bits (constBits of modelValue).
inline unsigned __int128 modelBits(Solver& s, Term t) {
  auto v = constBits(s.modelValue(t));
  if (!v) throw SolverError("model value of a bit-vector term is not a constant of at most 128 bits");
  return *v;
}

}  // namespace argus::smt
