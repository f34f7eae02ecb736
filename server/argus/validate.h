// `argus validate --witness W.yml FILE.c`: Argus as a witness validator (SV-COMP
// witnesses, format 2.0; core/result/witness.h writes them).
//
// Violation witnesses (`violation_sequence`) are validated by execution: the concrete
// interpreter (core/result/replay.h) runs the program from main with the values of the
// witness's `function_return` waypoints (`\result == V`) as the results of the
// nondeterministic calls, in segment order. The witness is confirmed when every such
// call the run makes is the next waypoint's call (same line), an uninitialised local
// reads 0 (one of its possible values), and the run takes an error edge on the line of
// the final segment's `target`: a real execution that follows the witness reaches the
// error. Otherwise it is not confirmed, with the reason (where the run left the witness,
// ended or ran out of values). Waypoints of other types, `avoid` actions, and entry
// parameters are outside this validator: the answer is then unknown, never a guess.
//
// Correctness witnesses (`invariant_set`) are validated by instrumentation: each loop
// invariant becomes a check at every evaluation of its loop's condition, and the checked
// program is verified (k-induction) without the program's own error calls; the
// invariants that can fail are listed. When all hold, the program is verified again with
// the invariants assumed there: `true` confirms the witness (the invariants hold and are
// enough for the proof, together with what k-induction finds).
#pragma once

#include <string>
#include <vector>

namespace argus::cli {

int runValidate(const std::vector<std::string>& args);

}  // namespace argus::cli
