// Contracts the developer writes (issue 29 item 5; README "Contracts"): ACSL-style
// `/*@ requires e; */` comments before a function definition.
//
// Clang does not parse ACSL, so the frontend rewrites the main file's text before Clang
// sees it: each supported `requires e;` clause of a comment that precedes a function
// definition becomes a call `__argus_requires((e'), i);` inserted right after the
// body's `{`, on the same line (line numbers do not move), where e' is e with the
// ACSL subset translated to C and i indexes `clauses`. The lowering
// (core/frontend/lower_call.cpp) turns the calls at the start of a body into a gated
// contract check (cfa::ContractGate): assumed when the function is the verified entry,
// asserted at every call otherwise.
//
// The subset: C expressions over the parameters and globals (evaluated with C's
// semantics, as if written at the function's start), `\valid(p)` / `\valid_read(p)`
// (p points into a live object with at least sizeof(*p) bytes left), `\valid(p + (lo ..
// hi))` (the elements lo..hi of p's type; an empty range is valid), `\null`, `\true`,
// `\false`. Anything else (`\forall`, `\old`, `==>`, a chained comparison `a < b < c`
// whose ACSL meaning differs from C's, `ensures`, `assigns`, behaviours, ...) makes
// that clause ignored with a warning naming it and its file:line. A comment before a
// declaration without a body (a prototype, here or in an included header) is the contract
// of the function's definition in this file, if that has none of its own and the same
// parameter names; otherwise it is ignored with a warning (a header's prototype of a
// function defined elsewhere: silently). This file has no Clang dependency.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace argus::frontend {

struct ContractClause {
  uint32_t line = 0;     // the clause's line in its file
  std::string text;      // as written: "requires \valid(p + (0 .. n-1))"
  std::string file;      // where the clause is written, when not the rewritten file (a header)
};

// A contract comment before a function *declaration* (a prototype, typically in a header):
// it applies to the function's definition when that has no contract of its own and the
// same parameter names.
struct DeclaredContract {
  std::string function;
  std::vector<std::string> params;  // the declaration's parameter names, in order
  bool simpleParams = true;         // every parameter `type name` (no function pointer, no `...`)
  std::string file;                 // where the comment is
  uint32_t line = 0;                // its first line
  std::string content;              // the text between `/*@` and `*/`
};

// The contract comments before declarations in a header's text (comments before
// definitions or inside bodies are left out: a header is not rewritten).
std::vector<DeclaredContract> declaredContracts(const std::string& code, const std::string& file);

// The names of the `#include "..."` lines of a text, in order.
std::vector<std::string> quotedIncludes(const std::string& code);

struct ContractRewrite {
  std::string code;                   // the rewritten text (== the input when nothing changed)
  bool changed = false;
  bool usesValid = false;             // some clause uses \valid (the memory-safety layout)
  std::vector<ContractClause> clauses;
  std::vector<std::string> warnings;  // "file:line: contract ...: ignored"
};

// validAllowed false (link mode: `argus project` links units of the flat layout): a clause
// with \valid is outside the subset.
// `declared`: the contracts of the included headers' prototypes (declaredContracts); each
// applies to this file's definition of its function when that has no contract of its own
// and the same parameter names (else a warning); so does a contract before a prototype in
// this file.
ContractRewrite rewriteContracts(const std::string& code, const std::string& file, bool validAllowed = true,
                                 const std::vector<DeclaredContract>& declared = {});

}  // namespace argus::frontend
