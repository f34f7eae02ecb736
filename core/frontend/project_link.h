// Parsing the translation units of a project and linking them (core/cfa/link.h): the
// two passes `argus project` needs. Pass 1 parses every unit in link mode and learns
// which unit defines which external function and global; pass 2 parses again only the
// units that call a function or declare a global another unit defines, with
// FrontendOptions::linkFunctions / linkGlobals set; then cfa::link. A single unit is
// parsed once, not in link mode (exactly what `argus verify` sees).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cfa/link.h"
#include "core/frontend/frontend.h"

namespace argus::frontend {

struct UnitSource {
  std::string file;                  // path (also the unit's name in the linked program)
  std::vector<std::string> flags;    // frontend flags (compile_flags.h)
  std::optional<std::string> text;   // contents; read from `file` when absent
};

struct LinkedProject {
  cfa::LinkResult link;              // link.program null: see errors
  std::vector<std::string> parseErrors;  // units that did not parse (left out of the link)
  std::vector<std::string> errors;   // link errors (also those of link.errors)
  size_t reparsed = 0;               // units parsed a second time
};

// base: data model and the like; its extraArgs are replaced by each unit's flags.
LinkedProject parseAndLink(const std::vector<UnitSource>& units, const FrontendOptions& base,
                           const std::function<void(const std::string&)>& progress = {});

}  // namespace argus::frontend
