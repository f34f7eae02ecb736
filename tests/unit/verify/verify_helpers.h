// Test helpers: verify a C snippet in-process and return the verdict.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "core/engine/verify.h"

namespace argus::testing {

inline engine::VerifyOutcome verifySource(const std::string& code, engine::Algorithm alg,
                                          smt::SolverKind solver,
                                          frontend::DataModel dm = frontend::DataModel::LP64,
                                          const std::string& function = "main", double timeout = 60) {
  engine::VerifyRequest req;
  req.file = "test.c";
  req.source = code;
  req.algorithm = alg;
  req.solver = solver;
  req.dataModel = dm;
  req.function = function;
  req.timeoutS = timeout;
  return engine::verify(req);
}

// A bug after a loop that needs n = 7 iterations (pred, impact, bmc-cpa tests).
inline const char* kBugAfterLoop =
    "int main(){ int s = 0; int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n > 0 && n < 100); "
    "for (int i = 0; i < n; i++) { s += 2; } if (s == 14) reach_error(); return 0; }";

// The result is `false` with a replayed counterexample whose steps give `name` the
// value `value`.
inline ::testing::AssertionResult replayedWithValue(const engine::VerifyOutcome& out, const std::string& name,
                                                    const std::string& value) {
  if (out.result.verdict != result::Verdict::False)
    return ::testing::AssertionFailure() << "verdict " << result::verdictName(out.result.verdict) << " ("
                                         << out.result.reason << ")";
  if (!out.result.counterexample) return ::testing::AssertionFailure() << "no counterexample";
  if (!out.result.counterexample->replayed) return ::testing::AssertionFailure() << "counterexample not replayed";
  for (const auto& st : out.result.counterexample->steps)
    for (const auto& [k, v] : st.values)
      if (k == name && v == value) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no step gives " << name << " = " << value;
}

inline const char* kPrelude =
    "extern void reach_error(void);\n"
    "extern int __VERIFIER_nondet_int(void);\n"
    "extern unsigned __VERIFIER_nondet_uint(void);\n"
    "extern char __VERIFIER_nondet_char(void);\n"
    "extern unsigned char __VERIFIER_nondet_uchar(void);\n"
    "extern short __VERIFIER_nondet_short(void);\n"
    "extern long __VERIFIER_nondet_long(void);\n"
    "extern unsigned long __VERIFIER_nondet_ulong(void);\n"
    "extern _Bool __VERIFIER_nondet_bool(void);\n"
    "extern void __VERIFIER_assume(int);\n"
    "extern void abort(void);\n"
    "void *malloc(unsigned long);\n"
    "void free(void *);\n"
    "void __VERIFIER_assert(int c) { if (!c) reach_error(); }\n";

// A request for a snippet after kPrelude (set more fields, then engine::verify).
inline engine::VerifyRequest snippetRequest(const std::string& body, engine::Algorithm alg, smt::SolverKind solver,
                                            double timeout) {
  engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(kPrelude) + body;
  req.algorithm = alg;
  req.solver = solver;
  req.timeoutS = timeout;
  return req;
}

}  // namespace argus::testing
