#include "core/engine/verify.h"

#include <chrono>
#include <stdexcept>

#include "core/algorithms/bmc.h"
#include "core/algorithms/predicate_analysis.h"
#include "core/support/deadline.h"
#include "core/support/large_stack.h"

namespace argus::engine {

Algorithm parseAlgorithm(const std::string& s) {
  if (s == "bmc") return Algorithm::Bmc;
  if (s == "ibmc" || s == "auto") return Algorithm::Ibmc;
  if (s == "pred") return Algorithm::Pred;
  throw std::invalid_argument("unknown or not yet available algorithm '" + s + "' (available: bmc, ibmc, pred, auto)");
}

const char* algorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::Bmc: return "bmc";
    case Algorithm::Ibmc: return "ibmc";
    case Algorithm::Pred: return "pred";
  }
  return "?";
}

static VerifyOutcome verifyUnguarded(const VerifyRequest& req);

// Any internal failure becomes `unknown` with the reason; nothing escapes to the caller
// (the daemon must keep serving other requests).
VerifyOutcome verify(const VerifyRequest& req) {
  try {
    // One switch to the large stack for the whole run: the solver backends' own
    // runOnLargeStack calls then run in place instead of switching per call.
    VerifyOutcome out;
    runOnLargeStack([&] { out = verifyUnguarded(req); });
    return out;
  } catch (const std::bad_alloc&) {
    VerifyOutcome out;
    out.result.reason = "out of memory";
    out.result.condition.kind = "memory";
    out.result.condition.summary = "nothing verified";
    return out;
  } catch (const std::exception& e) {
    VerifyOutcome out;
    out.result.reason = std::string("internal error: ") + e.what();
    out.result.condition.kind = "error";
    out.result.condition.summary = "nothing verified";
    return out;
  }
}

static VerifyOutcome verifyUnguarded(const VerifyRequest& req) {
  VerifyOutcome out;
  auto wall0 = std::chrono::steady_clock::now();
  double cpu0 = support::processCpuSeconds();
  frontend::FrontendOptions fo;
  fo.dataModel = req.dataModel;
  fo.extraArgs = req.extraArgs;
  frontend::ParseResult pr = req.source ? frontend::parseSource(*req.source, req.file, fo)
                                        : frontend::parseFile(req.file, fo);
  if (!pr.ok()) {
    out.inputError = true;
    out.error = "cannot parse " + req.file + ":\n" + pr.diagnostics;
    return out;
  }
  const cfa::Function* entry = pr.program->find(req.function);
  if (!entry) {
    out.inputError = true;
    out.error = "no function '" + req.function + "' with a body in " + req.file;
    return out;
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  double remaining = req.timeoutS > 0 ? std::max(0.1, req.timeoutS - elapsed) : 0;
  if (req.algorithm == Algorithm::Pred) {
    algorithms::PredicateAnalysisOptions po;
    po.solver = req.solver;
    po.timeoutS = remaining;
    po.progress = req.progress;
    po.corruptReplayForTest = req.corruptReplayForTest;
    out.result = algorithms::runPredicateAnalysis(*pr.program, entry->id, po);
    out.result.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    out.result.stats.cpuTimeS = support::processCpuSeconds() - cpu0;
    return out;
  }
  algorithms::BmcOptions bo;
  bo.incremental = req.algorithm == Algorithm::Ibmc;
  bo.solver = req.solver;
  bo.timeoutS = remaining;
  bo.progress = req.progress;
  bo.corruptReplayForTest = req.corruptReplayForTest;
  out.result = algorithms::runBmc(*pr.program, entry->id, bo);
  out.result.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  out.result.stats.cpuTimeS = support::processCpuSeconds() - cpu0;
  return out;
}

}  // namespace argus::engine
