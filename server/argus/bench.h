// `argus bench MANIFEST.tsv [options]`: runs every task of a benchmark manifest
// in its own `argus verify` child process (with CPU/memory/wall-clock limits),
// compares the verdicts with the expected ones, writes results.json and prints
// summary tables. See bench.cpp for the options.
#pragma once

#include <string>
#include <vector>

namespace argus::cli {

// args: the command line after "bench". argusExe: the running argus binary,
// used as the verifier child unless the environment variable
// ARGUS_BENCH_VERIFIER names another executable (tests use a fake one).
// Returns 0 when the run completed (even with wrong verdicts), 2 on bad input
// (options, manifest), 1 when results could not be written, 130 when
// interrupted by SIGINT/SIGTERM (partial results are still written).
int runBench(const std::vector<std::string>& args, const std::string& argusExe);

}  // namespace argus::cli
