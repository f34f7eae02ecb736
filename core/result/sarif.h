// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) from Argus's results,
// for CI systems and code-review tools.
//
// One SARIF run per log (tool: Argus), built from the public JSON of results
// (result::toJson), so `argus verify`, `argus bench` (which reads its tasks' JSON) and
// argusd's `argus/verify` write the same thing:
//   - `false`: one result per reachable error, level "error", at the error call, the
//     message naming the entry and the algorithm; the counterexample as a codeFlow with
//     one threadFlow location per step (its statement as the message, its values as
//     `state`: "x" -> {"text": "42"}).
//   - `unknown`: a "note" at the entry function saying what was verified (the CMC
//     condition, e.g. "verified for loops unrolled <= 8 times") and why the run stopped.
//   - `true`: no result (SARIF results are findings); the run's properties count it.
// partialFingerprints carry "argus/closure/v1", a hash of the entry's closure hash
// (cfa::closureHashes: its code and everything it calls, independent of absolute lines),
// the entry and the rule: an edit that does not change the function keeps a finding's
// identity. Rules: one per property (unreach-call, valid-deref, valid-free, valid-memtrack,
// valid-memcleanup, no-overflow, div-by-zero, shift, and valid-memsafety for an `unknown`
// that checked it): a `false` has the rule of the property its counterexample violates,
// an `unknown` that of the first property the run checked.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace argus::result {

struct SarifTask {
  std::string file;     // the verified file, as given (becomes an artifact URI)
  nlohmann::json result;  // result::toJson of its result
};

struct SarifInvocation {
  std::vector<std::string> arguments;  // argv, the program first
  std::string startTimeUtc, endTimeUtc;  // ISO 8601 (utcNow)
  bool success = true;                 // the tool ran to the end (not: no findings)
};

nlohmann::json toSarif(const std::vector<SarifTask>& tasks, const SarifInvocation& inv);

// The current time as SARIF wants it: 2026-11-26T01:02:03.456Z.
std::string utcNow();

// A path as a URI reference: relative paths stay relative ("examples/a.c"), absolute
// ones become file:///… (percent-encoding what a URI may not hold).
std::string pathToUri(const std::string& path);

}  // namespace argus::result
