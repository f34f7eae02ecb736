#include "core/engine/verify.h"

#include <chrono>
#include <stdexcept>

#include "core/algorithms/bmc.h"
#include "core/algorithms/kinduction.h"
#include "core/algorithms/predicate_analysis.h"
#include "core/engine/sessions.h"
#include "core/support/deadline.h"
#include "core/support/large_stack.h"

namespace argus::engine {

Algorithm parseAlgorithm(const std::string& s) {
  if (s == "bmc") return Algorithm::Bmc;
  if (s == "ibmc" || s == "auto") return Algorithm::Ibmc;
  if (s == "pred") return Algorithm::Pred;
  if (s == "kind") return Algorithm::Kind;
  if (s == "kind-noinv") return Algorithm::KindNoInv;
  if (s == "ai") return Algorithm::Ai;
  throw std::invalid_argument("unknown or not yet available algorithm '" + s +
                              "' (available: bmc, ibmc, kind, kind-noinv, ai, pred, auto)");
}

const char* algorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::Bmc: return "bmc";
    case Algorithm::Ibmc: return "ibmc";
    case Algorithm::Pred: return "pred";
    case Algorithm::Kind: return "kind";
    case Algorithm::KindNoInv: return "kind-noinv";
    case Algorithm::Ai: return "ai";
  }
  return "?";
}

static VerifyOutcome verifyUnguarded(const VerifyRequest& req, const cfa::Program* parsed);

// Any internal failure becomes `unknown` with the reason; nothing escapes to the caller
// (the daemon must keep serving other requests).
static VerifyOutcome verifyGuarded(const VerifyRequest& req, const cfa::Program* parsed) {
  try {
    // One switch to the large stack for the whole run: the solver backends' own
    // runOnLargeStack calls then run in place instead of switching per call.
    VerifyOutcome out;
    runOnLargeStack([&] { out = verifyUnguarded(req, parsed); });
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

VerifyOutcome verify(const VerifyRequest& req) { return verifyGuarded(req, nullptr); }

VerifyOutcome verifyParsed(const cfa::Program& program, const VerifyRequest& req) {
  return verifyGuarded(req, &program);
}

static VerifyOutcome verifyUnguarded(const VerifyRequest& req, const cfa::Program* parsed) {
  VerifyOutcome out;
  auto wall0 = std::chrono::steady_clock::now();
  double cpu0 = support::processCpuSeconds();
  frontend::ParseResult pr;
  if (!parsed) {
    frontend::FrontendOptions fo;
    fo.dataModel = req.dataModel;
    fo.extraArgs = req.extraArgs;
    pr = req.source ? frontend::parseSource(*req.source, req.file, fo) : frontend::parseFile(req.file, fo);
    if (!pr.ok()) {
      out.inputError = true;
      out.error = "cannot parse " + req.file + ":\n" + pr.diagnostics;
      return out;
    }
    parsed = pr.program.get();
  }
  const cfa::Program& program = *parsed;
  const cfa::Function* entry = program.find(req.function);
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
    out.result = algorithms::runPredicateAnalysis(program, entry->id, po);
    out.result.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    out.result.stats.cpuTimeS = support::processCpuSeconds() - cpu0;
    return out;
  }
  if (req.algorithm == Algorithm::Kind || req.algorithm == Algorithm::KindNoInv) {
    algorithms::KInductionOptions ko;
    ko.solver = req.solver;
    ko.timeoutS = remaining;
    if (req.maxBound > 0) ko.maxBound = req.maxBound;
    ko.invariants = req.algorithm == Algorithm::Kind;
    ko.progress = req.progress;
    ko.corruptReplayForTest = req.corruptReplayForTest;
    out.result = algorithms::runKInduction(program, entry->id, ko);
    out.result.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    out.result.stats.cpuTimeS = support::processCpuSeconds() - cpu0;
    return out;
  }
  if (req.algorithm == Algorithm::Ai) {
    algorithms::KInductionOptions ko;
    ko.timeoutS = remaining;
    ko.progress = req.progress;
    out.result = algorithms::runIntervalAnalysis(program, entry->id, ko);
    out.result.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    out.result.stats.cpuTimeS = support::processCpuSeconds() - cpu0;
    return out;
  }
  algorithms::BmcOptions bo;
  bo.incremental = req.algorithm == Algorithm::Ibmc;
  bo.solver = req.solver;
  bo.timeoutS = remaining;
  if (req.maxBound > 0) bo.maxBound = req.maxBound;
  bo.progress = req.progress;
  bo.corruptReplayForTest = req.corruptReplayForTest;
  if (req.sessions && req.algorithm == Algorithm::Ibmc && !req.sessionKey.empty() && req.keepAlive) {
    // continue a warm deepening, or start one that later stages can continue
    std::unique_ptr<SessionCache::Entry> e = req.sessions->take(req.sessionKey);
    uint32_t limit = req.maxBound > 0 ? req.maxBound : bo.maxBound;
    uint32_t resumedFrom = 0;
    if (e && e->bound < limit && e->session->resumable()) {
      resumedFrom = e->bound;
    } else {
      e = std::make_unique<SessionCache::Entry>();
      e->keepAlive = req.keepAlive;
      algorithms::BmcOptions kept = bo;
      kept.progress = nullptr;  // the session outlives this request's callback
      e->session = std::make_unique<algorithms::BmcSession>(program, entry->id, kept);
    }
    out.result = e->session->deepen(limit, bo.timeoutS);
    if (resumedFrom) out.result.stats.extra["resumed_from_bound"] = resumedFrom;
    if (e->session->resumable()) {
      e->bound = limit;
      req.sessions->put(req.sessionKey, std::move(e));
    }
  } else {
    out.result = algorithms::runBmc(program, entry->id, bo);
  }
  out.result.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  out.result.stats.cpuTimeS = support::processCpuSeconds() - cpu0;
  return out;
}

}  // namespace argus::engine
