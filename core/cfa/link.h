// Linking translation units into one program, as a C linker (or CBMC's goto-cc) does.
//
// Input: one Program per translation unit, each parsed in the frontend's link mode
// (frontend::FrontendOptions::linkMode), which records linkage (Function::linkage,
// Variable::linkage), makes calls to functions defined in other units calls of stubs
// (Function::linkStub), gives functions addresses derived from their link names, and
// leaves a global that another unit defines to that unit (FrontendOptions::linkGlobals).
//
// Output: one Program in which
// - every external function is defined once; a call through a stub calls the
//   definition from the other unit (after checking that parameters and result agree;
//   otherwise the stub stays, and its body is an Unsupported edge: unknown, not a guess);
// - `static` functions and everything unit-local (static globals, locals, temporaries,
//   string literals) are renamed `name@file`, so units never share them;
// - external globals are one variable each (tentative definitions merge; only the
//   first allocation is kept, the others become Blank);
// - __argus_init / __argus_init_nondet run the units' initialisers one after the other,
//   ordered so that an initialiser taking the address of another unit's global runs
//   after that global is allocated.
// Errors (the result has no program): two external definitions of one function, units
// with different data models, an external global seen with different widths, units whose
// initialisers depend on each other in a cycle, two functions on one address, atexit in a
// program of several units (its handler table is per unit).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::cfa {

struct LinkUnit {
  std::string file;                  // the unit's main file (names of its local things)
  std::unique_ptr<Program> program;
};

struct LinkResult {
  std::unique_ptr<Program> program;  // null iff errors is not empty
  std::vector<std::string> errors;
  std::vector<std::string> warnings; // e.g. a call left unresolved
  // linked function name -> (unit file, C name)
  std::map<std::string, std::pair<std::string, std::string>> origin;
};

// Units keep their order (the first unit's file becomes Program::mainFile). A single
// unit is returned as it is.
LinkResult link(std::vector<LinkUnit> units);

}  // namespace argus::cfa
