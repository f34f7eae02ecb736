// Structural hashes of CFAs, for the daemon's per-function result cache.
//
// functionHash(f) covers everything that can change what verifying f means: every
// location and edge (kind, operands, expressions, statement text, callee *names*),
// parameters and return variable — but not absolute source lines. Positions enter
// only *relative to the function's first line*, so inserting a line above a function
// keeps its hash, while editing inside it changes the hash. Register variables are
// named canonically: globals by their unique name, everything else by the order of
// first use inside the function (temporary numbering elsewhere in the file does not
// leak in).
//
// closureHashes(p) covers, per function f, everything in f's closure (core/cfa/closure.h:
// the functions it can call, the globals they name and their initialisers), as Merkle
// hashes over the components of the dependency graph (recursion is fine; linear in
// the program), plus the data model and the layout of all globals. An edit to g
// therefore changes the closure hash of g and of exactly its (transitive) callers; an
// edit to a global's initialiser, that of the functions that name it. Hashes are
// 128-bit, printed as 32 hex digits.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/cfa/cfa.h"

namespace argus::cfa {

// Two independent 64-bit FNV-1a style streams with a final mix.
class Hasher {
 public:
  void add(std::string_view s);
  void add(uint64_t v);
  std::string hex() const;

 private:
  void byte(uint8_t b);
  uint64_t a_ = 0xcbf29ce484222325ull, b_ = 0x84222325cbf29ce4ull;
};

// Own structural hash of one function (see above).
std::string functionHash(const Program& p, const Function& f);

// Names of the functions reachable from f through calls, f included.
std::set<std::string> reachableFunctions(const Program& p, const Function& f);

// function name → closure hash, for every function of the program.
std::map<std::string, std::string> closureHashes(const Program& p);

// True for functions the frontend synthesises (__argus_init, ...).
bool isSyntheticFunction(const Function& f);

}  // namespace argus::cfa
