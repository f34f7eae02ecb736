// `argus remote verify FILE --server HOST:PORT --token-file F ...`: the verification of
// `argus verify`, done by a running argusd (a team server) over its TCP JSON-RPC
// (`argus/verify` after an `initialize` with the token), printed with the CLI's own
// printers (render.h), so CI jobs get the same output and exit codes.
#pragma once

#include <string>
#include <vector>

namespace argus::cli {

int runRemote(const std::vector<std::string>& args);

}  // namespace argus::cli
