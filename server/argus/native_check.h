// Native confirmation of counterexamples (concrete playback, issue 20): after a `false`,
// `argus verify` compiles the program with the counterexample's harness
// (core/result/harness.h) using the system compiler and runs it; only a run that
// reaches the error confirms the verdict natively.
//
//  * Compiler: `cc` from PATH (ARGUS_CC overrides), flags -O0 -w -fwrapv
//    -fsanitize=undefined -fno-sanitize-recover=all (and -m32 for ILP32), the -D/-U/-I
//    flags given after `--`, -I the program's folder; -lm. Everything happens in a fresh
//    temporary directory, removed afterwards; the run has a wall-clock and CPU limit,
//    stdin /dev/null, UBSAN_OPTIONS exitcode=95. -fwrapv gives signed arithmetic the
//    wraparound semantics Argus's reachability encoding uses (so a path that overflows
//    `-INT_MIN` on its way to the error is confirmed, not stopped by UBSan); every other
//    undefined behaviour UBSan detects (division by zero, shifts, misaligned or null
//    accesses) still stops the run. Signed overflow is its own finding under the
//    no-overflow property (issue 26), not a reason to doubt a reachability path.
//  * Confirmed: the run exits with kHarnessErrorExit and printed the harness's token.
//    Result: counterexample->confirmedBy gets "native".
//  * Not confirmed, on a path whose every choice the harness sets: the verdict becomes
//    unknown, reason "counterexample not confirmed by the native run (...)": a defect of
//    the encoder and interpreter both, to investigate.
//  * Not confirmed, on a path with choices a native run cannot set
//    (Counterexample::uncontrolled: uninitialised variables or memory, scanf input,
//    entry parameters): the interpreter's check stands; nativeNote says why.
//  * Cannot run (entry is not main, no compiler, ILP32 where 32-bit binaries cannot
//    execute — probed once per process with a trivial -m32 program —, the program does
//    not compile or link natively): the interpreter's check stands; nativeNote says why.
#pragma once

#include <string>
#include <vector>

#include "core/result/result.h"

namespace argus::cli {

struct NativeCheckOptions {
  bool run = true;             // false: --no-native-check (the harness is still written)
  std::string harnessOut;      // --harness-out F.c ("" = none)
  bool ilp32 = false;
  double timeoutS = 10;        // the native run's wall-clock limit
  std::vector<std::string> extraArgs;  // the verify request's compiler flags (-D, -U, -I kept)
  // Test hook (--corrupt-harness-for-test): the harness returns the recorded values
  // changed (x ^ 0x5a5a5a5a, masked to their width), after the interpreter accepted
  // them: the native run must then reject the counterexample.
  bool corruptForTest = false;
};

// For a `false` with a counterexample: writes the harness if asked and confirms the
// counterexample natively, updating `r` as described above. `file` is the program,
// `source` its text when it was given in memory (else read from `file`).
void nativeCheck(const std::string& file, const std::string* source, result::VerificationResult& r,
                 const NativeCheckOptions& o);

// Whether binaries built with `cc -m32` execute here (probed once per process); `why`
// receives the reason when not.
bool canRun32Bit(std::string* why = nullptr);

}  // namespace argus::cli
