// `argus`: the command-line front end (verify, bench). Thin: parsing options and
// printing; the work is done by core/engine and bench.cpp.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <functional>
#include <iterator>
#include <iostream>
#include <limits.h>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/verify.h"
#include "core/result/sarif.h"
#include "core/result/witness.h"
#include "core/support/deadline.h"
#include "server/argus/bench.h"
#include "server/argus/loop_instrument.h"
#include "server/argus/native_check.h"
#include "server/argus/project.h"
#include "server/argus/remote.h"
#include "server/argus/render.h"
#include "server/argus/task_file.h"
#include "server/argus/validate.h"

namespace {

const char* kUsage =
    "usage:\n"
    "  argus verify FILE.c [--algorithm bmc|ibmc|bmc-cpa|kind|kind-noinv|ai|kiki|kiki-ibmc|kiki-kind|kiki-ai|\n"
    "                                   pred|impact|explicit|cmc|auto (default)] [--kiki-mode full|ibmc|kind|ai]\n"
    "                      [--solver z3|cvc5] [--timeout SEC] [--data-model ILP32|LP64] [--format text|json|sarif]\n"
    "                      [--function NAME] [--entry-model harness|arbitrary] [--refiner R] [--stats]\n"
    "                      [--progress] [--no-invariants]\n"
    "                      [--property NAME[,NAME...] | FILE.prp]\n"
    "                      [--abstraction boolean|cartesian] [--abstraction-formulas smt|bdd]\n"
    "                      [--chain SPEC] [--condition-in F.json] [--condition-out F]\n"
    "                      [--condition-format json|cpachecker] [--max-states N]\n"
    "                      [--max-path-length N] [--max-assume-edges N] [--max-repeats N]\n"
    "                      [--max-states-per-location N] [--max-memory-mb N] [--max-edge-posts N]\n"
    "                      [--max-time-per-post MS] [--max-time-per-refinement MS]\n"
    "                      [--max-path-formula-size N] [--monitor-overflow]\n"
    "                      [--harness-out F.c] [--no-native-check] [-- CLANG-FLAGS...]\n"
    "      TASK.yml instead of FILE.c: an SV-COMP task definition (format 2.0): its input file,\n"
    "        property (the first listed, or the one --property names; the .prp path is relative\n"
    "        to the yml), data model (unless --data-model), and after the verdict whether it\n"
    "        is the expected one (EXPECTED: line; \"task\" in JSON)\n"
    "      --entry-model (a --function other than main): harness (default) starts it with each\n"
    "        pointer parameter pointing to a fresh object (pointer fields too, to depth 2; null\n"
    "        only where the function tests the pointer against NULL; README \"Entry models\");\n"
    "        arbitrary leaves every parameter any value (a pointer any address)\n"
    "      --property: unreach-call (default: error calls, failed assertions), no-overflow (signed\n"
    "        + - * / and unary - out of range), div-by-zero, shift (amount < 0 or >= width), or an\n"
    "        SV-COMP .prp file; a violation prints false(PROPERTY). valid-memsafety (= valid-deref,\n"
    "        valid-free, valid-memtrack), valid-memcleanup: memory safety (README \"Memory model\")\n"
    "                      [--harness-out F.c] [--no-native-check] [--witness-out F.yml] [-- CLANG-FLAGS...]\n"
    "      --witness-out F.yml: an SV-COMP witness (format 2.0) for a `true` (invariant_set: the\n"
    "        proof's loop invariants) or a `false` (violation_sequence: the nondeterministic\n"
    "        values as function_return waypoints, the error call as the target); none (and F\n"
    "        removed) for `unknown`\n"
    "      every `false` is confirmed natively by default (concrete playback): the program is\n"
    "        compiled with a harness returning the counterexample's nondeterministic values\n"
    "        (cc, -fsanitize=undefined, -m32 for ILP32) and run; a counterexample the run does\n"
    "        not confirm becomes unknown. --harness-out writes the harness; --no-native-check\n"
    "        skips the run (the interpreter's replay still confirms every counterexample)\n"
    "      condition monitors (conditional model checking; each stops only a part and the\n"
    "      result's condition says which; the run goes on): --timeout (total time) and\n"
    "        --max-memory-mb (total memory, resident; also caps Z3's allocations: a query\n"
    "        that would pass it ends unknown, out of memory) end the run, every waiting state is\n"
    "        excluded; --max-edge-posts (busy edge), --max-time-per-post (one successor's\n"
    "        abstraction/coverage queries) cut one successor (explicit, pred, impact);\n"
    "        --max-time-per-refinement cuts the error path's target of a refinement that\n"
    "        runs out of time and --max-path-formula-size cuts a state whose block formula\n"
    "        (or a counterexample formula) has more term nodes (pred, impact);\n"
    "        --monitor-overflow (explicit): cut paths at a signed overflow or at non-linear\n"
    "        arithmetic the explicit values cannot evaluate\n"
    "      auto (the default): the chain bmc:k=2:time=2,kind|pred:cond=ignore:after=1 -- a shallow BMC,\n"
    "        then k-induction and predicate abstraction in parallel processes (the first\n"
    "        true/false wins; docs/STRATEGY.md says how it was chosen); --stats shows each\n"
    "        stage's time, the text names the stage that decided\n"
    "      --chain (with --algorithm cmc or auto): stages separated by commas, each NAME[:key=value...],\n"
    "        or members joined by | that run in parallel (kind|pred):\n"
    "        bmc|ibmc|kind|kind-noinv|kiki:k=N:time=S,\n"
    "        explicit:time=S:states=N:repeats=N:length=N:assumes=N:perloc=N:mem=MB:edgeposts=N:post=MS:overflow=1,\n"
    "        pred|impact:time=S:mem=MB:edgeposts=N:post=MS:refine=MS:pfsize=N\n"
    "        (explicit, pred, impact: cond=ignore explores everything instead of what the\n"
    "        previous stage's condition leaves open)\n"
    "        (default: bmc:k=1,explicit:time=10,pred); bmc, ibmc and kind pass on their bound\n"
    "        as an assumption automaton (loops unrolled <= k times are verified)\n"
    "      kind-noinv = kind --no-invariants: k-induction without the invariant generator;\n"
    "      ai = the generator's interval analysis alone (a proof or unknown, never false)\n"
    "      bmc-cpa = BMC as a configuration of the CPA core (blk^never, loop-bound CPA, no refinement)\n"
    "      kiki = kIkI: k-invariants in template domains (intervals, zones, octagons) and\n"
    "        k-induction; its restrictions: --kiki-mode ibmc|kind|ai (= --algorithm kiki-ibmc,\n"
    "        kiki-kind, kiki-ai): incremental BMC, k-induction without invariants, template\n"
    "        abstract interpretation only (a proof or unknown, never false)\n"
    "  argus bench MANIFEST.tsv [--algorithm A] [--refiner R] [--solver S] [--chain SPEC]\n"
    "                      [--timeout SEC] [--jobs N] [--out results.json] [--memory-mb MB]\n"
    "                      [--filter TEXT] [--limit N] [--sarif FILE] [--witness-dir DIR]\n"
    "  argus validate --witness W.yml FILE.c [--data-model M] [--timeout SEC] [--format text|json]\n"
    "      an SV-COMP witness (format 2.0): a violation sequence is run on the concrete\n"
    "      interpreter with its values (confirmed: VERDICT false); an invariant set's loop\n"
    "      invariants are checked with k-induction, the failing ones listed (all hold:\n"
    "      confirmed, VERDICT true); `argus validate --help` says more\n"
    "  argus project [DIR | compile_commands.json] [--jobs N] [--timeout-per-function S]\n"
    "                      [--format text|json] [--algorithm A] [--solver S] [--data-model M]\n"
    "                      [--entry-model harness|arbitrary] [--property NAME[,NAME...] | FILE.prp]\n"
    "                      [--functions REGEX] [--skip N] [--limit N] [--store PATH | --no-store]\n"
    "                      [--solver-memory-mb N (384; 0: none)]\n"
    "      every function of a project, translation units linked; exit 0 all verified or\n"
    "      conditional, 1 a counterexample, 2 input/link error, 3 some unknown or error\n"
    "  argus remote verify FILE.c --server HOST:PORT --token-file F [--format text|json|sarif]\n"
    "                      [--algorithm A] [--solver S] [--timeout SEC] [--data-model M]\n"
    "                      [--function NAME] [--property NAME[,NAME...] | FILE.prp] [--no-native-check]\n"
    "                      [-- -D.../-U.../-std=...]\n"
    "      the same verification on a team server (argusd --listen), for CI jobs: the same\n"
    "      output and exit codes as argus verify (2: input, connection or token error); a\n"
    "      `false` is confirmed natively here as by argus verify; progress on stderr (a tty)\n"
    "\n"
    "refiners (pred, impact): an inductive sequence of interpolants for a spurious path\n"
    "  craig                 cvc5's Craig interpolation, chained (with --solver z3 too)\n"
    "  newton-D-C-L          Newton (Dietsch et al.), eight variants:\n"
    "     D = sp | wp          strongest post forward / weakest precondition backward\n"
    "     C = core | all       infeasible core from an unsat core / the whole path\n"
    "     L = live | all       projection to live variables / none\n"
    "  default (most benchmark tasks): pred newton-wp-all-live (with --solver cvc5\n"
    "     newton-sp-core-live), impact newton-sp-all-live\n"
    "--abstraction boolean|cartesian (pred, impact): boolean predicate abstraction by\n"
    "  all-SAT enumeration (default) or the cartesian abstraction (the conjunction of\n"
    "  the predicates implied one by one: cheaper, weaker)\n"
    "--abstraction-formulas smt|bdd (pred, impact): abstraction formulas kept as SMT\n"
    "  formulas (default; coverage by solver queries) or as BDDs over the predicates\n"
    "  (BuDDy; canonical, coverage decided on the BDDs)\n"
    "--stats prints the run's statistics (refinements, abstractions, ARG size, predicates,\n"
    "  time in abstraction / refinement / forced covering / solver) after the result.\n";

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

// The answer by the deadline, even when a solver ignores its time limit (Z3 4.8.12 does
// not check it inside some preprocessing, e.g. on large array stores): a detached
// thread waits until the time limit plus a grace period, then prints the fallback
// answer and ends the process. The fallback is `unknown` with the output condition of
// the last finished chain stage (what the stages before vouched for stays sound) or
// with nothing verified. The main thread prints its own answer under the same mutex,
// so exactly one answer is printed.
class Watchdog {
public:
  using Render = std::function<std::string(const argus::result::VerificationResult&)>;
  Watchdog(double timeoutS, Render render, std::string algorithm)
      : render_(std::move(render)), algorithm_(std::move(algorithm)) {
    fallback_.reason = std::string("timeout: the run overran its time limit ") + kCause;
    fallback_.condition.kind = "timeout";
    fallback_.condition.summary = "nothing verified";
    fallback_.algorithm = algorithm_;
    if (timeoutS <= 0) return;
    auto start = std::chrono::steady_clock::now();
    auto at = start + std::chrono::duration<double>(timeoutS + kGraceS);
    std::thread([this, start, at] {
      std::this_thread::sleep_until(at);
      std::lock_guard<std::mutex> lock(mu_);
      if (done_) return;
      // the whole run's times, not the last stage's
      fallback_.stats.cpuTimeS = argus::support::processTreeCpuSeconds();
      fallback_.stats.wallTimeS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      explainCause();
      std::string text = render_(fallback_);
      std::cout.flush();
      const char* p = text.data();
      size_t left = text.size();
      while (left > 0) {
        ssize_t n = ::write(STDOUT_FILENO, p, left);
        if (n <= 0) break;
        p += n;
        left -= static_cast<size_t>(n);
      }
      _exit(0);
    }).detach();
  }
  // a chain stage ended unknown: its output condition becomes the fallback's
  void stageFinished(const std::string& spec, const argus::result::VerificationResult& stage) {
    argus::result::VerificationResult r = stage;
    r.verdict = argus::result::Verdict::Unknown;
    r.counterexample.reset();
    r.invariant.clear();
    r.reason = "timeout: the chain overran its time limit after stage " + spec + " " + kCause +
               "; condition of the stages before";
    r.algorithm = algorithm_;
    std::lock_guard<std::mutex> lock(mu_);
    fallback_ = std::move(r);
  }
  // a bound verified while a stage runs (VerifyRequest::checkpoint): the fallback when it
  // verified more than the fallback so far
  void checkpoint(const argus::result::VerificationResult& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fallback_.counterexample || !argus::engine::conditionVerifiedMore(r.condition, fallback_.condition)) return;
    fallback_ = r;
    fallback_.verdict = argus::result::Verdict::Unknown;
    fallback_.reason =
        std::string("timeout: the run overran its time limit ") + kCause + "; condition of what it had verified";
    fallback_.algorithm = algorithm_;
  }
  // a latent finding before the run's own follow-ups (caller checks, continuation): the
  // fallback is that answer, so a follow-up whose solver overruns does not lose it
  void provisional(const argus::result::VerificationResult& r) {
    std::lock_guard<std::mutex> lock(mu_);
    fallback_ = r;
    fallback_.reason += std::string("; the checks after it overran the time limit ") + kCause;
    fallback_.algorithm = algorithm_;
  }
  // the program is parsed, sliced and has its entry model: the analysis starts
  void analysisStarted() { analysing_ = true; }
  // the main thread's answer: printed unless the watchdog already answered
  template <class Print>
  void finish(Print print) {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    done_ = true;
    print();
  }

private:
  static constexpr double kGraceS = 3;
  // What the reasons say until the watchdog fires and knows better (explainCause).
  static constexpr const char* kCause = "(a solver query ignored its limit)";
  // The cause in the fallback's reason, from what the run did: a run stopped before its
  // analysis started spent the time parsing and preparing; one that got much less CPU
  // than wall time waited for the machine, not for a solver.
  void explainCause() {
    const double cpu = fallback_.stats.cpuTimeS, wall = fallback_.stats.wallTimeS;
    std::ostringstream times;
    times << std::fixed << std::setprecision(1) << cpu << " s of CPU in " << wall << " s";
    std::string& r = fallback_.reason;
    if (!analysing_) {
      r = "timeout: the run overran its time limit before its analysis started: parsing the unit, slicing it "
          "and building the entry model took " + times.str();
      return;
    }
    std::string cause = cpu < 0.5 * wall ? "(the run got " + times.str() + ": the machine was busy)" : std::string(kCause);
    for (size_t at = 0; (at = r.find(kCause, at)) != std::string::npos; at += cause.size())
      r.replace(at, std::strlen(kCause), cause);
  }
  std::atomic<bool> analysing_{false};
  Render render_;
  std::string algorithm_;
  std::mutex mu_;
  argus::result::VerificationResult fallback_;
  bool done_ = false;
};

// `argus verify TASK.yml`: whether the verdict is what the task expects (SV-COMP scoring:
// a `false` must name the expected subproperty); nullopt when there is nothing to compare.
std::optional<bool> taskMatches(const argus::cli::TaskProperty& tp, const argus::result::VerificationResult& r) {
  using argus::result::Verdict;
  if (!tp.hasExpected || r.verdict == Verdict::Unknown) return std::nullopt;
  if (r.verdict == Verdict::True) return tp.expectedSafe;
  if (tp.expectedSafe) return false;
  std::string violated = r.counterexample ? r.counterexample->property : std::string();
  if (!tp.expectedViolation.empty()) return violated == tp.expectedViolation;
  // no subproperty given: valid-memsafety's are all its own, unreach-call's is ""
  if (tp.property == "valid-memsafety") return violated.rfind("valid-", 0) == 0 && violated != "valid-memcleanup";
  return violated.empty();
}

// The printed result with the task's expectation: a last line in text, a "task" object in JSON.
std::string withTask(const std::string& format, std::string out, const argus::cli::TaskFile& tf,
                     const argus::cli::TaskProperty& tp, const argus::result::VerificationResult& r) {
  std::optional<bool> m = taskMatches(tp, r);
  if (format == "json") {
    nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    if (!j.is_object()) return out;
    j["task"] = {{"file", tf.path}, {"property", tp.property}, {"expected", tp.expectedText()}};
    j["task"]["matches"] = m ? nlohmann::json(*m) : nlohmann::json(nullptr);
    return j.dump(2) + "\n";
  }
  if (format != "text") return out;
  std::string expected = tp.hasExpected ? tp.expectedText() : std::string("(none stated)");
  return out + "EXPECTED: " + expected + " (" + tf.path + "): " +
         (!tp.hasExpected ? "nothing to compare" : !m ? "no verdict to compare" : *m ? "the verdict matches" : "the verdict does NOT match") +
         "\n";
}

int runVerify(const std::vector<std::string>& args) {
  argus::engine::VerifyRequest req;
  req.algorithm = argus::engine::Algorithm::Auto;  // the default strategy
  argus::cli::NativeCheckOptions native;
  std::string format = "text";
  bool progress = false, haveFile = false, stats = false, noInvariants = false;
  std::string kikiMode;
  std::string conditionIn;
  std::string witnessOut;  // --witness-out
  bool dataModelGiven = false;
  auto count = [](const std::string& v) -> uint64_t {
    char* end = nullptr;
    unsigned long long x = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || !end || *end) throw std::invalid_argument("bad number '" + v + "'");
    return x;
  };
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
      else if (a == "--refiner") {
        req.refiner = value();
        argus::engine::checkRefinerName(req.refiner);  // reject unknown names here
      } else if (a == "--abstraction") {
        const std::string& v = value();
        if (v != "boolean" && v != "cartesian") throw std::invalid_argument("bad --abstraction '" + v + "' (boolean or cartesian)");
        req.cartesian = v == "cartesian";
      } else if (a == "--abstraction-formulas") {
        const std::string& v = value();
        if (v != "smt" && v != "bdd") throw std::invalid_argument("bad --abstraction-formulas '" + v + "' (smt or bdd)");
        req.bddAbstractions = v == "bdd";
      } else if (a == "--stats") stats = true;
      else if (a == "--timeout") {
        const std::string& v = value();
        char* end = nullptr;
        req.timeoutS = std::strtod(v.c_str(), &end);
        if (!end || *end || req.timeoutS < 0) throw std::invalid_argument("bad --timeout '" + v + "'");
      } else if (a == "--data-model") {
        req.dataModel = argus::frontend::parseDataModel(value());
        dataModelGiven = true;
      }
      else if (a == "--format") {
        format = value();
        if (format != "text" && format != "json" && format != "sarif")
          throw std::invalid_argument("bad --format '" + format + "' (text, json or sarif)");
      } else if (a == "--function") req.function = value();
      else if (a == "--entry-model") req.entryModel = argus::engine::parseEntryModel(value());
      else if (a == "--property") {
        req.property = argus::cli::propertyOption(value());
      } else if (a == "--progress") progress = true;
      else if (a == "--no-invariants") noInvariants = true;
      else if (a == "--kiki-mode") {
        kikiMode = value();
        argus::engine::checkKikiMode(kikiMode);  // reject unknown modes here
      }
      else if (a == "--corrupt-replay-for-test") req.corruptReplayForTest = true;
      else if (a == "--chain") req.chain = value();
      else if (a == "--condition-out") req.conditionOut = value();
      else if (a == "--condition-format") {
        req.conditionFormat = value();
        if (req.conditionFormat != "json" && req.conditionFormat != "cpachecker")
          throw std::invalid_argument("bad --condition-format '" + req.conditionFormat + "'");
      } else if (a == "--condition-in") conditionIn = value();
      else if (a == "--max-states") req.maxStates = count(value());
      else if (a == "--max-path-length") req.maxPathLength = static_cast<uint32_t>(count(value()));
      else if (a == "--max-assume-edges") req.maxAssumeEdges = static_cast<uint32_t>(count(value()));
      else if (a == "--max-repeats") req.maxRepeats = static_cast<uint32_t>(count(value()));
      else if (a == "--max-states-per-location") req.maxStatesPerLocation = static_cast<uint32_t>(count(value()));
      else if (a == "--max-memory-mb") req.maxMemoryMb = count(value());
      else if (a == "--max-edge-posts") req.maxEdgePosts = static_cast<uint32_t>(count(value()));
      else if (a == "--max-time-per-post") req.maxTimePerPostMs = static_cast<unsigned>(count(value()));
      else if (a == "--max-time-per-refinement") req.maxTimePerRefinementMs = static_cast<unsigned>(count(value()));
      else if (a == "--max-path-formula-size") req.maxPathFormulaSize = count(value());
      else if (a == "--monitor-overflow") req.monitorOverflow = true;
      else if (a == "--harness-out") native.harnessOut = value();  // concrete playback (native_check.h)
      else if (a == "--no-native-check") native.run = false;
      else if (a == "--witness-out") witnessOut = value();
      else if (a == "--corrupt-harness-for-test") native.corruptForTest = true;
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
  // an SV-COMP task definition: its input file, property, data model and expected verdict
  std::optional<argus::cli::TaskFile> task;
  const argus::cli::TaskProperty* taskProp = nullptr;
  if (argus::cli::isTaskFileName(req.file)) {
    try {
      task = argus::cli::loadTaskFile(req.file);
    } catch (const std::invalid_argument& e) {
      std::cerr << "argus: " << e.what() << "\n";
      return 2;
    }
    for (const std::string& n : task->notes) std::cerr << "argus: " << n << "\n";
    std::string listed;
    for (const auto& p : task->properties) listed += (listed.empty() ? "" : "; ") + p.property;
    if (!req.property.empty()) {
      for (const auto& p : task->properties)
        if (p.property == req.property) taskProp = &p;
      if (!taskProp) {
        std::cerr << "argus: task " << req.file << " has no property " << req.property << " (it lists: " << listed << ")\n";
        return 2;
      }
    } else {
      taskProp = &task->properties.front();
      if (task->properties.size() > 1)
        std::cerr << "argus: task " << req.file << " lists " << listed << "; checking " << taskProp->property
                  << " (choose with --property)\n";
    }
    req.file = task->inputFile;
    req.property = taskProp->property == "unreach-call" ? "" : taskProp->property;
    if (!dataModelGiven && !task->dataModel.empty()) req.dataModel = argus::frontend::parseDataModel(task->dataModel);
  }
  if (!witnessOut.empty()) std::remove(witnessOut.c_str());  // no stale witness from an earlier run
  if (noInvariants) {
    if (req.algorithm != argus::engine::Algorithm::Kind && req.algorithm != argus::engine::Algorithm::KindNoInv)
      return usageError("--no-invariants needs --algorithm kind");
    req.algorithm = argus::engine::Algorithm::KindNoInv;  // k-induction without the invariant generator
  }
  if (!kikiMode.empty()) {
    if (req.algorithm != argus::engine::Algorithm::Kiki) return usageError("--kiki-mode needs --algorithm kiki");
    if (kikiMode != "full") req.algorithm = argus::engine::parseAlgorithm("kiki-" + kikiMode);
  }
  if (access(req.file.c_str(), R_OK) != 0) {
    std::cerr << "argus: cannot read '" << req.file << "': " << std::strerror(errno) << "\n";
    return 2;
  }
  // test hooks (tests/cli/watchdog.sh): ARGUS_TEST_STALL_S stalls the run past its
  // deadline, at the first progress line containing ARGUS_TEST_STALL_AT if that is
  // set (in the middle of the run), otherwise after its stages
  const char* stallS = std::getenv("ARGUS_TEST_STALL_S");
  const char* stallAt = std::getenv("ARGUS_TEST_STALL_AT");
  auto stall = [stallS] { std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(stallS))); };
  if (progress || (format == "text" && isatty(STDERR_FILENO)))
    req.progress = [stallS, stallAt, stall](const std::string& line) {
      std::cerr << "argus: " << line << std::endl;
      if (stallS && stallAt && line.find(stallAt) != std::string::npos) stall();
    };
  if (!conditionIn.empty()) {
    std::ifstream f(conditionIn);
    if (!f) {
      std::cerr << "argus: cannot read '" << conditionIn << "': " << std::strerror(errno) << "\n";
      return 2;
    }
    try {
      nlohmann::json j = nlohmann::json::parse(f);
      req.conditionIn = std::make_shared<argus::result::AssumptionAutomaton>(argus::result::automatonFromJson(j));
    } catch (const std::exception& e) {
      std::cerr << "argus: bad condition '" << conditionIn << "': " << e.what() << "\n";
      return 2;
    }
  }
  // each chain stage's result as soon as it finishes (stdout for text, stderr for JSON/SARIF)
  std::ostream& stageOut = format == "text" ? std::cout : std::cerr;
  const std::string started = argus::result::utcNow();
  std::vector<std::string> argv{"argus", "verify"};
  argv.insert(argv.end(), args.begin(), args.end());
  Watchdog::Render render = [format, started, argv, file = req.file, task,
                             tp = taskProp ? *taskProp : argus::cli::TaskProperty{}](const argus::result::VerificationResult& r) {
    std::string out = argus::cli::renderResult(format, r, argv, started, file);
    return task ? withTask(format, std::move(out), *task, tp, r) : out;
  };
  static Watchdog* watchdog = new Watchdog(req.timeoutS, render, argus::engine::algorithmName(req.algorithm));  // outlives the detached thread
  req.stageFinished = [&stageOut](size_t i, const std::string& spec, const argus::result::VerificationResult& r) {
    stageOut << argus::cli::stageLine(i, spec, r) << std::endl;
    if (r.verdict == argus::result::Verdict::Unknown) watchdog->stageFinished(spec, r);
  };
  req.provisional = [](const argus::result::VerificationResult& r) { watchdog->provisional(r); };
  req.checkpoint = [](const argus::result::VerificationResult& r) { watchdog->checkpoint(r); };
  req.analysisStarted = [] { watchdog->analysisStarted(); };
  req.checkCallers = true;  // a latent finding is checked against the unit's callers
  // the solvers' own allocations stay within the same total (Z3 fails the query instead)
  if (req.maxMemoryMb) argus::engine::setSolverMemoryLimitMb(req.maxMemoryMb);
  argus::engine::VerifyOutcome out = argus::engine::verify(req);
  if (out.inputError) {
    std::cerr << "argus: " << out.error << "\n";
    return 2;
  }
  // concrete playback: a `false` confirmed by running the program natively
  native.ilp32 = req.dataModel == argus::frontend::DataModel::ILP32;
  native.extraArgs = req.extraArgs;
  argus::cli::nativeCheck(req.file, req.source ? &*req.source : nullptr, out.result, native);
  if (stallS && !stallAt) stall();
  watchdog->finish([&] {
    if (!witnessOut.empty()) {
      // the witness of what this run answers (after the native check); the watchdog's
      // `unknown` never gets here
      argus::result::WitnessTask wt;
      wt.file = req.file;
      if (req.source) wt.source = *req.source;
      else {
        std::ifstream in(req.file, std::ios::binary);
        wt.source.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      wt.dataModel = req.dataModel == argus::frontend::DataModel::ILP32 ? "ILP32" : "LP64";
      wt.commandLine = argv;
      if (out.result.verdict == argus::result::Verdict::True) {  // only what holds in C at the loop
        argus::frontend::FrontendOptions fo;
        fo.dataModel = req.dataModel;
        fo.extraArgs = req.extraArgs;
        wt.invariants = argus::cli::inScopeInvariants(argus::result::witnessInvariants(out.result.invariant, req.file),
                                                      req.file, wt.source, fo);
      }
      if (std::optional<std::string> w = argus::result::toWitness(out.result, wt)) {
        std::ofstream f(witnessOut, std::ios::binary);
        f << *w;
        if (!f) std::cerr << "argus: cannot write '" << witnessOut << "'\n";
      }
    }
    std::cout << render(out.result) << std::flush;
    if (stats && format == "text") {
      const auto& st = out.result.stats;
      std::cout << "statistics:\n"
                << "  solver_queries: " << st.solverQueries << "\n  solver_time_s: " << st.solverTimeS << "\n";
      for (const auto& [k, v] : st.extra) std::cout << "  " << k << ": " << v << "\n";
      for (size_t i = 0; i < out.result.stages.size(); ++i) {
        const auto& x = out.result.stages[i];
        std::cout << "  stage " << i + 1 << " " << x.spec << ": " << argus::result::verdictName(x.verdict);
        if (!x.decidedBy.empty() && x.decidedBy != x.spec) std::cout << " (" << x.decidedBy << ")";
        std::cout << ", " << x.wallTimeS << " s wall, " << x.cpuTimeS << " s CPU\n";
      }
    }
  });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usageError("missing command");
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "verify") return runVerify(args);
  if (cmd == "bench") return argus::cli::runBench(args, selfExe(argv[0]));
  if (cmd == "project") return argus::cli::runProject(args);
  if (cmd == "remote") return argus::cli::runRemote(args);
  if (cmd == "validate") return argus::cli::runValidate(args);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  return usageError("unknown command '" + cmd + "'");
}
