// Job scheduler and worker processes.
//
// Design (the threading and failure model of argusd's verification work):
// - A verification job (one entry function, one stage: algorithm + bound + timeout)
//   runs in a *worker process* (`argusd --worker`), never in the daemon. The daemon
//   starts one worker per slot (slots = cores by default); each slot has one thread
//   here that owns its worker: it takes the best queued job, writes it to the worker's
//   stdin as one framed JSON message (the LSP base-protocol framing of protocol/), and
//   waits (poll, 50 ms ticks) for the framed reply on the worker's stdout.
// - Isolation: the worker sets RLIMIT_AS (memory) before it reads a job; a solver
//   crash, an abort or an out-of-memory kill ends only that process. The slot thread
//   sees EOF, reaps the child, starts a fresh worker, and re-queues the job once
//   (maxRetries); a second crash reports the job as Failed("worker crashed ...").
//   Nothing the worker does can take down the daemon or another slot's job.
// - Time: the engine gets the stage timeout; the slot also enforces a hard deadline
//   (timeout + grace) by killing the worker.
// - Cancellation = kill + restart. Each job has *waiters* (documents or requests that
//   want its result; identical jobs — same key — are merged). withdraw() removes a
//   waiter; a job left without waiters is dropped from the queue, or, if running,
//   its worker is killed (SIGKILL) and replaced. This is how an edit supersedes the
//   jobs of the previous version and how $/cancelRequest stops argus/verify.
// - Analysis (parsing a translation unit into functions and closure hashes) is also a
//   worker job, on a dedicated slot when Options::analysisSlot is set.
// - Order (the scheduling policy; clangd's TUScheduler states its own the same way):
//   1. class first: explicit requests (argus/verify, "verify this function"), then
//      the functions in the editor's visible range (argus/visibleRange), then the
//      other functions of open documents, so a small request never waits behind the
//      thousands of jobs of a big file;
//   2. within a class, round-robin among groups (a group = one document, or one
//      client's requests): the group served longest ago takes the next free slot, so
//      documents and clients share the workers fairly whatever their sizes;
//   3. within a group, highest priority (the service passes the time of the
//      document's last edit), FIFO among equals.
//   A job whose entry's solver state is warm in another idle worker waits for it.
// - Payload: the translation unit's text is shared among the jobs (SharedText) and
//   sent to a worker only when that worker does not hold the TU parsed yet (each slot
//   mirrors its worker's LRU of parsed TUs); a worker that lost it answers
//   "need_source" and gets the job again with the text.
// - Callbacks (started/done) run on slot threads with no scheduler lock held.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/engine/verify.h"
#include "core/result/result.h"

namespace argus::server {

// One stage of one entry function: what a worker runs. With `analyze`, instead: parse
// the translation unit and return its functions and their closure hashes (so Clang
// never runs in the daemon).
// The translation unit's text, shared (not copied) by all jobs of one document
// version: thousands of jobs of a big file hold one copy.
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string s) : p_(std::make_shared<const std::string>(std::move(s))) {}
  SharedText(const char* s) : SharedText(std::string(s)) {}
  SharedText(std::shared_ptr<const std::string> p) : p_(std::move(p)) {}
  const std::string& str() const {
    static const std::string empty;
    return p_ ? *p_ : empty;
  }
  operator const std::string&() const { return str(); }
  bool empty() const { return str().empty(); }

 private:
  std::shared_ptr<const std::string> p_;
};

struct JobSpec {
  bool analyze = false;
  std::string file;   // name used in diagnostics
  SharedText source;  // the translation unit's text
  // Identifies (file, source, flags, data model, header policy): the worker keeps parsed
  // translation units under this key and the text is sent to a worker only when it does
  // not hold it yet. Empty: the scheduler computes it (tuKeyOf).
  std::string tu;
  std::string function = "main";
  // One stage of the engine's chain (core/engine/verify.h), e.g. "ibmc:k=3", "kind|pred".
  std::string stage = "bmc";
  double timeoutS = 0;
  // The previous stage's output condition (assumption automaton JSON, result::toJson)
  // for a stage that can use it; empty: none. A condition that does not fit the
  // worker's program (e.g. built for an older text) is dropped: the stage then
  // explores everything, which is sound.
  std::string condition;
  // Whether the result should carry its condition's assumption automaton (a later stage
  // restricts itself to it). Off when no later stage can use it: on SQLite a shallow
  // stage's automaton is up to ~8 MB of JSON per function, kept for nothing.
  bool wantAutomaton = true;
  smt::SolverKind solver = smt::SolverKind::Z3;
  frontend::DataModel dataModel = frontend::DataModel::LP64;
  std::vector<std::string> flags;
  bool systemHeadersOnly = false;  // remote text: only system headers may be included
  // The properties the frontend instruments (engine::parseProperties names, comma-
  // separated; VerifyConfig::properties through jobProperties); "" = reachability alone.
  // Part of the TU key: an instrumented program is another CFA.
  std::string properties;
  // Parse once per version: an analyze job writes the TU's CFAs (cfa::serialize) into
  // cfaDir; verification jobs name that file in cfaPath and a worker that does not hold
  // the TU loads it instead of running Clang again (falls back to the text if it is gone).
  std::string cfaDir, cfaPath;
};

struct AnalyzedFunction {
  std::string name;
  cfa::SourceRange range;
  std::string closureHash;  // cfa::closureHashes
  bool entry = false;       // verified as an entry (see service.h)
};

struct Analysis {
  bool ok = false;          // parsed
  std::string cfaPath;      // the serialized CFAs (JobSpec::cfaDir), "" if not written
  std::string diagnostics;  // Clang's errors when not ok
  std::vector<AnalyzedFunction> functions;  // non-synthetic functions with a body
};

struct JobOutcome {
  enum class Kind { Done, InputError, Failed, Cancelled } kind = Kind::Failed;
  result::VerificationResult result;  // Done
  Analysis analysis;                  // Done, for analyze jobs
  std::string error;                  // InputError, Failed
  double elapsedS = 0;                // wall time in the worker slot
};

class Scheduler {
 public:
  struct Options {
    std::string workerExe;     // argusd binary (started with --worker)
    unsigned workers = 0;      // 0 → hardware_concurrency
    unsigned memoryMb = 4096;  // RLIMIT_AS per worker (the engine reserves a 1 GiB stack)
    double graceS = 5;         // hard deadline = timeout + grace
    double defaultHardLimitS = 600;  // hard deadline for jobs without timeout
    int maxRetries = 1;        // re-runs after a worker crash
    // One extra worker that runs only analyze jobs, so parsing an edited file never
    // waits behind long verification jobs.
    bool analysisSlot = false;
    // Memory: a worker idle for idleRecycleS whose resident memory exceeds recycleMb is
    // replaced by a fresh one (its parsed TUs and warm solver contexts belong to texts
    // that are usually gone by then); while daemon + workers exceed budgetMb (0 = no
    // budget), every idle worker that has run a job is replaced at once.
    double idleRecycleS = 2;
    unsigned recycleMb = 96;  // a fresh worker has ~67 MB resident (the shared libraries)
    unsigned budgetMb = 0;
    unsigned solverMemoryMb = 0;  // the workers' solver memory cap (engine::setSolverMemoryLimitMb), 0 = none
    unsigned jobMemoryMb = 0;     // a worker process's memory cap for its analyses (support::setProcessMemoryLimitMb)
  };
  using Done = std::function<void(const JobOutcome&)>;
  using Started = std::function<void()>;
  // Where a job goes in the order (see the policy above).
  struct Placement {
    int64_t priority = 0;
    int cls = 0;        // higher first: kExplicit for requests, kDocument for documents
    std::string group;  // round-robin unit: a document id, or a client's request group
  };
  static constexpr int kDocument = 0, kVisible = 1, kExplicit = 2;

  explicit Scheduler(Options options);
  ~Scheduler();  // kills the workers, joins the threads; pending waiters get Cancelled
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Adds a waiter for the job `key` (merging with a queued/running job of the same key).
  // Returns the waiter id for withdraw(). `done` runs exactly once unless withdrawn.
  uint64_t submit(const std::string& key, JobSpec spec, int64_t priority, Done done, Started started = {});
  uint64_t submit(const std::string& key, JobSpec spec, Placement place, Done done, Started started = {});
  // Removes a waiter (its callbacks will not run after this returns, unless already
  // running). Unknown ids are ignored.
  void withdraw(uint64_t waiter);
  // Moves the waiter's queued job to another class (visible range changed); a job that
  // runs already or has waiters of a higher class keeps its place.
  void reclass(uint64_t waiter, int cls);

  // True when the waiter's job is running (e.g. a waiter that joined a running job:
  // its `started` callback does not run again).
  bool isRunning(uint64_t waiter) const;

  // Current worker process ids (for tests and diagnostics), 0 for a slot with none.
  std::vector<pid_t> workerPids() const;
  struct WorkerInfo {
    pid_t pid = 0;
    std::string file, function;  // of the job it runs ("" when idle)
    std::string stage;           // the chain stage it runs, e.g. "kind|pred" ("" when idle)
  };
  std::vector<WorkerInfo> workers() const;
  // Verification jobs only (analyze jobs are counted by analysesRun()).
  std::size_t queued() const;
  std::size_t running() const;
  uint64_t workerRestarts() const { return restarts_.load(); }
  uint64_t workersRecycled() const { return recycled_.load(); }
  uint64_t jobsOverBudget() const { return overBudget_.load(); }
  // Jobs ended over the budget beside another job and re-run alone; times a slot waited
  // because a second job would not fit the budget.
  uint64_t jobsRerunAlone() const { return rerunAlone_.load(); }
  uint64_t memoryWaits() const { return gatedWaits_.load(); }
  // Verification jobs whose worker had to parse the text / loaded the analysis's CFAs.
  uint64_t workerParses() const { return workerParses_.load(); }
  uint64_t cfaLoads() const { return cfaLoads_.load(); }
  // Resident memory of the daemon and its workers, in kB (from /proc).
  uint64_t residentKb() const;
  uint64_t jobsRun() const { return jobsRun_.load(); }
  uint64_t analysesRun() const { return analysesRun_.load(); }
  unsigned slots() const { return static_cast<unsigned>(slots_.size()); }

 private:
  struct Job;
  struct Waiter {
    uint64_t id;
    Done done;
    Started started;
  };
  struct Slot;
  void slotLoop(Slot& slot);
  std::shared_ptr<Job> takeJob(Slot& slot);
  bool spawn(Slot& slot);
  void killWorker(Slot& slot);
  JobOutcome runOnWorker(Slot& slot, Job& job, bool& crashed);

  Options opts_;
  mutable std::mutex mu_;  // guards everything below except the atomics
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t nextWaiter_ = 1, nextSeq_ = 1;
  std::map<std::string, std::shared_ptr<Job>> jobs_;   // queued or running, by key
  std::map<uint64_t, std::shared_ptr<Job>> byWaiter_;  // waiter id → its job
  std::map<std::string, uint64_t> served_;             // group → when it last took a slot
  uint64_t serveSeq_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::atomic<uint64_t> restarts_{0}, jobsRun_{0}, analysesRun_{0}, recycled_{0}, workerParses_{0}, cfaLoads_{0}, overBudget_{0}, rerunAlone_{0}, gatedWaits_{0};
  bool shouldRecycle(const Slot& slot) const;  // caller holds mu_
  void trimDaemonHeap();
  std::atomic<int64_t> lastTrimMs_{0};
};

// The TU key of a job (see JobSpec::tu).
std::string tuKeyOf(const JobSpec& spec);

// Encodes a JobSpec for the worker pipe; without the text when `withSource` is false
// (the worker then answers "need_source" if it no longer holds that TU).
std::string encodeJob(uint64_t id, const JobSpec& spec, bool withSource = true);

// The inverse of encodeJob (throws on malformed text).
JobSpec decodeJob(const std::string& text);

// `argusd --worker`: reads framed jobs on stdin, writes framed results on stdout,
// until EOF. Sets RLIMIT_AS to memoryMb first (0 = unlimited).
int runWorker(unsigned memoryMb, unsigned solverMemoryMb = 0, unsigned jobMemoryMb = 0);

}  // namespace argus::server
