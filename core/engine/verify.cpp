#include "core/engine/verify.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "core/algorithms/bmc/bmc.h"
#include "core/algorithms/bmc/bound_condition.h"
#include "core/algorithms/cmc/assumptions.h"
#include "core/algorithms/cmc/explicit_analysis.h"
#include "core/algorithms/kinduction/kiki.h"
#include "core/algorithms/kinduction/kinduction.h"
#include "core/algorithms/predicate/predicate_analysis.h"
#include "core/cfa/accelerate.h"
#include "core/cfa/cfa_hash.h"
#include "core/cfa/closure.h"
#include "core/cfa/entry_harness.h"
#include "core/cfa/recursion.h"
#include "core/engine/sessions.h"
#include "core/support/deadline.h"
#include "core/result/codec.h"
#include "core/support/large_stack.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace argus::engine {

const char* defaultRefiner(Algorithm alg, smt::SolverKind solver) {
  // Measured with `argus bench MANIFEST.tsv --timeout 60 --jobs 2` (Z3) per refiner (the
  // table in issue 3's closing note): Impact conjoins τ itself and gains from strongest
  // posts over the whole path; predicate abstraction takes the atoms of τ and gains from
  // weakest preconditions over the whole path (they name the loop condition where
  // strongest posts name values). With live-variable projection (188 tasks) rather than
  // without (newton-wp-all-all, 190 tasks): the two tasks are within run-to-run noise, and
  // without projection memset_symbolic_size in test_constructs takes 111 s instead of 5 s
  // (`argus verify`, alone on the machine). Weakest preconditions over memory keep the
  // stores (select over chains of stores in the predicates), and cvc5's abstraction
  // queries over those are an order of magnitude slower than Z3's
  // (memcpy_symbolic_size_safe in test_constructs: 62 s against 19 s), so pred with cvc5
  // takes strongest posts over unsat cores (10 s there; the default before the refiner
  // table, 183 tasks with Z3; unlike strongest posts over the whole path it proves a
  // counting loop).
  if (alg == Algorithm::Impact) return "newton-sp-all-live";
  return solver == smt::SolverKind::CVC5 ? "newton-sp-core-live" : "newton-wp-all-live";
}

const char* fallbackRefiner(Algorithm alg, smt::SolverKind solver) {
  // Weakest preconditions over the whole path keep adding one predicate per unrolling of a
  // counting loop (break_continue in test_constructs: 32 s and 43 predicates alone, 0.95 s
  // and 18 with strongest posts); strongest posts prove those. Measured on the MANIFEST
  // (`argus bench --algorithm pred --timeout 30`, session 45's two runs, one per refiner):
  // 186 decided with the default, 180 with newton-sp-all-live, 195 with either, 194 when
  // the default has the first 5 s and the fallback the rest.
  if (alg == Algorithm::Pred && solver == smt::SolverKind::Z3) return "newton-sp-all-live";
  return nullptr;
}

void checkRefinerName(const std::string& name) { (void)algorithms::RefinerConfig::parse(name); }

void checkKikiMode(const std::string& name) { (void)algorithms::parseKikiMode(name); }

EntryModel parseEntryModel(const std::string& s) {
  if (s == "harness") return EntryModel::Harness;
  if (s == "arbitrary") return EntryModel::Arbitrary;
  throw std::invalid_argument("unknown entry model '" + s + "' (available: harness, arbitrary)");
}

const char* entryModelName(EntryModel m) { return m == EntryModel::Arbitrary ? "arbitrary" : "harness"; }

Algorithm parseAlgorithm(const std::string& s) {
  if (s == "bmc") return Algorithm::Bmc;
  if (s == "ibmc") return Algorithm::Ibmc;
  if (s == "auto") return Algorithm::Auto;
  if (s == "pred") return Algorithm::Pred;
  if (s == "impact") return Algorithm::Impact;
  if (s == "kind") return Algorithm::Kind;
  if (s == "kind-noinv") return Algorithm::KindNoInv;
  if (s == "bmc-cpa") return Algorithm::BmcCpa;
  if (s == "ai") return Algorithm::Ai;
  if (s == "kiki") return Algorithm::Kiki;
  if (s == "kiki-ibmc") return Algorithm::KikiIbmc;
  if (s == "kiki-kind") return Algorithm::KikiKind;
  if (s == "kiki-ai") return Algorithm::KikiAi;
  if (s == "explicit") return Algorithm::Explicit;
  if (s == "cmc") return Algorithm::Cmc;
  throw std::invalid_argument("unknown or not yet available algorithm '" + s +
                              "' (available: bmc, ibmc, bmc-cpa, kind, kind-noinv, ai, kiki, kiki-ibmc, kiki-kind, kiki-ai, pred, impact, explicit, cmc, auto)");
}

const char* algorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::Bmc: return "bmc";
    case Algorithm::Ibmc: return "ibmc";
    case Algorithm::Pred: return "pred";
    case Algorithm::Impact: return "impact";
    case Algorithm::Explicit: return "explicit";
    case Algorithm::Cmc: return "cmc";
    case Algorithm::Kind: return "kind";
    case Algorithm::KindNoInv: return "kind-noinv";
    case Algorithm::BmcCpa: return "bmc-cpa";
    case Algorithm::Ai: return "ai";
    case Algorithm::Kiki: return "kiki";
    case Algorithm::KikiIbmc: return "kiki-ibmc";
    case Algorithm::KikiKind: return "kiki-kind";
    case Algorithm::KikiAi: return "kiki-ai";
    case Algorithm::Auto: return "auto";
  }
  return "?";
}

// std::bad_alloc, or a solver's own "out of memory" error
static bool isOutOfMemory(const std::exception& e) {
  return dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
         std::string_view(e.what()).find("out of memory") != std::string_view::npos;
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
  } catch (const std::exception& e) {
    VerifyOutcome out;
    bool memory = isOutOfMemory(e);
    out.result.reason = memory ? std::string("out of memory") : std::string("internal error: ") + e.what();
    out.result.condition.kind = memory ? "memory" : "error";
    out.result.condition.summary = "nothing verified";
    return out;
  }
}

void setSolverMemoryLimitMb(uint64_t mb) { smt::setSolverMemoryLimitMb(mb); }

VerifyOutcome verify(const VerifyRequest& req) {
  VerifyOutcome out;
  std::set<std::string> props;
  try {
    props = parseProperties(req.property);
  } catch (const std::invalid_argument& e) {
    out.inputError = true;
    out.error = e.what();
    return out;
  }
  for (const std::string& p : props)
    if (isUncheckedProperty(p)) {
      out.result.property = req.property;
      out.result.reason = "unsupported: property " + p + " is not checked yet";
      out.result.condition.kind = "unsupported";
      out.result.condition.summary = "nothing verified";
      return out;
    }
  out = verifyGuarded(req, nullptr);
  out.result.property = req.property;
  return out;
}

static const char* const kCheckedProperties[] = {"unreach-call", "no-overflow", "div-by-zero", "shift",
                                                 "valid-memsafety", "valid-deref", "valid-free", "valid-memtrack",
                                                 "valid-memcleanup"};

bool isUncheckedProperty(const std::string&) { return false; }  // none left (issue 26)

std::set<std::string> parseProperties(const std::string& spec) {
  std::set<std::string> out;
  auto add = [&](std::string name) {
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
    size_t b = 0;
    while (b < name.size() && std::isspace(static_cast<unsigned char>(name[b]))) ++b;
    name = name.substr(b);
    if (name.empty()) return;
    bool known = isUncheckedProperty(name);
    for (const char* k : kCheckedProperties) known |= name == k;
    if (!known) {
      std::string all;
      for (const char* k : kCheckedProperties) all += std::string(all.empty() ? "" : ", ") + k;
      throw std::invalid_argument("unknown property '" + name + "' (known: " + all + ")");
    }
    out.insert(name);
  };
  if (spec.find("CHECK") != std::string::npos) {
    // SV-COMP property file: one CHECK( init(main()), LTL(G ...) ) per line
    static const std::pair<const char*, const char*> kLtl[] = {
        {"G ! call(reach_error())", "unreach-call"}, {"G ! call(__VERIFIER_error())", "unreach-call"},
        {"G valid-free", "valid-free"},             {"G valid-deref", "valid-deref"},
        {"G valid-memtrack", "valid-memtrack"},     {"G valid-memcleanup", "valid-memcleanup"},
        {"G ! overflow", "no-overflow"}};
    std::istringstream in(spec);
    std::string line;
    while (std::getline(in, line)) {
      size_t pos = line.find("LTL(");
      if (pos == std::string::npos) continue;
      // the formula: from LTL( to the ')' that closes it
      int depth = 0;
      size_t end = pos + 3;
      for (; end < line.size(); ++end) {
        if (line[end] == '(') ++depth;
        if (line[end] == ')' && --depth == 0) break;
      }
      std::string f = line.substr(pos + 4, end > pos + 4 ? end - pos - 4 : 0);
      std::string norm;  // single spaces
      for (char c : f)
        if (!std::isspace(static_cast<unsigned char>(c)) || (!norm.empty() && norm.back() != ' ')) norm += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
      while (!norm.empty() && norm.back() == ' ') norm.pop_back();
      bool found = false;
      for (auto& [ltl, name] : kLtl)
        if (norm == ltl) {
          add(name);
          found = true;
        }
      if (!found) throw std::invalid_argument("unknown property formula 'LTL(" + norm + ")' in property file");
    }
    // valid-memsafety.prp lists its three subproperties
    if (out.count("valid-free") && out.count("valid-deref") && out.count("valid-memtrack")) {
      out.erase("valid-free");
      out.erase("valid-deref");
      out.erase("valid-memtrack");
      out.insert("valid-memsafety");
    }
    if (out.empty()) throw std::invalid_argument("no property in the property file");
    return out;
  }
  std::string cur;
  for (char c : spec) {
    if (c == ',') {
      add(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  add(cur);
  return out;
}

VerifyOutcome verifyParsed(const cfa::Program& program, const VerifyRequest& req) {
  return verifyGuarded(req, &program);
}

namespace {

uint64_t parseCount(const std::string& key, const std::string& v) {
  char* end = nullptr;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || !end || *end) throw std::invalid_argument("bad value '" + v + "' for " + key + " in --chain");
  return x;
}

// One member: `alg[:key=value…]` (`alg:N` = `alg:k=N`).
Stage parseMember(const std::string& item) {
  Stage st;
  st.spec = item;
  std::vector<std::string> parts;
  std::string cur;
  for (char c : item) {
    if (c == ':' || c == ';' || c == '+') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  const std::string& name = parts[0];
  if (name == "bmc") st.algorithm = Algorithm::Bmc;
  else if (name == "ibmc") st.algorithm = Algorithm::Ibmc;
  else if (name == "explicit") st.algorithm = Algorithm::Explicit;
  else if (name == "pred") st.algorithm = Algorithm::Pred;
  else if (name == "impact") st.algorithm = Algorithm::Impact;
  else if (name == "kind") st.algorithm = Algorithm::Kind;
  else if (name == "kind-noinv") st.algorithm = Algorithm::KindNoInv;
  else if (name == "kiki") st.algorithm = Algorithm::Kiki;
  else {
    Algorithm a;
    try {
      a = parseAlgorithm(name);  // any single algorithm (ai, bmc-cpa, kiki-ai, …), without options
    } catch (const std::invalid_argument&) {
      a = Algorithm::Cmc;
    }
    if (a == Algorithm::Cmc || a == Algorithm::Auto)
      throw std::invalid_argument("unknown chain stage '" + name +
                                  "' (stages: bmc, ibmc, kind, kind-noinv, kiki, explicit, pred, impact, or another "
                                  "single algorithm; members of a parallel stage joined by |)");
    st.algorithm = a;
  }
  const bool cpaStage = st.algorithm == Algorithm::Explicit || st.algorithm == Algorithm::Pred ||
                        st.algorithm == Algorithm::Impact;
  const bool predStage = st.algorithm == Algorithm::Pred || st.algorithm == Algorithm::Impact;
  const bool bounded = st.algorithm == Algorithm::Bmc || st.algorithm == Algorithm::Ibmc ||
                       st.algorithm == Algorithm::Kind || st.algorithm == Algorithm::KindNoInv ||
                       st.algorithm == Algorithm::Kiki;
  for (size_t i = 1; i < parts.size(); ++i) {
    auto eq = parts[i].find('=');
    std::string k, v;
    if (eq == std::string::npos) {
      // `bmc:3`, the daemon's older stage syntax
      if (!bounded || parts[i].empty() || parts[i].find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("chain option '" + parts[i] + "' needs key=value");
      k = "k";
      v = parts[i];
    } else {
      k = parts[i].substr(0, eq);
      v = parts[i].substr(eq + 1);
    }
    if (k == "after") {
      // a parallel member that starts S seconds after its stage (checked in parseChain)
      char* end = nullptr;
      st.params.afterS = std::strtod(v.c_str(), &end);
      if (v.empty() || !end || *end || st.params.afterS < 0) throw std::invalid_argument("bad after '" + v + "' in --chain");
    } else if (k == "time") {
      char* end = nullptr;
      st.params.timeS = std::strtod(v.c_str(), &end);
      if (v.empty() || !end || *end || st.params.timeS < 0) throw std::invalid_argument("bad time '" + v + "' in --chain");
    } else if (k == "k" && bounded) {
      st.params.bound = static_cast<uint32_t>(parseCount(k, v));
    } else if (cpaStage && k == "cond") {
      if (v != "ignore" && v != "use") throw std::invalid_argument("bad cond '" + v + "' in --chain (use or ignore)");
      st.params.ignoreCondition = v == "ignore";
    } else if (cpaStage && k == "mem") {
      st.params.maxMemoryMb = parseCount(k, v);
    } else if (cpaStage && k == "edgeposts") {
      st.params.maxEdgePosts = static_cast<uint32_t>(parseCount(k, v));
    } else if (cpaStage && k == "post") {
      st.params.maxTimePerPostMs = static_cast<unsigned>(parseCount(k, v));
    } else if (predStage && k == "refine") {
      st.params.maxTimePerRefinementMs = static_cast<unsigned>(parseCount(k, v));
    } else if (predStage && k == "pfsize") {
      st.params.maxPathFormulaSize = parseCount(k, v);
    } else if (st.algorithm == Algorithm::Explicit && k == "overflow") {
      st.params.monitorOverflow = parseCount(k, v) != 0;
    } else if (st.algorithm == Algorithm::Explicit && k == "states") {
      st.params.maxStates = parseCount(k, v);
    } else if (st.algorithm == Algorithm::Explicit && k == "repeats") {
      st.params.maxRepeats = static_cast<uint32_t>(parseCount(k, v));
    } else if (st.algorithm == Algorithm::Explicit && k == "length") {
      st.params.maxPathLength = static_cast<uint32_t>(parseCount(k, v));
    } else if (st.algorithm == Algorithm::Explicit && k == "perloc") {
      st.params.maxStatesPerLocation = static_cast<uint32_t>(parseCount(k, v));
    } else if (st.algorithm == Algorithm::Explicit && k == "assumes") {
      st.params.maxAssumeEdges = static_cast<uint32_t>(parseCount(k, v));
    } else {
      throw std::invalid_argument("unknown option '" + k + "' for chain stage " + name);
    }
  }
  return st;
}

}  // namespace

bool Stage::restrictable() const {
  if (isParallel())
    return std::any_of(parallel.begin(), parallel.end(), [](const Stage& m) { return m.restrictable(); });
  return !params.ignoreCondition &&
         (algorithm == Algorithm::Explicit || algorithm == Algorithm::Pred || algorithm == Algorithm::Impact);
}

Chain parseChain(const std::string& spec) {
  Chain out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    if (item.find('|') == std::string::npos) {
      out.push_back(parseMember(item));
      if (out.back().params.afterS > 0)
        throw std::invalid_argument("'after' is an option of a parallel stage's members: '" + item + "'");
      continue;
    }
    Stage st;
    st.spec = item;
    std::stringstream ms(item);
    std::string m;
    while (std::getline(ms, m, '|')) {
      if (m.empty()) throw std::invalid_argument("empty member in parallel stage '" + item + "'");
      st.parallel.push_back(parseMember(m));
    }
    if (st.parallel.size() < 2) throw std::invalid_argument("a parallel stage needs two members: '" + item + "'");
    if (std::all_of(st.parallel.begin(), st.parallel.end(), [](const Stage& x) { return x.params.afterS > 0; }))
      throw std::invalid_argument("a parallel stage needs a member that starts at once (no 'after'): '" + item + "'");
    // the stage's own time is the longest of its members' (each member keeps its own)
    for (const Stage& x : st.parallel) st.params.timeS = std::max(st.params.timeS, x.params.timeS);
    if (std::any_of(st.parallel.begin(), st.parallel.end(), [](const Stage& x) { return x.params.timeS <= 0; }))
      st.params.timeS = 0;
    out.push_back(std::move(st));
  }
  if (out.empty()) throw std::invalid_argument("empty --chain");
  return out;
}

std::string chainSpec(const Chain& chain) {
  std::string s;
  for (const Stage& st : chain) s += (s.empty() ? "" : ",") + st.spec;
  return s;
}

unsigned chainWidth(const Chain& chain) {
  size_t w = 1;
  for (const Stage& st : chain) w = std::max(w, st.parallel.size());
  return static_cast<unsigned>(w);
}

namespace {

// "the loop at main.c:6" for every loop head of the functions the entry can reach: the
// entry's own first, then the program's, then those of Argus's C library models and of
// system headers (a SQLite function's condition named five loops of libc_models.c first).
std::vector<std::string> loopsOf(const cfa::Program& p, const cfa::Function& entry) {
  std::vector<std::string> out[3];
  std::set<std::string> seen;
  std::set<std::string> fs = cfa::reachableFunctions(p, entry);
  for (const cfa::Function& f : p.functions) {
    if (!fs.count(f.name)) continue;
    int rank = f.id == entry.id ? 0 : (f.systemHeader || f.range.file.rfind("/argus/", 0) == 0) ? 2 : 1;
    for (const cfa::Location& l : f.locs)
      if (l.isLoopHead) {
        std::string w = "the loop at " + algorithms::locationWhere(p, f.id, l.id);
        if (seen.insert(w).second) out[rank].push_back(std::move(w));
      }
  }
  for (int r = 1; r < 3; ++r) out[0].insert(out[0].end(), out[r].begin(), out[r].end());
  return out[0];
}

}  // namespace

// The closure hashes are computed when the slice is final (it is const from there on);
// the loop lists on the first checkpoint that names them. Only for the program they were
// made for: a stage on another program (recursion inlined, ...) computes its own.
struct SliceFacts {
  const cfa::Program* program = nullptr;
  std::map<std::string, std::string> closures;
  std::mutex m;
  std::map<cfa::FuncId, std::shared_ptr<const std::vector<std::string>>> loops;
};

namespace {

SliceFacts* factsFor(const VerifyRequest* req, const cfa::Program& p) {
  return req && req->sliceFacts && req->sliceFacts->program == &p ? req->sliceFacts.get() : nullptr;
}

std::string programHashOf(const VerifyRequest* req, const cfa::Program& p, const std::string& entry) {
  SliceFacts* f = factsFor(req, p);
  if (!f) return result::programHash(p, entry);
  auto it = f->closures.find(entry);
  return result::programHashFromClosure(p, it == f->closures.end() ? "" : it->second);
}

std::shared_ptr<const std::vector<std::string>> loopsOfEntry(const VerifyRequest* req, const cfa::Program& p,
                                                             const cfa::Function& entry) {
  SliceFacts* f = factsFor(req, p);
  if (!f) return std::make_shared<const std::vector<std::string>>(loopsOf(p, entry));
  {
    std::lock_guard<std::mutex> lock(f->m);
    auto it = f->loops.find(entry.id);
    if (it != f->loops.end()) return it->second;
  }
  auto l = std::make_shared<const std::vector<std::string>>(loopsOf(p, entry));  // outside the lock
  std::lock_guard<std::mutex> lock(f->m);
  return f->loops.emplace(entry.id, std::move(l)).first->second;
}

// BMC's bound (and k-induction's base case) as a condition: which loops were cut, and
// the assumption automaton "verified for loops unrolled <= k times"
// (core/algorithms/bmc/bound_condition.h).
void attachBoundCondition(const cfa::Program& program, const cfa::Function& entry, result::VerificationResult& r,
                          const VerifyRequest* req) {
  if (r.verdict != result::Verdict::Unknown || !r.condition.bound) return;
  // a complete condition: no path that avoids the excluded constructs runs a loop further
  static const std::vector<std::string> kNone;
  std::shared_ptr<const std::vector<std::string>> cached;
  if (!r.condition.complete) cached = loopsOfEntry(req, program, entry);
  const std::vector<std::string>& loops = cached ? *cached : kNone;
  std::string k = std::to_string(*r.condition.bound);
  for (const std::string& l : loops) r.condition.excluded.push_back(l + " beyond " + k + " iterations");
  if (!loops.empty()) {
    r.condition.summary += "; not verified: ";
    for (size_t i = 0; i < loops.size() && i < 5; ++i) r.condition.summary += (i ? ", " : "") + loops[i];
    if (loops.size() > 5) r.condition.summary += " and " + std::to_string(loops.size() - 5) + " more loops";
    r.condition.summary += " beyond " + k + " iterations";
  }
  uint32_t depth = r.condition.callDepth.value_or(UINT32_MAX);
  if (r.condition.callDepth) {
    std::string d = std::to_string(depth);
    r.condition.excluded.push_back("calls nested more than " + d + " deep below '" + entry.name + "'");
    r.condition.summary += "; not verified: calls nested more than " + d + " deep";
  }
  const std::string hash = programHashOf(req, program, entry.name);
  if (auto a = algorithms::boundAutomaton(program, entry.id, *r.condition.bound, 100000, depth, &hash)) {
    r.stats.extra["bound_automaton_states"] = static_cast<double>(a->ordinaryStates());
    r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(std::move(*a));
  }
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The settings every algorithm's options share, from the request.
template <class Options>
Options commonOptions(const VerifyRequest& req, double timeoutS) {
  Options o;
  o.solver = req.solver;
  o.timeoutS = timeoutS;
  o.progress = req.progress;
  o.corruptReplayForTest = req.corruptReplayForTest;
  return o;
}

// The most time the vacuity check of a `true` takes (engine::verify, after the run).
constexpr double kVacuityCheckS = 5.0;

// An Error or Unsupported edge anywhere in the program (the entry's slice).
bool hasCheckEdge(const cfa::Program& program) {
  for (const cfa::Function& f : program.functions)
    for (const cfa::Edge& e : f.edges)
      if (e.kind == cfa::EdgeKind::Error || e.kind == cfa::EdgeKind::Unsupported) return true;
  return false;
}

// One algorithm run. `cond` restricts the CPA-based analyses (explicit, pred).
// recursionInlined: `program` is made by cfa::inlineRecursion (see runSingle below).
result::VerificationResult runAlgorithm(const cfa::Program& program, const cfa::Function& entry,
                                        const VerifyRequest& req, Algorithm alg, double timeoutS,
                                        const StageParams& sp, const result::AssumptionAutomaton* cond,
                                        bool recursionInlined) {
  result::VerificationResult r;
  // The entry's closure (the slice) has no error edge at all: no path reaches an error,
  // whatever the algorithm, and no solver is needed. (An Unsupported edge could hide
  // one, so such closures take the normal way.) Most functions of real code, which
  // carry no assertion, end here at once.
  if (!hasCheckEdge(program)) {
    r.verdict = result::Verdict::True;
    r.algorithm = algorithmName(alg);
    r.condition.kind = "none";
    r.condition.summary = "verified: no error call or assertion in '" + entry.name + "' or anything it calls";
    r.condition.automaton =
        std::make_shared<result::AssumptionAutomaton>(algorithms::trivialAutomaton(program, entry.name, true));
    r.stats.extra["no_error_location"] = 1;
    return r;
  }
  // The checkpoints of a run that verifies bound after bound (bmc, ibmc, the base case
  // of kind): what it would answer if stopped now, with the bound condition it ends with
  // (attachBoundCondition). Not on a program with recursion inlined: its automaton
  // would name the copies (runSingle).
  auto boundCheckpoint = [&]() -> std::function<void(const result::VerificationResult&)> {
    if (!req.checkpoint || recursionInlined) return nullptr;
    return [&](const result::VerificationResult& c) {
      result::VerificationResult cp = c;
      attachBoundCondition(program, entry, cp, &req);
      if (!cp.condition.automaton)
        cp.condition.automaton = cond ? std::make_shared<result::AssumptionAutomaton>(*cond)
                                      : std::make_shared<result::AssumptionAutomaton>(
                                            algorithms::trivialAutomaton(program, entry.name, false));
      req.checkpoint(cp);
    };
  };
  if (alg == Algorithm::Pred || alg == Algorithm::Impact) {
    auto runWith = [&](const std::string& refiner, double t) {
      auto po = commonOptions<algorithms::PredicateAnalysisOptions>(req, t);
      po.refiner = algorithms::RefinerConfig::parse(refiner);
      po.impact = alg == Algorithm::Impact;
      po.cpa.cartesian = req.cartesian;
      po.cpa.bddAbstractions = req.bddAbstractions;
      po.condition = cond;
      po.maxMemoryMb = sp.maxMemoryMb;
      po.maxEdgePosts = sp.maxEdgePosts;
      po.maxTimePerPostMs = sp.maxTimePerPostMs;
      po.maxTimePerRefinementMs = sp.maxTimePerRefinementMs;
      po.maxPathFormulaSize = sp.maxPathFormulaSize;
      return algorithms::runPredicateAnalysis(program, entry.id, po);
    };
    const std::string first = req.refiner.empty() ? defaultRefiner(alg, req.solver) : req.refiner;
    // Only for pred run alone: in a chain (auto, cmc) k-induction beside it proves the
    // counting loops the fallback would (all 9 MANIFEST tasks only newton-sp-all-live
    // decides, session 45), and the default's equalities (j == 2*i) may need more than
    // its share (sv/loop-lit/ddlm2013: 10.4 s).
    const char* fallback = req.refiner.empty() && timeoutS > 0 && req.algorithm == Algorithm::Pred
                               ? fallbackRefiner(alg, req.solver)
                               : nullptr;
    if (!fallback) {
      r = runWith(first, timeoutS);
    } else {
      // The default refiner for a share of the time, then the fallback for the rest, when
      // the first ran out of time or could not refine (kPredFirstRefinerShare).
      const auto t0 = std::chrono::steady_clock::now();
      r = runWith(first, kPredFirstRefinerShare * timeoutS);
      const double firstS = secondsSince(t0), left = timeoutS - firstS;
      const bool retry = r.verdict == result::Verdict::Unknown &&
                         (r.condition.kind == "timeout" || r.reason.find("refinement failed") != std::string::npos);
      if (retry && left >= 0.5) {
        result::VerificationResult again = runWith(fallback, left);
        if (again.verdict == result::Verdict::Unknown && again.reason != r.reason)
          again.reason += " (before it, refiner " + first + ": " + r.reason + ")";
        again.stats.extra["refiner_fallback"] = 1;
        again.stats.extra["refiner_first_s"] = firstS;
        r = std::move(again);
      }
    }
  } else if (alg == Algorithm::BmcCpa) {
    auto po = commonOptions<algorithms::PredicateAnalysisOptions>(req, timeoutS);
    r = algorithms::runCpaBmc(program, entry.id, po, sp.bound > 0 ? sp.bound : 0);
  } else if (alg == Algorithm::Kind || alg == Algorithm::KindNoInv) {
    auto ko = commonOptions<algorithms::KInductionOptions>(req, timeoutS);
    if (sp.bound > 0) ko.maxBound = sp.bound;
    if (req.maxUnwindNodes) ko.maxNodes = req.maxUnwindNodes;
    ko.invariants = alg == Algorithm::Kind;
    ko.stopAtUnsupported = recursionInlined;
    ko.checkpoint = boundCheckpoint();
    r = algorithms::runKInduction(program, entry.id, ko);
    attachBoundCondition(program, entry, r, &req);
  } else if (alg == Algorithm::Kiki || alg == Algorithm::KikiIbmc || alg == Algorithm::KikiKind ||
             alg == Algorithm::KikiAi) {
    auto ko = commonOptions<algorithms::KikiOptions>(req, timeoutS);
    if (sp.bound > 0) ko.maxBound = sp.bound;
    if (req.maxUnwindNodes) ko.maxNodes = req.maxUnwindNodes;
    ko.mode = alg == Algorithm::KikiIbmc ? algorithms::KikiMode::Ibmc
              : alg == Algorithm::KikiKind ? algorithms::KikiMode::Kind
              : alg == Algorithm::KikiAi   ? algorithms::KikiMode::Ai
                                           : algorithms::KikiMode::Full;
    ko.stopAtUnsupported = recursionInlined;
    r = algorithms::runKiki(program, entry.id, ko);
  } else if (alg == Algorithm::Ai) {
    algorithms::KInductionOptions ko;
    ko.timeoutS = timeoutS;
    ko.progress = req.progress;
    r = algorithms::runIntervalAnalysis(program, entry.id, ko);
  } else if (alg == Algorithm::Explicit) {
    auto eo = commonOptions<algorithms::ExplicitAnalysisOptions>(req, timeoutS);
    eo.maxStates = sp.maxStates;
    eo.pathLimits.maxPathLength = sp.maxPathLength;
    eo.pathLimits.maxAssumeEdges = sp.maxAssumeEdges;
    eo.pathLimits.maxRepeats = sp.maxRepeats;
    eo.pathLimits.maxStatesPerLocation = sp.maxStatesPerLocation;
    eo.maxMemoryMb = sp.maxMemoryMb;
    eo.maxEdgePosts = sp.maxEdgePosts;
    eo.maxTimePerPostMs = sp.maxTimePerPostMs;
    eo.monitorArithmetic = sp.monitorOverflow;
    eo.condition = cond;
    r = algorithms::runExplicitAnalysis(program, entry.id, eo);
  } else {
    // Deep deterministic loops: the unwinding runs on a copy with acceleration shortcuts
    // (an additional path per translation loop; the loop itself stays, and the replay
    // interpreter runs it, core/cfa/accelerate.h). Conditions are built on `program`:
    // the original locations and edges keep their indices.
    // (no copy of a 2,500-function slice when no loop has the form)
    std::shared_ptr<cfa::Program> acc =
        cfa::mayAccelerate(program) ? std::make_shared<cfa::Program>(program) : nullptr;
    uint32_t accLoops = acc ? cfa::accelerateLoops(*acc) : 0;
    if (!accLoops) acc.reset();
    const cfa::Program& uprog = acc ? *acc : program;
    auto bo = commonOptions<algorithms::BmcOptions>(req, timeoutS);
    bo.incremental = alg == Algorithm::Ibmc;
    if (sp.bound > 0) bo.maxBound = sp.bound;
    if (req.maxUnwindNodes) bo.maxNodes = req.maxUnwindNodes;
    if (req.splitAtOnceTerms) bo.splitAtOnceTerms = *req.splitAtOnceTerms;
    bo.checkpoint = boundCheckpoint();
    if (req.sessions && alg == Algorithm::Ibmc && !req.sessionKey.empty() && req.keepAlive) {
      // continue a warm deepening, or start one that later stages can continue
      std::unique_ptr<SessionCache::Entry> e = req.sessions->take(req.sessionKey);
      uint32_t limit = sp.bound > 0 ? sp.bound : bo.maxBound;
      uint32_t resumedFrom = 0;
      if (e && e->bound < limit && e->session->resumable()) {
        resumedFrom = e->bound;
      } else {
        e = std::make_unique<SessionCache::Entry>();
        e->keepAlive = acc ? std::shared_ptr<const void>(acc) : req.keepAlive;
        algorithms::BmcOptions kept = bo;
        kept.progress = nullptr;  // the session outlives this request's callbacks
        kept.checkpoint = nullptr;
        e->session = std::make_unique<algorithms::BmcSession>(uprog, entry.id, kept);
      }
      r = e->session->deepen(limit, bo.timeoutS);
      if (resumedFrom) r.stats.extra["resumed_from_bound"] = resumedFrom;
      if (e->session->resumable()) {
        e->bound = limit;
        req.sessions->put(req.sessionKey, std::move(e));
      }
    } else {
      r = algorithms::runBmc(uprog, entry.id, bo);
    }
    if (accLoops) r.stats.extra["accelerated_loops"] = accLoops;
    attachBoundCondition(program, entry, r, &req);
  }
  // what restricted the run (explicit, pred, impact take the input condition)
  if (cond && (alg == Algorithm::Pred || alg == Algorithm::Impact || alg == Algorithm::Explicit))
    r.stats.extra["condition_input_states"] = static_cast<double>(cond->ordinaryStates());
  // Every run leaves an automaton: its own, or what it can vouch for.
  if (!r.condition.automaton) {
    if (r.verdict == result::Verdict::True)
      r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(
          algorithms::trivialAutomaton(program, entry.name, true));
    else if (cond)
      r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(*cond);  // nothing more verified
    else
      r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(
          algorithms::trivialAutomaton(program, entry.name, false));
  }
  return r;
}

// Recursion in the proof engines (issue 21, deliverable 3; docs/STRATEGY.md "Recursion").
// k-induction's flat program and the predicate CPA cannot follow a recursive call, so
// these algorithms run on cfa::inlineRecursion(program, D) (core/cfa/recursion.h: every
// function of a recursive cycle copied per nesting level, each copy with its own
// variables; a call deeper than D is an Unsupported edge "recursion deeper than D"),
// with iterative deepening:
//  * true on the inlined program: no error and no deeper call is reachable, so every
//    execution of the original stays within depth D, where the copy is exact → true;
//  * false: a real error path; it was replayed on the original program (cfa::original);
//  * unknown because a "recursion deeper" edge is reachable (k-induction stops its base
//    case as soon as it is: BmcOptions::stopAtUnsupported; pred explores everything else
//    first, so errors within depth D are still found): D := 2·D, up to kMaxRecursionDepth
//    and the time limit; then unknown with the depth in the condition.
// Loops inside recursive functions stay loops of each copy; the step case treats the
// copies as any inlined callee (its loop heads are cut points with their own variables).
// The condition automaton of the inlined run names the copies, so it is not passed on:
// an unknown leaves the input condition (or nothing verified), the input condition is
// not used to restrict the inlined run (it verifies more, never less), and a true gets
// the trivial automaton of the original.
constexpr uint32_t kFirstRecursionDepth = 8, kMaxRecursionDepth = 64;

bool inlinesRecursion(Algorithm alg) {
  switch (alg) {
    case Algorithm::Kind: case Algorithm::KindNoInv: case Algorithm::Kiki: case Algorithm::KikiKind:
    case Algorithm::KikiAi: case Algorithm::Pred: case Algorithm::Impact:
      return true;
    default:
      return false;
  }
}

result::VerificationResult runSingle(const cfa::Program& program, const cfa::Function& entry, const VerifyRequest& req,
                                     Algorithm alg, double timeoutS, const StageParams& sp,
                                     const result::AssumptionAutomaton* cond) {
  if (!inlinesRecursion(alg) || !cfa::hasRecursion(program, entry.id))
    return runAlgorithm(program, entry, req, alg, timeoutS, sp, cond, false);
  bool target = false;
  for (const cfa::Function& f : program.functions)
    for (const cfa::Edge& e : f.edges) target |= e.kind == cfa::EdgeKind::Error || e.kind == cfa::EdgeKind::Unsupported;
  if (!target) return runAlgorithm(program, entry, req, alg, timeoutS, sp, cond, false);  // true at once
  const auto t0 = std::chrono::steady_clock::now();
  // non-owning: the inlined programs live only within this call
  std::shared_ptr<const cfa::Program> orig(&program, [](const cfa::Program*) {});
  result::VerificationResult r;
  bool ran = false, depthHit = false;
  uint32_t depth = kFirstRecursionDepth, lastDepth = 0, copies = 0;
  std::string why;
  while (true) {
    double left = timeoutS > 0 ? timeoutS - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                               : 0;
    if (timeoutS > 0 && left < 0.05) {
      why = "timeout";
      break;
    }
    std::optional<cfa::InlinedRecursion> inl = cfa::inlineRecursion(orig, entry.id, depth);
    if (!inl) {
      // too large to copy even once: the algorithm on the program as it is (k-induction
      // falls back to its BMC base case, pred cuts the recursive calls)
      if (!ran) return runAlgorithm(program, entry, req, alg, timeoutS, sp, cond, false);
      why = "recursion inlined " + std::to_string(depth) + " deep would be too large";
      break;
    }
    if (req.progress)
      req.progress("recursion: inlined up to depth " + std::to_string(depth) + " (" +
                   std::to_string(inl->recursiveFunctions) + " recursive function(s), " +
                   std::to_string(inl->copies) + " copies)");
    r = runAlgorithm(*inl->program, inl->program->functions[entry.id], req, alg, timeoutS > 0 ? left : 0, sp,
                     nullptr, true);
    ran = true;
    lastDepth = depth;
    copies = inl->copies;
    depthHit = r.verdict == result::Verdict::Unknown &&
               (cfa::mentionsRecursionBound(r.reason) ||
                std::any_of(r.condition.excluded.begin(), r.condition.excluded.end(), cfa::mentionsRecursionBound));
    if (!depthHit || depth >= kMaxRecursionDepth) break;
    depth *= 2;
  }
  if (!ran) {
    r.verdict = result::Verdict::Unknown;
    r.algorithm = algorithmName(alg);
    r.reason = why;
    r.condition.kind = why == "timeout" ? "timeout" : "unsupported";
    r.condition.summary = "nothing verified";
  }
  // k-induction's base case on the recursive program itself unrolls recursion with the
  // loops (BMC): when the depth is in the way, the rest of the time goes there, so that
  // bugs deeper than the depths tried are still found (as before recursion was inlined).
  const bool kindFamily = alg != Algorithm::Pred && alg != Algorithm::Impact;
  double left = timeoutS > 0 ? timeoutS - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() : 0;
  if (ran && depthHit && kindFamily && (timeoutS <= 0 || left > 0.5)) {
    if (req.progress) req.progress("recursion: deeper than " + std::to_string(lastDepth) + ": base case on the program itself");
    result::VerificationResult b = runAlgorithm(program, entry, req, alg, timeoutS > 0 ? left : 0, sp, cond, false);
    b.stats.extra["recursion_depth"] = lastDepth;
    b.stats.extra["recursion_copies"] = copies;
    if (b.verdict == result::Verdict::Unknown)
      b.reason += "; recursion nested more than " + std::to_string(lastDepth) +
                  " calls deep not verified by the inlined runs (" + r.reason + ")";
    return b;  // its condition is on the program itself
  }
  r.stats.extra["recursion_depth"] = lastDepth;
  r.stats.extra["recursion_copies"] = copies;
  r.condition.assumptions.clear();
  if (r.verdict == result::Verdict::True) {
    r.condition.summary += " (recursion inlined " + std::to_string(lastDepth) + " deep; no deeper call is reachable)";
    // invariants are keyed "file:line:col in f#3 (called at ...)": name the function as
    // the source does (a witness joins the contexts of one location by disjunction)
    std::map<std::string, std::string> inv;
    for (auto& [where, formula] : r.invariant) {
      std::string w = where;
      size_t in = w.find(" in ");
      if (in != std::string::npos) {
        size_t end = w.find(' ', in + 4);
        size_t hash = w.find('#', in + 4);
        if (hash != std::string::npos && (end == std::string::npos || hash < end))
          w.erase(hash, (end == std::string::npos ? w.size() : end) - hash);
      }
      std::string& slot = inv[w];
      slot = slot.empty() ? formula : slot == formula ? slot : "(" + slot + ") || (" + formula + ")";
    }
    r.invariant = std::move(inv);
    r.condition.automaton =
        std::make_shared<result::AssumptionAutomaton>(algorithms::trivialAutomaton(program, entry.name, true));
  } else {
    r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(
        cond ? *cond : algorithms::trivialAutomaton(program, entry.name, false));
  }
  if (r.verdict == result::Verdict::Unknown && ran) {
    const std::string open = "recursion nested more than " + std::to_string(lastDepth) + " calls deep not verified";
    if (depthHit) r.condition.kind = "recursion";
    if (!why.empty()) r.reason += "; " + why;
    r.reason += "; " + open;
    r.condition.summary = (r.condition.summary.empty() ? "" : r.condition.summary + "; ") + open;
    r.condition.bound.reset();
    r.condition.callDepth.reset();
  }
  return r;
}

// The requested condition file. It is written when the run starts ("nothing verified"),
// again after each chain stage that ends unknown, and at the end, each time to a
// temporary file renamed over the old one: a run stopped at any moment (the CLI's
// watchdog, a kill) leaves a whole file that says no more than what was verified.
void writeCondition(const cfa::Program& program, const VerifyRequest& req, const result::VerificationResult& r) {
  result::AssumptionAutomaton open = algorithms::trivialAutomaton(program, req.function, false);
  const result::AssumptionAutomaton& a = r.condition.automaton ? *r.condition.automaton : open;
  bool json = req.conditionFormat.empty() ? req.conditionOut.size() >= 5 &&
                                                req.conditionOut.compare(req.conditionOut.size() - 5, 5, ".json") == 0
                                          : req.conditionFormat == "json";
  const std::string tmp = req.conditionOut + ".part";
  {
    std::ofstream f(tmp);
    if (!f) throw std::runtime_error("cannot write the condition to '" + req.conditionOut + "'");
    if (json) {
      nlohmann::json j = result::toJson(a);
      nlohmann::json c;
      c["verdict"] = result::verdictName(r.verdict);
      c["algorithm"] = r.algorithm;
      c["kind"] = r.condition.kind;
      c["summary"] = r.condition.summary;
      c["excluded"] = r.condition.excluded;
      c["assumption_formula"] = r.condition.assumptions;
      if (!r.reason.empty()) c["reason"] = r.reason;
      j["condition"] = c;
      f << j.dump(1) << "\n";
    } else {
      f << "// verdict: " << result::verdictName(r.verdict) << " (" << r.algorithm << ")\n";
      f << "// condition: " << r.condition.summary << "\n";
      if (!r.reason.empty()) f << "// reason: " << r.reason << "\n";
      for (const std::string& cl : r.condition.assumptions) f << "// assumption: " << cl << "\n";
      f << result::toCpachecker(a, program);
    }
    f.flush();
    if (!f) throw std::runtime_error("cannot write the condition to '" + req.conditionOut + "'");
  }
  if (std::rename(tmp.c_str(), req.conditionOut.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write the condition to '" + req.conditionOut + "'");
  }
}

bool writeAllFd(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// A parallel stage: one child process per member (fork after parsing, so the program is
// shared copy-on-write and nothing is parsed twice), each running its algorithm with the
// stage's time. The first true/false answer wins and the other members are killed at
// once (a process can be stopped whatever its solver is doing, which a thread cannot).
// When no member decides, the stage is unknown with every member's reason and the
// condition of the member that verified the most (a bound, else the first). Results
// come back through a pipe in the lossless codec (core/result/codec.h).
result::VerificationResult runSingle(const cfa::Program& program, const cfa::Function& entry, const VerifyRequest& req,
                                     Algorithm alg, double timeoutS, const StageParams& sp,
                                     const result::AssumptionAutomaton* cond);

// A member's messages (runParallel): NUL-terminated JSON texts, checkpoints
// ({"checkpoint": result}) while it runs, then its answer (a result, or {"error": ...}).
// The complete messages (a member stopped while writing leaves a partial one, dropped).
std::vector<std::string_view> memberMessages(const std::string& out) {
  std::vector<std::string_view> msgs;
  size_t start = 0;
  for (size_t nul = out.find('\0'); nul != std::string::npos; nul = out.find('\0', start)) {
    msgs.emplace_back(out.data() + start, nul - start);
    start = nul + 1;
  }
  return msgs;
}

// The answer: the last complete message, unless it is a checkpoint (null then).
nlohmann::json finalMessage(const std::string& out) {
  std::vector<std::string_view> msgs = memberMessages(out);
  if (msgs.empty()) return nlohmann::json();
  nlohmann::json j = nlohmann::json::parse(msgs.back(), nullptr, false);
  return j.is_object() && !j.contains("checkpoint") ? j : nlohmann::json();
}

// The last complete checkpoint.
std::optional<result::VerificationResult> lastCheckpoint(const std::string& out) {
  std::vector<std::string_view> msgs = memberMessages(out);
  for (auto it = msgs.rbegin(); it != msgs.rend(); ++it) {
    nlohmann::json j = nlohmann::json::parse(*it, nullptr, false);
    if (!j.is_object() || !j.contains("checkpoint")) continue;
    try {
      return result::decodeResult(j["checkpoint"]);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool verifiedMore(const result::Condition& a, const result::Condition& b);

result::VerificationResult runParallel(const cfa::Program& program, const cfa::Function& entry,
                                       const VerifyRequest& req, const Stage& st, double t,
                                       const result::AssumptionAutomaton* cond, double graceS = 1.5) {
  struct Member {
    const Stage* stage;
    pid_t pid = -1;
    int fd = -1;
    std::string out;
    bool done = false;
    std::optional<result::VerificationResult> r;
    int goFd = -1;  // a delayed member's start signal, open until it starts
    size_t forwarded = 0;  // messages of `out` looked at for checkpoints to pass on
  };
  // nothing to check: every member answers `true` at once; no process for it
  if (!hasCheckEdge(program)) return runSingle(program, entry, req, st.parallel[0].algorithm, t, st.parallel[0].params, nullptr);
  std::vector<Member> members;
  const auto stageStart = std::chrono::steady_clock::now();
  std::fflush(nullptr);  // no buffered output duplicated into the children
  auto stopAll = [&members] {
    for (Member& m : members) {
      if (m.fd >= 0) ::close(m.fd);
      m.fd = -1;
      if (m.goFd >= 0) ::close(m.goFd);
      m.goFd = -1;
      if (m.pid > 0) {
        ::kill(m.pid, SIGKILL);
        while (::waitpid(m.pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        m.pid = -1;
      }
    }
  };
  for (const Stage& ms : st.parallel) {
    int go[2] = {-1, -1};
    if (ms.params.afterS > 0 && ::pipe2(go, O_CLOEXEC) != 0) {
      stopAll();
      throw std::runtime_error(std::string("parallel stage: pipe: ") + std::strerror(errno));
    }
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) {
      stopAll();
      throw std::runtime_error(std::string("parallel stage: pipe: ") + std::strerror(errno));
    }
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(p[0]);
      ::close(p[1]);
      if (go[0] >= 0) ::close(go[0]), ::close(go[1]);
      stopAll();
      throw std::runtime_error(std::string("parallel stage: fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      ::close(p[0]);
      if (go[1] >= 0) ::close(go[1]);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the run that started it
      if (req.inChildProcess) req.inChildProcess();
      std::string body;
      try {
        VerifyRequest mr = req;
        mr.sessions = nullptr;  // warm sessions belong to the parent
        // what the member verified so far goes to the parent as it comes (each message
        // ends with a NUL, which JSON text never holds): if the member overruns its
        // deadline and is stopped, the parent answers with the last one
        int out = p[1];
        mr.checkpoint = [out](const result::VerificationResult& c) {
          std::string m = nlohmann::json{{"checkpoint", result::encodeResult(c)}}.dump(
              -1, ' ', false, nlohmann::json::error_handler_t::replace);
          m.push_back('\0');
          writeAllFd(out, m);
        };
        std::string name = ms.spec;
        // a stage isolated in a process of its own (runChain) speaks as if in process
        if (req.progress && st.parallel.size() > 1)
          mr.progress = [&req, name](const std::string& m) { req.progress("[" + name + "] " + m); };
        double mt = ms.params.timeS > 0 ? (t > 0 ? std::min(t, ms.params.timeS) : ms.params.timeS) : t;
        if (ms.params.afterS > 0) {
          // a delayed member waits (using no CPU) until the parent says go, with what is
          // left of the stage's time; it is killed like any loser if another member
          // answers first, and ends quietly if the parent goes away
          double left = 0;
          char* dst = reinterpret_cast<char*>(&left);
          size_t got = 0;
          while (got < sizeof left) {
            ssize_t n = ::read(go[0], dst + got, sizeof left - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) ::_exit(0);
            got += static_cast<size_t>(n);
          }
          if (mt > 0) mt = std::max(0.001, std::min(mt, left));
        }
        result::VerificationResult r =
            runSingle(program, entry, mr, ms.algorithm, mt, ms.params, ms.restrictable() ? cond : nullptr);
        body = result::encodeResult(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      } catch (const std::exception& e) {
        body = nlohmann::json{{"error", e.what()}, {"memory", isOutOfMemory(e)}}.dump(
            -1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
      body.push_back('\0');
      writeAllFd(p[1], body);
      ::_exit(0);
    }
    ::close(p[1]);
    if (go[0] >= 0) ::close(go[0]);
    Member m;
    m.stage = &ms;
    m.pid = pid;
    m.fd = p[0];
    m.goFd = go[1];
    members.push_back(std::move(m));
  }
  // the members keep their own deadline; this one only catches a member that ignores it
  // graceS: 1.5 s by default, inside the CLI watchdog's 3 s
  auto until = t > 0 ? std::chrono::steady_clock::now() +
                           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(t + graceS))
                     : std::chrono::steady_clock::time_point::max();
  std::optional<size_t> winner;
  auto finish = [&](Member& m) {
    ::close(m.fd);
    m.fd = -1;
    m.done = true;
    int status = 0;
    while (::waitpid(m.pid, &status, 0) < 0 && errno == EINTR) {
    }
    m.pid = -1;
    result::VerificationResult r;
    r.algorithm = algorithmName(m.stage->algorithm);
    nlohmann::json j = finalMessage(m.out);
    if (!j.is_object()) {
      if (std::optional<result::VerificationResult> cp = lastCheckpoint(m.out)) {
        // the member died (a solver's own abort, the memory cap's kill) after verifying
        // something: that stands
        bool killed = WIFSIGNALED(status);
        r = std::move(*cp);
        r.reason = (killed ? "the " + m.stage->spec + " process died (signal " + std::to_string(WTERMSIG(status)) + ")"
                           : "the " + m.stage->spec + " process ended without a result") +
                   "; condition of what it had verified";
        m.r = std::move(r);
        return;
      }
    }
    if (j.is_object() && j.contains("error")) {
      bool memory = j.value("memory", false);
      r.reason = memory ? std::string("out of memory") : "internal error: " + j.value("error", std::string());
      r.condition.kind = memory ? "memory" : "error";
      r.condition.summary = "nothing verified";
    } else if (j.is_object()) {
      try {
        r = result::decodeResult(j);
      } catch (const std::exception& e) {
        r.reason = std::string("internal error: unreadable result of the parallel member: ") + e.what();
        r.condition.kind = "error";
      }
    } else {
      bool killed = WIFSIGNALED(status);
      r.reason = killed ? "the " + m.stage->spec + " process died (signal " + std::to_string(WTERMSIG(status)) + ")"
                        : "the " + m.stage->spec + " process ended without a result";
      r.condition.kind = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "memory" : "error";
      r.condition.summary = "nothing verified";
    }
    m.r = std::move(r);
  };
  // Delayed members (after=S) start when the running members have used S seconds of CPU
  // between them (CPU, not wall time: the strategy does the same on a loaded machine), or
  // at once when no running member is left.
  auto startDelayed = [&] {
    double used = 0;
    bool running = false;
    for (const Member& m : members)
      if (m.goFd < 0 && !m.done) {
        used += support::processCpuSecondsOf(m.pid);
        running = true;
      }
    for (Member& m : members) {
      if (m.goFd < 0 || m.done || (running && used < m.stage->params.afterS)) continue;
      double left = t > 0 ? std::max(0.001, t - secondsSince(stageStart)) : 0;
      (void)!::write(m.goFd, &left, sizeof left);
      ::close(m.goFd);
      m.goFd = -1;
    }
  };
  for (;;) {
    startDelayed();
    bool waiting = std::any_of(members.begin(), members.end(), [](const Member& m) { return m.goFd >= 0; });
    std::vector<pollfd> fds;
    std::vector<size_t> idx;
    for (size_t i = 0; i < members.size(); ++i)
      if (!members[i].done) {
        fds.push_back({members[i].fd, POLLIN, 0});
        idx.push_back(i);
      }
    if (fds.empty()) break;
    int ms = -1;
    if (until != std::chrono::steady_clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
      if (left <= 0) break;
      ms = static_cast<int>(std::min<long long>(left, 60000));
    }
    if (waiting) ms = ms < 0 ? 50 : std::min(ms, 50);
    int n = ::poll(fds.data(), fds.size(), ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Member& m = members[idx[k]];
      char buf[65536];
      ssize_t got = ::read(m.fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got > 0) {
        m.out.append(buf, static_cast<size_t>(got));
        // new checkpoints: passed on as they come (argus's watchdog, a project worker)
        if (req.checkpoint && std::memchr(buf, '\0', static_cast<size_t>(got))) {
          std::vector<std::string_view> msgs = memberMessages(m.out);
          for (size_t i = m.forwarded; i < msgs.size(); ++i) {
            nlohmann::json j = nlohmann::json::parse(msgs[i], nullptr, false);
            if (!j.is_object() || !j.contains("checkpoint")) continue;
            try {
              req.checkpoint(result::decodeResult(j["checkpoint"]));
            } catch (const std::exception&) {
              // an unreadable checkpoint is skipped; the answer decides
            }
          }
          m.forwarded = msgs.size();
        }
        continue;
      }
      finish(m);
      if (!winner && m.r->verdict != result::Verdict::Unknown) winner = idx[k];
    }
    if (winner) break;
  }
  std::vector<std::string> stopped, notStarted;
  for (Member& m : members)
    if (!m.done) (m.goFd >= 0 ? notStarted : stopped).push_back(m.stage->spec);
  stopAll();
  result::VerificationResult out;
  if (winner) {
    out = std::move(*members[*winner].r);
    for (const std::string& s : stopped) out.stats.extra["parallel_stopped_" + s] = 1;
    // a delayed member stopped while it still waited: it cost nothing
    for (const std::string& s : notStarted) out.stats.extra["parallel_not_started_" + s] = 1;
    return out;
  }
  // nobody decided: the member that verified the most speaks for the stage
  std::string reasons;
  const result::VerificationResult* best = nullptr;
  for (Member& m : members) {
    if (!m.r) {
      if (std::optional<result::VerificationResult> cp = lastCheckpoint(m.out)) {
        // stopped in a query after it had verified a bound: that bound stands
        m.r = std::move(*cp);
        m.r->reason = "timeout: stopped after the stage's time (it ignored its own deadline); condition of what it "
                      "had verified";
      } else {
        m.r = result::VerificationResult();
        m.r->algorithm = algorithmName(m.stage->algorithm);
        m.r->reason = "timeout: stopped after the stage's time (it ignored its own deadline)";
        m.r->condition.kind = "timeout";
        m.r->condition.summary = "nothing verified";
      }
    }
    reasons += (reasons.empty() ? "" : "; ") + m.stage->spec + ": " + m.r->reason;
    const result::VerificationResult& r = *m.r;
    // a complete condition first, then more loop iterations; at the same bound, more calls
    // expanded (no depth cut best)
    if (!best || verifiedMore(r.condition, best->condition)) best = &r;
  }
  out = *best;
  out.reason = reasons;
  return out;
}

// a verified more than b: a complete condition (every path that avoids the excluded
// constructs), a larger bound, or at the same bound more calls expanded (no depth cut is
// best); nothing verified (no bound) is least.
bool verifiedMore(const result::Condition& a, const result::Condition& b) {
  if (!a.bound) return false;
  if (!b.bound) return true;
  // every path, whatever the bound (unless no check lies on a path avoiding the construct)
  if ((a.complete && !a.vacuous) != (b.complete && !b.vacuous)) return a.complete && !a.vacuous;
  if (*a.bound > *b.bound) return true;
  return *a.bound == *b.bound && a.callDepth.value_or(UINT32_MAX) > b.callDepth.value_or(UINT32_MAX);
}

// Conditional model checking: the stages run one after the other, each restricted by
// the previous stages' output condition; the first true/false answer ends the chain.
result::VerificationResult runChain(const cfa::Program& program, const cfa::Function& entry, const VerifyRequest& req,
                                    std::chrono::steady_clock::time_point wall0) {
  std::string spec = effectiveChain(req);
  // auto on a large slice: bmc alone, all the time (kAutoLargeChain)
  if (spec == kAutoChain && program.functions.size() > kAutoLargeSliceFunctions) {
    spec = kAutoLargeChain;
    if (req.progress)
      req.progress("auto: a slice of " + std::to_string(program.functions.size()) + " functions (over " +
                   std::to_string(kAutoLargeSliceFunctions) + "): " + kAutoLargeChain + " alone");
  }
  Chain stages = parseChain(spec);
  std::shared_ptr<const result::AssumptionAutomaton> cond = req.conditionIn;
  std::vector<result::StageRecord> records;
  result::VerificationResult last;
  std::vector<std::string> trail;
  double solverTime = 0;
  uint64_t queries = 0;
  std::optional<result::Condition> bestCondition;  // the unknown stage that verified the most
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& st = stages[i];
    double left = req.timeoutS > 0 ? std::max(0.1, req.timeoutS - secondsSince(wall0)) : 0;
    double t = st.params.timeS > 0 ? (left > 0 ? std::min(left, st.params.timeS) : st.params.timeS) : left;
    // a stage without a time of its own that is not the last gets at most an equal
    // share of what is left, so a shallow first stage cannot starve the later ones
    if (st.params.timeS <= 0 && left > 0 && i + 1 < stages.size()) t = left / static_cast<double>(stages.size() - i);
    // bmc without k in a chain: a shallow check (k = 1)
    StageParams sp = st.params;
    if (!st.isParallel() && (st.algorithm == Algorithm::Bmc || st.algorithm == Algorithm::Ibmc) && sp.bound == 0 &&
        i + 1 < stages.size())
      sp.bound = 1;
    if (req.progress) {
      std::ostringstream o;
      o << "stage " << i + 1 << "/" << stages.size() << " " << st.spec << ": started";
      if (t > 0) o << " (at most " << std::fixed << std::setprecision(1) << t << " s)";
      req.progress(o.str());
    }
    auto t0 = std::chrono::steady_clock::now();
    double c0 = support::processTreeCpuSeconds();
    bool restrictable = st.restrictable();
    // Stages keep their time (issue 29): a stage of a longer chain runs in a process of
    // its own, as a parallel stage's members do, so that a step that ignores the stage's
    // deadline (a Z3 query that does not check its limit, say) is stopped at the
    // deadline plus a grace period and the next stage still runs. Not for warm sessions
    // (argusd keeps an ibmc deepening in this process; it runs a plan stage by stage).
    const bool isolate = !st.isParallel() && stages.size() > 1 && !req.sessions && req.isolateStages;
    // a checkpoint of this stage is passed on when it verified more than the stages before
    VerifyRequest stageReq = req;
    if (req.checkpoint)
      stageReq.checkpoint = [&req, &bestCondition, i, &st](const result::VerificationResult& c) {
        if (c.verdict != result::Verdict::Unknown || (bestCondition && !verifiedMore(c.condition, *bestCondition)))
          return;
        result::VerificationResult cp = c;
        cp.reason = "timeout: stopped in chain stage " + std::to_string(i + 1) + " (" + st.spec + ")";
        req.checkpoint(cp);
      };
    result::VerificationResult r;
    try {
      if (st.isParallel()) {
        r = runParallel(program, entry, stageReq, st, t, cond.get());
      } else if (isolate) {
        Stage one = st;
        one.params = sp;
        Stage wrap;
        wrap.spec = st.spec;
        wrap.params = sp;
        wrap.parallel.push_back(std::move(one));
        // an isolated stage that is not the last may overrun by up to its own time (a
        // counterexample being replayed, a solver answer just late on a loaded machine),
        // as long as the run's deadline leaves it that; the last one keeps the 1.5 s
        double spare = req.timeoutS > 0 ? req.timeoutS - secondsSince(wall0) - t : t;
        double grace = 1.5 + (i + 1 < stages.size() ? std::max(0.0, std::min(t, spare)) : 0.0);
        r = runParallel(program, entry, stageReq, wrap, t, cond.get(), grace);
      } else {
        r = runSingle(program, entry, stageReq, st.algorithm, t, sp, restrictable ? cond.get() : nullptr);
      }
    } catch (const std::exception& e) {
      // one stage running out of memory (std::bad_alloc, or a solver's own "out of
      // memory" error) or failing otherwise does not end the chain: the next one gets
      // the condition this stage was given, and what earlier stages verified stays
      bool memory = isOutOfMemory(e);
      r = result::VerificationResult();
      r.algorithm = st.isParallel() ? st.spec : algorithmName(st.algorithm);
      r.reason = memory ? std::string("out of memory") : std::string("internal error: ") + e.what();
      r.condition.kind = memory ? "memory" : "error";
      r.condition.summary = memory ? "nothing more verified (out of memory)" : "nothing more verified (internal error)";
    }
    r.stats.wallTimeS = secondsSince(t0);
    r.stats.cpuTimeS = support::processTreeCpuSeconds() - c0;
    // A stage that verified less than an earlier one (it ran out of time before its
    // first bound, or was stopped) does not undo what the earlier one verified: every
    // stage's condition is a claim about the same program, so the strongest stands.
    // A restricted stage that verified something keeps its own condition (its automaton
    // already covers its input).
    if (r.verdict == result::Verdict::Unknown && bestCondition && verifiedMore(*bestCondition, r.condition) &&
        (!restrictable || r.condition.summary == "nothing verified" || r.condition.summary.empty())) {
      r.condition = *bestCondition;
      r.stats.extra["condition_from_earlier_stage"] = 1;
    }
    if (r.verdict == result::Verdict::Unknown && (!bestCondition || verifiedMore(r.condition, *bestCondition)))
      bestCondition = r.condition;
    if (r.verdict == result::Verdict::Unknown && req.checkpoint && i + 1 < stages.size()) {
      // what the stages so far verified, in case the run is stopped in a later one
      result::VerificationResult cp = r;
      cp.reason = "timeout: stopped after chain stage " + std::to_string(i + 1) + " (" + st.spec + ")";
      req.checkpoint(cp);
    }
    records.push_back({st.spec, r.algorithm, r.verdict, r.stats.wallTimeS, r.stats.cpuTimeS,
                       r.verdict == result::Verdict::Unknown ? r.reason : std::string()});
    // a stage that could not use the condition passes on what it got, unless it proved more
    if (r.verdict == result::Verdict::Unknown && !restrictable && cond) r.condition.automaton = cond;
    if (r.verdict == result::Verdict::Unknown && !req.conditionOut.empty()) {
      // what the stages so far verified, in case the run is stopped before the next one ends
      result::VerificationResult partial = r;
      partial.algorithm = "cmc";
      partial.reason = "written after chain stage " + std::to_string(i + 1) + " (" + st.spec +
                       "), before the later stages had ended";
      try {
        writeCondition(program, req, partial);
      } catch (const std::runtime_error&) {
        // the write at the end reports it
      }
    }
    if (req.stageFinished) {
      req.stageFinished(i, st.spec, r);
    } else if (req.progress) {  // nobody prints the stage's line (a follow-up, the daemon): its end
      std::ostringstream o;
      o << "stage " << i + 1 << "/" << stages.size() << " " << st.spec << ": " << result::verdictName(r.verdict)
        << " after " << std::fixed << std::setprecision(1) << r.stats.wallTimeS << " s";
      req.progress(o.str());
    }
    std::string key = "stage" + std::to_string(i + 1) + "_";
    last.stats.extra[key + "cpu_time_s"] = r.stats.cpuTimeS;
    last.stats.extra[key + "verdict"] = r.verdict == result::Verdict::True ? 1 : r.verdict == result::Verdict::False ? -1 : 0;
    solverTime += r.stats.solverTimeS;
    queries += r.stats.solverQueries;
    trail.push_back(st.spec + ": " + result::verdictName(r.verdict));
    if (r.condition.automaton) cond = r.condition.automaton;
    auto extra = last.stats.extra;
    last = std::move(r);
    for (auto& [k, v] : extra) last.stats.extra[k] = v;
    if (last.verdict != result::Verdict::Unknown) break;
    // every path that avoids the constructs no algorithm supports is verified: no later
    // stage can verify more
    if (last.condition.complete) {
      if (i + 1 < stages.size()) last.stats.extra["stages_skipped_complete"] = static_cast<double>(stages.size() - i - 1);
      break;
    }
    if (req.timeoutS > 0 && secondsSince(wall0) >= req.timeoutS) break;
  }
  if (!last.condition.automaton) last.condition.automaton = cond;  // a stage that failed passes on its input
  // a one-stage chain (argusd runs its plan stage by stage) answers as its algorithm
  last.stages = records;
  if (stages.size() > 1) last.algorithm = algorithmName(req.algorithm);
  last.stats.solverTimeS = solverTime;
  last.stats.solverQueries = queries;
  std::string chain;
  for (size_t i = 0; i < trail.size(); ++i) chain += (i ? " -> " : "") + trail[i];
  last.stats.extra["stages_run"] = static_cast<double>(trail.size());
  if (last.verdict == result::Verdict::Unknown && stages.size() > 1) last.reason = "chain " + chain + ": " + last.reason;
  return last;
}

}  // namespace

const char* const kDepthBoundCaveat =
    "; for the entry model's inputs: pointers held in objects at its depth bound (2) are null or point back to an "
    "enclosing object of their type";
const char* const kDefaultChain = "bmc:k=1,explicit:time=10,pred";
const char* const kAutoChain = "bmc:k=2:time=2,kind|pred:cond=ignore:after=1";
const char* const kAutoLargeChain = "bmc";
const size_t kAutoLargeSliceFunctions = 64;

std::string effectiveChain(const VerifyRequest& req) {
  if (!req.chain.empty()) return req.chain;
  if (req.algorithm == Algorithm::Cmc) return kDefaultChain;
  if (req.algorithm == Algorithm::Auto) return kAutoChain;
  return algorithmName(req.algorithm);
}

static VerifyOutcome verifyUnguarded(const VerifyRequest& req, const cfa::Program* parsed);

// A verification the run makes of its own (a caller check, a continuation after a latent
// finding): the same request with `timeout`, nothing read from or written to files or
// sessions, no callbacks into the caller's stages, no follow-ups of its own.
static VerifyRequest followUp(const VerifyRequest& req, double timeout) {
  VerifyRequest cr = req;
  cr.checkCallers = false;
  cr.continueAfterLatent = false;
  cr.timeoutS = timeout;
  cr.conditionIn = nullptr;
  cr.conditionOut.clear();
  cr.sessions = nullptr;
  cr.sessionKey.clear();
  cr.stageFinished = nullptr;
  cr.provisional = nullptr;
  cr.checkpoint = nullptr;
  cr.prepared = nullptr;  // a follow-up of another entry (a caller) prepares its own
  cr.preparedHarnessed = false;
  return cr;
}

// VerifyRequest::checkCallers: a latent finding of req.function becomes manifest when a
// direct caller, verified as its own entry with only that error location kept, reaches it
// through the function on a manifest path.
constexpr size_t kMaxCallersConsidered = 64;  // in definition order; the smallest checked
constexpr size_t kCallerClosureCap = 512;
static void checkCallers(const cfa::Program& parsed, const VerifyRequest& req, VerifyOutcome& out,
                         std::chrono::steady_clock::time_point wall0) {
  const result::Counterexample mine = *out.result.counterexample;
  if (mine.steps.empty()) return;
  const result::TraceStep& last = mine.steps.back();
  const cfa::Function* self = parsed.find(req.function);
  if (!self) return;
  // Each function's direct callees, to order the callers: those with the smallest closures
  // (of direct calls, counted up to kCallerClosureCap) first, since a caller's check
  // prepares its whole slice before any limit applies, and a slice of thousands of
  // functions (SQLite's attachFunc: 2,541) costs seconds of it.
  std::vector<std::vector<cfa::FuncId>> callees(parsed.functions.size());
  std::vector<const cfa::Function*> candidates;
  for (const cfa::Function& g : parsed.functions) {
    for (const cfa::Edge& e : g.edges)
      if (e.kind == cfa::EdgeKind::Call && e.callee != cfa::kNoFunc) callees[g.id].push_back(e.callee);
    if (g.id == self->id || g.locs.empty() || cfa::isSyntheticFunction(g) || g.id == parsed.initFunc ||
        g.id == parsed.initNondetFunc || candidates.size() >= kMaxCallersConsidered)
      continue;
    if (std::find(callees[g.id].begin(), callees[g.id].end(), self->id) != callees[g.id].end())
      candidates.push_back(&g);
  }
  auto closureSize = [&](cfa::FuncId from) {
    std::vector<char> seen(parsed.functions.size(), 0);
    std::vector<cfa::FuncId> work{from};
    seen[from] = 1;
    size_t n = 0;
    while (!work.empty() && n < kCallerClosureCap) {
      cfa::FuncId f = work.back();
      work.pop_back();
      ++n;
      for (cfa::FuncId c : callees[f])
        if (c < seen.size() && !seen[c]) {
          seen[c] = 1;
          work.push_back(c);
        }
    }
    return n;
  };
  std::vector<std::pair<size_t, size_t>> order;  // (closure size, definition order)
  for (size_t i = 0; i < candidates.size(); ++i) order.emplace_back(closureSize(candidates[i]->id), i);
  std::sort(order.begin(), order.end());
  std::vector<std::string> callers;
  for (size_t i = 0; i < order.size() && callers.size() < kMaxCallersChecked; ++i)
    callers.push_back(candidates[order[i].second]->name);
  size_t checked = 0;
  for (size_t i = 0; i < callers.size(); ++i) {
    double left = req.timeoutS > 0 ? req.timeoutS - secondsSince(wall0)
                                   : kCallerCheckS * static_cast<double>(callers.size() - i);
    double t = std::min(kCallerCheckS, left / static_cast<double>(callers.size() - i));
    if (t < 0.2) break;
    if (req.progress)
      req.progress("latent finding: checking caller " + std::to_string(i + 1) + " of " +
                   std::to_string(callers.size()) + " ('" + callers[i] + "') for an input that triggers it");
    VerifyRequest cr = followUp(req, t);
    cr.function = callers[i];
    cr.presliced = false;
    cr.progress = nullptr;
    cr.onlyErrorAt = VerifyRequest::ErrorSite{last.function, last.file, last.line, last.column};
    VerifyOutcome o;
    try {
      o = verifyUnguarded(cr, &parsed);
    } catch (const std::exception&) {
      continue;  // this caller says nothing
    }
    ++checked;
    if (o.inputError || o.result.verdict != result::Verdict::False || !o.result.counterexample ||
        !result::reachesSameError(*o.result.counterexample, mine))
      continue;
    out.result.verdict = result::Verdict::False;
    out.result.counterexample = std::move(o.result.counterexample);
    out.result.reason.clear();
    out.result.condition = o.result.condition;
    out.result.stats.extra["manifest_via_caller"] = 1;
    break;
  }
  out.result.stats.extra["callers_checked"] = static_cast<double>(checked);
}

// VerifyRequest::continueAfterLatent: after `out`'s latent finding, verify the entry again
// with the error locations of the latent findings so far cut, for what is left of the run's
// time; collect further latent findings; end with what the last run verified.
// `untilS` (> 0, seconds since wall0) ends it before req.timeoutS.
static void continueAfterLatent(const cfa::Program& parsed, const std::shared_ptr<const cfa::Program>& prepared,
                                bool harnessed, const VerifyRequest& req, VerifyOutcome& out,
                                std::chrono::steady_clock::time_point wall0, const std::function<void()>& provisional,
                                double untilS) {
  if (req.timeoutS <= 0 && req.maxBound == 0) return;
  const double endS = untilS > 0 && req.timeoutS > 0 ? std::min(untilS, req.timeoutS) : req.timeoutS;
  auto siteOf = [](const result::Counterexample& c) {
    const result::TraceStep& last = c.steps.back();
    return VerifyRequest::ErrorSite{last.function, last.file, last.line, last.column};
  };
  auto same = [](const VerifyRequest::ErrorSite& a, const VerifyRequest::ErrorSite& b) {
    return a.function == b.function && a.file == b.file && a.line == b.line && a.column == b.column;
  };
  if (out.result.counterexample->steps.empty()) return;
  std::vector<VerifyRequest::ErrorSite> cut{siteOf(*out.result.counterexample)};
  std::optional<result::VerificationResult> rest;
  size_t runs = 0;
  // What is left of the run's time, less a margin: a continuation that overruns (a solver
  // ignoring its limit, stopped at its stage's deadline + 1.5 s) must not cost the findings
  // already made (argus project and argusd kill a worker some seconds past its limit).
  auto timeLeft = [&] {
    double left = endS - secondsSince(wall0);
    return left - std::min(2.0, 0.25 * left);
  };
  while (1 + out.result.moreLatent.size() < kMaxLatentFindings) {
    double left = req.timeoutS > 0 ? timeLeft() : 0;
    if (req.timeoutS > 0 && left < 0.5) break;
    if (req.progress)
      req.progress("latent finding at " + cut.back().file + ":" + std::to_string(cut.back().line) +
                   ": verifying the rest with its check cut" +
                   (req.timeoutS > 0 ? " (" + std::to_string(static_cast<int>(left * 10) / 10) + "." +
                                           std::to_string(static_cast<int>(left * 10) % 10) + " s left)"
                                     : std::string()));
    VerifyRequest cr = followUp(req, req.timeoutS > 0 ? left : 0);
    cr.prepared = prepared;  // the same entry: slice and harness as they were
    cr.preparedHarnessed = harnessed;
    cr.cutErrors = cut;
    VerifyOutcome o;
    try {
      o = verifyUnguarded(cr, &parsed);
    } catch (const std::exception&) {
      break;  // the continuation says nothing; the finding stands as it is
    }
    ++runs;
    if (o.inputError || o.notAnswered) break;
    if (result::isLatent(o.result) && !o.result.counterexample->steps.empty()) {
      VerifyRequest::ErrorSite s = siteOf(*o.result.counterexample);
      if (std::any_of(cut.begin(), cut.end(), [&](const VerifyRequest::ErrorSite& c) { return same(c, s); })) break;
      cut.push_back(s);
      out.result.moreLatent.push_back(std::move(*o.result.counterexample));
      provisional();  // the findings so far stand whatever the next run does
      continue;
    }
    rest = std::move(o.result);
    break;
  }
  // A finding met before the checks its path passes were cut (its precondition is only
  // their passing branches: "op >= 0" of an earlier `assert(op >= 0)`) is manifest once they
  // are: verified again with only its error kept and the others cut, the replay says so.
  if (!(rest && rest->verdict == result::Verdict::False) && cut.size() > 1) {
    auto base = [](const std::string& f) { return std::filesystem::path(f).filename().string(); };
    for (size_t i = 0; i < cut.size(); ++i) {
      const result::Counterexample& f = i == 0 ? *out.result.counterexample : out.result.moreLatent[i - 1];
      if (f.precondition.empty() || f.preconditionOmitted) continue;
      bool onlyPasses = true;
      for (const result::PreconditionPart& p : f.precondition) {
        bool atCheck = false;
        for (size_t k = 0; k < cut.size(); ++k)
          atCheck = atCheck || (k != i && cut[k].function == p.function && cut[k].line == p.line &&
                                base(cut[k].file) == p.file);
        onlyPasses = onlyPasses && atCheck;
      }
      if (!onlyPasses) continue;
      double left = req.timeoutS > 0 ? timeLeft() : 0;
      if (req.timeoutS > 0 && left < 0.5) break;
      VerifyRequest cr = followUp(req, req.timeoutS > 0 ? left : 0);
      cr.prepared = prepared;
      cr.preparedHarnessed = harnessed;
      cr.cutErrors.clear();
      for (size_t k = 0; k < cut.size(); ++k)
        if (k != i) cr.cutErrors.push_back(cut[k]);
      cr.onlyErrorAt = cut[i];
      VerifyOutcome o;
      try {
        o = verifyUnguarded(cr, &parsed);
      } catch (const std::exception&) {
        continue;
      }
      ++runs;
      if (o.inputError || o.result.verdict != result::Verdict::False || !o.result.counterexample ||
          o.result.counterexample->manifestGiven.empty())
        continue;
      // drop finding i from the latent list: it is the manifest verdict now
      if (i == 0) {
        *out.result.counterexample = std::move(out.result.moreLatent.front());
        out.result.moreLatent.erase(out.result.moreLatent.begin());
      } else {
        out.result.moreLatent.erase(out.result.moreLatent.begin() + static_cast<std::ptrdiff_t>(i - 1));
      }
      rest = std::move(o.result);
      break;
    }
  }
  out.result.stats.extra["latent_findings"] = static_cast<double>(1 + out.result.moreLatent.size());
  out.result.stats.extra["latent_continuations"] = static_cast<double>(runs);
  if (rest && rest->verdict == result::Verdict::False) {
    // a manifest error behind the latent ones: the verdict, with its own path; the latent
    // findings stay listed
    std::vector<result::Counterexample> latent{*out.result.counterexample};
    for (result::Counterexample& m : out.result.moreLatent) latent.push_back(std::move(m));
    result::Stats stats = out.result.stats;
    out.result = std::move(*rest);
    out.result.moreLatent = std::move(latent);
    for (const auto& [k, v] : stats.extra)
      if (k.rfind("latent_", 0) == 0) out.result.stats.extra[k] = v;
    out.result.stats.extra["manifest_after_latent"] = 1;
    return;
  }
  std::string more;
  if (rest && rest->verdict == result::Verdict::True) {
    more = "; every other check proved (on the paths where the latent findings' checks hold)";
  } else if (rest && rest->condition.vacuous) {
    more = "; every other check lies behind " +
           (rest->condition.excluded.empty() ? std::string("an unsupported construct") : rest->condition.excluded.front());
  } else if (rest && rest->condition.bound && rest->condition.kind != "latent") {
    std::string s = rest->condition.summary;
    if (s.rfind("verified ", 0) == 0) s = s.substr(9);
    more = "; every other check verified " + s + " (on the paths where the latent findings' checks hold)";
    out.result.condition.bound = rest->condition.bound;
    out.result.condition.callDepth = rest->condition.callDepth;
    out.result.condition.complete = rest->condition.complete;
  }
  out.result.condition.summary =
      (out.result.moreLatent.empty() ? std::string("an error is reachable when the entry's inputs satisfy a precondition")
                                     : std::to_string(1 + out.result.moreLatent.size()) +
                                           " errors are reachable when the entry's inputs satisfy preconditions") +
      more;
  out.result.reason = result::latentReason(out.result);
}

static VerifyOutcome verifyUnguarded(const VerifyRequest& req, const cfa::Program* parsed) {
  VerifyOutcome out;
  auto wall0 = std::chrono::steady_clock::now();
  double cpu0 = support::processTreeCpuSeconds();
  frontend::ParseResult pr;
  if (!parsed) {
    frontend::FrontendOptions fo;
    fo.dataModel = req.dataModel;
    fo.extraArgs = req.extraArgs;
    if (!req.property.empty()) fo.properties = parseProperties(req.property);
    pr = req.source ? frontend::parseSource(*req.source, req.file, fo) : frontend::parseFile(req.file, fo);
    if (!pr.ok()) {
      out.inputError = true;
      out.error = "cannot parse " + req.file + ":\n" + pr.diagnostics;
      return out;
    }
    parsed = pr.program.get();
  }
  const cfa::Function* fullEntry = parsed->find(req.function);
  if (!fullEntry || cfa::isSyntheticFunction(*fullEntry)) {
    out.inputError = true;
    out.error = "no function '" + req.function + "' with a body in " + req.file;
    return out;
  }
  // Everything below works on the entry's closure only (core/cfa/closure.h): the cost
  // follows the function, not the translation unit. Conditions, counterexamples and
  // program hashes refer to the slice, which is the same for every run of this entry.
  auto sliceStart = std::chrono::steady_clock::now();
  std::shared_ptr<const cfa::Program> sliced;
  bool harnessed = false;
  if (req.prepared) {
    sliced = req.prepared;  // an earlier run of this request prepared it (VerifyRequest::prepared)
    harnessed = req.preparedHarnessed;
  } else {
    // A function other than main starts from its entry model (core/cfa/entry_harness.h).
    const bool harness = req.entryModel == EntryModel::Harness && req.function != "main";
    // the choices of functions for fields that no call of the slice calls through are
    // dropped (cfa::pruneFunctionChoices), with the harness or without one
    if (req.presliced) {
      sliced = std::shared_ptr<const cfa::Program>(req.keepAlive, parsed);  // slicing is idempotent
      if (harness)
        if (const cfa::Function* e = sliced->find(req.function)) {
          if (std::shared_ptr<cfa::Program> h = cfa::withEntryHarness(*sliced, e->id)) {
            cfa::pruneFunctionChoices(*h);
            sliced = std::move(h);
            harnessed = true;
          } else if (std::shared_ptr<cfa::Program> pr = cfa::withPrunedFunctionChoices(*sliced)) {
            sliced = std::move(pr);
          }
        }
    } else {
      // a fresh slice is this run's own: the harness goes into it, not into a copy
      std::unique_ptr<cfa::Program> own = cfa::slice(*parsed, fullEntry->id, req.dependencies.get());
      if (harness)
        if (const cfa::Function* e = own->find(req.function)) {
          harnessed = cfa::addEntryHarness(*own, e->id);
          cfa::pruneFunctionChoices(*own);
        }
      sliced = std::move(own);
    }
    // --entry-model arbitrary: the globals' pointers keep arbitrary values too
    if (req.entryModel == EntryModel::Arbitrary && req.function != "main")
      if (std::shared_ptr<cfa::Program> a = cfa::withArbitraryGlobals(*sliced)) sliced = std::move(a);
    // contracts (README "Contracts"): each gate set for this entry
    if (const cfa::Function* e = sliced->find(req.function))
      if (std::shared_ptr<cfa::Program> c = cfa::withContracts(*sliced, e->id)) sliced = std::move(c);
  }
  const std::shared_ptr<const cfa::Program> prepared = sliced;  // before the cuts below
  if (req.onlyErrorAt || !req.cutErrors.empty()) {
    // the caller check (VerifyRequest::checkCallers): only the latent finding's error
    // location stays an error; the continuation after latent findings (continueAfterLatent):
    // their locations are cut. Cutting errors off removes paths, adds none.
    auto only = std::make_shared<cfa::Program>(*sliced);
    auto at = [](const VerifyRequest::ErrorSite& site, const cfa::Function& f, const cfa::Edge& e) {
      return f.name == site.function && e.range.file == site.file && e.range.line == site.line &&
             e.range.column == site.column;
    };
    for (cfa::Function& f : only->functions)
      for (cfa::Edge& e : f.edges)
        if (bool cut = e.kind == cfa::EdgeKind::Error &&
                       std::any_of(req.cutErrors.begin(), req.cutErrors.end(),
                                   [&](const VerifyRequest::ErrorSite& c) { return at(c, f, e); });
            cut || (e.kind == cfa::EdgeKind::Error && req.onlyErrorAt && !at(*req.onlyErrorAt, f, e))) {
          e.cutError = cut;
          e.kind = cfa::EdgeKind::Abort;
          e.check = cfa::CheckKind::None;
          e.property.clear();
          e.args.clear();
        }
    sliced = std::move(only);
  }
  double sliceS = secondsSince(sliceStart);
  if (req.onlyNothingToCheck && hasCheckEdge(*sliced)) {
    out.notAnswered = true;
    return out;
  }
  const size_t fullFunctions = parsed->functions.size(), fullVars = parsed->vars.size();
  const cfa::Program& program = *sliced;
  const cfa::Function* entry = program.find(req.function);
  if (!entry) throw std::logic_error("the slice lost its entry function " + req.function);
  VerifyRequest slicedReq = req;
  slicedReq.keepAlive = sliced;  // a kept ibmc session reads the slice
  auto facts = std::make_shared<SliceFacts>();
  facts->program = &program;
  facts->closures = cfa::closureHashes(program);
  slicedReq.sliceFacts = facts;
  if (req.conditionIn) {
    if (req.conditionIn->programHash != programHashOf(&slicedReq, program, req.function) ||
        req.conditionIn->entry != req.function) {
      out.inputError = true;
      out.error = "the input condition was built for another program or entry function";
      return out;
    }
    for (const result::AutomatonState& s : req.conditionIn->states)
      for (const result::AutomatonTransition& t : s.out)
        if (t.func >= program.functions.size() || t.toFunc >= program.functions.size()) {
          out.inputError = true;
          out.error = "the input condition does not fit the program";
          return out;
        }
  }
  const bool chained = req.algorithm == Algorithm::Cmc || req.algorithm == Algorithm::Auto;
  if (req.chain.size() && !chained) {
    out.inputError = true;
    out.error = "--chain needs --algorithm cmc or auto";
    return out;
  }
  if (chained) {
    try {
      parseChain(effectiveChain(req));
    } catch (const std::invalid_argument& e) {
      out.inputError = true;
      out.error = e.what();
      return out;
    }
  }
  if (!req.conditionOut.empty()) {
    // nothing verified yet: what a run stopped before its first result leaves behind
    result::VerificationResult none;
    none.algorithm = algorithmName(req.algorithm);
    none.reason = "written when the run started, before any result";
    none.condition.kind = "timeout";
    none.condition.summary = "nothing verified";
    none.condition.automaton = req.conditionIn;
    try {
      writeCondition(program, req, none);
    } catch (const std::runtime_error& e) {
      out.inputError = true;  // before spending the time on a run whose condition is lost
      out.error = e.what();
      return out;
    }
  }
  if (!req.conditionOut.empty())
    // the condition file follows the checkpoints too: a run stopped in a stage leaves
    // what that stage had verified
    slicedReq.checkpoint = [&req, &program](const result::VerificationResult& c) {
      result::VerificationResult partial = c;
      partial.reason = "written while the run went on (" + c.reason + ")";
      try {
        writeCondition(program, req, partial);
      } catch (const std::runtime_error&) {
        // the write at the end reports it
      }
      if (req.checkpoint) req.checkpoint(c);
    };
  if (req.progress && !req.prepared) {
    std::ostringstream o;
    o << "prepared: a slice of " << program.functions.size() << " of " << fullFunctions << " functions"
      << (harnessed ? " with its entry model" : "") << " in " << std::fixed << std::setprecision(2)
      << secondsSince(sliceStart) << " s";
    req.progress(o.str());
  }
  if (req.analysisStarted) req.analysisStarted();
  double remaining = req.timeoutS > 0 ? std::max(0.1, req.timeoutS - secondsSince(wall0)) : 0;
  if (chained) {
    out.result = runChain(program, *entry, slicedReq, wall0);
  } else {
    StageParams sp;
    sp.bound = req.maxBound;
    sp.maxStates = req.maxStates;
    sp.maxPathLength = req.maxPathLength;
    sp.maxAssumeEdges = req.maxAssumeEdges;
    sp.maxRepeats = req.maxRepeats;
    sp.maxStatesPerLocation = req.maxStatesPerLocation;
    sp.maxMemoryMb = req.maxMemoryMb;
    sp.maxEdgePosts = req.maxEdgePosts;
    sp.maxTimePerPostMs = req.maxTimePerPostMs;
    sp.maxTimePerRefinementMs = req.maxTimePerRefinementMs;
    sp.maxPathFormulaSize = req.maxPathFormulaSize;
    sp.monitorOverflow = req.monitorOverflow;
    out.result = runSingle(program, *entry, slicedReq, req.algorithm, remaining, sp, req.conditionIn.get());
  }
  // A `true` of a function entry holds only of the inputs that get through the entry's
  // assumptions (the entry model, its precondition). Where none does, nothing was
  // verified. bmc asks this itself before it answers `true` (BmcRun::checkBound); pred,
  // k-induction's step and the others prove `true` without a path, so it is asked here,
  // with bound 1 (the assumptions come first). Not for `main` (a whole program whose main
  // assumes false is correct, as SV-COMP reads it), nor for a closure without checks.
  if (out.result.verdict == result::Verdict::True && entry->name != "main" &&
      out.result.algorithm != algorithmName(Algorithm::Bmc) && out.result.algorithm != algorithmName(Algorithm::Ibmc) &&
      hasCheckEdge(program)) {
    algorithms::BmcOptions bo;
    bo.solver = req.solver;
    if (req.maxUnwindNodes) bo.maxNodes = req.maxUnwindNodes;
    double left = req.timeoutS > 0 ? req.timeoutS - secondsSince(wall0) : kVacuityCheckS;
    bo.timeoutS = std::clamp(left, 0.5, kVacuityCheckS);  // a little past the run's limit at most
    const auto g0 = std::chrono::steady_clock::now();
    const smt::CheckResult through = algorithms::someExecutionGetsThrough(program, entry->id, bo);
    out.result.stats.extra["vacuity_check_s"] = secondsSince(g0);
    if (through == smt::CheckResult::Unsat) {
      result::VerificationResult& r = out.result;
      r.verdict = result::Verdict::Unknown;
      r.reason = std::string(algorithms::kNoExecutionGetsThrough) + " (the " + r.algorithm +
                 " proof holds of no input; checked with bmc at bound 1)";
      r.condition = result::Condition{};
      r.condition.kind = "bound";
      r.condition.summary = "nothing verified";
      r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(
          algorithms::trivialAutomaton(program, entry->name, false));
      r.invariant.clear();
    }
  }
  // a latent finding is not a `false` (issue 29 item 4)
  if (out.result.verdict == result::Verdict::False && out.result.counterexample &&
      out.result.counterexample->finding == "latent") {
    out.result.verdict = result::Verdict::Unknown;
    out.result.reason = "latent finding: " + result::preconditionText(*out.result.counterexample);
    out.result.condition.kind = "latent";
    out.result.condition.summary = "an error is reachable when the entry's inputs satisfy a precondition";
    out.result.condition.bound.reset();
    out.result.condition.callDepth.reset();
  }
  const std::string closureHash = facts->closures[req.function];
  const std::vector<std::string> assumed = cfa::assumedPreconditions(*prepared, entry->id);
  auto complete = [&](result::VerificationResult& r) {
    r.closureHash = closureHash;
    r.warnings = parsed->notes;  // contract clauses left out (frontend), file:line each
    r.assumedPrecondition = assumed;
    r.entryName = entry->name;
    r.entryFile = entry->range.file.empty() ? req.file : entry->range.file;
    r.entryLine = entry->range.line;
    r.entryColumn = entry->range.column;
    r.stats.extra["slice_functions"] = static_cast<double>(program.functions.size());
    r.stats.extra["slice_variables"] = static_cast<double>(program.vars.size());
    r.stats.extra["program_functions"] = static_cast<double>(fullFunctions);
    r.stats.extra["program_variables"] = static_cast<double>(fullVars);
    r.stats.extra["slice_time_s"] = sliceS;
    r.stats.extra["entry_harness"] = harnessed ? 1 : 0;
    r.stats.extra["entry_time_s"] = secondsSince(sliceStart);  // everything after parsing
    r.stats.wallTimeS = secondsSince(wall0);
    r.stats.cpuTimeS = support::processTreeCpuSeconds() - cpu0;
  };
  auto provisional = [&] {
    if (!req.provisional) return;
    result::VerificationResult r = out.result;
    complete(r);
    req.provisional(r);
  };
  // After a latent finding: the continuation (the rest of the entry, its other findings),
  // then the callers' check of the first finding. With both, the continuation gets at
  // most 1 - kCallerCheckShare of the time left, so that callers, whose preparation (a
  // slice of thousands of functions) no limit interrupts, never leave it nothing, and the
  // callers get at least their share.
  if (req.continueAfterLatent && result::isLatent(out.result)) {
    provisional();
    double until = 0;
    if (req.checkCallers && req.timeoutS > 0)
      until = secondsSince(wall0) + (1 - kCallerCheckShare) * std::max(0.0, req.timeoutS - secondsSince(wall0));
    continueAfterLatent(*parsed, prepared, harnessed, req, out, wall0, provisional, until);
  }
  if (req.checkCallers && result::isLatent(out.result)) {
    provisional();
    const double callersStart = secondsSince(wall0);
    checkCallers(*parsed, req, out, wall0);
    out.result.stats.extra["callers_check_s"] = secondsSince(wall0) - callersStart;
  }
  complete(out.result);
  // a `true` is of the entry model's inputs (README "Entry models"): say where that model
  // stops, so that a list of two nodes is not read as every list
  if (out.result.verdict == result::Verdict::True && cfa::entryModelDepthBounded(*prepared, entry->id))
    out.result.condition.summary += std::string(kDepthBoundCaveat);
  if (!req.conditionOut.empty()) {
    try {
      writeCondition(program, req, out.result);
    } catch (const std::runtime_error& e) {
      out.inputError = true;  // the verdict stands, but the requested file is missing
      out.error = e.what();
    }
  }
  return out;
}

bool conditionVerifiedMore(const result::Condition& a, const result::Condition& b) { return verifiedMore(a, b); }

}  // namespace argus::engine
