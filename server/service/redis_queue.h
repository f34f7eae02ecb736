// The job queue of a team service (`argusd --redis URL`): the verification stages of
// argus/verify requests go onto ONE Redis stream, `argus:jobs`, and every replica's
// worker pool takes them through ONE consumer group, `argus-workers` (issue 23 item 2).
//
// Protocol (every key under the prefix "argus:", beside the store's `argus:results`):
// - Enqueue (the replica that holds the client, the *origin*): after the single-flight
//   claim on the result key (ResultStore::claim, unchanged), XADD argus:jobs * key K
//   origin O job J (J = encodeJob with the text, O = the origin's reply stream). Two
//   requests of one key on one replica share one entry (waiters merge by key).
// - Take (every replica, one consumer per replica: host:pid:start-ms): XREADGROUP GROUP
//   argus-workers CONSUMER COUNT 1 BLOCK 200 STREAMS argus:jobs >, only while the
//   replica has room: fewer stream jobs held than verification workers, and an idle
//   worker (or, when all its workers are busy with its own editors' jobs, no stream job
//   held and busy for 1 s, so a replica full of editor work still takes its share). A
//   taken job runs on the local scheduler in its first class (kExplicit), so it goes
//   before the replica's document jobs (the policy of scheduler.h is kept).
// - Done: the runner stores the result in the shared store (Redis hash argus:results),
//   then XADDs the outcome to the origin's reply stream argus:replies:CONSUMER (a stream
//   and not pub/sub: a reply published while the origin reconnects is not lost; it
//   expires an hour after its last reply, so a dead origin's stream goes away), and only
//   then XACKs and XDELs the job (a reply that cannot be sent leaves the job pending:
//   it is delivered again). A runner that dies between the store and the ack leaves an
//   entry whose re-run finds the stored result (no verifier runs again). Should a reply
//   still go missing, the origin looks its waiting stages up in the store every 2 s and
//   serves them from there (Service::flightLoop, stats streamLostReplies).
// - Visibility timeout: a taken job stays in the group's pending list (PEL) under its
//   runner. The runner keeps each of its jobs alive with a heartbeat every claimMs/3:
//   XCLAIM ... JUSTID to itself (resets the idle time, not the delivery count), only
//   while the PEL still names it (a Lua script checks XPENDING first, so a heartbeat
//   never steals back a job another replica reclaimed). A replica that dies stops
//   beating; after claimMs (`--redis-claim-ms`, default 15000) any replica with room
//   takes the entry with XAUTOCLAIM (checked every claimMs/4) and runs it. So a long
//   stage is never stolen from a live runner, whatever its time limit, and a dead
//   runner's job is reclaimed within claimMs + claimMs/4. Single flight stays: the
//   claim on the result key is the origin's (it enqueued), and waiting replicas poll
//   the store as before.
// - Failures: a stage that ends with an answer (a verdict, an input error, a time-limit
//   kill) is replied as it is. A run that fails otherwise (worker crashed twice, over
//   the memory budget, no worker) records its reason (HSET argus:jobfail ID) and
//   releases the entry at once (XCLAIM IDLE <long> JUSTID: reclaimable now by any
//   replica, itself included). The delivery count (XPENDING) counts every XREADGROUP
//   and XAUTOCLAIM delivery; the run that fails on delivery maxDeliveries
//   (`--redis-max-deliveries`, default 3), or a reclaim that finds the count above it
//   (its replicas died on it), replies Failed with the reason ("failed on N
//   deliveries: ...") and acks and deletes the entry: never dropped silently.
// - A job cancelled on its runner (the replica stops) is released at once, as above,
//   without counting as a failure. A client that cancels its request only stops
//   waiting: the job runs to its end elsewhere and its result is stored (not killed
//   across replicas).
// What goes through the stream: argus/verify stages only. Documents' jobs stay on the
// replica that holds the editor: they are superseded on every keystroke (a cancel
// would have to reach another replica within milliseconds), their CFAs are a file in
// the replica's private temp directory, and their results already go to the shared
// store, so another replica's editor is served without a run.
// Priorities: one stream, FIFO across clients (round-robin among clients, the
// scheduler's rule 2, holds within a replica only); interactive before editor work
// as above.
// Connections: three per replica (hiredis): the taker (blocking XREADGROUP, heartbeat,
// XAUTOCLAIM), the listener (blocking XREAD of the reply stream), and a control
// connection for XADD/XACK (mutex). Each reconnects after a lost connection (Redis
// restarted: the stream, the group and the PEL come back from the AOF).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/service/redis_store.h"
#include "server/service/scheduler.h"

struct redisContext;

namespace argus::server {

struct RedisQueueOptions {
  RedisConfig redis;
  std::string prefix = "argus:";
  long claimMs = 15000;   // visibility timeout of a job whose runner stopped its heartbeat
  int maxDeliveries = 3;  // deliveries of a failing job before it is reported failed
};

class RedisJobQueue {
 public:
  using Finish = std::function<void(const JobOutcome&)>;
  // Runs a job taken from the stream on this replica; calls finish exactly once, on any
  // thread (after the result is stored).
  using Runner = std::function<void(const std::string& key, JobSpec spec, Finish finish)>;
  // True when this replica has an idle verification worker.
  using Idle = std::function<bool()>;

  // Connects (control connection), creates the group (XGROUP CREATE ... MKSTREAM) and
  // starts the taker and listener threads; ok() false and error() say why when Redis
  // cannot be reached (no thread runs then). `slots`: how many stream jobs this replica
  // holds at most (its verification workers); 0: it only enqueues (takes no job).
  RedisJobQueue(RedisQueueOptions opts, unsigned slots, Runner run, Idle idle);
  ~RedisJobQueue();  // stop(), then deletes this replica's reply stream
  RedisJobQueue(const RedisJobQueue&) = delete;
  RedisJobQueue& operator=(const RedisJobQueue&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  // Stops taking jobs and listening for replies (idempotent); jobs held here can still
  // finish (their replies and acks go out).
  void stop();

  // Origin side: adds a waiter for the job `key` (XADD unless a waiter of this replica
  // waits for that key already). `done` runs once with the outcome, on the listener
  // thread, unless withdrawn. 0: not enqueued (Redis unreachable): run it locally.
  uint64_t enqueue(const std::string& key, const JobSpec& spec, Scheduler::Done done);
  void withdraw(uint64_t waiter);

  struct Stats {
    uint64_t enqueued = 0;  // XADDs of this replica
    uint64_t taken = 0;     // jobs this replica took with XREADGROUP
    uint64_t reclaimed = 0; // jobs this replica took with XAUTOCLAIM (another's, idle for claimMs)
    uint64_t failed = 0;    // jobs this replica reported failed after maxDeliveries
    uint64_t released = 0;  // failed or cancelled runs given back for another delivery
    uint64_t replies = 0;   // replies this replica received for its waiters
  };
  Stats stats() const;
  const std::string& consumer() const { return consumer_; }
  std::string jobsKey() const { return opts_.prefix + "jobs"; }
  std::string repliesKey() const { return opts_.prefix + "replies:" + consumer_; }
  std::string failKey() const { return opts_.prefix + "jobfail"; }
  static constexpr const char* kGroup = "argus-workers";

 private:
  class Conn;
  struct Held {  // a job taken here, not finished
    std::string key, origin;
    long deliveries = 1;
  };
  void takerLoop();
  void listenerLoop();
  bool reclaimOne(Conn& c, std::string& cursor);
  void heartbeat(Conn& c);
  void handle(Conn& c, const std::string& id, const std::map<std::string, std::string>& fields, long deliveries,
              bool reclaimed);
  void finish(const std::string& id, const JobOutcome& out);
  bool replyTo(const std::string& origin, const std::string& key, const JobOutcome& out);  // holds ctlMu_; false: not sent
  void ackLocked(const std::string& id);                                                      // holds ctlMu_
  void releaseLocked(const std::string& id);                                                  // holds ctlMu_

  RedisQueueOptions opts_;
  unsigned slots_;
  Runner run_;
  Idle idle_;
  std::string consumer_;
  bool ok_ = false;
  std::string error_;

  std::mutex ctlMu_;  // the control connection
  std::unique_ptr<Conn> ctl_;

  mutable std::mutex mu_;  // guards everything below
  bool stopping_ = false;
  uint64_t nextWaiter_ = 1;
  struct Waiter {
    uint64_t id;
    Scheduler::Done done;
  };
  std::map<std::string, std::vector<Waiter>> waiters_;  // result key → waiters of this replica
  std::map<uint64_t, std::string> waiterKey_;
  std::map<std::string, Held> held_;  // stream entry id → job taken here
  Stats stats_;
  std::thread taker_, listener_;
};

}  // namespace argus::server
