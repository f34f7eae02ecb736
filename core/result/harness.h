// Concrete playback: a C harness that makes a native run of the program follow a
// counterexample (`argus verify --harness-out F.c`; the native check of
// server/argus/native_check.h compiles it with the program and runs it).
//
// The harness defines
//  * every nondeterministic function of the path (Counterexample::inputs: the results
//    of __VERIFIER_nondet_*, nondet_* and functions declared without a body), each
//    returning its own recorded values in call order (one queue per function, so
//    C's unspecified evaluation order between different functions does not matter);
//    a call beyond the recorded values ends the run with kHarnessExhaustedExit;
//  * further functions the program references without a body (HarnessOptions::
//    unexpected): void functions, or functions the path does not call; they return 0
//    (any value is a choice the program's semantics allows);
//  * __argus_error_reached(), which prints "argus-harness: error reached TOKEN" to
//    stderr and ends the run with kHarnessErrorExit; and, as weak definitions (the
//    program's own definition wins), reach_error, __VERIFIER_error, __VERIFIER_assert,
//    assert (called without <assert.h>) and the glibc assertion hooks __assert_fail /
//    __assert_perror_fail / __assert, all calling it;
//  * __VERIFIER_assume, __ESBMC_assume, __CPROVER_assume, assume_abort_if_not (weak):
//    a failed assumption ends the run quietly with
//    kHarnessAssumeExit; abort (weak): kHarnessAbortExit, which is *not* an error
//    (Argus treats abort() like exit(): the path ends without error).
// A program that defines reach_error / __VERIFIER_error itself (often with an empty
// body, or calling __assert_fail or abort) gets a call of __argus_error_reached()
// inserted at the start of that body (instrumentErrorFunctions), so reaching it is
// reported whatever the body does, and no definition is duplicated.
#pragma once

#include <string>
#include <vector>

#include "core/result/result.h"

namespace argus::result {

constexpr int kHarnessErrorExit = 97;      // the error function was called
constexpr int kHarnessAbortExit = 98;      // abort() (a path end, not an error)
constexpr int kHarnessExhaustedExit = 99;  // a nondet function ran out of values / unexpected call
constexpr int kHarnessAssumeExit = 96;     // __VERIFIER_assume(0)
constexpr int kHarnessUbsanExit = 95;      // UBSAN_OPTIONS=exitcode=95 (set by the native check)

struct HarnessOptions {
  // Functions the program calls without a body that the path did not call.
  std::vector<std::string> unexpected;
  // Printed with the error report: the native check accepts kHarnessErrorExit only
  // together with this token, so a program's own exit(97) cannot pass for the error.
  std::string token = "argus";
  std::string programFile;  // for the header comment
  bool ilp32 = false;       // for the header comment (compile with -m32)
  // valid-memcleanup (issue 26): the error function and abort() end the program, so
  // the harness runs LeakSanitizer's check (__lsan_do_leak_check) before it exits there
  // (the program must be built with -fsanitize=address).
  bool leakCheckAtEnd = false;
};

// The harness's C source.
std::string writeHarness(const Counterexample& cex, const HarnessOptions& o);

// `source` with `__argus_error_reached();` inserted at the start of every body of a
// function named reach_error or __VERIFIER_error, a prototype before the first line
// and a `#line 1 "fileName"` so that the compiler's positions stay the original ones.
// `count` receives the number of bodies instrumented.
std::string instrumentErrorFunctions(const std::string& source, const std::string& fileName, int* count = nullptr);

// __VERIFIER_nondet_*, nondet_*, __nondet*: names Argus treats as nondeterministic.
bool isNondetFunctionName(const std::string& name);

}  // namespace argus::result
