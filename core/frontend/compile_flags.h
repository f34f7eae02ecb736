// Compilation-database flags for the frontend (shared by `argus project` and whoever
// reads compile_commands.json): of a compiler command line, only what changes how the
// frontend reads the code.
#pragma once

#include <string>
#include <vector>

namespace argus::frontend {

// Splits a compile_commands.json "command" into words: blanks separate, '...' and "..."
// quote, a backslash escapes the next character (outside single quotes).
std::vector<std::string> splitCommand(const std::string& command);

// From args (args[0] is the compiler): -I, -isystem, -include (relative paths resolved
// against `directory`), -D, -U (joined or separate value) and -std=. Joined forms are
// returned as one word (-Ifoo, -DX=1), -isystem and -include as two.
std::vector<std::string> frontendFlags(const std::vector<std::string>& args, const std::string& directory);

}  // namespace argus::frontend
