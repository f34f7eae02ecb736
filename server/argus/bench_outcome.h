// Turning a finished verifier child into a verdict (+ reason) and comparing it
// with the expected verdict, for `argus bench`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench_process.h"

namespace argus::cli::bench {

enum class Verdict { True, False, Unknown };
enum class Classification { CorrectTrue, CorrectFalse, WrongTrue, WrongFalse, Unknown };

struct Outcome {
  Verdict verdict = Verdict::Unknown;
  std::string reason;  // why unknown ("" for true/false)
  // The verifier's "condition" (kind, summary, bound, automaton_states,
  // automaton_initial, the first excluded parts), null when it printed none: lets a
  // bench run check that every run that hit a limit said what it verified.
  nlohmann::json condition;
  // For `false`: the checks that confirmed the counterexample ("confirmed_by":
  // interpreter, native) and why the native run did not ("native_check", "" if it did).
  bool confirmedNative = false;
  std::string nativeNote;
  // For `false`: the property the counterexample violates ("violated_property"; "" for
  // unreach-call).
  std::string violatedProperty;
};

// A verdict counts only when the child exited with status 0 and printed a JSON
// object with "verdict" true/false/unknown. Everything else is unknown with a
// reason: "timeout (cpu limit)", "timeout (wall-clock limit)", "out of memory",
// "crashed: signal 11 (SIGSEGV)", "exit code N: <stderr tail>",
// "invalid output: ...", "interrupted", "failed to start: ...".
Outcome evaluateChild(const ChildResult& r, const ChildLimits& limits);

// A `false` naming another property than `expectedViolation` is wrong (SV-COMP).
Classification classify(Verdict v, bool expectedSafe, const std::string& expectedViolation = "",
                        const std::string& violated = "");

const char* verdictName(Verdict v);             // "true" | "false" | "unknown"
const char* classificationName(Classification c);  // "correct_true", ...

}  // namespace argus::cli::bench
