// SV-COMP verification witnesses, format 2.0 (YAML), from Argus's results, for witness
// validators and other verifiers (format: sosy-lab's sv-witnesses, "Format for
// Violation Witnesses / Correctness Witnesses, version 2.0"; the schema Argus is tested
// against is in tests/data/witness/).
//
//   - `false`: one `violation_sequence` entry. Each value the environment supplied on the
//     counterexample's path (a __VERIFIER_nondet_* call, a body-less function's result,
//     result::Counterexample::inputs) becomes a segment ending in a `function_return`
//     waypoint at the call's closing parenthesis with the ACSL constraint
//     `\result == V`; the final segment's `target` waypoint is the error call. Together
//     they fix the path (branching waypoints are not written yet).
//   - `true`: one `invariant_set` entry with a `loop_invariant` per loop head that the
//     proof's invariants (VerificationResult::invariant: k-induction's and kIkI's) name,
//     as C expressions. Facts over names that are not the program's C variables at the
//     loop (inlined callees' renamed locals `x@12`, internal `__brk`) are dropped
//     (conjuncts only, so what remains is weaker and still holds); a loop reached in
//     several calling contexts gets the disjunction of its contexts' invariants. A proof
//     without invariants gives an empty set.
//   - `unknown`: no witness.
// The metadata carry a random UUID, the creation time, the producer (Argus, its version,
// the algorithm, the command line) and the task: the input file and its SHA-256, the
// specification `CHECK( init(ENTRY()), LTL(G ! call(reach_error())) )`, the data model
// and the language. YAML is written by hand (block style, every string double-quoted).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result/result.h"

namespace argus::result {

// One loop invariant of a correctness witness.
struct WitnessInvariant {
  std::string function;
  uint32_t line = 0, column = 0;
  std::string value;  // C expression
};

struct WitnessTask {
  std::string file;       // the input file as given (input_files, locations' file_name)
  std::string source;     // its bytes: the hash, and the calls' closing parentheses
  std::string dataModel;  // "ILP32" or "LP64"
  std::vector<std::string> commandLine;  // argv of the run, the program first
  // The loop invariants to write for a `true`; when absent, witnessInvariants of the
  // result's invariant map (the CLI passes them through a scope check first).
  std::optional<std::vector<WitnessInvariant>> invariants;
};

// The witness of a `true` or `false` result; nullopt for `unknown` (and for a `false`
// without a counterexample, which a result never is).
std::optional<std::string> toWitness(const VerificationResult& r, const WitnessTask& t);

// The loop invariants of a proof's invariant map (location "FILE:L:C in F[ (called at
// line N)...]" -> formula), for the locations in `file`, filtered as described above.
std::vector<WitnessInvariant> witnessInvariants(const std::map<std::string, std::string>& invariant,
                                                const std::string& file);

// The top-level `&&` conjuncts of a formula (parenthesised parts stay whole).
std::vector<std::string> witnessConjuncts(const std::string& formula);

// A YAML double-quoted scalar holding s.
std::string yamlQuote(const std::string& s);

}  // namespace argus::result
