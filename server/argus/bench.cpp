// `argus bench`: option parsing and the run loop. The manifest parser, child
// process pool, verdict evaluation and reports live in bench_*.cpp.
#include "bench.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "bench_manifest.h"
#include "bench_outcome.h"
#include "bench_process.h"
#include "bench_report.h"
#include "server/argus/task_file.h"
#include "core/engine/verify.h"
#include "core/result/sarif.h"

namespace argus::cli {
namespace {

using namespace bench;

const char* kUsage =
    "usage: argus bench MANIFEST.tsv [options]\n"
    "       argus bench TASK.yml|DIR... [options]   SV-COMP task definitions (format 2.0),\n"
    "                     the .yml files given and those under each DIR: one task per\n"
    "                     property with an expected verdict\n"
    "  --algorithm A      passed to `argus verify --algorithm` (default: auto)\n"
    "  --refiner R        passed to `argus verify --refiner` (pred, impact)\n"
    "  --abstraction boolean|cartesian, --abstraction-formulas smt|bdd\n"
    "                     passed to `argus verify` (pred, impact)\n"
    "  --solver z3|cvc5   passed to `argus verify --solver` (default: verifier's)\n"
    "  --chain SPEC       passed to `argus verify --chain` (with --algorithm cmc or auto)\n"
    "  --jobs counts cores: a strategy with parallel members (auto: kind|pred) uses\n"
    "  that many per task, so --jobs 2 runs one such task at a time\n"
    "  --timeout SEC      per-task time limit passed to verify (default 30)\n"
    "  --memory-mb MB     per-task address-space limit (default 4096)\n"
    "  --jobs N, -j N     tasks run in parallel (default 1)\n"
    "  --sarif FILE       also a SARIF 2.1.0 log: every counterexample (with its path as a\n"
    "                     code flow) and every unknown task's condition (a note)\n"
    "  --witness-dir DIR  also an SV-COMP witness (format 2.0) per decided task:\n"
    "                     DIR/<task id, / as __>.yml (verify --witness-out)\n"
    "  --plot DIR         at the end, quantile plot of the results (PNG and SVG) into DIR\n"
    "                     via scripts/bench-plot.py (python3-matplotlib; a warning if missing)\n"
    "  --html FILE        at the end, one self-contained HTML page of the run: summary,\n"
    "                     quantile plot, one row per task with its counterexample or\n"
    "                     condition, filters (scripts/bench-html.py; a warning if missing)\n"
    "  --out FILE         results file (default results.json), rewritten after each\n"
    "                     task with \"in_progress\": true until the run ends\n"
    "  --filter TEXT      only tasks whose id contains TEXT (repeatable: any matches)\n"
    "  --limit N          only the first N (selected) tasks\n"
    "  --grace SEC        slack before a task is killed: CPU limit timeout+grace/2\n"
    "                     (SIGXCPU) .. timeout+grace (SIGKILL), wall clock\n"
    "                     2*timeout+grace (default 10)\n"
    "The verifier executable is $ARGUS_BENCH_VERIFIER if set, else this argus.\n";

struct Options {
  std::string manifest;             // the first input
  std::vector<std::string> inputs;  // every input (a manifest, or task files and folders)
  std::optional<std::string> algorithm, solver, chain, refiner, abstraction, abstractionFormulas;
  double timeout = 30;
  long memoryMb = 4096;
  int jobs = 1;
  std::string out = "results.json";
  std::optional<std::string> sarif;  // also write a SARIF 2.1.0 log of every task
  std::optional<std::string> witnessDir;  // also an SV-COMP witness per decided task
  std::optional<std::string> plotDir;     // quantile plot of the results at the end (bench-plot.py)
  std::optional<std::string> html;        // HTML report of the run at the end (bench-html.py)
  std::vector<std::string> filters;
  std::optional<long> limit;
  double grace = 10;
  bool help = false;
};

// A task id as a file name: characters other than [A-Za-z0-9._-] become '_', '/' "__".
std::string witnessFileName(const std::string& id) {
  std::string n;
  for (char c : id) {
    if (c == '/') n += "__";
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') n += c;
    else n += '_';
  }
  return n + ".yml";
}

// Writes next to `path` and renames, so a reader never sees half a file.
bool writeResults(const std::string& path, const nlohmann::json& j) {
  const std::string tmp = path + ".part";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << "\n";
    out.close();
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

bool parseDouble(const std::string& s, double& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0' && errno == 0 && std::isfinite(out);
}

bool parseLong(const std::string& s, long& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtol(s.c_str(), &end, 10);
  return !s.empty() && end && *end == '\0' && errno == 0;
}

// Returns "" on success, else the error message.
std::string parseOptions(const std::vector<std::string>& args, Options& o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
      return "";
    }
    if (a.empty() || a[0] != '-' || a == "-") {
      // several inputs: task definitions (.yml) and folders of them (task_file.h)
      if (!o.manifest.empty() && !isTaskFileName(a) && !std::filesystem::is_directory(a))
        return "more than one manifest given: '" + a + "'";
      if (o.manifest.empty()) o.manifest = a;
      o.inputs.push_back(a);
      continue;
    }
    std::optional<std::string> inlineValue;
    if (std::size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inlineValue = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    static const char* known[] = {"--algorithm", "--refiner", "--solver", "--timeout", "--memory-mb", "--jobs",
                                  "-j",          "--out",     "--filter", "--limit",   "--grace",     "--chain", "--sarif", "--witness-dir", "--plot", "--html",
                                  "--abstraction", "--abstraction-formulas"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return a == k; }) ==
        std::end(known))
      return "unknown option '" + a + "'";
    std::string v;
    if (inlineValue) v = *inlineValue;
    else if (i + 1 < args.size()) v = args[++i];
    else return "option " + a + " needs a value";

    long n = 0;
    double d = 0;
    if (a == "--algorithm") {
      if (v.empty() || v[0] == '-') return "bad --algorithm '" + v + "'";
      o.algorithm = v;
    } else if (a == "--chain") {
      if (v.empty() || v[0] == '-') return "bad --chain '" + v + "'";
      o.chain = v;
    } else if (a == "--refiner") {
      if (v.empty() || v[0] == '-') return "bad --refiner '" + v + "'";
      o.refiner = v;
    } else if (a == "--abstraction") {
      if (v != "boolean" && v != "cartesian") return "bad --abstraction '" + v + "' (want boolean or cartesian)";
      o.abstraction = v;
    } else if (a == "--abstraction-formulas") {
      if (v != "smt" && v != "bdd") return "bad --abstraction-formulas '" + v + "' (want smt or bdd)";
      o.abstractionFormulas = v;
    } else if (a == "--solver") {
      if (v != "z3" && v != "cvc5") return "bad --solver '" + v + "' (want z3 or cvc5)";
      o.solver = v;
    } else if (a == "--timeout") {
      if (!parseDouble(v, d) || d <= 0 || d > 1e6) return "bad --timeout '" + v + "'";
      o.timeout = d;
    } else if (a == "--grace") {
      if (!parseDouble(v, d) || d < 0 || d > 1e6) return "bad --grace '" + v + "'";
      o.grace = d;
    } else if (a == "--memory-mb") {
      if (!parseLong(v, n) || n <= 0 || n > (1L << 30)) return "bad --memory-mb '" + v + "'";
      o.memoryMb = n;
    } else if (a == "--jobs" || a == "-j") {
      if (!parseLong(v, n) || n < 1 || n > 256) return "bad --jobs '" + v + "' (1..256)";
      o.jobs = int(n);
    } else if (a == "--out") {
      if (v.empty()) return "empty --out";
      o.out = v;
    } else if (a == "--sarif") {
      if (v.empty()) return "empty --sarif";
      o.sarif = v;
    } else if (a == "--witness-dir") {
      if (v.empty()) return "empty --witness-dir";
      o.witnessDir = v;
    } else if (a == "--html") {
      if (v.empty()) return "empty --html";
      o.html = v;
    } else if (a == "--plot") {
      if (v.empty()) return "empty --plot";
      o.plotDir = v;
    } else if (a == "--filter") {
      o.filters.push_back(v);
    } else if (a == "--limit") {
      if (!parseLong(v, n) || n < 1) return "bad --limit '" + v + "'";
      o.limit = n;
    }
  }
  if (o.manifest.empty()) return "no manifest given";
  return "";
}

std::string formatSeconds(double s) {
  if (s == std::floor(s)) return std::to_string(static_cast<long long>(s));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// scripts/bench-plot.py: installed beside the executable (<prefix>/share/argus/scripts),
// in the source tree the build directory sits in (build/argus -> scripts/), or in the
// source tree this executable was built from.
std::string findScript(const std::string& argusExe, const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("ARGUS_BENCH_PLOT"); env && *env && name == "bench-plot.py") return env;
  std::error_code ec;
  fs::path dir = fs::path(argusExe).parent_path();
  if (!dir.empty()) {
    candidates.push_back(dir / "../share/argus/scripts" / name);
    candidates.push_back(dir / "scripts" / name);
    candidates.push_back(dir / "../scripts" / name);
  }
#ifdef ARGUS_SOURCE_DIR
  candidates.push_back(fs::path(ARGUS_SOURCE_DIR) / "scripts" / name);
#endif
  for (const fs::path& c : candidates)
    if (fs::is_regular_file(c, ec)) return fs::weakly_canonical(c, ec).string();
  return "";
}

// Runs `python3 SCRIPT RESULTS --out OUT` (bench-plot.py, bench-html.py). A missing
// python3, matplotlib or script is a warning: the bench's results are already written
// and stay valid.
void runReportScript(const std::string& argusExe, const std::string& name, const std::string& results,
                     const std::string& out, const std::string& what) {
  const std::string script = findScript(argusExe, name);
  if (script.empty()) {
    std::cerr << "argus bench: warning: scripts/" << name << " not found; no " << what << " written\n";
    return;
  }
  std::vector<std::string> args{"python3", script, results, "--out", out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  pid_t pid = 0;
  // the script's list of written files goes to stderr: stdout stays the summary table
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
  int e = posix_spawnp(&pid, "python3", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e != 0) {
    std::cerr << "argus bench: warning: cannot run python3 (" << std::strerror(e)
              << "); install python3 and python3-matplotlib; no " << what << " written\n";
    return;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::cerr << "argus bench: " << what << " written to " << out << "\n";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    std::cerr << "argus bench: warning: python3-matplotlib is missing (apt-get install python3-matplotlib); "
                 "no " << what << " written\n";
  } else {
    std::cerr << "argus bench: warning: " << script << " failed ("
              << (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                    : "signal " + std::to_string(WTERMSIG(status)))
              << "); no " << what << " written\n";
  }
}

volatile std::sig_atomic_t gStop = 0;
extern "C" void onStopSignal(int) { gStop = 1; }

int badInput(const std::string& msg, bool usage) {
  std::cerr << "argus bench: " << msg << "\n";
  if (usage) std::cerr << kUsage;
  return 2;
}

}  // namespace

// The processes one task runs at once: the widest stage of its chain (auto: kind|pred).
unsigned coresPerTask(const Options& o) {
  engine::VerifyRequest req;
  try {
    req.algorithm = engine::parseAlgorithm(*o.algorithm);
    if (o.chain) req.chain = *o.chain;
    return engine::chainWidth(engine::parseChain(engine::effectiveChain(req)));
  } catch (const std::invalid_argument&) {
    return 1;  // the verifier reports the bad option per task
  }
}

int runBench(const std::vector<std::string>& args, const std::string& argusExe) {
  Options opt;
  if (std::string err = parseOptions(args, opt); !err.empty()) return badInput(err, true);
  if (!opt.algorithm) opt.algorithm = "auto";  // argus verify's default, named in the results
  if (opt.help) {
    std::cout << kUsage;
    return 0;
  }

  Manifest manifest;
  try {
    bool tasks = opt.inputs.size() > 1 || isTaskFileName(opt.manifest) || std::filesystem::is_directory(opt.manifest);
    manifest = tasks ? manifestOfTaskFiles(opt.inputs) : loadManifest(opt.manifest);
  } catch (const ManifestError& e) {
    return badInput(std::string("bad manifest:\n") + e.what(), false);
  }
  std::vector<const ManifestTask*> selected;
  for (const ManifestTask& t : manifest.tasks) {
    bool match = opt.filters.empty();
    for (const std::string& f : opt.filters) match = match || t.id.find(f) != std::string::npos;
    if (match) selected.push_back(&t);
  }
  if (opt.limit && selected.size() > std::size_t(*opt.limit)) selected.resize(std::size_t(*opt.limit));
  if (selected.empty()) return badInput("no task matches the --filter options", false);

  const char* env = std::getenv("ARGUS_BENCH_VERIFIER");
  std::string verifier = env && *env ? env : argusExe;
  if (verifier.empty()) return badInput("no verifier executable", false);
  if (verifier.find('/') != std::string::npos && ::access(verifier.c_str(), X_OK) != 0)
    return badInput("verifier not executable: " + verifier, false);
  {
    std::ofstream probe(opt.out, std::ios::app);
    if (!probe) return badInput("cannot write " + opt.out, false);
  }

  ChildLimits limits;
  limits.cpuSoftSec = int(std::ceil(opt.timeout + opt.grace / 2));
  limits.cpuHardSec = std::max(limits.cpuSoftSec + 1, int(std::ceil(opt.timeout + opt.grace)));
  limits.memoryBytes = std::uint64_t(opt.memoryMb) << 20;
  limits.wallSec = 2 * opt.timeout + opt.grace;
  std::vector<ChildSpec> specs;
  std::vector<std::string> witnessFiles(selected.size());
  if (opt.witnessDir) {
    std::error_code ec;
    std::filesystem::create_directories(*opt.witnessDir, ec);
    if (ec) return badInput("cannot create " + *opt.witnessDir + ": " + ec.message(), false);
    for (std::size_t i = 0; i < selected.size(); ++i) witnessFiles[i] = (std::filesystem::path(*opt.witnessDir) / witnessFileName(selected[i]->id)).string();
  }
  for (const ManifestTask* t : selected) {
    ChildSpec s;
    s.limits = limits;
    s.argv = {verifier, "verify", t->file, "--format", "json", "--timeout",
              formatSeconds(opt.timeout), "--data-model", t->dataModel};
    if (!t->property.empty()) s.argv.insert(s.argv.end(), {"--property", t->property});
    if (opt.algorithm) s.argv.insert(s.argv.end(), {"--algorithm", *opt.algorithm});
    if (opt.solver) s.argv.insert(s.argv.end(), {"--solver", *opt.solver});
    if (opt.chain) s.argv.insert(s.argv.end(), {"--chain", *opt.chain});
    if (opt.refiner) s.argv.insert(s.argv.end(), {"--refiner", *opt.refiner});
    if (opt.abstraction) s.argv.insert(s.argv.end(), {"--abstraction", *opt.abstraction});
    if (opt.abstractionFormulas) s.argv.insert(s.argv.end(), {"--abstraction-formulas", *opt.abstractionFormulas});
    if (opt.witnessDir) s.argv.insert(s.argv.end(), {"--witness-out", witnessFiles[specs.size()]});
    specs.push_back(std::move(s));
  }

  std::vector<TaskResult> results(selected.size());
  std::vector<nlohmann::json> verifierJson(selected.size());  // each task's verify output (SARIF)
  const std::string started = result::utcNow();
  for (std::size_t i = 0; i < selected.size(); ++i) results[i].task = selected[i];
  std::size_t idWidth = 0;
  for (const ManifestTask* t : selected) idWidth = std::max(idWidth, t->id.size());
  idWidth = std::min<std::size_t>(idWidth, 56);

  const bool tty = ::isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  std::size_t finished = 0, runningNow = 0;
  auto clearStatus = [&] {
    if (tty) std::cerr << "\r\033[K";
  };
  auto showStatus = [&] {
    if (!tty) return;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "\r\033[K  " << finished << "/" << selected.size() << " done, " << runningNow
              << " running, " << formatSeconds(std::floor(el)) << " s" << std::flush;
  };

  PoolOptions pool;
  pool.jobs = opt.jobs;
  pool.coresPerTask = int(coresPerTask(opt));
  pool.stopFlag = &gStop;
  pool.onStart = [&](std::size_t) { ++runningNow; };
  pool.onTick = showStatus;

  gStop = 0;
  struct sigaction sa, oldInt, oldTerm;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onStopSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &oldInt);
  ::sigaction(SIGTERM, &sa, &oldTerm);

  RunInfo info;
  info.manifest = manifest.path;
  info.algorithm = opt.algorithm;
  info.solver = opt.solver;
  info.refiner = opt.refiner;
  info.abstraction = opt.abstraction;
  info.abstractionFormulas = opt.abstractionFormulas;
  info.timeoutSec = opt.timeout;
  info.memoryMb = opt.memoryMb;
  info.jobs = opt.jobs;
  info.verifier = verifier;

  std::cerr << "argus bench: " << selected.size() << " tasks, jobs " << opt.jobs << ", timeout "
            << formatSeconds(opt.timeout) << " s, verifier " << verifier << "\n";
  runChildren(specs, pool, [&](std::size_t i, ChildResult child) {
    --runningNow;
    TaskResult& r = results[i];
    r.done = true;
    r.outcome = evaluateChild(child, limits);
    r.cls = classify(r.outcome.verdict, r.task->expectedSafe, r.task->expectedViolation, r.outcome.violatedProperty);
    // what the bench decided counts: no witness for a task it did not take as decided
    if (opt.witnessDir && r.outcome.verdict == Verdict::Unknown) std::remove(witnessFiles[i].c_str());
    if (opt.sarif || opt.html) {
      nlohmann::json j = nlohmann::json::parse(child.out, nullptr, false);
      // what the bench decided counts (a timeout kill leaves no JSON, a bad exit code voids it)
      if (!j.is_object() || r.outcome.verdict == Verdict::Unknown) {
        nlohmann::json u = {{"verdict", "unknown"}, {"reason", r.outcome.reason}};
        if (j.is_object() && j.contains("condition")) u["condition"] = j["condition"];
        if (j.is_object() && j.contains("function")) u["function"] = j["function"];
        if (j.is_object() && j.contains("closure_hash")) u["closure_hash"] = j["closure_hash"];
        if (j.is_object() && j.contains("algorithm")) u["algorithm"] = j["algorithm"];
        j = u;
      }
      verifierJson[i] = std::move(j);
    }
    r.cpuSec = child.cpuSec;
    r.wallSec = child.wallSec;
    r.memoryMb = child.maxRssMb;
    ++finished;
    clearStatus();
    std::cerr << progressLine(finished, selected.size(), idWidth, r) << "\n";
    // Checkpoint: a run killed from outside (session end, OOM killer) keeps what finished.
    info.inProgress = true;
    info.wallSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    writeResults(opt.out, resultsJson(info, results));
    showStatus();
  });
  clearStatus();
  ::sigaction(SIGINT, &oldInt, nullptr);
  ::sigaction(SIGTERM, &oldTerm, nullptr);

  info.wallSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  info.interrupted = gStop != 0;

  printSummary(std::cout, info, results);
  std::cout.flush();
  int rc = info.interrupted ? 130 : 0;
  info.inProgress = false;
  if (!writeResults(opt.out, resultsJson(info, results))) {
    std::cerr << "argus bench: cannot write " << opt.out << "\n";
    return 1;
  }
  std::cerr << "argus bench: results written to " << opt.out << "\n";
  if (opt.sarif) {
    std::vector<result::SarifTask> tasks;
    for (std::size_t i = 0; i < results.size(); ++i)
      if (results[i].done) tasks.push_back({results[i].task->file, verifierJson[i]});
    std::vector<std::string> argv{"argus", "bench"};
    argv.insert(argv.end(), args.begin(), args.end());
    result::SarifInvocation inv{argv, started, result::utcNow(), !info.interrupted};
    if (!writeResults(*opt.sarif, result::toSarif(tasks, inv))) {
      std::cerr << "argus bench: cannot write " << *opt.sarif << "\n";
      return 1;
    }
    std::cerr << "argus bench: SARIF written to " << *opt.sarif << "\n";
  }
  if (opt.plotDir) runReportScript(argusExe, "bench-plot.py", opt.out, *opt.plotDir, "plots");
  if (opt.html) {
    // the results with each task's counterexample (the results file keeps none)
    nlohmann::json data = resultsJson(info, results);
    std::map<std::string, const nlohmann::json*> byId;
    for (std::size_t i = 0; i < results.size(); ++i)
      if (results[i].done && verifierJson[i].is_object() && verifierJson[i].contains("counterexample"))
        byId[results[i].task->id] = &verifierJson[i]["counterexample"];
    for (nlohmann::json& t : data["tasks"])
      if (auto it = byId.find(t.value("task", "")); it != byId.end() && t.value("verdict", "") == "false")
        t["counterexample"] = *it->second;
    const std::string dataFile = *opt.html + ".data.json";
    if (!writeResults(dataFile, data)) {
      std::cerr << "argus bench: cannot write " << dataFile << "\n";
      return 1;
    }
    runReportScript(argusExe, "bench-html.py", dataFile, *opt.html, "HTML report");
    std::remove(dataFile.c_str());
  }
  return rc;
}

}  // namespace argus::cli
