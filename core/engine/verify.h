// The verification service's synchronous core: one request in, one result out.
// No JSON here — the CLI, the LSP server and the RPC server format results themselves.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/frontend/frontend.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::engine {

enum class Algorithm { Bmc, Ibmc, Pred };
// Parses an --algorithm value; throws std::invalid_argument naming the known ones.
Algorithm parseAlgorithm(const std::string& s);
const char* algorithmName(Algorithm a);

struct VerifyRequest {
  std::string file;                    // path (also the name used in diagnostics)
  std::optional<std::string> source;   // contents; read from `file` when absent
  Algorithm algorithm = Algorithm::Bmc;
  smt::SolverKind solver = smt::SolverKind::Z3;
  double timeoutS = 0;                 // whole run, wall clock; 0 = none
  frontend::DataModel dataModel = frontend::DataModel::LP64;
  std::string function = "main";       // entry
  std::vector<std::string> extraArgs;  // compiler flags
  std::function<void(const std::string&)> progress;
  bool corruptReplayForTest = false;
};

struct VerifyOutcome {
  bool inputError = false;             // the request could not be run (file, parse, entry)
  std::string error;                   // message for inputError
  result::VerificationResult result;
};

VerifyOutcome verify(const VerifyRequest& req);

}  // namespace argus::engine
