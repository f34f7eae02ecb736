// The verification service (the ClangdServer of argusd): documents in, per-function
// results out, no JSON in its API. The LSP layer (server/argusd) converts.
//
// Pipeline per document version:
//   text --(TU cache: key = hash(file, text, flags, data model, properties))--> functions, each with
//          a closure hash (cfa::closureHashes: its CFA + everything it calls + globals +
//          initialisers, independent of absolute lines), computed by an *analyze* job
//          in a worker process, so Clang never runs in the daemon
//        --> per function and stage a *result key* = hash(closure, entry, properties,
//          stage algorithm/bound/timeout, solver, data model, flags)
//        --> memory cache → result store (ResultStore: SQLite, or Redis shared by replicas) → else a job on the Scheduler.
// Entries: `main` from the C initial state, every other function with a body as its own
// entry with nondeterministic parameters and globals (the engine's `function`). Frontend
// synthesised functions, `__VERIFIER_*` helpers and `reach_error` are not entries.
//
// Stages (VerifyConfig::chain): the engine's chain (core/engine/verify.h, the same spec
// as `argus verify --chain`; default: `auto`'s, engine::kAutoChain), one job per stage.
// Each stage's result is published at once; a `true` or `false` verdict ends the chain,
// `unknown` (a condition) goes on to the next stage, which gets that condition as its
// input (the stages that can use one: explicit, pred, impact). Consecutive ibmc stages
// continue one warm unwinding and solver in the worker (core/engine/sessions.h).
//
// Positions: stored results keep error-path lines *relative to the start of the
// function the step is in*, and are remapped to the current text when served, so a
// line inserted above a function neither invalidates nor misplaces its results.
//
// Edits: update() is debounced (ServiceOptions::debounceMs, adaptive by default); when a version is
// planned, every job waiter of the previous version is withdrawn (the scheduler
// drops or kills jobs nobody else waits for), unchanged functions are served from
// the cache, changed ones and their callers are re-verified. Counters per function
// (`runs` = stage results computed by a worker, `cached` = served from cache) let a
// client see exactly what an edit re-verified.
//
// Threads: one planner thread (debounce, waiting for the analyze job, planning); one
// publisher thread that delivers snapshots, coalesced (at most one per document per
// ServiceOptions::publishIntervalMs, listing the functions that changed since the
// previous one); the scheduler's slot threads run job callbacks. `mu_` guards all document/once/cache
// state; `publishMu_` serialises document callbacks so snapshots arrive in order, and
// close() takes it, so no callback for a document runs after close() returns.
// Lock order: publishMu_ → mu_ → (scheduler, store internal locks).
//
// Single flight across daemons (argus/verify requests; a shared store, argusd --redis):
// before a stage's job is submitted, the key is claimed in the store
// (ResultStore::claim). When another daemon holds the claim, the request waits: the
// flight thread polls the store every 100 ms and goes on when the result is there,
// when the claim is gone (the holder failed or died: this daemon claims and computes
// it), or after the claim's lifetime (it computes it anyway). The claim is released
// when the job ends. Editor documents do not take claims yet.
//
// Job stream (argusd --redis, ServiceOptions::queue): an argus/verify stage that has to
// run is put on the Redis stream shared by the replicas (RedisJobQueue::enqueue) instead
// of the local scheduler; whichever replica has a free worker takes it and runs it on
// its scheduler (runStreamJob, class kExplicit), stores the result and replies; the
// reply reaches the stage's `done` here exactly as a local job's would. Documents' jobs
// stay local (see redis_queue.h for why).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/engine/verify.h"
#include "core/result/result.h"
#include "server/service/redis_queue.h"
#include "server/service/scheduler.h"
#include "server/service/store.h"

namespace argus::server {

// One stage of the plan: a stage of the engine's chain and the time it gets.
struct StageConfig {
  engine::Stage stage;
  double timeoutS = 0;    // 0 = none (the scheduler's hard limit still applies)
};

// The plan of a chain spec (engine::parseChain; throws std::invalid_argument): each
// stage gets its own `time=` capped by timeoutS, or timeoutS.
std::vector<StageConfig> planOf(const std::string& chainSpec, double timeoutS);

struct VerifyConfig {
  // `auto`: a shallow incremental BMC published at once, then k-induction and predicate
  // abstraction in parallel
  std::string chainSpec = engine::kAutoChain;
  double timeoutS = 30;  // of a stage without its own time= (and the cap of those with one)
  std::vector<StageConfig> chain = planOf(chainSpec, timeoutS);  // planOf(chainSpec, timeoutS)
  smt::SolverKind solver = smt::SolverKind::Z3;
  frontend::DataModel dataModel = frontend::DataModel::LP64;
  // Text from remote clients: #include may read only system headers (FrontendOptions).
  bool systemHeadersOnly = false;
  // The properties checked (engine::parseProperties names, normalised by
  // normalizeProperties: sorted, comma-separated); "unreach-call" alone is reachability
  // as before, with nothing extra encoded (argusd's sessions start from their own
  // default, LspSession).
  std::string properties = "unreach-call";
};

// A `properties` setting (names, or one SV-COMP .prp text) → the sorted, comma-separated
// names; "" or an empty list → "unreach-call". Throws std::invalid_argument naming the
// known properties for an unknown one.
std::string normalizeProperties(const std::vector<std::string>& names);
// What a job passes to the frontend (JobSpec::properties): "" for reachability alone.
std::string jobProperties(const std::string& normalized);

enum class FunctionState { Queued, Running, Verified, Violated, Conditional, Error };
const char* stateName(FunctionState s);

struct FunctionStatus {
  std::string name;
  cfa::SourceRange range;  // in the current text
  FunctionState state = FunctionState::Queued;
  std::string algorithm;   // current or last stage's algorithm
  unsigned stage = 0;      // index of the current or last stage
  bool final = false;      // no further stage will run for this version
  double elapsedS = 0;     // worker wall time spent on this version (running stage included)
  unsigned runs = 0;       // over the document's life: stage results computed by a worker
  unsigned cached = 0;     // ... and served from the memory cache or the store
  std::optional<result::VerificationResult> result;  // latest stage, positions for the current text
  std::string error;       // Error state: why
};

struct DocumentSnapshot {
  std::string id;
  int version = 0;
  std::string file;
  std::string parseError;  // Clang's diagnostics when the text does not parse
  std::vector<FunctionStatus> functions;  // in source order
  unsigned pending = 0;    // functions not final yet
  // Delivered snapshots are coalesced: `changed` lists the indices (into `functions`)
  // whose status changed since the previous snapshot of this document; `full` marks
  // the first snapshot of a version (every function listed as changed).
  bool full = true;
  std::vector<std::size_t> changed;
};

struct ServiceOptions {
  Scheduler::Options scheduler;
  std::string storePath;  // "" = no persistence
  // A store made by the caller (argusd --redis: a RedisStore); when set, storePath is unused.
  std::shared_ptr<ResultStore> store;
  // argusd --redis: the stages of argus/verify requests go through the Redis job stream
  // shared by the replicas (server/service/redis_queue.h); unset: the embedded scheduler.
  std::optional<RedisQueueOptions> queue;
  // Delay between an edit and re-planning. < 0: adaptive, like clangd's: twice the
  // document's last parse time, clamped to [50, 500] ms (a keystroke that arrives
  // during the delay costs nothing; one that arrives later supersedes the jobs).
  int debounceMs = -1;
  std::size_t tuCacheSize = 16;
  std::size_t memoryCacheEntries = 20000;
  // Identifies the verifier build; part of every result key, so a store written by an
  // older engine is never served by a newer one (argusd: size and mtime of its binary).
  std::string engineId;
  // Snapshots of one document are delivered at most this often (the latest state of
  // every function that changed in between, in one snapshot).
  int publishIntervalMs = 200;
};

class Service {
 public:
  using DocumentCallback = std::function<void(const DocumentSnapshot&)>;

  explicit Service(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // `id` is opaque (the LSP layer uses session + URI); `file` names the file in
  // results. open() plans at once; update() after the debounce delay.
  void open(const std::string& id, std::string file, std::string text, int version,
            std::vector<std::string> flags, VerifyConfig cfg, DocumentCallback cb);
  void update(const std::string& id, std::string text, int version);
  void configure(const std::string& id, VerifyConfig cfg);
  void close(const std::string& id);
  // The lines the editor shows (1-based, inclusive): queued functions that overlap
  // them go before other documents' functions (Scheduler::kVisible).
  void setVisible(const std::string& id, uint32_t firstLine, uint32_t lastLine);
  std::optional<DocumentSnapshot> snapshot(const std::string& id);

  // One-shot verification of one entry (argus/verify): stage results stream to
  // onStage; exactly one of onStage(final=true) / onError runs unless cancelled.
  struct OnceRequest {
    std::string file, text;
    std::vector<std::string> flags;
    std::string function = "main";
    VerifyConfig cfg;
    std::string group;  // the client (round-robin among clients' requests)
  };
  using StageCallback = std::function<void(unsigned stage, const result::VerificationResult&, bool final, bool cached)>;
  using ErrorCallback = std::function<void(const std::string&)>;
  uint64_t verifyOnce(OnceRequest req, StageCallback onStage, ErrorCallback onError);
  void cancelOnce(uint64_t handle);  // no callback runs after it returns

  struct Stats {
    uint64_t parses = 0, tuCacheHits = 0, memoryHits = 0, storeHits = 0;
    uint64_t flightWaits = 0;  // argus/verify stages that waited for another daemon's claim
    uint64_t workerRuns = 0, workerRestarts = 0;
    uint64_t workerParses = 0, cfaLoads = 0, workersRecycled = 0;
    // the job stream (argusd --redis), RedisJobQueue::Stats: stages this replica put on
    // the stream, took from it (XREADGROUP), reclaimed from a silent replica
    // (XAUTOCLAIM), reported failed after the last delivery, gave back after a failed
    // run, and replies it received
    uint64_t streamEnqueued = 0, streamTaken = 0, streamReclaimed = 0, streamFailed = 0, streamReleased = 0,
             streamReplies = 0;
    uint64_t streamLostReplies = 0;  // stages served from the store while their reply was late or lost
  };
  Stats stats() const;
  Scheduler& scheduler() { return *scheduler_; }
  ResultStore& store() { return *store_; }
  // The job stream (null without ServiceOptions::queue, or when it could not be set up:
  // queueError() says why).
  RedisJobQueue* queue() { return queue_.get(); }
  const std::string& queueError() const { return queueError_; }

 private:
  struct ParsedTU;
  struct FnEntry;
  struct Doc;
  struct Once;
  using Deferred = std::vector<std::function<void()>>;

  void plannerLoop();
  std::shared_ptr<const ParsedTU> parse(const std::string& file, const std::string& text,
                                        const std::vector<std::string>& flags, frontend::DataModel dm,
                                        bool systemHeadersOnly, const std::string& properties);
  void plan(Doc& d, std::shared_ptr<const ParsedTU> tu);
  static int classOf(const Doc& d, const FnEntry& f);
  void advance(Doc& d, FnEntry& f);
  void applyResult(Doc& d, FnEntry& f, const std::string& stored, unsigned stage);
  void withdrawAll(Doc& d);
  std::optional<std::string> lookup(const std::string& key);
  void remember(const std::string& key, const std::string& value);
  void advanceOnce(Once& o, Deferred& out);
  void flightLoop();
  static long claimTtlMs(double stageTimeoutS);
  void publish(const std::string& id);  // wants a snapshot (delivered by publisherLoop)
  void publisherLoop();
  void deliver(const std::string& id);
  DocumentSnapshot snapshotLocked(const Doc& d) const;

  ServiceOptions opts_;
  std::string cfaDir_;  // serialized CFAs of parsed TUs (removed at exit)
  int cfaDirLock_ = -1;  // holds the lock on cfaDir_'s owner file while the service runs
  std::shared_ptr<ResultStore> store_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<RedisJobQueue> queue_;
  std::string queueError_;
  void runStreamJob(const std::string& key, JobSpec spec, RedisJobQueue::Finish finish);

  std::mutex publishMu_;           // serialises document callbacks (see above)
  mutable std::mutex mu_;          // guards everything below
  std::condition_variable cv_;     // planner wake-up
  std::condition_variable publishCv_;  // publisher wake-up
  bool stopping_ = false;
  std::map<std::string, std::unique_ptr<Doc>> docs_;
  std::map<uint64_t, std::unique_ptr<Once>> onces_;
  uint64_t nextOnce_ = 1, nextGeneration_ = 1;
  std::map<std::string, std::string> memCache_;  // result key → stored (relative) result
  std::list<std::pair<std::string, std::shared_ptr<const ParsedTU>>> tuCache_;  // MRU first
  Stats stats_;
  struct FlightWait {
    uint64_t once;
    std::string key;
    std::chrono::steady_clock::time_point deadline;
  };
  std::vector<FlightWait> flightWaits_;  // argus/verify stages waiting for another daemon
  std::condition_variable flightCv_;
  std::thread planner_, publisher_, flight_;
};

}  // namespace argus::server
