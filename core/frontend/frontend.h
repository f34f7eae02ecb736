// The C frontend: Clang libTooling turns one translation unit into CFAs.
//
// This module is the only one that includes Clang headers. It parses C (C11 with GNU
// extensions; SV-COMP preprocessed `.i` files; implicit declarations tolerated) for a
// target that matches the data model, so sizes, alignment and promotions are Clang's,
// and lowers every function with a body into a cfa::Function (see core/cfa/cfa.h).
//
// Constructs it cannot translate (floating point, bit-fields, variadic definitions, ...)
// become Unsupported edges at the place they occur, so the rest of the program is still
// analysed and no verifier can claim safety through them.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::frontend {

enum class DataModel { ILP32, LP64 };
// Parses "ILP32" / "LP64" (case-insensitive); throws std::invalid_argument otherwise.
DataModel parseDataModel(const std::string& s);
const char* dataModelName(DataModel m);

struct FrontendOptions {
  DataModel dataModel = DataModel::LP64;
  std::vector<std::string> extraArgs;  // e.g. -I, -D from compile flags
  // Only headers under the system include directories may be read (the compiler's own,
  // /usr/include, /usr/local/include, GCC's): for text from remote clients, whose
  // `#include "/etc/passwd"` must not show them the server's files. Any other #include
  // fails as "file not found".
  bool systemHeadersOnly = false;
  // Whole-project linking (`argus project`, core/cfa/link.h). linkMode: external
  // globals live in memory, function addresses derive from their link names (equal in
  // every unit), and linkage facts are recorded (cfa::Program::link). A call to a
  // body-less function named in linkFunctions calls a stub (Function::linkStub) that
  // cfa::link replaces by the definition from another unit; a global named in
  // linkGlobals is neither allocated nor initialised here (its defining unit does it).
  bool linkMode = false;
  std::set<std::string> linkFunctions, linkGlobals;
  // Properties beside reachability to instrument as check edges (Error edges carrying
  // Edge::property, core/frontend/lower_checks.cpp): "no-overflow", "div-by-zero",
  // "shift". Empty: only error calls and assertions (unreach-call), nothing extra encoded.
  // When "unreach-call" is not listed, error calls end the execution (Abort) instead.
  std::set<std::string> properties;
};

struct ParseResult {
  std::unique_ptr<cfa::Program> program;  // null when the file did not parse
  std::string diagnostics;                // Clang's errors (file:line:col: error: ...)
  bool ok() const { return program != nullptr; }
};

ParseResult parseFile(const std::string& path, const FrontendOptions& opts);
ParseResult parseSource(const std::string& code, const std::string& fileName,
                        const FrontendOptions& opts);

}  // namespace argus::frontend
