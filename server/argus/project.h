// `argus project [DIR | compile_commands.json] [options]`: verifies every function of a
// whole project. Reads the compilation database, parses every translation unit in the
// frontend's link mode, links them into one program (core/cfa/link.h: a call into
// another unit's function is verified through its body), and verifies every function
// defined in the project's files as its own entry (main from the C initial state, the
// others with nondeterministic parameters and globals), in worker processes forked
// after parsing, with a per-function timeout. Results are stored in the SQLite result
// store under (engine build, closure hash, entry, options), so a second run verifies
// only functions whose closure changed. See project.cpp for the options and the exit codes.
#pragma once

#include <string>
#include <vector>

namespace argus::cli {

// Exit codes: 0 every function verified or conditional (verified up to a bound);
// 1 a counterexample; 2 usage or input error (no database, link error);
// 3 no counterexample, but some function unknown or some unit did not parse;
// 130 interrupted (SIGINT/SIGTERM: running workers are killed, finished functions reported).
int runProject(const std::vector<std::string>& args);

// The value of `--property` (argus verify, argus project): names separated by commas, or
// the path of an SV-COMP .prp file → the comma-separated property names
// (engine::parseProperties); throws std::invalid_argument for an unreadable file or an
// unknown name.
std::string propertyOption(std::string value);

}  // namespace argus::cli
