// The verification service's synchronous core: one request in, one result out.
// No JSON here — the CLI, the LSP server and the RPC server format results themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/frontend/frontend.h"
#include "core/result/result.h"
#include "core/smt/solver.h"

namespace argus::engine {

// Kind: k-induction with the concurrent interval invariant generator; KindNoInv: without
// it; Ai: the generator's interval analysis alone.
enum class Algorithm { Bmc, Ibmc, Pred, Kind, KindNoInv, Ai };
// Parses an --algorithm value; throws std::invalid_argument naming the known ones.
Algorithm parseAlgorithm(const std::string& s);
const char* algorithmName(Algorithm a);

class SessionCache;  // core/engine/sessions.h

struct VerifyRequest {
  std::string file;                    // path (also the name used in diagnostics)
  std::optional<std::string> source;   // contents; read from `file` when absent
  Algorithm algorithm = Algorithm::Bmc;
  smt::SolverKind solver = smt::SolverKind::Z3;
  double timeoutS = 0;                 // whole run, wall clock; 0 = none
  uint32_t maxBound = 0;               // stop BMC deepening at this bound (unknown + condition); 0 = no limit
  frontend::DataModel dataModel = frontend::DataModel::LP64;
  std::string function = "main";       // entry
  std::vector<std::string> extraArgs;  // compiler flags
  std::function<void(const std::string&)> progress;
  bool corruptReplayForTest = false;
  // ibmc on a parsed program: continue the deepening stored under sessionKey (same
  // program, entry and solver) and store it again if it can go deeper (see sessions.h).
  // keepAlive must own the program.
  SessionCache* sessions = nullptr;
  std::string sessionKey;
  std::shared_ptr<const void> keepAlive;
};

struct VerifyOutcome {
  bool inputError = false;             // the request could not be run (file, parse, entry)
  std::string error;                   // message for inputError
  result::VerificationResult result;
};

VerifyOutcome verify(const VerifyRequest& req);

// Same, for a program parsed before (req.source/file/extraArgs/dataModel must be what
// it was parsed from; req.file still names it in results). Lets a long-lived caller
// (argusd's workers) parse a translation unit once for all its entry functions.
VerifyOutcome verifyParsed(const cfa::Program& program, const VerifyRequest& req);

}  // namespace argus::engine
