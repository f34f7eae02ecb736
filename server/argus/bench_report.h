// Results of an `argus bench` run: results.json, progress lines, summary tables.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_manifest.h"
#include "bench_outcome.h"

namespace argus::cli::bench {

struct TaskResult {
  const ManifestTask* task = nullptr;
  bool done = false;  // false: not run (interrupted before it started)
  Outcome outcome;
  Classification cls = Classification::Unknown;
  double cpuSec = 0, wallSec = 0, memoryMb = 0;
};

struct RunInfo {
  std::string manifest;  // absolute path
  std::optional<std::string> algorithm, solver, refiner;  // nullopt: verifier default
  std::optional<std::string> abstraction, abstractionFormulas;  // likewise
  double timeoutSec = 0;
  long memoryMb = 0;
  int jobs = 1;
  std::string verifier;
  double wallSec = 0;  // elapsed time of the whole run
  bool interrupted = false;
  bool inProgress = false;  // a checkpoint written while the run goes on
};

// {"manifest", "algorithm", "solver", "timeout_s", "memory_mb", "jobs", "verifier",
//  "interrupted", "in_progress", "tasks": [{"task", "file", "category", "data_model", "expected",
//  "verdict", "result", "cpu_time_s", "wall_time_s", "memory_mb", "reason"}],
//  "summary": {"total", "correct_true", "correct_false", "wrong_true", "wrong_false",
//  "unknown", "not_run", "score", "cpu_time_s", "wall_time_s"}}
// Only tasks that ran are listed. While the run goes on, the file is rewritten after
// each task with in_progress true, so a run killed from outside keeps what finished. summary.cpu_time_s is the sum over tasks,
// summary.wall_time_s the elapsed time of the whole run; score uses SV-COMP
// points (+2 correct true, +1 correct false, -32 wrong true, -16 wrong false).
nlohmann::json resultsJson(const RunInfo& info, const std::vector<TaskResult>& results);

// "[ 17/252] sv/loops/sum01-1  true     ✓      1.23s" (WRONG / ? with detail).
std::string progressLine(std::size_t n, std::size_t total, std::size_t idWidth,
                         const TaskResult& r);

// Overall table, per-category table, list of wrong verdicts.
void printSummary(std::ostream& os, const RunInfo& info, const std::vector<TaskResult>& results);

}  // namespace argus::cli::bench
