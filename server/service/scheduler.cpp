// See scheduler.h for the design (worker processes, cancellation = kill + restart).
#include "server/service/scheduler.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <list>

#include <nlohmann/json.hpp>

#include "core/cfa/cfa_hash.h"
#include "core/cfa/serialize.h"
#include "core/engine/sessions.h"
#include "core/support/deadline.h"
#include "core/support/large_stack.h"
#include "protocol/framing.h"
#include "core/result/assumption_automaton.h"
#include "core/result/codec.h"

namespace argus::server {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Scheduler::Job {
  std::string key;
  JobSpec spec;
  int64_t priority = 0;
  int cls = 0;        // Placement::cls
  std::string group;  // Placement::group
  uint64_t seq = 0;
  std::vector<Waiter> waiters;
  bool running = false;
  bool cancel = false;  // no waiters left: drop / kill
  int retries = 0;
  // Ended over the memory budget while another job ran: re-run once with no other
  // verification job beside it (Options::budgetMb).
  bool alone = false, aloneRetried = false;
  std::string affinity;  // TU + entry + solver: the worker that ran its last stage holds it warm
};

struct Scheduler::Slot {
  unsigned index = 0;
  bool analysisOnly = false;
  std::thread thread;
  pid_t pid = -1;
  int toFd = -1, fromFd = -1;
  uint64_t nextId = 1;
  std::shared_ptr<Job> current;  // guarded by mu_
  std::deque<std::string> warm;  // affinities of its worker's recent jobs (guarded by mu_)
  std::deque<std::string> tus;   // TU keys its worker holds parsed, MRU first (slot thread)
  Clock::time_point idleSince = Clock::now();  // guarded by mu_
  bool used = false;             // the worker ran a job since it was started (guarded by mu_)
};

// The worker keeps this many parsed translation units (runWorker); the slot mirrors
// the same LRU to know when the text can be left out of a job.
static constexpr std::size_t kWorkerTuCache = 4;

// With a memory budget, a second verification job starts only while daemon and workers use
// at most this share (percent) of it.
static constexpr uint64_t kConcurrentShare = 55;

// Jobs of one entry function's stages go to the worker that ran the previous stage,
// which keeps that deepening warm (engine::SessionCache in runWorker).
static std::string affinityOf(const JobSpec& s) {
  if (s.analyze) return {};
  cfa::Hasher h;
  h.add(s.tu);
  h.add(s.function);
  h.add(smt::solverName(s.solver));
  return h.hex();
}

static uint64_t rssKbOf(pid_t pid);     // resident memory of a worker and its children in kB (0 if gone)
static uint64_t ownRssKbOf(pid_t pid);  // of one process

std::string tuKeyOf(const JobSpec& s) {
  cfa::Hasher h;
  h.add(s.file);
  h.add(s.source.str());
  for (const auto& f : s.flags) h.add(f);
  h.add(s.systemHeadersOnly ? "system-headers-only" : "");
  h.add(frontend::dataModelName(s.dataModel));
  if (!s.properties.empty()) h.add("properties:" + s.properties);
  return h.hex();
}

std::string encodeJob(uint64_t id, const JobSpec& s, bool withSource) {
  json j{{"id", id},
         {"analyze", s.analyze},
         {"file", s.file},
         {"tu", s.tu.empty() ? tuKeyOf(s) : s.tu},
         {"function", s.function},
         {"stage", s.stage},
         {"timeout", s.timeoutS},
         {"solver", smt::solverName(s.solver)},
         {"dataModel", frontend::dataModelName(s.dataModel)},
         {"flags", s.flags},
         {"systemHeadersOnly", s.systemHeadersOnly},
         {"cfaDir", s.cfaDir},
         {"cfaPath", s.cfaPath}};
  if (withSource) j["source"] = s.source.str();
  if (!s.condition.empty()) j["condition"] = s.condition;
  if (!s.wantAutomaton) j["noAutomaton"] = true;
  if (!s.properties.empty()) j["properties"] = s.properties;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

static JobSpec decodeJob(const json& j) {
  JobSpec s;
  s.analyze = j.value("analyze", false);
  s.file = j.at("file").get<std::string>();
  if (j.contains("source")) s.source = j.at("source").get<std::string>();
  s.tu = j.value("tu", "");
  s.function = j.at("function").get<std::string>();
  s.stage = j.value("stage", std::string("bmc"));
  s.timeoutS = j.value("timeout", 0.0);
  s.condition = j.value("condition", std::string());
  s.wantAutomaton = !j.value("noAutomaton", false);
  s.solver = smt::parseSolverKind(j.value("solver", "z3"));
  s.dataModel = frontend::parseDataModel(j.value("dataModel", "LP64"));
  s.flags = j.value("flags", std::vector<std::string>{});
  s.systemHeadersOnly = j.value("systemHeadersOnly", false);
  s.cfaDir = j.value("cfaDir", "");
  s.cfaPath = j.value("cfaPath", "");
  s.properties = j.value("properties", "");
  return s;
}

JobSpec decodeJob(const std::string& text) { return decodeJob(json::parse(text)); }

Scheduler::Scheduler(Options options) : opts_(std::move(options)) {
  // A worker that dies while we write to it must not kill the daemon.
  ::signal(SIGPIPE, SIG_IGN);
  unsigned n = opts_.workers ? opts_.workers : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < n; ++i) {
    auto s = std::make_unique<Slot>();
    s->index = i;
    slots_.push_back(std::move(s));
  }
  if (opts_.analysisSlot) {
    auto s = std::make_unique<Slot>();
    s->index = n;
    s->analysisOnly = true;
    slots_.push_back(std::move(s));
  }
  for (auto& s : slots_) s->thread = std::thread([this, slot = s.get()] { slotLoop(*slot); });
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& s : slots_)
    if (s->thread.joinable()) s->thread.join();
  for (auto& s : slots_) killWorker(*s);
}

uint64_t Scheduler::submit(const std::string& key, JobSpec spec, int64_t priority, Done done, Started started) {
  return submit(key, std::move(spec), Placement{priority, 0, ""}, std::move(done), std::move(started));
}

uint64_t Scheduler::submit(const std::string& key, JobSpec spec, Placement place, Done done, Started started) {
  if (spec.tu.empty()) spec.tu = tuKeyOf(spec);  // outside the lock: hashes the text
  std::lock_guard lock(mu_);
  uint64_t id = nextWaiter_++;
  auto it = jobs_.find(key);
  std::shared_ptr<Job> job;
  if (it != jobs_.end() && !it->second->cancel) {
    job = it->second;
    job->priority = std::max(job->priority, place.priority);
    if (place.cls > job->cls) {
      job->cls = place.cls;
      job->group = place.group;
    }
  } else {
    job = std::make_shared<Job>();
    job->key = key;
    job->affinity = affinityOf(spec);
    job->spec = std::move(spec);
    job->priority = place.priority;
    job->cls = place.cls;
    job->group = std::move(place.group);
    job->seq = nextSeq_++;
    jobs_[key] = job;  // a cancelled running job with this key is forgotten here
  }
  job->waiters.push_back({id, std::move(done), std::move(started)});
  byWaiter_[id] = job;
  cv_.notify_all();  // all: slots differ in the jobs they take
  return id;
}

void Scheduler::withdraw(uint64_t waiter) {
  std::lock_guard lock(mu_);
  auto it = byWaiter_.find(waiter);
  if (it == byWaiter_.end()) return;
  std::shared_ptr<Job> job = it->second;
  byWaiter_.erase(it);
  std::erase_if(job->waiters, [&](const Waiter& w) { return w.id == waiter; });
  if (!job->waiters.empty()) return;
  job->cancel = true;  // a running job is killed by its slot within one tick
  if (auto j = jobs_.find(job->key); j != jobs_.end() && j->second == job) jobs_.erase(j);
}

void Scheduler::reclass(uint64_t waiter, int cls) {
  std::lock_guard lock(mu_);
  auto it = byWaiter_.find(waiter);
  if (it == byWaiter_.end() || it->second->running) return;
  Job& j = *it->second;
  if (j.waiters.size() > 1 && cls < j.cls) return;  // another waiter may have raised it
  j.cls = cls;
}

bool Scheduler::isRunning(uint64_t waiter) const {
  std::lock_guard lock(mu_);
  auto it = byWaiter_.find(waiter);
  return it != byWaiter_.end() && it->second->running;
}

std::vector<Scheduler::WorkerInfo> Scheduler::workers() const {
  std::lock_guard lock(mu_);
  std::vector<WorkerInfo> out;
  for (auto& s : slots_) {
    WorkerInfo w;
    w.pid = s->pid > 0 ? s->pid : 0;
    if (s->current) {
      w.file = s->current->spec.file;
      w.function = s->current->spec.function;
      w.stage = s->current->spec.stage;
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<pid_t> Scheduler::workerPids() const {
  std::lock_guard lock(mu_);
  std::vector<pid_t> out;
  for (auto& s : slots_) out.push_back(s->pid > 0 ? s->pid : 0);
  return out;
}

std::size_t Scheduler::queued() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (auto& [k, j] : jobs_) n += !j->running && !j->spec.analyze;
  return n;
}

std::size_t Scheduler::running() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (auto& [k, j] : jobs_) n += j->running && !j->spec.analyze;
  return n;
}

std::shared_ptr<Scheduler::Job> Scheduler::takeJob(Slot& slot) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopping_) return nullptr;
    std::shared_ptr<Job> best;
    // The policy (see scheduler.h): class first, then the group served longest ago
    // (round-robin among documents and clients), then priority, then FIFO.
    auto lastServed = [&](const std::string& g) {
      auto it = served_.find(g);
      return it == served_.end() ? uint64_t(0) : it->second;
    };
    auto better = [&](const Job& a, const Job& b) {
      if (a.cls != b.cls) return a.cls > b.cls;
      if (a.group != b.group) {
        uint64_t la = lastServed(a.group), lb = lastServed(b.group);
        if (la != lb) return la < lb;
      }
      if (a.priority != b.priority) return a.priority > b.priority;
      return a.seq < b.seq;
    };
    auto warmIn = [&](const Slot& s, const std::string& a) {
      return !a.empty() && std::find(s.warm.begin(), s.warm.end(), a) != s.warm.end();
    };
    // Memory (Options::budgetMb): a job that needs the budget for itself runs alone, and
    // a second verification job starts only while daemon + workers use at most
    // kConcurrentShare of the budget (on SQLite one job takes 0.2-0.8 GB: two that start
    // together end with one of them killed over the budget).
    bool othersBusy = false, aloneRunning = false;
    for (const auto& o : slots_)
      if (o.get() != &slot && o->current && !o->analysisOnly) {
        othersBusy = true;
        aloneRunning = aloneRunning || o->current->alone;
      }
    bool gated = false;
    if (!slot.analysisOnly && othersBusy && opts_.budgetMb > 0) {
      uint64_t total = ownRssKbOf(::getpid());
      for (const auto& o : slots_)
        if (o->pid > 0) total += rssKbOf(o->pid);
      gated = aloneRunning || total > uint64_t(opts_.budgetMb) * 1024 * kConcurrentShare / 100;
      if (gated) gatedWaits_++;
    }
    for (auto& [k, j] : jobs_) {
      if (j->running) continue;
      if (opts_.analysisSlot && j->spec.analyze != slot.analysisOnly) continue;
      if (!j->spec.analyze && (gated || (j->alone && othersBusy))) continue;
      // leave it to an idle worker that holds its state warm
      if (!warmIn(slot, j->affinity) &&
          std::any_of(slots_.begin(), slots_.end(), [&](const auto& o) {
            return o.get() != &slot && !o->current && o->pid > 0 && warmIn(*o, j->affinity);
          }))
        continue;
      if (!best || better(*j, *best)) best = j;
    }
    if (best) {
      best->running = true;
      slot.current = best;
      slot.used = true;
      if (served_.size() > 4096) served_.clear();  // groups come and go; forgetting is fair
      served_[best->group] = ++serveSeq_;
      if (!best->affinity.empty()) {
        slot.warm.push_front(best->affinity);
        if (slot.warm.size() > 8) slot.warm.pop_back();  // the worker's SessionCache holds 8
      }
      return best;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(gated ? 100 : 500));
    if (!stopping_ && shouldRecycle(slot)) {
      lock.unlock();
      killWorker(slot);
      spawn(slot);
      recycled_++;
      lock.lock();
    }
  }
}

static uint64_t ownRssKbOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/statm");
  uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) / 1024;
}

// Proportional set size of a process in kB (shared pages split among their users), 0 if gone.
static uint64_t pssKbOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
  for (std::string key; in >> key;) {
    if (key == "Pss:") {
      uint64_t kb = 0;
      in >> kb;
      return kb;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

// A worker's memory: its resident pages, or, while it has children (the members of a
// parallel chain stage, engine::runChain `kind|pred`, which share its pages copy-on-write),
// the proportional set sizes of the worker and its children, so shared pages count once.
static uint64_t rssKbOf(pid_t pid) {
  std::vector<pid_t> kids;
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  for (long c; children >> c;) kids.push_back(static_cast<pid_t>(c));
  if (kids.empty()) return ownRssKbOf(pid);
  uint64_t kb = pssKbOf(pid);
  for (pid_t c : kids) kb += pssKbOf(c);
  return kb;
}

uint64_t Scheduler::residentKb() const {
  uint64_t kb = ownRssKbOf(::getpid());
  std::lock_guard lock(mu_);
  for (auto& s : slots_)
    if (s->pid > 0) kb += rssKbOf(s->pid);
  return kb;
}

bool Scheduler::shouldRecycle(const Slot& slot) const {
  if (slot.current || !slot.used || slot.pid <= 0) return false;
  // over the budget: at once (a running job's budget check waits for this, runOnWorker)
  if (opts_.budgetMb > 0) {
    uint64_t total = ownRssKbOf(::getpid());
    for (auto& s : slots_)
      if (s->pid > 0) total += rssKbOf(s->pid);
    if (total > uint64_t(opts_.budgetMb) * 1024) return true;
  }
  if (std::chrono::duration<double>(Clock::now() - slot.idleSince).count() < opts_.idleRecycleS) return false;
  return rssKbOf(slot.pid) > uint64_t(opts_.recycleMb) * 1024;
}

void Scheduler::slotLoop(Slot& slot) {
  spawn(slot);  // warm worker before the first job
  for (;;) {
    std::shared_ptr<Job> job = takeJob(slot);
    if (!job) return;
    std::vector<Started> started;
    {
      std::lock_guard lock(mu_);
      for (auto& w : job->waiters)
        if (w.started) started.push_back(w.started);
    }
    for (auto& s : started) s();
    bool crashed = false;
    JobOutcome out = runOnWorker(slot, *job, crashed);
    (job->spec.analyze ? analysesRun_ : jobsRun_)++;
    std::vector<Waiter> waiters;
    {
      std::lock_guard lock(mu_);
      slot.current = nullptr;
      slot.idleSince = Clock::now();
      if (crashed && !job->cancel && !stopping_ && (job->retries < opts_.maxRetries || (job->alone && !job->aloneRetried))) {
        if (job->alone && !job->aloneRetried) job->aloneRetried = true;  // its one re-run alone
        else job->retries++;
        job->running = false;  // re-queued with its original place
        cv_.notify_all();  // all: slots differ in the jobs they take
        continue;
      }
      if (auto j = jobs_.find(job->key); j != jobs_.end() && j->second == job) jobs_.erase(j);
      for (auto& w : job->waiters) byWaiter_.erase(w.id);
      waiters.swap(job->waiters);
    }
    for (auto& w : waiters) w.done(out);
    trimDaemonHeap();
  }
}

// The daemon parses results and builds notifications on many threads; glibc keeps what
// they freed (on SQLite ~60 of ~170 MB of the daemon's heap). Given back at most every 2 s.
void Scheduler::trimDaemonHeap() {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
  int64_t last = lastTrimMs_.load();
  if (now - last < 2000 || !lastTrimMs_.compare_exchange_strong(last, now)) return;
  ::malloc_trim(0);
}

bool Scheduler::spawn(Slot& slot) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return false;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return false;
  }
  std::string mb = std::to_string(opts_.memoryMb), smb = std::to_string(opts_.solverMemoryMb),
              jmb = std::to_string(opts_.jobMemoryMb);
  const char* argv[] = {opts_.workerExe.c_str(), "--worker",         "--memory-mb", mb.c_str(), "--solver-memory-mb",
                        smb.c_str(),             "--job-memory-mb", jmb.c_str(),  nullptr};
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the daemon
    if (::getppid() != parent) ::_exit(1);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
      for (int fd = 3; fd < 4096; ++fd) ::close(fd);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (pid < 0) {
    ::close(in[1]);
    ::close(out[0]);
    return false;
  }
  slot.tus.clear();
  std::lock_guard lock(mu_);
  slot.used = false;
  slot.pid = pid;
  slot.toFd = in[1];
  slot.fromFd = out[0];
  return true;
}

void Scheduler::killWorker(Slot& slot) {
  pid_t pid;
  {
    std::lock_guard lock(mu_);
    pid = slot.pid;
    slot.pid = -1;
    slot.warm.clear();  // its sessions die with it
  }
  slot.tus.clear();
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (slot.toFd >= 0) ::close(slot.toFd);
  if (slot.fromFd >= 0) ::close(slot.fromFd);
  slot.toFd = slot.fromFd = -1;
}

static bool writeAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

JobOutcome Scheduler::runOnWorker(Slot& slot, Job& job, bool& crashed) {
  JobOutcome out;
  auto t0 = Clock::now();
  auto finish = [&](JobOutcome::Kind k, std::string err) {
    out.kind = k;
    out.error = std::move(err);
    out.elapsedS = std::chrono::duration<double>(Clock::now() - t0).count();
    return out;
  };
  if (slot.pid > 0 && ::waitpid(slot.pid, nullptr, WNOHANG) == slot.pid) {
    // The idle worker died (killed from outside, ...): replace it before using it.
    {
      std::lock_guard lock(mu_);
      slot.pid = -1;
    }
    ::close(slot.toFd);
    ::close(slot.fromFd);
    slot.toFd = slot.fromFd = -1;
    restarts_++;
  }
  if (slot.pid <= 0 && !spawn(slot)) return finish(JobOutcome::Kind::Failed, "cannot start a worker process");
  uint64_t id = slot.nextId++;
  bool holds = std::find(slot.tus.begin(), slot.tus.end(), job.spec.tu) != slot.tus.end();
  std::string frame = protocol::encodeFrame(encodeJob(id, job.spec, !holds));
  std::erase(slot.tus, job.spec.tu);
  slot.tus.push_front(job.spec.tu);
  if (slot.tus.size() > kWorkerTuCache) slot.tus.pop_back();
  double limit = job.spec.timeoutS > 0 ? job.spec.timeoutS + opts_.graceS : opts_.defaultHardLimitS;
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
  auto restart = [&] {
    killWorker(slot);
    restarts_++;
    bool stop;
    {
      std::lock_guard lock(mu_);
      stop = stopping_;
    }
    if (!stop) spawn(slot);
  };
  if (!writeAll(slot.toFd, frame)) {
    crashed = true;
    restart();
    return finish(JobOutcome::Kind::Failed, "worker process died (write failed)");
  }
  protocol::FrameReader reader;
  char buf[65536];
  auto nextBudgetCheck = Clock::now();
  Clock::time_point idleWaitFrom{};  // since when the budget check waits for idle workers' recycling
  for (;;) {
    bool cancelled;
    {
      std::lock_guard lock(mu_);
      cancelled = job.cancel || stopping_;
    }
    if (cancelled) {
      restart();
      return finish(JobOutcome::Kind::Cancelled, "cancelled");
    }
    if (opts_.budgetMb > 0 && Clock::now() >= nextBudgetCheck) {
      // Memory budget (daemon + workers): when it is exceeded, the running job with the
      // largest worker ends: re-run once alone if another job ran beside it, else its
      // function is reported over the budget; idle workers are recycled by shouldRecycle
      // (first, when that is enough: below).
      nextBudgetCheck = Clock::now() + std::chrono::milliseconds(100);
      uint64_t total = ownRssKbOf(::getpid()), mine = slot.pid > 0 ? rssKbOf(slot.pid) : 0;
      uint64_t idleKb = 0;  // held by idle workers that ran a job: recycled at once when over
      size_t idleUsed = 0;
      bool largest = true, others = false;
      {
        std::lock_guard lock(mu_);
        for (auto& s : slots_) {
          if (s.get() == &slot || s->pid <= 0) continue;
          uint64_t kb = rssKbOf(s->pid);
          total += kb;
          if (!s->current && s->used) idleKb += kb, ++idleUsed;
          if (s->current && kb > mine) largest = false;
          others = others || (s->current && !s->analysisOnly);
        }
      }
      total += mine;
      const uint64_t budgetKb = uint64_t(opts_.budgetMb) * 1024;
      // Over the budget because an idle worker still holds a finished job's memory: wake
      // it to be recycled (shouldRecycle) and look again, rather than end this job. A
      // fresh worker keeps ~67 MB, so what the recycling frees is idleKb less that.
      const uint64_t freshKb = uint64_t(opts_.recycleMb) * 1024;
      bool idleFrees = false;
      if (total > budgetKb && idleKb > 0) {
        idleFrees = total - idleKb + idleUsed * freshKb <= budgetKb;
        // at most 1 s: if the idle workers were not recycled by then, the rule below holds
        if (idleFrees && idleWaitFrom == Clock::time_point{}) idleWaitFrom = Clock::now();
        if (idleFrees && Clock::now() - idleWaitFrom > std::chrono::seconds(1)) idleFrees = false;
        if (idleFrees) cv_.notify_all();
      } else {
        idleWaitFrom = Clock::time_point{};
      }
      if (total > budgetKb && !idleFrees && largest && mine > 0) {
        restart();
        if (others && !job.alone && !job.spec.analyze) {
          // it may fit with the budget to itself: re-queued, to run with no other job
          std::lock_guard lock(mu_);
          job.alone = true;
          crashed = true;
          rerunAlone_++;
          return finish(JobOutcome::Kind::Failed, "over the memory budget beside another job (re-run alone)");
        }
        overBudget_++;
        return finish(JobOutcome::Kind::Failed,
                      "over the memory budget: daemon and workers used " + std::to_string(total / 1024) +
                          " MB of --memory-budget " + std::to_string(opts_.budgetMb) + " MB, this verification " +
                          std::to_string(mine / 1024) + " MB");
      }
    }
    if (Clock::now() > deadline) {
      restart();
      return finish(JobOutcome::Kind::Failed, "time limit exceeded (worker killed after " +
                                                  std::to_string(static_cast<int>(limit)) + " s)");
    }
    pollfd p{slot.fromFd, POLLIN, 0};
    int r = ::poll(&p, 1, 50);
    if (r < 0 && errno != EINTR) {
      crashed = true;
      restart();
      return finish(JobOutcome::Kind::Failed, "poll failed");
    }
    if (r <= 0) continue;
    ssize_t n = ::read(slot.fromFd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      // EOF: the worker died (crash, OOM kill, or killed from outside).
      int status = 0;
      pid_t pid = slot.pid;
      {
        std::lock_guard lock(mu_);
        slot.pid = -1;
      }
      if (pid > 0)
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
      ::close(slot.toFd);
      ::close(slot.fromFd);
      slot.toFd = slot.fromFd = -1;
      restarts_++;
      bool stop;
      {
        std::lock_guard lock(mu_);
        stop = stopping_;
      }
      if (!stop) spawn(slot);
      crashed = true;
      std::string why = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                            : "exit status " + std::to_string(WEXITSTATUS(status));
      return finish(JobOutcome::Kind::Failed, "worker process crashed (" + why + ")");
    }
    reader.feed(std::string_view(buf, static_cast<size_t>(n)));
    while (auto ev = reader.next()) {
      auto* body = std::get_if<std::string>(&*ev);
      if (!body) continue;
      json j = json::parse(*body, nullptr, false);
      if (j.is_discarded() || j.value("id", uint64_t(0)) != id) continue;
      try {
        if (j.value("kind", "") == "need_source") {  // the worker no longer holds the TU
          id = slot.nextId++;
          if (!writeAll(slot.toFd, protocol::encodeFrame(encodeJob(id, job.spec, true)))) {
            crashed = true;
            restart();
            return finish(JobOutcome::Kind::Failed, "worker process died (write failed)");
          }
          continue;
        }
        if (j.value("kind", "") == "done") {
          std::string how = j.value("tu", "");
          if (how == "parsed") workerParses_++;
          if (how == "loaded") cfaLoads_++;
          out.result = result::decodeResult(j.at("result"));
          return finish(JobOutcome::Kind::Done, "");
        }
        if (j.value("kind", "") == "analysis") {
          const json& a = j.at("analysis");
          out.analysis.ok = a.at("ok").get<bool>();
          out.analysis.diagnostics = a.value("diagnostics", "");
          out.analysis.cfaPath = a.value("cfa", "");
          for (const json& f : a.at("functions")) {
            AnalyzedFunction af;
            af.name = f.at("name").get<std::string>();
            af.closureHash = f.at("closure").get<std::string>();
            af.entry = f.at("entry").get<bool>();
            af.range.file = f.value("file", "");
            af.range.line = f.at("line").get<uint32_t>();
            af.range.column = f.at("column").get<uint32_t>();
            af.range.endLine = f.at("endLine").get<uint32_t>();
            af.range.endColumn = f.at("endColumn").get<uint32_t>();
            out.analysis.functions.push_back(std::move(af));
          }
          return finish(JobOutcome::Kind::Done, "");
        }
        return finish(JobOutcome::Kind::InputError, j.value("error", "input error"));
      } catch (const std::exception& e) {
        return finish(JobOutcome::Kind::Failed, std::string("bad worker reply: ") + e.what());
      }
    }
  }
}

int runWorker(unsigned memoryMb, unsigned solverMemoryMb, unsigned jobMemoryMb) {
  if (memoryMb > 0) {
    rlimit rl;
    rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(memoryMb) * 1024 * 1024;
    ::setrlimit(RLIMIT_AS, &rl);
  }
  // each process of a job (the worker, a forked stage member) caps its solver's memory
  if (solverMemoryMb > 0) engine::setSolverMemoryLimitMb(solverMemoryMb);
  // ... and the analyses stop at the job's memory cap (the BMC unwinding, the CPA algorithms)
  if (jobMemoryMb > 0) support::setProcessMemoryLimitMb(jobMemoryMb);
  rlimit core{0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  // Replies go to a private copy of stdout; fd 1 becomes stderr so stray prints
  // from libraries cannot corrupt the pipe.
  int out = ::dup(1);
  ::dup2(2, 1);
  // Parsed translation units, most recent first: the jobs of one document version
  // (one per entry function and stage) parse it once per worker.
  std::list<std::pair<std::string, std::shared_ptr<frontend::ParseResult>>> parsed;
  // Warm ibmc deepenings (per TU, entry and solver): a function's deep stage continues
  // its shallow stage's unwinding and solver (core/engine/sessions.h), LRU-bounded.
  engine::SessionCache sessions;
  auto tuKey = [](const JobSpec& s) { return s.tu.empty() ? tuKeyOf(s) : s.tu; };
  auto cached = [&](const std::string& key) -> std::shared_ptr<frontend::ParseResult> {
    for (auto it = parsed.begin(); it != parsed.end(); ++it)
      if (it->first == key) {
        parsed.splice(parsed.begin(), parsed, it);
        return parsed.front().second;
      }
    return nullptr;
  };
  // The analysis worker's CFAs, written once per version (cfa::serialize), kept as images:
  // the bytes and a decoded header (SQLite's amalgamation: ~65 MB, against ~300 MB for
  // its decoded CFAs); each job decodes its entry's closure only (ProgramImage::slice).
  std::list<std::pair<std::string, std::shared_ptr<cfa::ProgramImage>>> images;
  auto image = [&](const JobSpec& s) -> std::shared_ptr<cfa::ProgramImage> {
    std::string key = tuKey(s);
    for (auto it = images.begin(); it != images.end(); ++it)
      if (it->first == key) {
        images.splice(images.begin(), images, it);
        return images.front().second;
      }
    if (s.analyze || s.cfaPath.empty()) return nullptr;
    std::ifstream in(s.cfaPath, std::ios::binary);
    if (!in) return nullptr;
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      auto im = std::make_shared<cfa::ProgramImage>(std::move(bytes));
      images.emplace_front(key, im);
      if (images.size() > kWorkerTuCache) images.pop_back();
      return im;
    } catch (const std::exception&) {
      return nullptr;  // damaged: parse the text instead
    }
  };
  std::string how;  // how the last job got its TU: cached, loaded (CFA file), parsed
  // The program a job verifies: its entry's slice from the TU's image (presliced), else
  // the whole TU parsed from the text (cached per version).
  bool presliced = false;
  auto parseCached = [&](const JobSpec& s) {
    std::string key = tuKey(s);
    presliced = false;
    how = "cached";
    if (auto hit = cached(key)) return hit;
    auto pr = std::make_shared<frontend::ParseResult>();
    bool known = std::any_of(images.begin(), images.end(), [&](const auto& i) { return i.first == key; });
    if (auto im = image(s)) {
      how = known ? "cached" : "loaded";
      try {
        auto f = im->shell().funcByName.find(s.function);
        // no such function: an empty program, which the engine answers as it answers that
        pr->program = f == im->shell().funcByName.end() ? std::make_unique<cfa::Program>() : im->slice(f->second);
        presliced = f != im->shell().funcByName.end();
        ::malloc_trim(0);  // the decoding's temporaries
        return pr;
      } catch (const std::exception&) {
        images.remove_if([&](const auto& i) { return i.first == key; });  // damaged: parse the text instead
      }
    }
    frontend::FrontendOptions fo;
    fo.dataModel = s.dataModel;
    fo.extraArgs = s.flags;
    fo.systemHeadersOnly = s.systemHeadersOnly;
    if (!s.properties.empty()) fo.properties = engine::parseProperties(s.properties);
    how = "parsed";
    runOnLargeStack([&] { *pr = frontend::parseSource(s.source.str(), s.file, fo); });
    ::malloc_trim(0);  // Clang's AST is gone; give its memory back
    parsed.emplace_front(key, pr);
    if (parsed.size() > kWorkerTuCache) parsed.pop_back();
    return pr;
  };
  protocol::FrameReader reader;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    reader.feed(std::string_view(buf, static_cast<size_t>(n)));
    while (auto ev = reader.next()) {
      auto* body = std::get_if<std::string>(&*ev);
      if (!body) continue;
      json reply;
      json j = json::parse(*body, nullptr, false);
      reply["id"] = j.is_object() ? j.value("id", uint64_t(0)) : 0;
      try {
        JobSpec s = decodeJob(j);
        const bool imaged = std::any_of(images.begin(), images.end(), [&](const auto& i) { return i.first == tuKey(s); });
        if (!j.contains("source") && !cached(tuKey(s)) && !imaged &&
            (s.cfaPath.empty() || ::access(s.cfaPath.c_str(), R_OK) != 0)) {
          reply["kind"] = "need_source";
          if (!writeAll(out, protocol::encodeFrame(reply.dump()))) return 1;
          continue;
        }
        engine::VerifyRequest req;
        req.file = s.file;  // the text is parsed (and cached) below, not by the engine
        req.function = s.function;
        req.algorithm = engine::Algorithm::Cmc;  // one stage of the plan's chain
        req.chain = s.stage;
        req.timeoutS = s.timeoutS;
        req.maxMemoryMb = jobMemoryMb;
        if (!s.condition.empty())
          req.conditionIn = std::make_shared<result::AssumptionAutomaton>(result::automatonFromJson(json::parse(s.condition)));
        req.solver = s.solver;
        req.dataModel = s.dataModel;
        req.extraArgs = s.flags;
        std::shared_ptr<frontend::ParseResult> pr = parseCached(s);
        if (s.analyze) {
          json a{{"ok", pr->ok()}, {"diagnostics", pr->diagnostics}, {"functions", json::array()}};
          if (pr->ok() && !s.cfaDir.empty()) {
            std::string path = s.cfaDir + "/" + tuKey(s) + ".cfa", tmp = path + ".tmp";
            std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
            o << cfa::serialize(*pr->program);
            o.close();
            if (o && ::rename(tmp.c_str(), path.c_str()) == 0) a["cfa"] = path;
            else ::unlink(tmp.c_str());
          }
          if (pr->ok()) {
            std::map<std::string, std::string> closure = cfa::closureHashes(*pr->program);
            for (const cfa::Function& f : pr->program->functions) {
              if (cfa::isSyntheticFunction(f)) continue;
              bool entry = f.name.rfind("__VERIFIER_", 0) != 0 && f.name != "reach_error" && !f.systemHeader;
              a["functions"].push_back({{"name", f.name}, {"closure", closure[f.name]}, {"entry", entry},
                                        {"file", f.range.file}, {"line", f.range.line}, {"column", f.range.column},
                                        {"endLine", f.range.endLine}, {"endColumn", f.range.endColumn}});
            }
          }
          reply["kind"] = "analysis";
          reply["analysis"] = std::move(a);
          if (!writeAll(out, protocol::encodeFrame(reply.dump(-1, ' ', false, json::error_handler_t::replace)))) return 1;
          continue;
        }
        engine::VerifyOutcome o;
        if (!pr->ok()) {
          o.inputError = true;
          o.error = "cannot parse " + s.file + ":\n" + pr->diagnostics;
        } else {
          req.sessions = &sessions;
          req.sessionKey = tuKey(s) + "|" + s.function + "|" + smt::solverName(s.solver);
          req.keepAlive = pr;
          req.presliced = presliced;
          // a stage's process needs its slice (req.keepAlive), not the cached TUs
          req.inChildProcess = [&images, &parsed] {
            images.clear();
            parsed.clear();
            ::malloc_trim(0);
          };
          o = engine::verifyParsed(*pr->program, req);
          if (o.inputError && req.conditionIn) {  // the condition does not fit this program: explore everything
            req.conditionIn.reset();
            o = engine::verifyParsed(*pr->program, req);
          }
        }
        o.result.property = s.properties;  // as engine::verify reports what it checked
        if (!s.wantAutomaton) result::dropAutomaton(o.result.condition);
        if (o.inputError) {
          reply["kind"] = "input_error";
          reply["error"] = o.error;
        } else {
          reply["kind"] = "done";
          reply["tu"] = how;
          reply["result"] = result::encodeResult(o.result);
        }
      } catch (const std::exception& e) {
        reply["kind"] = "input_error";
        reply["error"] = std::string("bad job: ") + e.what();
      }
      if (!writeAll(out, protocol::encodeFrame(reply.dump(-1, ' ', false, json::error_handler_t::replace)))) return 1;
    }
  }
}

}  // namespace argus::server
