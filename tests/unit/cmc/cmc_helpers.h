// Helpers for the conditional-model-checking tests: run a C snippet with the explicit
// analysis, a chain or any algorithm, with limits and an input condition.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine/verify.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus::testing {

struct CmcRun {
  engine::Algorithm algorithm = engine::Algorithm::Explicit;
  double timeout = 60;
  uint64_t maxStates = 0;
  uint32_t maxPathLength = 0, maxAssumeEdges = 0, maxRepeats = 0, maxStatesPerLocation = 0;
  uint64_t maxMemoryMb = 0, maxPathFormulaSize = 0;
  uint32_t maxEdgePosts = 0, maxBound = 0;
  unsigned maxTimePerPostMs = 0, maxTimePerRefinementMs = 0;
  bool monitorOverflow = false;
  std::string chain;
  std::shared_ptr<const result::AssumptionAutomaton> conditionIn;
  std::string conditionOut, conditionFormat;
  smt::SolverKind solver = smt::SolverKind::Z3;
};

inline engine::VerifyOutcome runCmc(const std::string& body, const CmcRun& c,
                                    std::vector<std::string>* stages = nullptr) {
  engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(kPrelude) + body;
  req.algorithm = c.algorithm;
  req.solver = c.solver;
  req.timeoutS = c.timeout;
  req.maxStates = c.maxStates;
  req.maxPathLength = c.maxPathLength;
  req.maxAssumeEdges = c.maxAssumeEdges;
  req.maxRepeats = c.maxRepeats;
  req.maxStatesPerLocation = c.maxStatesPerLocation;
  req.maxMemoryMb = c.maxMemoryMb;
  req.maxPathFormulaSize = c.maxPathFormulaSize;
  req.maxEdgePosts = c.maxEdgePosts;
  req.maxBound = c.maxBound;
  req.maxTimePerPostMs = c.maxTimePerPostMs;
  req.maxTimePerRefinementMs = c.maxTimePerRefinementMs;
  req.monitorOverflow = c.monitorOverflow;
  req.chain = c.chain;
  req.conditionIn = c.conditionIn;
  req.conditionOut = c.conditionOut;
  req.conditionFormat = c.conditionFormat;
  if (stages)
    req.stageFinished = [stages](size_t, const std::string& spec, const result::VerificationResult& r) {
      stages->push_back(spec + "=" + result::verdictName(r.verdict));
    };
  return engine::verify(req);
}

inline double statOf(const result::VerificationResult& r, const std::string& k) {
  auto it = r.stats.extra.find(k);
  return it == r.stats.extra.end() ? -1 : it->second;
}

// Line of the first occurrence of `needle` in kPrelude + body (1-based).
inline uint32_t lineOf(const std::string& body, const std::string& needle) {
  std::string all = std::string(kPrelude) + body;
  auto p = all.find(needle);
  if (p == std::string::npos) return 0;
  uint32_t line = 1;
  for (size_t i = 0; i < p; ++i)
    if (all[i] == '\n') ++line;
  return line;
}

// Whether some entry of `v` contains `needle`.
inline bool contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const std::string& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

// `v` on one line, for failure messages.
inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += x + " | ";
  return s;
}

}  // namespace argus::testing
