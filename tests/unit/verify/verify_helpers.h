// Test helpers: verify a C snippet in-process and return the verdict.
#pragma once

#include <string>

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

}  // namespace argus::testing
