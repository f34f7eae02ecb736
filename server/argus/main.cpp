// `argus`: the command-line front end (verify, bench). Thin: parsing options and
// printing; the work is done by core/engine and bench.cpp.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/engine/verify.h"
#include "server/argus/bench.h"

namespace {

const char* kUsage =
    "usage:\n"
    "  argus verify FILE.c [--algorithm bmc|ibmc|kind|kind-noinv|ai|pred|auto] [--solver z3|cvc5] [--timeout SEC]\n"
    "                      [--data-model ILP32|LP64] [--format text|json] [--function NAME]\n"
    "                      [--progress] [--no-invariants] [-- CLANG-FLAGS...]\n"
    "                      (kind-noinv = kind --no-invariants: k-induction without the generator)\n"
    "  argus bench MANIFEST.tsv [--algorithm A] [--solver S] [--timeout SEC] [--jobs N]\n"
    "                      [--out results.json] [--memory-mb MB] [--filter TEXT] [--limit N]\n";

std::string selfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, n);
  return argv0;
}

int usageError(const std::string& msg) {
  std::cerr << "argus: " << msg << "\n" << kUsage;
  return 2;
}

int runVerify(const std::vector<std::string>& args) {
  argus::engine::VerifyRequest req;
  std::string format = "text";
  bool progress = false, haveFile = false, noInvariants = false;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw std::invalid_argument("option " + a + " needs a value");
        return args[++i];
      };
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      }
      if (a == "--algorithm") req.algorithm = argus::engine::parseAlgorithm(value());
      else if (a == "--solver") req.solver = argus::smt::parseSolverKind(value());
      else if (a == "--timeout") {
        const std::string& v = value();
        char* end = nullptr;
        req.timeoutS = std::strtod(v.c_str(), &end);
        if (!end || *end || req.timeoutS < 0) throw std::invalid_argument("bad --timeout '" + v + "'");
      } else if (a == "--data-model") req.dataModel = argus::frontend::parseDataModel(value());
      else if (a == "--format") {
        format = value();
        if (format != "text" && format != "json") throw std::invalid_argument("bad --format '" + format + "'");
      } else if (a == "--function") req.function = value();
      else if (a == "--progress") progress = true;
      else if (a == "--no-invariants") noInvariants = true;
      else if (a == "--corrupt-replay-for-test") req.corruptReplayForTest = true;
      else if (a == "--") {
        req.extraArgs.assign(args.begin() + i + 1, args.end());
        break;
      } else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "'");
      else if (!haveFile) {
        req.file = a;
        haveFile = true;
      } else throw std::invalid_argument("more than one input file ('" + a + "')");
    }
  } catch (const std::invalid_argument& e) {
    return usageError(e.what());
  }
  if (!haveFile) return usageError("verify needs a C file");
  if (noInvariants) {
    if (req.algorithm != argus::engine::Algorithm::Kind && req.algorithm != argus::engine::Algorithm::KindNoInv)
      return usageError("--no-invariants needs --algorithm kind");
    req.algorithm = argus::engine::Algorithm::KindNoInv;  // k-induction without the invariant generator
  }
  if (access(req.file.c_str(), R_OK) != 0) {
    std::cerr << "argus: cannot read '" << req.file << "': " << std::strerror(errno) << "\n";
    return 2;
  }
  if (progress || (format == "text" && isatty(STDERR_FILENO)))
    req.progress = [](const std::string& line) { std::cerr << "argus: " << line << std::endl; };
  argus::engine::VerifyOutcome out = argus::engine::verify(req);
  if (out.inputError) {
    std::cerr << "argus: " << out.error << "\n";
    return 2;
  }
  if (format == "json") std::cout << argus::result::toJson(out.result).dump(2) << std::endl;
  else std::cout << argus::result::toText(out.result) << std::flush;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usageError("missing command");
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "verify") return runVerify(args);
  if (cmd == "bench") return argus::cli::runBench(args, selfExe(argv[0]));
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  return usageError("unknown command '" + cmd + "'");
}
