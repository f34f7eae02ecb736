// The CLI's printers of one verification result, shared by `argus verify` and
// `argus remote verify` (same output whether the run was local or on a team server).
#pragma once

#include <string>
#include <vector>

#include "core/result/result.h"

namespace argus::cli {

// format: text | json | sarif. argv, started, file: the SARIF invocation and artifact.
std::string renderResult(const std::string& format, const result::VerificationResult& r,
                         const std::vector<std::string>& argv, const std::string& started, const std::string& file);

// The line `argus verify` prints when a chain stage finishes.
std::string stageLine(size_t index, const std::string& spec, const result::VerificationResult& r);

}  // namespace argus::cli
