// See service.h for the pipeline, the cache keys and the locking.
#include "server/service/service.h"

#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include <algorithm>
#include <set>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/cfa/cfa_hash.h"
#include "server/service/cfa_dir.h"
#include <future>

#include "core/frontend/frontend.h"
#include "core/result/assumption_automaton.h"
#include "core/result/codec.h"

namespace argus::server {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const char* stateName(FunctionState s) {
  switch (s) {
    case FunctionState::Queued: return "queued";
    case FunctionState::Running: return "running";
    case FunctionState::Verified: return "verified";
    case FunctionState::Violated: return "violated";
    case FunctionState::Conditional: return "conditional";
    case FunctionState::Error: return "error";
  }
  return "?";
}

struct Service::ParsedTU {
  SharedText text;   // what was parsed (jobs verify exactly this text; shared with them)
  std::string tuKey;  // JobSpec::tu of its jobs
  std::string cfaPath;  // its CFAs for the workers (JobSpec::cfaPath); removed with it
  ParsedTU() = default;
  ParsedTU(const ParsedTU&) = delete;
  ParsedTU& operator=(const ParsedTU&) = delete;
  ~ParsedTU() {
    if (!cfaPath.empty()) ::unlink(cfaPath.c_str());
  }
  bool ok = false;
  std::string diagnostics;
  std::vector<AnalyzedFunction> functions;     // with closure hashes
  std::map<std::string, uint32_t> startLine;   // function → first line
};

struct Service::FnEntry {
  FunctionStatus st;
  std::vector<std::string> keys;  // per stage
  unsigned next = 0;              // next stage to run
  uint64_t waiter = 0;            // scheduler waiter of the queued/running stage
  Clock::time_point startedAt{};
  bool runningNow = false;
  bool changed = true;  // status changed since the last snapshot delivered
  bool promoted = false;  // shown as manifest through a caller's counterexample (promoteLatent)
};

struct Service::Doc {
  std::string id, file, text;
  int version = 0;
  std::vector<std::string> flags;
  VerifyConfig cfg;
  VerifyConfig planCfg;  // cfg of the planned version (keys and jobs use this one)
  DocumentCallback cb;
  bool dirty = true;
  Clock::time_point due{};
  int64_t priority = 0;
  uint64_t generation = 0;
  double lastParseS = 0.1;  // wall time of the last real parse (adaptive debounce)
  std::shared_ptr<const ParsedTU> tu;
  std::string parseError;
  std::vector<std::string> order;  // function names in source order
  std::map<std::string, FnEntry> fns;
  std::map<std::string, std::pair<unsigned, unsigned>> counters;  // name → (runs, cached)
  // Publishing (coalesced, see service.h): a snapshot is wanted; when the last one went.
  uint32_t visibleFirst = 0, visibleLast = 0;  // 0: unknown
  bool publishWanted = false;
  bool fullNext = true;  // next snapshot carries every function (new version)
  Clock::time_point lastPublish{};
};

struct Service::Once {
  uint64_t id = 0;
  OnceRequest req;
  StageCallback onStage;
  ErrorCallback onError;
  std::vector<std::string> keys;
  unsigned next = 0;
  uint64_t waiter = 0;
  std::optional<result::VerificationResult> last;  // the latest stage's, for the next one's condition
  std::set<std::string> forced;  // keys computed here even though another daemon claims them
  bool remote = false;           // waiter is a RedisJobQueue waiter (the job stream), not the scheduler's
};

std::string normalizeProperties(const std::vector<std::string>& names) {
  std::set<std::string> all;
  for (const std::string& n : names)
    for (const std::string& p : engine::parseProperties(n)) all.insert(p);
  if (all.empty()) return "unreach-call";
  std::string out;
  for (const std::string& p : all) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::string jobProperties(const std::string& normalized) {
  return normalized.empty() || normalized == "unreach-call" ? std::string() : normalized;
}

std::vector<StageConfig> planOf(const std::string& chainSpec, double timeoutS) {
  std::vector<StageConfig> out;
  for (engine::Stage& st : engine::parseChain(chainSpec)) {
    double t = st.params.timeS > 0 ? (timeoutS > 0 ? std::min(timeoutS, st.params.timeS) : st.params.timeS) : timeoutS;
    out.push_back({std::move(st), t});
  }
  return out;
}

namespace {

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// The key of stage `i` names the stages before it too: a stage that takes the previous
// stage's condition answers for that chain prefix, not on its own.
std::string stageKey(const std::string& engineId, const std::string& base, const VerifyConfig& c, size_t i,
                     const std::vector<std::string>& flags) {
  cfa::Hasher h;
  h.add("argus-result-v2");
  h.add(engineId);
  h.add(base);
  // "property:unreach-call" alone keeps the keys results of reachability had before
  h.add("property:" + c.properties);
  for (size_t k = 0; k <= i && k < c.chain.size(); ++k) {
    h.add(c.chain[k].stage.spec);
    h.add(static_cast<uint64_t>(c.chain[k].timeoutS * 1000));
  }
  h.add(smt::solverName(c.solver));
  h.add(frontend::dataModelName(c.dataModel));
  // the entry model of a non-main function (the engine's default; README "Entry models")
  h.add(std::string("entry-model:") + engine::entryModelName(engine::VerifyRequest{}.entryModel));
  for (const auto& f : flags) h.add(f);
  h.add(c.systemHeadersOnly ? "system-headers-only" : "");
  return h.hex();
}

// A latent finding is final too: a later stage would find the same path (issue 29 item 4).
bool isFinal(const result::VerificationResult& r) { return r.verdict != result::Verdict::Unknown || result::isLatent(r); }

// Issue 29 item 4: a latent finding of f is manifest when another function's manifest
// counterexample passes through f to the same error location (the caller verified as its
// own entry inlines f). Derived at every snapshot from the functions' own results, so the
// stored results stay per function.
void promoteLatent(std::vector<FunctionStatus>& fns) {
  for (FunctionStatus& f : fns) {
    if (f.state != FunctionState::Conditional || !f.result || !result::isLatent(*f.result)) continue;
    for (const FunctionStatus& g : fns) {
      if (&g == &f || g.state != FunctionState::Violated || !g.result || !g.result->counterexample) continue;
      bool hit = result::reachesSameError(*g.result->counterexample, *f.result->counterexample);
      for (const result::Counterexample& m : f.result->moreLatent)
        hit = hit || result::reachesSameError(*g.result->counterexample, m);
      if (!hit) continue;
      result::VerificationResult r = *f.result;
      r.verdict = result::Verdict::False;
      r.counterexample = g.result->counterexample;
      r.reason.clear();
      r.condition = g.result->condition;
      f.result = std::move(r);
      f.state = FunctionState::Violated;
      break;
    }
  }
}

bool isTimeKill(const JobOutcome& o) {
  return o.kind == JobOutcome::Kind::Failed && o.error.rfind("time limit exceeded", 0) == 0;
}

// The result of a stage whose worker was killed at the hard time limit.
result::VerificationResult timedOut(const JobOutcome& o, const std::string& spec) {
  result::VerificationResult r;
  r.algorithm = spec;
  r.reason = "timeout: " + o.error;
  r.condition.kind = "timeout";
  r.condition.summary = "nothing verified";
  return r;
}

// Whether a stage after `stage` of the chain restricts itself to a condition.
template <class Chain>
bool laterStageRestrictable(const Chain& chain, unsigned stage) {
  for (size_t i = stage + 1; i < chain.size(); ++i)
    if (chain[i].stage.restrictable()) return true;
  return false;
}

// The output condition of a stage, for the next one (empty: none).
std::string conditionOf(const result::VerificationResult& r) {
  if (!r.condition.automaton) return {};
  return result::toJson(*r.condition.automaton).dump(-1, ' ', false, json::error_handler_t::replace);
}

FunctionState stateOf(const result::VerificationResult& r) {
  if (r.verdict == result::Verdict::True) return FunctionState::Verified;
  if (r.verdict == result::Verdict::False) return FunctionState::Violated;
  if (r.condition.kind == "error" || r.condition.kind == "memory") return FunctionState::Error;
  return FunctionState::Conditional;
}

// Error-path lines become relative to the start of the function they are in, and the
// document's own file name is abstracted (keys do not include it: the same code under
// another name shares results).
// The counterexample objects of an encoded result: "counterexample" and each of
// "more_latent" (further latent findings).
std::vector<json*> counterexampleObjects(json& j) {
  std::vector<json*> out;
  if (j.contains("counterexample") && j["counterexample"].is_object()) out.push_back(&j["counterexample"]);
  if (j.contains("more_latent") && j["more_latent"].is_array())
    for (json& m : j["more_latent"])
      if (m.is_object()) out.push_back(&m);
  return out;
}

std::string relativize(const result::VerificationResult& r, const std::map<std::string, uint32_t>& start,
                       const std::string& file) {
  json j = result::encodeResult(r);
  const std::string base = std::filesystem::path(file).filename().string();
  for (json* c : counterexampleObjects(j)) {
    if (c->contains("steps"))
      for (json& s : (*c)["steps"]) {
        if (s.value("file", "") == file) {
          s["file"] = "";
          s["docFile"] = true;
        }
        auto it = start.find(s.value("function", ""));
        if (it == start.end()) continue;
        s["line"] = static_cast<int64_t>(s.value("line", 0u)) - int64_t(it->second);
        s["rel"] = true;
      }
    // a latent finding's precondition (base names of files), the same way; its text (in the
    // reason) is rebuilt by absolutize
    if (!c->contains("precondition") || !(*c)["precondition"].contains("conditions")) continue;
    for (json& x : (*c)["precondition"]["conditions"]) {
      if (x.value("file", "") == base) {
        x["file"] = "";
        x["docFile"] = true;
      }
      auto it = start.find(x.value("function", ""));
      if (it == start.end()) continue;
      x["line"] = static_cast<int64_t>(x.value("line", 0u)) - int64_t(it->second);
      x["rel"] = true;
    }
    if (result::isLatent(r)) j["reason"] = "latent finding";
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

result::VerificationResult absolutize(const std::string& stored, const std::map<std::string, uint32_t>& start,
                                      const std::string& file) {
  json j = json::parse(stored);
  bool latent = false;
  for (json* c : counterexampleObjects(j)) {
    if (c->contains("steps"))
      for (json& s : (*c)["steps"]) {
        if (s.value("docFile", false)) s["file"] = file;
        if (!s.value("rel", false)) continue;
        auto it = start.find(s.value("function", ""));
        int64_t base = it == start.end() ? 0 : it->second;
        s["line"] = static_cast<uint32_t>(std::max<int64_t>(0, s["line"].get<int64_t>() + base));
      }
    if (!c->contains("precondition") || !(*c)["precondition"].contains("conditions")) continue;
    latent = true;
    for (json& x : (*c)["precondition"]["conditions"]) {
      if (x.value("docFile", false)) x["file"] = std::filesystem::path(file).filename().string();
      if (!x.value("rel", false)) continue;
      auto it = start.find(x.value("function", ""));
      int64_t base = it == start.end() ? 0 : it->second;
      x["line"] = static_cast<uint32_t>(std::max<int64_t>(0, x["line"].get<int64_t>() + base));
    }
  }
  result::VerificationResult r = result::decodeResult(j);
  if (latent && result::isLatent(r)) r.reason = result::latentReason(r);
  return r;
}

}  // namespace

Service::Service(ServiceOptions options) : opts_(std::move(options)) {
  opts_.scheduler.analysisSlot = true;  // parsing must not wait behind verification jobs
  // Private directory for the analysis worker's serialized CFAs (parse once per version);
  // first the ones daemons killed without their destructor left behind (cfa_dir.h).
  std::error_code tmpEc;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(tmpEc);
  if (!tmpEc) {
    sweepStaleCfaDirs(tmp);
    cfaDir_ = makeCfaDir(tmp, cfaDirLock_);
  }
  store_ = opts_.store ? opts_.store : std::make_shared<SqliteStore>(opts_.storePath);
  scheduler_ = std::make_unique<Scheduler>(opts_.scheduler);
  if (opts_.queue) {
    unsigned verifySlots = scheduler_->slots() > 1 ? scheduler_->slots() - 1 : 1;  // without the analysis slot
    queue_ = std::make_unique<RedisJobQueue>(
        *opts_.queue, verifySlots,
        [this](const std::string& key, JobSpec spec, RedisJobQueue::Finish finish) {
          runStreamJob(key, std::move(spec), std::move(finish));
        },
        [this, verifySlots] { return scheduler_->running() + scheduler_->queued() < verifySlots; });
    if (!queue_->ok()) {
      queueError_ = queue_->error();
      queue_.reset();
    }
  }
  planner_ = std::thread([this] { plannerLoop(); });
  publisher_ = std::thread([this] { publisherLoop(); });
  flight_ = std::thread([this] { flightLoop(); });
}

Service::~Service() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  publishCv_.notify_all();
  flightCv_.notify_all();
  planner_.join();
  publisher_.join();
  flight_.join();
  if (queue_) queue_->stop();  // takes no more stream jobs; those running here are given back below
  scheduler_.reset();  // kills workers; callbacks already running have finished
  queue_.reset();
  {
    std::lock_guard lock(mu_);
    docs_.clear();
    tuCache_.clear();
  }
  if (!cfaDir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(cfaDir_, ec);
  }
  if (cfaDirLock_ >= 0) ::close(cfaDirLock_);
}

// ---- documents -------------------------------------------------------------

void Service::open(const std::string& id, std::string file, std::string text, int version,
                   std::vector<std::string> flags, VerifyConfig cfg, DocumentCallback cb) {
  std::lock_guard plock(publishMu_);
  std::lock_guard lock(mu_);
  if (auto it = docs_.find(id); it != docs_.end()) withdrawAll(*it->second);
  auto d = std::make_unique<Doc>();
  d->id = id;
  d->file = std::move(file);
  d->text = std::move(text);
  d->version = version;
  d->flags = std::move(flags);
  d->cfg = std::move(cfg);
  d->cb = std::move(cb);
  d->due = Clock::now();
  d->priority = nowMs();
  docs_[id] = std::move(d);
  cv_.notify_all();
}

void Service::update(const std::string& id, std::string text, int version) {
  std::lock_guard lock(mu_);
  auto it = docs_.find(id);
  if (it == docs_.end()) return;
  Doc& d = *it->second;
  d.text = std::move(text);
  d.version = version;
  d.dirty = true;
  int ms = opts_.debounceMs >= 0 ? opts_.debounceMs : std::clamp(static_cast<int>(2000 * d.lastParseS), 50, 500);
  d.due = Clock::now() + std::chrono::milliseconds(ms);
  d.priority = nowMs();
  cv_.notify_all();
}

void Service::configure(const std::string& id, VerifyConfig cfg) {
  std::lock_guard lock(mu_);
  auto it = docs_.find(id);
  if (it == docs_.end()) return;
  it->second->cfg = std::move(cfg);
  it->second->dirty = true;
  it->second->due = Clock::now();
  cv_.notify_all();
}

void Service::close(const std::string& id) {
  std::lock_guard plock(publishMu_);
  std::lock_guard lock(mu_);
  auto it = docs_.find(id);
  if (it == docs_.end()) return;
  withdrawAll(*it->second);
  docs_.erase(it);
  ::malloc_trim(0);  // give the document's memory back to the system
}

int Service::classOf(const Doc& d, const FnEntry& f) {
  bool visible = d.visibleLast > 0 && f.st.range.line <= d.visibleLast && f.st.range.endLine >= d.visibleFirst;
  return visible ? Scheduler::kVisible : Scheduler::kDocument;
}

void Service::setVisible(const std::string& id, uint32_t firstLine, uint32_t lastLine) {
  std::lock_guard lock(mu_);
  auto it = docs_.find(id);
  if (it == docs_.end()) return;
  Doc& d = *it->second;
  d.visibleFirst = firstLine;
  d.visibleLast = lastLine;
  for (auto& [name, f] : d.fns)
    if (f.waiter) scheduler_->reclass(f.waiter, classOf(d, f));
}

std::optional<DocumentSnapshot> Service::snapshot(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = docs_.find(id);
  if (it == docs_.end()) return std::nullopt;
  return snapshotLocked(*it->second);
}

void Service::withdrawAll(Doc& d) {
  for (auto& [name, f] : d.fns)
    if (f.waiter) {
      scheduler_->withdraw(f.waiter);
      f.waiter = 0;
    }
  d.generation = nextGeneration_++;
}

void Service::plannerLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    Doc* ready = nullptr;
    Clock::time_point wake = Clock::time_point::max();
    for (auto& [id, d] : docs_) {
      if (!d->dirty) continue;
      if (d->due <= Clock::now()) {
        if (!ready || d->priority > ready->priority) ready = d.get();
      } else {
        wake = std::min(wake, d->due);
      }
    }
    if (!ready) {
      if (wake == Clock::time_point::max()) cv_.wait(lock);
      else cv_.wait_until(lock, wake);
      continue;
    }
    ready->dirty = false;
    std::string id = ready->id, file = ready->file, text = ready->text;
    std::vector<std::string> flags = ready->flags;
    frontend::DataModel dm = ready->cfg.dataModel;
    bool systemOnly = ready->cfg.systemHeadersOnly;
    std::string props = jobProperties(ready->cfg.properties);
    int version = ready->version;
    uint64_t parsesBefore = stats_.parses;
    lock.unlock();
    auto t0 = Clock::now();
    std::shared_ptr<const ParsedTU> tu = parse(file, text, flags, dm, systemOnly, props);
    double parseS = std::chrono::duration<double>(Clock::now() - t0).count();
    lock.lock();
    auto it = docs_.find(id);
    if (it == docs_.end()) continue;
    if (stats_.parses != parsesBefore) it->second->lastParseS = parseS;  // not a TU cache hit
    if (it->second->dirty || it->second->version != version) continue;
    plan(*it->second, std::move(tu));
    lock.unlock();
    publish(id);
    lock.lock();
  }
}

std::shared_ptr<const Service::ParsedTU> Service::parse(const std::string& file, const std::string& text,
                                                        const std::vector<std::string>& flags,
                                                        frontend::DataModel dm, bool systemHeadersOnly,
                                                        const std::string& properties) {
  cfa::Hasher h;
  h.add(file);
  h.add(text);
  for (const auto& f : flags) h.add(f);
  h.add(frontend::dataModelName(dm));
  h.add(systemHeadersOnly ? "system-headers-only" : "");
  if (!properties.empty()) h.add("properties:" + properties);  // instrumented: another CFA
  std::string key = h.hex();
  {
    std::lock_guard lock(mu_);
    for (auto it = tuCache_.begin(); it != tuCache_.end(); ++it)
      if (it->first == key) {
        tuCache_.splice(tuCache_.begin(), tuCache_, it);
        stats_.tuCacheHits++;
        return tuCache_.front().second;
      }
    stats_.parses++;
  }
  // Parsing runs in a worker process (the scheduler's analysis slot): a Clang crash or
  // out-of-memory on some input is a parse error for that document, not a dead daemon.
  auto tu = std::make_shared<ParsedTU>();
  tu->text = text;
  JobSpec spec;
  spec.analyze = true;
  spec.file = file;
  spec.source = tu->text;
  spec.flags = flags;
  spec.systemHeadersOnly = systemHeadersOnly;
  spec.dataModel = dm;
  spec.properties = properties;
  spec.tu = tu->tuKey = tuKeyOf(spec);
  spec.cfaDir = cfaDir_;
  spec.timeoutS = 180;  // hard limit 185 s: a runaway parse is killed (SQLite's 9.5 MB parse in ~25 s)
  auto promise = std::make_shared<std::promise<JobOutcome>>();
  std::future<JobOutcome> future = promise->get_future();
  uint64_t waiter = scheduler_->submit("analyze:" + key, std::move(spec), INT64_MAX,
                                       [promise](const JobOutcome& o) { promise->set_value(o); });
  for (;;) {
    if (future.wait_for(std::chrono::milliseconds(100)) == std::future_status::ready) break;
    std::lock_guard lock(mu_);
    if (stopping_) {
      scheduler_->withdraw(waiter);
      tu->diagnostics = "daemon stopping";
      return tu;
    }
  }
  JobOutcome out = future.get();
  if (out.kind != JobOutcome::Kind::Done) {
    tu->diagnostics = "the frontend failed on this file: " + out.error;
  } else if (!out.analysis.ok) {
    tu->diagnostics = out.analysis.diagnostics.empty() ? "the file does not parse" : out.analysis.diagnostics;
  } else {
    tu->ok = true;
    tu->cfaPath = out.analysis.cfaPath;
    tu->functions = std::move(out.analysis.functions);
    for (const auto& f : tu->functions) tu->startLine[f.name] = f.range.line;
  }
  std::lock_guard lock(mu_);
  tuCache_.emplace_front(key, tu);
  while (tuCache_.size() > opts_.tuCacheSize) tuCache_.pop_back();
  return tu;
}

void Service::plan(Doc& d, std::shared_ptr<const ParsedTU> tu) {
  // The previous version's waiters are withdrawn only after the new version has
  // submitted its jobs: a job whose key did not change (same function closure, same
  // stage) gains the new waiter first and keeps running instead of being killed.
  std::vector<uint64_t> old;
  for (auto& [name, f] : d.fns)
    if (f.waiter) old.push_back(f.waiter);
  d.generation = nextGeneration_++;
  d.tu = std::move(tu);
  d.planCfg = d.cfg;  // later configure()/update() mark the doc dirty and re-plan
  d.fns.clear();
  d.order.clear();
  d.parseError.clear();
  d.fullNext = true;
  if (!d.tu->ok) {
    d.parseError = d.tu->diagnostics;
    for (uint64_t w : old) scheduler_->withdraw(w);
    return;
  }
  std::vector<const AnalyzedFunction*> entries;
  for (const auto& f : d.tu->functions)
    if (f.entry) entries.push_back(&f);
  std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->range.line < b->range.line; });
  for (const AnalyzedFunction* f : entries) {
    FnEntry e;
    e.st.name = f->name;
    e.st.range = f->range;
    auto [runs, cached] = d.counters[f->name];
    e.st.runs = runs;
    e.st.cached = cached;
    std::string base = f->closureHash + "|entry:" + f->name;
    for (size_t i = 0; i < d.planCfg.chain.size(); ++i) e.keys.push_back(stageKey(opts_.engineId, base, d.planCfg, i, d.flags));
    d.order.push_back(f->name);
    d.fns[f->name] = std::move(e);
  }
  for (const auto& name : d.order) advance(d, d.fns[name]);
  for (uint64_t w : old) scheduler_->withdraw(w);
}

std::optional<std::string> Service::lookup(const std::string& key) {
  if (auto it = memCache_.find(key); it != memCache_.end()) {
    stats_.memoryHits++;
    return it->second;
  }
  if (auto v = store_->get(key)) {
    stats_.storeHits++;
    memCache_[key] = *v;
    return v;
  }
  return std::nullopt;
}

void Service::remember(const std::string& key, const std::string& value) {
  if (memCache_.size() >= opts_.memoryCacheEntries) memCache_.clear();
  memCache_[key] = value;
  store_->put(key, value);
}

void Service::applyResult(Doc& d, FnEntry& f, const std::string& stored, unsigned stage) {
  result::VerificationResult r = absolutize(stored, d.tu->startLine, d.file);
  f.st.stage = stage;
  f.st.algorithm = r.algorithm.empty() ? d.planCfg.chain[stage].stage.spec : r.algorithm;
  f.st.state = stateOf(r);
  f.next = stage + 1;
  f.st.final = isFinal(r) || f.next >= d.planCfg.chain.size();
  // the automaton only serves a later stage that restricts itself to it
  if (f.st.final || !laterStageRestrictable(d.planCfg.chain, stage)) result::dropAutomaton(r.condition);
  f.st.result = std::move(r);
}

void Service::advance(Doc& d, FnEntry& f) {
  while (!f.st.final && f.next < d.planCfg.chain.size()) {
    unsigned stage = f.next;
    const std::string& key = f.keys[stage];
    if (auto hit = lookup(key)) {
      f.st.cached = ++d.counters[f.st.name].second;
      applyResult(d, f, *hit, stage);
      continue;
    }
    const StageConfig& sc = d.planCfg.chain[stage];
    if (!f.st.result) f.st.state = FunctionState::Queued;
    f.st.algorithm = sc.stage.spec;
    f.st.stage = stage;
    JobSpec spec;
    spec.file = d.file;
    spec.source = d.tu->text;  // not d.text: an edit may be waiting in the debounce
    spec.tu = d.tu->tuKey;
    spec.cfaPath = d.tu->cfaPath;
    spec.function = f.st.name;
    spec.stage = sc.stage.spec;
    spec.timeoutS = sc.timeoutS;
    if (sc.stage.restrictable() && f.st.result) spec.condition = conditionOf(*f.st.result);
    spec.wantAutomaton = laterStageRestrictable(d.planCfg.chain, stage);
    spec.solver = d.planCfg.solver;
    spec.dataModel = d.planCfg.dataModel;
    spec.flags = d.flags;
    spec.systemHeadersOnly = d.planCfg.systemHeadersOnly;
    spec.properties = jobProperties(d.planCfg.properties);
    std::string id = d.id, name = f.st.name;
    uint64_t gen = d.generation;
    auto started = [this, id, name, gen] {
      {
        std::lock_guard lock(mu_);
        auto it = docs_.find(id);
        if (it == docs_.end() || it->second->generation != gen) return;
        auto fit = it->second->fns.find(name);
        if (fit == it->second->fns.end()) return;
        fit->second.st.state = FunctionState::Running;
        fit->second.runningNow = true;
        fit->second.startedAt = Clock::now();
        fit->second.changed = true;
      }
      publish(id);
    };
    auto done = [this, id, name, gen, stage, key](const JobOutcome& out) {
      {
        std::lock_guard lock(mu_);
        auto it = docs_.find(id);
        if (it == docs_.end() || it->second->generation != gen) return;
        Doc& dd = *it->second;
        auto fit = dd.fns.find(name);
        if (fit == dd.fns.end()) return;
        FnEntry& ff = fit->second;
        ff.waiter = 0;
        ff.runningNow = false;
        ff.changed = true;
        ff.st.elapsedS += out.elapsedS;
        if (out.kind == JobOutcome::Kind::Cancelled) return;
        ff.st.runs = ++dd.counters[name].first;
        if (out.kind == JobOutcome::Kind::Done) {
          std::string stored = relativize(out.result, dd.tu->startLine, dd.file);
          remember(key, stored);
          applyResult(dd, ff, stored, stage);
          advance(dd, ff);
        } else if (isTimeKill(out) && stage + 1 < dd.planCfg.chain.size()) {
          // a stage killed at its hard time limit verified nothing, but the plan goes
          // on: the next (stronger) stage may still decide (not cached: a later run may
          // finish in time)
          applyResult(dd, ff, relativize(timedOut(out, dd.planCfg.chain[stage].stage.spec), dd.tu->startLine, dd.file),
                      stage);
          advance(dd, ff);
        } else {
          ff.st.state = FunctionState::Error;
          ff.st.final = true;
          ff.st.error = out.error;
        }
      }
      publish(id);
    };
    f.waiter = scheduler_->submit(key, std::move(spec), Scheduler::Placement{d.priority, classOf(d, f), d.id},
                                  std::move(done), std::move(started));
    if (scheduler_->isRunning(f.waiter)) {  // joined the previous version's running job
      f.st.state = FunctionState::Running;
      f.runningNow = true;
      f.startedAt = Clock::now();
    }
    return;
  }
}

DocumentSnapshot Service::snapshotLocked(const Doc& d) const {
  DocumentSnapshot s;
  s.full = true;
  s.id = d.id;
  s.version = d.version;
  s.file = d.file;
  s.parseError = d.parseError;
  auto now = Clock::now();
  for (const auto& name : d.order) {
    const FnEntry& f = d.fns.at(name);
    s.functions.push_back(f.st);
    if (f.runningNow) s.functions.back().elapsedS += std::chrono::duration<double>(now - f.startedAt).count();
    if (!f.st.final) s.pending++;
  }
  promoteLatent(s.functions);
  return s;
}

void Service::publish(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = docs_.find(id);
  if (it == docs_.end()) return;
  it->second->publishWanted = true;
  publishCv_.notify_one();
}

void Service::deliver(const std::string& id) {
  std::lock_guard plock(publishMu_);  // close() waits for a delivery in progress
  DocumentSnapshot snap;
  DocumentCallback cb;
  {
    std::lock_guard lock(mu_);
    auto it = docs_.find(id);
    if (it == docs_.end()) return;
    Doc& d = *it->second;
    d.publishWanted = false;
    d.lastPublish = Clock::now();
    if (d.dirty || !d.tu) return;  // the planner publishes the next version
    snap = snapshotLocked(d);
    snap.full = d.fullNext;
    d.fullNext = false;
    for (std::size_t i = 0; i < d.order.size(); ++i) {
      FnEntry& f = d.fns.at(d.order[i]);
      bool promoted = snap.functions[i].state != f.st.state;  // promoteLatent
      if (promoted != f.promoted) f.changed = true;
      f.promoted = promoted;
      if (f.changed || snap.full) snap.changed.push_back(i);
      f.changed = false;
    }
    cb = d.cb;
  }
  if (cb) cb(snap);
}

// Delivers wanted snapshots, at most one per document per publishIntervalMs: a burst of
// state changes (thousands of one-line functions finishing) becomes a few messages a
// second, each carrying only the functions that changed.
void Service::publisherLoop() {
  std::unique_lock lock(mu_);
  auto interval = std::chrono::milliseconds(std::max(0, opts_.publishIntervalMs));
  while (!stopping_) {
    std::string due;
    Clock::time_point wake = Clock::time_point::max(), now = Clock::now();
    for (auto& [id, d] : docs_) {
      if (!d->publishWanted) continue;
      if (d->lastPublish + interval <= now) {
        due = id;
        break;
      }
      wake = std::min(wake, d->lastPublish + interval);
    }
    if (due.empty()) {
      if (wake == Clock::time_point::max()) publishCv_.wait(lock);
      else publishCv_.wait_until(lock, wake);
      continue;
    }
    lock.unlock();
    deliver(due);
    lock.lock();
  }
}

// ---- one-shot requests -----------------------------------------------------

uint64_t Service::verifyOnce(OnceRequest req, StageCallback onStage, ErrorCallback onError) {
  Deferred out;
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    auto o = std::make_unique<Once>();
    id = o->id = nextOnce_++;
    cfa::Hasher h;
    h.add("once");
    h.add(req.file);
    h.add(req.text);
    h.add(req.function);
    std::string base = h.hex();
    for (size_t i = 0; i < req.cfg.chain.size(); ++i) o->keys.push_back(stageKey(opts_.engineId, base, req.cfg, i, req.flags));
    o->req = std::move(req);
    o->onStage = std::move(onStage);
    o->onError = std::move(onError);
    Once& ref = *o;
    onces_[id] = std::move(o);
    advanceOnce(ref, out);
  }
  for (auto& f : out) f();
  return id;
}

void Service::cancelOnce(uint64_t handle) {
  std::lock_guard lock(mu_);
  auto it = onces_.find(handle);
  if (it == onces_.end()) return;
  if (it->second->waiter) {
    if (it->second->remote) queue_->withdraw(it->second->waiter);
    else scheduler_->withdraw(it->second->waiter);
  }
  onces_.erase(it);
}

void Service::advanceOnce(Once& o, Deferred& out) {
  const auto& chain = o.req.cfg.chain;
  if (chain.empty()) {
    auto cb = o.onError;
    out.push_back([cb] { cb("empty algorithm chain"); });
    onces_.erase(o.id);
    return;
  }
  while (o.next < chain.size()) {
    unsigned stage = o.next;
    const std::string key = o.keys[stage];
    if (auto hit = lookup(key)) {
      result::VerificationResult r = result::decodeResult(json::parse(*hit));
      o.last = r;
      bool fin = isFinal(r) || stage + 1 >= chain.size();
      auto cb = o.onStage;
      out.push_back([cb, stage, r, fin] { cb(stage, r, fin, true); });
      o.next++;
      if (fin) {
        onces_.erase(o.id);
        return;
      }
      continue;
    }
    // single flight: another daemon sharing the store computes this key now → wait for it
    if (!o.forced.count(key) && !store_->claim(key, claimTtlMs(chain[stage].timeoutS))) {
      stats_.flightWaits++;
      flightWaits_.push_back({o.id, key,
                              std::chrono::steady_clock::now() + std::chrono::milliseconds(claimTtlMs(chain[stage].timeoutS))});
      flightCv_.notify_one();
      return;
    }
    JobSpec spec;
    spec.file = o.req.file;
    spec.source = o.req.text;
    spec.function = o.req.function;
    spec.stage = chain[stage].stage.spec;
    spec.timeoutS = chain[stage].timeoutS;
    if (chain[stage].stage.restrictable() && o.last) spec.condition = conditionOf(*o.last);
    spec.solver = o.req.cfg.solver;
    spec.dataModel = o.req.cfg.dataModel;
    spec.flags = o.req.flags;
    spec.systemHeadersOnly = o.req.cfg.systemHeadersOnly;
    spec.properties = jobProperties(o.req.cfg.properties);
    uint64_t id = o.id;
    auto done = [this, id, stage, key](const JobOutcome& res) {
      Deferred later;
      {
        std::lock_guard lock(mu_);
        auto it = onces_.find(id);
        if (it == onces_.end()) return;
        Once& oo = *it->second;
        oo.waiter = 0;
        if (res.kind == JobOutcome::Kind::Cancelled) {
          store_->release(key);
          return;
        }
        const bool goOn = isTimeKill(res) && stage + 1 < oo.req.cfg.chain.size();  // as in advance()
        if (res.kind == JobOutcome::Kind::Done || goOn) {
          result::VerificationResult r =
              goOn ? timedOut(res, oo.req.cfg.chain[stage].stage.spec) : res.result;
          if (!goOn) remember(key, result::encodeResult(r).dump(-1, ' ', false, json::error_handler_t::replace));
          store_->release(key);  // stored (or not storable): waiters go on
          bool fin = isFinal(r) || stage + 1 >= oo.req.cfg.chain.size();
          oo.last = r;
          auto cb = oo.onStage;
          later.push_back([cb, stage, r, fin] { cb(stage, r, fin, false); });
          oo.next = stage + 1;
          if (fin) onces_.erase(it);
          else advanceOnce(oo, later);
        } else {
          store_->release(key);  // failed: a waiting daemon claims the key and tries itself
          auto cb = oo.onError;
          std::string msg = res.error;
          later.push_back([cb, msg] { cb(msg); });
          onces_.erase(it);
        }
      }
      for (auto& f : later) f();
    };
    o.remote = false;
    if (queue_ && (o.waiter = queue_->enqueue(key, spec, done))) {
      o.remote = true;  // on the replicas' job stream
      return;
    }
    o.waiter = scheduler_->submit(key, std::move(spec),
                                  Scheduler::Placement{0, Scheduler::kExplicit, "request:" + o.req.group}, std::move(done));
    return;
  }
}

// A stage taken from the job stream: stored result → answered at once (a job reclaimed
// from a replica that died after storing its result); else run on this replica's
// scheduler, ahead of its documents' jobs. The result is stored before finish() replies
// and acks (redis_queue.h).
void Service::runStreamJob(const std::string& key, JobSpec spec, RedisJobQueue::Finish finish) {
  std::optional<std::string> stored;
  {
    std::lock_guard lock(mu_);
    if (auto it = memCache_.find(key); it != memCache_.end()) stored = it->second;
  }
  if (!stored) stored = store_->get(key);
  if (stored) {
    JobOutcome o;
    try {
      o.result = result::decodeResult(json::parse(*stored));
      o.kind = JobOutcome::Kind::Done;
      finish(o);
      return;
    } catch (const std::exception&) {
      // damaged entry: verify again
    }
  }
  scheduler_->submit(key, std::move(spec), Scheduler::Placement{0, Scheduler::kExplicit, "request:stream"},
                     [this, key, finish](const JobOutcome& out) {
                       if (out.kind == JobOutcome::Kind::Done) {
                         std::lock_guard lock(mu_);
                         remember(key, result::encodeResult(out.result).dump(-1, ' ', false, json::error_handler_t::replace));
                       }
                       finish(out);
                     });
}

long Service::claimTtlMs(double stageTimeoutS) {
  double t = stageTimeoutS > 0 ? stageTimeoutS : 300;
  return static_cast<long>(t * 1500) + 30000;  // the stage's time limit, a margin for the queue
}

void Service::flightLoop() {
  std::unique_lock lock(mu_);
  auto lastRemoteCheck = std::chrono::steady_clock::now();
  while (!stopping_) {
    if (flightWaits_.empty() && !queue_) flightCv_.wait(lock);
    else flightCv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stopping_) break;
    Deferred out;
    // Job stream: a stage whose reply did not come although its result is in the store
    // (a reply lost with a Redis connection) is served from the store, every 2 s.
    if (queue_ && std::chrono::steady_clock::now() - lastRemoteCheck >= std::chrono::seconds(2)) {
      lastRemoteCheck = std::chrono::steady_clock::now();
      std::vector<uint64_t> ids;
      for (auto& [id, o] : onces_)
        if (o->remote && o->waiter && o->next < o->keys.size()) ids.push_back(id);
      for (uint64_t id : ids) {
        auto it = onces_.find(id);
        if (it == onces_.end()) continue;
        Once& o = *it->second;
        const std::string& key = o.keys[o.next];
        if (!memCache_.count(key) && !store_->get(key)) continue;
        queue_->withdraw(o.waiter);
        o.waiter = 0;
        o.remote = false;
        store_->release(key);
        stats_.streamLostReplies++;
        advanceOnce(o, out);  // serves the stored result
      }
    }
    std::vector<FlightWait> waits;
    waits.swap(flightWaits_);
    auto now = std::chrono::steady_clock::now();
    for (auto& w : waits) {
      auto it = onces_.find(w.once);
      if (it == onces_.end()) continue;  // cancelled
      Once& o = *it->second;
      bool go = memCache_.count(w.key) || store_->get(w.key).has_value();  // the holder stored it
      if (!go && now >= w.deadline) {
        o.forced.insert(w.key);  // waited the claim's lifetime: compute it here
        go = true;
      }
      if (!go && store_->claim(w.key, claimTtlMs(0))) {  // the holder is gone: ours now
        go = true;
      }
      if (go) advanceOnce(o, out);  // serves the stored result, or submits the job
      else flightWaits_.push_back(std::move(w));
    }
    lock.unlock();
    for (auto& f : out) f();
    lock.lock();
  }
}

Service::Stats Service::stats() const {
  std::lock_guard lock(mu_);
  Stats s = stats_;
  s.workerRuns = scheduler_->jobsRun();
  s.workerRestarts = scheduler_->workerRestarts();
  s.workerParses = scheduler_->workerParses();
  s.cfaLoads = scheduler_->cfaLoads();
  s.workersRecycled = scheduler_->workersRecycled();
  if (queue_) {
    RedisJobQueue::Stats q = queue_->stats();
    s.streamEnqueued = q.enqueued;
    s.streamTaken = q.taken;
    s.streamReclaimed = q.reclaimed;
    s.streamFailed = q.failed;
    s.streamReleased = q.released;
    s.streamReplies = q.replies;
  }
  s.streamLostReplies = stats_.streamLostReplies;
  return s;
}

}  // namespace argus::server
