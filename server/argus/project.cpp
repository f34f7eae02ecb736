// `argus project`: see project.h.
//
// Options:
//   DIR | FILE          DIR/compile_commands.json, else DIR/build/compile_commands.json
//                       (default DIR: .), or the database FILE itself
//   --jobs N            cores to use (default 1); a function verified by a strategy with
//                       parallel members (auto) takes as many cores as it has members
//   --timeout-per-function S   each function's wall time (default 10)
//   --algorithm A       as for `argus verify` (default auto, as argus verify and argusd)
//   --solver z3|cvc5, --data-model ILP32|LP64
//   --entry-model harness|arbitrary   how non-main functions start (README "Entry models")
//   --property P        the properties, as for `argus verify` (names separated by commas, or
//                       an SV-COMP .prp file; default unreach-call): every unit is parsed with
//                       them, so the checks (and the memory-safety layout) span the linked program
//   --format text|json  text: a line per function and tables; json: see printJson
//   --limit N           only the first N functions (by file and line); for trying huge projects
//   --skip N            leave out the first N functions (before --limit: `--skip 60 --limit 60`
//                       is the second 60)
//   --functions REGEX   only the functions whose C name REGEX matches (ECMAScript, anywhere in
//                       the name; applied before --skip and --limit)
//   --store PATH | --no-store   the result store (default: argusd's, see
//                       server/service/store.h defaultStorePath)
//   --solver-memory-mb N   each function's solver allocates at most N MB (default 384, as
//                       argusd's workers with the default budget; 0 = none): a query that
//                       would pass it ends unknown "out of memory" with what was verified
//
// Workers: the units are parsed and linked once; each function is then verified in a
// child process forked from this single-threaded process (the engine's state is not
// shared between runs, and a crash or a solver that ignores its deadline costs only that
// function: it is killed 5 s after its timeout and reported unknown).
//
// Nothing to check (issue 29 item 1): a function whose closure holds no error location
// and no unsupported construct (cfa::closuresWithoutChecks, one pass over the linked
// program) is answered in this process, before any worker starts: the engine slices it,
// confirms on the slice that nothing is to be checked (VerifyRequest::onlyNothingToCheck)
// and answers `true` without a solver, in milliseconds instead of a fork. The JSON says
// which functions were answered so (`"worker": false`).
#include "server/argus/project.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/cfa/cfa_hash.h"
#include "core/cfa/closure.h"
#include "core/cfa/link.h"
#include "core/engine/verify.h"
#include "core/frontend/compile_flags.h"
#include "core/frontend/frontend.h"
#include "core/frontend/project_link.h"
#include "core/result/codec.h"
#include "server/service/store.h"

namespace argus::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Unit {
  std::string file;                 // absolute, normalised
  std::vector<std::string> flags;   // for the frontend
};

struct Job {
  std::string name;       // function name in the linked program
  std::string display;    // C name
  std::string file;
  uint32_t line = 0;
  std::string key;        // result key
  bool cached = false;
  bool done = false;
  std::string verdict;    // verified | counterexample | latent | conditional | unknown | error
  std::string reason;     // unknown: category; error: message
  std::string detail;     // condition summary / reason / counterexample length
  double timeS = 0;
  bool inProcess = false; // answered in this process (nothing to check), no worker
  std::optional<result::VerificationResult> result;
};

std::string engineId() {
  struct stat st;
  if (::stat("/proc/self/exe", &st) == 0)
    return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  return "unknown-build";
}

void classify(Job& j, const result::VerificationResult& r) {
  j.result = r;
  switch (r.verdict) {
    case result::Verdict::True:
      j.verdict = "verified";
      j.detail = "";
      // its own contract assumed (README "Contracts"); its callers' runs check it
      for (size_t i = 0; i < r.assumedPrecondition.size(); ++i)
        j.detail += (i ? ", " : "assuming its precondition: ") + r.assumedPrecondition[i];
      if (r.condition.summary.find(engine::kDepthBoundCaveat) != std::string::npos)
        j.detail += (j.detail.empty() ? "" : "; ") + std::string(engine::kDepthBoundCaveat + 2);
      break;
    case result::Verdict::False:
      j.verdict = "counterexample";
      j.detail = std::to_string(r.counterexample ? r.counterexample->steps.size() : 0) + " steps";
      if (r.counterexample && !r.counterexample->property.empty())  // a property other than unreach-call
        j.detail += ", false(" + r.counterexample->property + ")";
      break;
    default:
      if (result::isLatent(r)) {
        j.verdict = "latent";  // issue 29 item 4; promoteLatent may make it a counterexample
        j.detail = result::preconditionText(*r.counterexample);
      } else if (r.condition.bound && *r.condition.bound > 0 && !r.condition.vacuous) {
        j.verdict = "conditional";
        j.detail = r.condition.summary;
      } else {
        j.verdict = "unknown";
        j.reason = r.condition.kind.empty() || r.condition.kind == "none" || r.condition.kind == "bound" ? "other" : r.condition.kind;
        j.detail = r.reason.empty() || r.condition.vacuous ? r.condition.summary : r.reason;
      }
  }
}

std::string relTo(const std::string& path, const fs::path& root) {
  std::error_code ec;
  fs::path r = fs::path(path).lexically_relative(root);
  if (r.empty() || r.native().rfind("..", 0) == 0) return path;
  return r.string();
}

bool underRoot(const std::string& path, const fs::path& root) {
  std::string r = root.string();
  if (!r.empty() && r.back() != '/') r += '/';
  return path.rfind(r, 0) == 0;
}

// The longest common directory of the units' files.
fs::path commonRoot(const std::vector<Unit>& units) {
  fs::path root = fs::path(units[0].file).parent_path();
  for (const Unit& u : units) {
    fs::path d = fs::path(u.file).parent_path();
    while (!root.empty() && !underRoot(d.string() + "/", root) && d != root) root = root.parent_path();
  }
  return root;
}

// Issue 29 item 4: a latent finding of f is manifest when another function's manifest
// counterexample passes through f to the same error location (a caller verified as its
// own entry inlines f, and so do its callers: any depth the callers' runs unwound). The
// function then reports that caller's whole path.
void promoteLatent(std::vector<Job>& work) {
  for (Job& f : work) {
    if (f.verdict != "latent" || !f.result || !f.result->counterexample) continue;
    for (const Job& g : work) {
      if (&g == &f || g.verdict != "counterexample" || !g.result || !g.result->counterexample) continue;
      // any of f's latent findings (the first, or one found after it)
      const result::Counterexample* hit = nullptr;
      if (result::reachesSameError(*g.result->counterexample, *f.result->counterexample)) hit = &*f.result->counterexample;
      for (const result::Counterexample& m : f.result->moreLatent)
        if (!hit && result::reachesSameError(*g.result->counterexample, m)) hit = &m;
      if (!hit) continue;
      result::VerificationResult r = *f.result;
      std::string pre = result::preconditionText(*hit);
      r.verdict = result::Verdict::False;
      r.counterexample = g.result->counterexample;
      r.reason.clear();
      r.condition = g.result->condition;
      f.result = std::move(r);
      f.verdict = "counterexample";
      f.detail = std::to_string(f.result->counterexample->steps.size()) + " steps, from the caller " + g.display +
                 " (latent alone: " + pre + ")";
      break;
    }
  }
}

volatile sig_atomic_t gInterrupted = 0;
void onSignal(int) { gInterrupted = 1; }

struct Running {
  size_t job;
  pid_t pid;
  int fd;
  std::string out;
  Clock::time_point start, killAt;
  bool killed = false;
};

}  // namespace

std::string propertyOption(std::string v) {
  if (v.size() > 4 && v.compare(v.size() - 4, 4, ".prp") == 0) {  // SV-COMP property file
    std::ifstream f(v);
    if (!f) throw std::invalid_argument("cannot read property file '" + v + "'");
    std::stringstream text;
    text << f.rdbuf();
    v = text.str();
  }
  std::string names;
  for (const std::string& p : engine::parseProperties(v)) names += (names.empty() ? "" : ",") + p;
  return names;
}

int runProject(const std::vector<std::string>& args) {
  std::string target = ".", format = "text", storePath = server::defaultStorePath();
  unsigned jobs = 1;
  size_t limit = 0, skip = 0;
  std::optional<std::regex> only;
  std::string onlyText;
  double perFunction = 10;
  uint64_t solverMemoryMb = 384;
  engine::Algorithm algorithm = engine::Algorithm::Auto;
  smt::SolverKind solver = smt::SolverKind::Z3;
  frontend::DataModel dataModel = frontend::DataModel::LP64;
  engine::EntryModel entryModel = engine::EntryModel::Harness;
  std::string property;  // "" = unreach-call; else the names parseProperties gives, joined by ','
  auto usage = [](const std::string& m) {
    std::cerr << "argus project: " << m
              << "\nusage: argus project [DIR | compile_commands.json] [--jobs N] [--timeout-per-function S]\n"
                 "                     [--format text|json] [--algorithm A] [--solver z3|cvc5]\n"
                 "                     [--data-model ILP32|LP64] [--entry-model harness|arbitrary]\n"
                 "                     [--property NAME[,NAME...] | FILE.prp]\n"
                 "                     [--functions REGEX] [--skip N] [--limit N] [--store PATH | --no-store]\n"
                 "                     [--solver-memory-mb N]\n";
    return 2;
  };
  try {
    bool haveTarget = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
        return args[++i];
      };
      if (a == "--jobs") jobs = static_cast<unsigned>(std::max(1, std::stoi(value())));
      else if (a == "--timeout-per-function") perFunction = std::stod(value());
      else if (a == "--solver-memory-mb") solverMemoryMb = std::stoull(value());
      else if (a == "--format") {
        format = value();
        if (format != "text" && format != "json") throw std::invalid_argument("--format text|json");
      } else if (a == "--algorithm") algorithm = engine::parseAlgorithm(value());
      else if (a == "--solver") solver = smt::parseSolverKind(value());
      else if (a == "--data-model") dataModel = frontend::parseDataModel(value());
      else if (a == "--entry-model") entryModel = engine::parseEntryModel(value());
      else if (a == "--property") {
        property = propertyOption(value());
        if (property == "unreach-call") property.clear();  // the default
      }
      else if (a == "--store") storePath = value();
      else if (a == "--limit") limit = static_cast<size_t>(std::stoul(value()));
      else if (a == "--skip") skip = static_cast<size_t>(std::stoul(value()));
      else if (a == "--functions") {
        onlyText = value();
        try {
          only.emplace(onlyText, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          throw std::invalid_argument("--functions: bad regular expression '" + onlyText + "': " + e.what());
        }
      }
      else if (a == "--no-store") storePath.clear();
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else if (haveTarget) throw std::invalid_argument("more than one project given");
      else {
        target = a;
        haveTarget = true;
      }
    }
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  if (perFunction <= 0) return usage("--timeout-per-function must be positive");
  // SIGINT/SIGTERM: stop starting workers, kill the running ones, report what is done
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSignal;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);

  // ---- the compilation database
  fs::path db = target;
  std::error_code ec;
  if (fs::is_directory(db, ec)) {
    if (fs::exists(db / "compile_commands.json")) db /= "compile_commands.json";
    else if (fs::exists(db / "build" / "compile_commands.json")) db = db / "build" / "compile_commands.json";
    else {
      std::cerr << "argus project: no compile_commands.json in " << target << " or " << target << "/build\n";
      return 2;
    }
  }
  std::ifstream in(db);
  if (!in) {
    std::cerr << "argus project: cannot read " << db.string() << ": " << std::strerror(errno) << "\n";
    return 2;
  }
  json entries = json::parse(in, nullptr, false);
  if (!entries.is_array()) {
    std::cerr << "argus project: " << db.string() << " is not a JSON array of compile commands\n";
    return 2;
  }
  fs::path dbDir = fs::absolute(db).parent_path();
  std::vector<Unit> units;
  std::set<std::string> seen;
  for (const json& e : entries) {
    if (!e.is_object() || !e.contains("file") || !e["file"].is_string()) continue;
    fs::path dir = e.value("directory", "");
    if (dir.empty()) dir = dbDir;
    else if (dir.is_relative()) dir = dbDir / dir;
    fs::path file = e["file"].get<std::string>();
    if (file.is_relative()) file = dir / file;
    file = file.lexically_normal();
    std::string ext = file.extension().string();
    if (ext != ".c" && ext != ".i") continue;  // C only
    if (!seen.insert(file.string()).second) continue;
    std::vector<std::string> argv;
    if (e.contains("arguments") && e["arguments"].is_array()) {
      for (const json& a : e["arguments"])
        if (a.is_string()) argv.push_back(a.get<std::string>());
    } else {
      argv = frontend::splitCommand(e.value("command", ""));
    }
    Unit u;
    u.file = file.string();
    u.flags = frontend::frontendFlags(argv, dir.string());
    units.push_back(std::move(u));
  }
  if (units.empty()) {
    std::cerr << "argus project: " << db.string() << " has no C translation units\n";
    return 2;
  }
  const bool tty = isatty(STDERR_FILENO);
  auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  // ---- parse and link (core/frontend/project_link.h)
  frontend::FrontendOptions base;
  base.dataModel = dataModel;
  if (!property.empty()) base.properties = engine::parseProperties(property);
  std::vector<frontend::UnitSource> sources;
  for (const Unit& u : units) sources.push_back({u.file, u.flags, std::nullopt});
  frontend::LinkedProject lp = frontend::parseAndLink(sources, base, [&](const std::string& line) {
    if (tty) std::cerr << "\r\033[Kargus: " << line << std::flush;
  });
  if (tty) std::cerr << "\r\033[K";
  std::vector<std::string> parseErrors = lp.parseErrors;
  for (const std::string& e : parseErrors) std::cerr << "argus project: " << e;
  if (!lp.errors.empty() || !lp.link.program) {
    for (const auto& e : lp.errors) std::cerr << "argus project: link error: " << e << "\n";
    if (lp.errors.empty()) std::cerr << "argus project: no translation unit parsed\n";
    return 2;
  }
  fs::path root = commonRoot(units);
  cfa::LinkResult& linked = lp.link;
  for (const auto& w : linked.warnings) std::cerr << "argus project: warning: " << w << "\n";
  const cfa::Program& prog = *linked.program;
  double parseS = elapsed();

  // ---- the entries: functions with a body in the project's files
  std::map<std::string, std::string> closure = cfa::closureHashes(prog);
  const std::vector<bool> checkFree = cfa::closuresWithoutChecks(prog);
  // built once for every entry's slice (in this process and in the forked workers)
  auto dependencies = std::make_shared<const cfa::Dependencies>(prog);
  server::SqliteStore store(storePath);
  if (!storePath.empty() && !store.ok()) std::cerr << "argus project: result store: " << store.error() << "\n";
  std::string engine = engineId();
  std::vector<Job> work;
  size_t inProject = 0;  // before --functions
  for (const cfa::Function& f : prog.functions) {
    if (cfa::isSyntheticFunction(f) || f.linkStub || f.id == prog.initFunc || f.id == prog.initNondetFunc) continue;
    const auto& [unitFile, cname] = linked.origin.count(f.name) ? linked.origin.at(f.name) : std::make_pair(prog.mainFile, f.name);
    if (cname.rfind("__VERIFIER_", 0) == 0 || cname == "reach_error" || cname.rfind("__argus_", 0) == 0) continue;
    if (!underRoot(f.range.file, root)) continue;  // system and other outside headers
    ++inProject;
    if (only && !std::regex_search(cname, *only)) continue;
    Job j;
    j.name = f.name;
    j.display = cname;
    j.file = f.range.file;
    j.line = f.range.line;
    cfa::Hasher h;
    for (const std::string& s : {std::string("argus-project-v1"), engine, closure[f.name], f.name,
                                 std::string(engine::algorithmName(algorithm)), std::string(smt::solverName(solver)),
                                 std::string(frontend::dataModelName(dataModel)), std::to_string(perFunction),
                                 std::string("entry-model:") + engine::entryModelName(entryModel)})
      h.add(s);
    if (!property.empty()) h.add("property:" + property);  // (unreach-call alone: the keys as before)
    j.key = h.hex();
    if (auto v = store.get(j.key)) {
      try {
        classify(j, result::decodeResult(json::parse(*v)));
        j.cached = j.done = true;
        j.timeS = 0;
      } catch (const std::exception&) {
      }
    }
    work.push_back(std::move(j));
  }
  std::sort(work.begin(), work.end(), [](const Job& a, const Job& b) {
    return std::tie(a.file, a.line, a.name) < std::tie(b.file, b.line, b.name);
  });
  size_t entriesTotal = work.size();
  if (skip > 0) work.erase(work.begin(), work.begin() + static_cast<std::ptrdiff_t>(std::min(skip, work.size())));
  if (limit > 0 && work.size() > limit) work.resize(limit);
  auto request = [&](const Job& j) {
    engine::VerifyRequest req;
    req.file = j.file;
    req.algorithm = algorithm;
    req.solver = solver;
    req.dataModel = dataModel;
    req.entryModel = entryModel;
    req.timeoutS = perFunction;
    req.function = j.name;
    req.dependencies = dependencies;
    req.property = property;
    req.isolateStages = true;  // stages keep their time (engine/verify.h)
    return req;
  };

  // ---- nothing to check: answered here, no worker (issue 29 item 1)
  size_t atOnce = 0;
  double slowestAtOnce = 0;
  std::string slowestAtOnceName;
  for (Job& j : work) {
    if (j.done || gInterrupted) continue;
    const cfa::Function* f = prog.find(j.name);
    if (!f || f->id >= checkFree.size() || !checkFree[f->id]) continue;
    engine::VerifyRequest req = request(j);
    req.onlyNothingToCheck = true;
    auto s0 = Clock::now();
    engine::VerifyOutcome o = engine::verifyParsed(prog, req);
    double s = std::chrono::duration<double>(Clock::now() - s0).count();
    if (o.notAnswered || o.inputError) continue;  // the engine sees a check after all: a worker runs it
    j.timeS = s;
    classify(j, o.result);
    j.done = j.inProcess = true;
    store.put(j.key, result::encodeResult(o.result).dump(-1, ' ', false, json::error_handler_t::replace));
    ++atOnce;
    if (s >= slowestAtOnce) {
      slowestAtOnce = s;
      slowestAtOnceName = j.display;
    }
  }

  if (atOnce && !tty)
    std::cerr << "argus: project: " << atOnce << " functions answered at once (nothing to check), the slowest in "
              << std::fixed << std::setprecision(3) << slowestAtOnce << " s" << std::defaultfloat << std::endl;

  // ---- run the rest in forked workers
  std::vector<size_t> todo;
  for (size_t i = 0; i < work.size(); ++i)
    if (!work[i].done) todo.push_back(i);
  size_t next = 0, finished = 0, total = todo.size();
  std::vector<Running> running;
  // --jobs counts cores: a strategy with parallel members (auto: kind|pred) takes as many
  engine::VerifyRequest probe;
  probe.algorithm = algorithm;
  const size_t slots = std::max<size_t>(1, jobs / engine::chainWidth(engine::parseChain(engine::effectiveChain(probe))));
  auto lastLine = Clock::now();
  std::map<std::string, size_t> liveCounts;
  auto progress = [&](bool force) {
    if (tty) {
      std::cerr << "\r\033[Kargus: " << finished << "/" << total << " functions";
      for (const auto& [k, v] : liveCounts) std::cerr << ", " << v << " " << k;
      if (!running.empty()) std::cerr << " | " << work[running.front().job].display;
      std::cerr << std::flush;
    } else if (force || Clock::now() - lastLine > std::chrono::seconds(10)) {
      std::cerr << "argus: project: " << finished << "/" << total << " functions done (" << std::fixed
                << std::setprecision(1) << elapsed() << " s)" << std::defaultfloat << std::endl;
      lastLine = Clock::now();
    }
  };
  std::cout.flush();
  std::cerr.flush();
  while (next < todo.size() || !running.empty()) {
    if (gInterrupted) {
      next = todo.size();  // start nothing more
      for (Running& r : running)
        if (!r.killed) {
          ::kill(-r.pid, SIGKILL);
          ::kill(r.pid, SIGKILL);
          r.killed = true;
        }
    }
    while (next < todo.size() && running.size() < slots) {
      size_t ji = todo[next++];
      int fds[2];
      if (::pipe(fds) != 0) {
        std::cerr << "argus project: pipe: " << std::strerror(errno) << "\n";
        return 2;
      }
      pid_t pid = ::fork();
      if (pid == 0) {
        ::close(fds[0]);
        ::setpgid(0, 0);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        if (solverMemoryMb) engine::setSolverMemoryLimitMb(solverMemoryMb);
        engine::VerifyRequest req = request(work[ji]);
        // What the run has verified so far goes to the parent as it comes (each message
        // ends with a NUL, which JSON text never holds): a worker killed after overrunning
        // its time keeps what it had verified (a bound, a latent finding).
        int out = fds[1];
        auto send = [out](const json& m) {
          std::string t = m.dump(-1, ' ', false, json::error_handler_t::replace);
          t.push_back('\0');
          const char* p = t.data();
          size_t left = t.size();
          while (left > 0) {
            ssize_t w = ::write(out, p, left);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break;
            p += w;
            left -= static_cast<size_t>(w);
          }
        };
        auto checkpoint = [send](const result::VerificationResult& r) {
          send(json{{"checkpoint", result::encodeResult(r)}});
        };
        req.checkpoint = checkpoint;
        req.provisional = checkpoint;
        json reply;
        try {
          engine::VerifyOutcome o = engine::verifyParsed(prog, req);
          if (o.inputError) reply = {{"error", o.error}};
          else reply = {{"result", result::encodeResult(o.result)}};
        } catch (const std::exception& e) {
          reply = {{"error", std::string("internal error: ") + e.what()}};
        }
        send(reply);
        ::_exit(0);
      }
      ::close(fds[1]);
      if (pid < 0) {
        ::close(fds[0]);
        work[ji].verdict = "error";
        work[ji].reason = "fork failed";
        work[ji].done = true;
        ++finished;
        continue;
      }
      Running r{ji, pid, fds[0], "", Clock::now(), Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(perFunction + 5))};
      running.push_back(std::move(r));
    }
    progress(false);
    std::vector<pollfd> pfds;
    for (const Running& r : running) pfds.push_back({r.fd, POLLIN, 0});
    ::poll(pfds.data(), pfds.size(), 200);
    for (size_t k = 0; k < running.size();) {
      Running& r = running[k];
      bool eof = false;
      if (pfds.size() > k && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buf[65536];
        ssize_t n = ::read(r.fd, buf, sizeof buf);
        if (n > 0) r.out.append(buf, static_cast<size_t>(n));
        else eof = true;
      }
      if (!eof && !r.killed && Clock::now() > r.killAt) {
        ::kill(-r.pid, SIGKILL);
        ::kill(r.pid, SIGKILL);
        r.killed = true;
      }
      if (!eof) {
        ++k;
        continue;
      }
      ::close(r.fd);
      int status = 0;
      ::waitpid(r.pid, &status, 0);
      Job& j = work[r.job];
      j.timeS = std::chrono::duration<double>(Clock::now() - r.start).count();
      // the worker's messages: NUL-terminated JSON texts, checkpoints, then the reply
      std::vector<json> msgs;
      for (size_t start = 0, nul; (nul = r.out.find('\0', start)) != std::string::npos; start = nul + 1)
        msgs.push_back(json::parse(r.out.begin() + static_cast<std::ptrdiff_t>(start),
                                   r.out.begin() + static_cast<std::ptrdiff_t>(nul), nullptr, false));
      json reply = !msgs.empty() && msgs.back().is_object() && !msgs.back().contains("checkpoint") ? msgs.back() : json();
      std::optional<result::VerificationResult> checkpoint;
      for (auto it = msgs.rbegin(); it != msgs.rend() && !checkpoint; ++it)
        if (it->is_object() && it->contains("checkpoint")) try {
            checkpoint = result::decodeResult((*it)["checkpoint"]);
          } catch (const std::exception&) {
            break;
          }
      if (r.killed && gInterrupted) {
        j.verdict = "";  // not run
      } else if ((r.killed || !reply.is_object()) && checkpoint) {
        // what it had verified when it was killed (or died): that stands; not stored,
        // so that a later run tries again
        result::VerificationResult cp = std::move(*checkpoint);
        cp.verdict = result::Verdict::Unknown;
        std::string why = r.killed ? "killed after overrunning its time limit"
                          : WIFSIGNALED(status) ? "worker died of signal " + std::to_string(WTERMSIG(status))
                                                : "worker ended without a reply";
        cp.reason = "timeout: " + why + "; condition of what it had verified";
        classify(j, cp);
        if (j.verdict == "unknown") j.reason = "timeout";
        j.detail += " (" + why + ")";
      } else if (r.killed) {
        j.verdict = "unknown";
        j.reason = "timeout";
        j.detail = "killed after overrunning its time limit";
      } else if (reply.is_object() && reply.contains("result")) {
        try {
          result::VerificationResult res = result::decodeResult(reply["result"]);
          classify(j, res);
          store.put(j.key, reply["result"].dump());
        } catch (const std::exception& e) {
          j.verdict = "error";
          j.reason = std::string("bad worker reply: ") + e.what();
        }
      } else if (reply.is_object() && reply.contains("error")) {
        j.verdict = "error";
        j.reason = reply["error"].get<std::string>();
      } else {
        j.verdict = "error";
        j.reason = WIFSIGNALED(status) ? "worker died of signal " + std::to_string(WTERMSIG(status)) : "worker failed";
      }
      j.done = true;
      ++finished;
      liveCounts[j.verdict]++;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      pfds.erase(pfds.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  if (tty) std::cerr << "\r\033[K";
  else if (total > 0) progress(true);

  // ---- report (after an interruption: the functions that finished)
  size_t notRun = 0;
  if (gInterrupted) {
    std::vector<Job> doneJobs;
    for (Job& j : work)
      if (j.done && !j.verdict.empty()) doneJobs.push_back(std::move(j));
      else ++notRun;
    work = std::move(doneJobs);
    std::cerr << "argus project: interrupted; " << notRun << " functions not run\n";
  }
  promoteLatent(work);
  const char* kinds[] = {"verified", "counterexample", "latent", "conditional", "unknown", "error"};
  std::map<std::string, std::map<std::string, size_t>> perFile;
  std::map<std::string, size_t> totals, unknownBy;
  size_t fromStore = 0;
  for (const Job& j : work) {
    std::string f = relTo(j.file, root);
    perFile[f][j.verdict]++;
    totals[j.verdict]++;
    if (j.verdict == "unknown") unknownBy[j.reason]++;
    if (j.cached) ++fromStore;
  }
  totals["error"] += parseErrors.size();
  int code = totals["counterexample"] ? 1 : (totals["unknown"] || totals["latent"] || totals["error"]) ? 3 : 0;
  if (gInterrupted) code = 130;
  double wall = elapsed();
  if (format == "json") {
    json out;
    out["database"] = fs::absolute(db).lexically_normal().string();
    out["root"] = root.string();
    out["algorithm"] = engine::algorithmName(algorithm);
    out["timeout_per_function_s"] = perFunction;
    out["units"] = units.size();
    out["functions_in_project"] = inProject;
    out["functions_selected"] = entriesTotal;  // after --functions, before --skip/--limit
    out["functions"] = json::array();
    for (const Job& j : work) {
      json o{{"file", relTo(j.file, root)}, {"function", j.display}, {"name", j.name}, {"line", j.line},
             {"verdict", j.verdict}, {"reason", j.reason}, {"detail", j.detail}, {"time_s", j.timeS},
             {"from_store", j.cached}, {"worker", !j.cached && !j.inProcess}};
      if (j.result && !j.cached) {
        o["engine_time_s"] = j.result->stats.wallTimeS;
        o["engine_cpu_s"] = j.result->stats.cpuTimeS;  // wall is inflated on a loaded machine
      }
      if (j.result && j.result->counterexample) {
        const result::Counterexample& cex = *j.result->counterexample;
        o["counterexample_steps"] = cex.steps.size();
        o["finding"] = cex.finding;
        if (cex.finding == "latent") o["precondition"] = result::toJson(*j.result)["counterexample"]["precondition"];
        // further latent findings (the run went on after the first, issue 29 item 4)
        if (!j.result->moreLatent.empty()) {
          json more = json::array();
          for (const result::Counterexample& m : j.result->moreLatent) {
            json e{{"precondition", result::preconditionText(m)}, {"steps", m.steps.size()}};
            if (!m.steps.empty())
              e["at"] = {{"function", m.steps.back().function}, {"file", m.steps.back().file},
                         {"line", m.steps.back().line}, {"statement", m.steps.back().statement}};
            more.push_back(std::move(e));
          }
          o["more_latent"] = std::move(more);
        }
        if (j.result->condition.kind == "latent") o["condition"] = j.result->condition.summary;
        if (!j.result->entryName.empty() && cex.entry != j.result->entryName) o["via_caller"] = cex.entry;
      }
      if (j.result && j.result->condition.bound) o["bound"] = *j.result->condition.bound;
      if (j.result && j.result->condition.complete) o["complete"] = true;  // every path, whatever the bound
      if (j.result && j.result->condition.vacuous) o["vacuous"] = true;    // every check behind the construct
      if (j.result && !j.result->assumedPrecondition.empty()) o["assumed_precondition"] = j.result->assumedPrecondition;
      out["functions"].push_back(std::move(o));
    }
    json files = json::object();
    for (const auto& [f, c] : perFile) {
      json fc = json::object();
      for (const char* k : kinds) fc[k] = c.count(k) ? c.at(k) : 0;
      files[f] = fc;
    }
    out["files"] = files;
    json t = json::object();
    for (const char* k : kinds) t[k] = totals[k];
    t["functions"] = work.size();
    t["unknown_by_reason"] = unknownBy;
    t["from_store"] = fromStore;
    t["verified_now"] = work.size() - fromStore;
    t["not_run"] = notRun;
    t["answered_at_once"] = atOnce;  // nothing to check: no worker
    out["totals"] = t;
    out["answered_at_once"] = {{"count", atOnce}, {"slowest_s", slowestAtOnce}, {"slowest", slowestAtOnceName}};
    if (skip > 0) out["skip"] = skip;
    if (only) out["functions_regex"] = onlyText;
    out["parse_errors"] = parseErrors;
    out["link_warnings"] = linked.warnings;
    out["time_s"] = {{"parse_and_link", parseS}, {"total", wall}};
    out["exit_code"] = code;
    std::cout << out.dump(2) << std::endl;
    return code;
  }
  for (const Job& j : work) {
    std::cout << relTo(j.file, root) << ":" << j.line << ": " << j.display << ": " << j.verdict;
    if (j.verdict == "unknown" || j.verdict == "error") std::cout << " (" << (j.reason.empty() ? "" : j.reason + ": ") << j.detail << ")";
    else if (!j.detail.empty()) std::cout << " (" << j.detail << ")";
    if (j.cached) std::cout << " [store]";
    else std::cout << " [" << std::fixed << std::setprecision(2) << j.timeS << std::defaultfloat << " s]";
    std::cout << "\n";
  }
  std::cout << "\n" << std::left << std::setw(32) << "file";
  for (const char* k : kinds) std::cout << std::right << std::setw(16) << k;
  std::cout << "\n";
  auto row = [&](const std::string& name, std::map<std::string, size_t> c) {
    std::cout << std::left << std::setw(32) << name;
    for (const char* k : kinds) std::cout << std::right << std::setw(16) << c[k];
    std::cout << "\n";
  };
  for (const auto& [f, c] : perFile) row(f, c);
  row("total", totals);
  if (!unknownBy.empty()) {
    std::cout << "unknown by reason:";
    for (const auto& [r, c] : unknownBy) std::cout << " " << r << " " << c;
    std::cout << "\n";
  }
  std::cout << work.size() << " functions";
  if (entriesTotal != work.size()) std::cout << " (of " << entriesTotal << ", --skip/--limit)";
  std::cout << " in " << units.size() << " translation units; " << fromStore
            << " served from the store, " << work.size() - fromStore << " verified now; " << std::fixed
            << std::setprecision(1) << wall << " s" << std::defaultfloat;
  if (notRun) std::cout << "; interrupted, " << notRun << " not run";
  std::cout << "\n";
  if (atOnce)
    std::cout << atOnce << " answered at once (nothing to check), the slowest " << slowestAtOnceName << " in " << std::fixed
              << std::setprecision(3) << slowestAtOnce << " s" << std::defaultfloat << "\n";
  return code;
}

}  // namespace argus::cli
