// See redis_queue.h for the protocol (stream, consumer group, heartbeat, reclaim, failures).
#include "server/service/redis_queue.h"

#include <hiredis/hiredis.h>

#include <unistd.h>

#include <atomic>
#include <climits>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/result/codec.h"

namespace argus::server {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct ReplyDeleter {
  void operator()(redisReply* r) const {
    if (r) freeReplyObject(r);
  }
};
using Rep = std::unique_ptr<redisReply, ReplyDeleter>;

std::string str(const redisReply* r) {
  return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR) && r->str
             ? std::string(r->str, r->len)
             : std::string();
}

bool isError(const Rep& r) { return !r || r->type == REDIS_REPLY_ERROR; }

// [field, value, field, value, ...] → map
std::map<std::string, std::string> fieldsOf(const redisReply* r) {
  std::map<std::string, std::string> out;
  if (!r || r->type != REDIS_REPLY_ARRAY) return out;
  for (size_t i = 0; i + 1 < r->elements; i += 2) out[str(r->element[i])] = str(r->element[i + 1]);
  return out;
}

const char* kindName(JobOutcome::Kind k) {
  switch (k) {
    case JobOutcome::Kind::Done: return "done";
    case JobOutcome::Kind::InputError: return "input_error";
    case JobOutcome::Kind::Failed: return "failed";
    case JobOutcome::Kind::Cancelled: return "cancelled";
  }
  return "failed";
}

std::string encodeOutcome(const JobOutcome& o, const std::string& runner) {
  json j{{"kind", kindName(o.kind)}, {"error", o.error}, {"elapsed", o.elapsedS}, {"runner", runner}};
  if (o.kind == JobOutcome::Kind::Done) j["result"] = result::encodeResult(o.result);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

JobOutcome decodeOutcome(const std::string& text) {
  JobOutcome o;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    o.kind = JobOutcome::Kind::Failed;
    o.error = "a malformed reply in the job stream";
    return o;
  }
  std::string k = j.value("kind", "failed");
  o.kind = k == "done" ? JobOutcome::Kind::Done
           : k == "input_error" ? JobOutcome::Kind::InputError
           : k == "cancelled" ? JobOutcome::Kind::Cancelled
                              : JobOutcome::Kind::Failed;
  o.error = j.value("error", "");
  o.elapsedS = j.value("elapsed", 0.0);
  if (o.kind == JobOutcome::Kind::Done) {
    try {
      o.result = result::decodeResult(j.at("result"));
    } catch (const std::exception& e) {
      o.kind = JobOutcome::Kind::Failed;
      o.error = std::string("a malformed result in the job stream: ") + e.what();
    }
  }
  return o;
}

// The heartbeat (ARGV[4] = 0) and the release (ARGV[4] = a long idle time) of an entry,
// only while the group's pending list names this consumer as its owner.
// KEYS[1] stream; ARGV: group, consumer, id, idle ms.
const char* kTouch =
    "local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1) "
    "if #p == 1 and p[1][2] == ARGV[2] then "
    "redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[4], 'JUSTID') return 1 end "
    "return 0";

constexpr const char* kReleaseIdleMs = "1000000000";  // ~11 days: older than any claimMs

}  // namespace

// One hiredis connection that reconnects on the next command after a lost one.
class RedisJobQueue::Conn {
 public:
  explicit Conn(RedisConfig cfg) : cfg_(std::move(cfg)) {}
  ~Conn() { drop(); }
  bool ensure() {
    if (ctx_) return true;
    ctx_ = openRedis(cfg_, error_, 2000);
    return ctx_ != nullptr;
  }
  // nullptr: no answer. A connection found broken (Redis restarted) is re-established and
  // the command sent once more, so a reply or an ack is not lost to a stale connection
  // (a command that did reach the old server may run twice: a duplicate job or reply,
  // which the protocol tolerates).
  Rep cmd(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!ensure()) return nullptr;
      Rep r(static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(args.size()), argv.data(), lens.data())));
      if (r) return r;
      drop();  // I/O error or timeout
    }
    return nullptr;
  }
  const std::string& error() const { return error_; }

 private:
  void drop() {
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
  }
  RedisConfig cfg_;
  redisContext* ctx_ = nullptr;
  std::string error_;
};

RedisJobQueue::RedisJobQueue(RedisQueueOptions opts, unsigned slots, Runner run, Idle idle)
    : opts_(std::move(opts)), slots_(slots), run_(std::move(run)), idle_(std::move(idle)) {
  char host[HOST_NAME_MAX + 1] = {};
  ::gethostname(host, sizeof host - 1);
  // Unique per queue, not only per process and millisecond: two queues of one process
  // made in the same millisecond (the tests' origin and runner) shared their replies
  // stream, and one's listener consumed and deleted the other's replies.
  static std::atomic<uint64_t> made{0};
  consumer_ = std::string(host) + ":" + std::to_string(::getpid()) + ":" +
              std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()) +
              ":" + std::to_string(made.fetch_add(1));
  if (opts_.claimMs < 300) opts_.claimMs = 300;
  if (opts_.maxDeliveries < 1) opts_.maxDeliveries = 1;
  ctl_ = std::make_unique<Conn>(opts_.redis);
  {
    std::lock_guard lock(ctlMu_);
    Rep r = ctl_->cmd({"XGROUP", "CREATE", jobsKey(), kGroup, "0", "MKSTREAM"});
    if (!r) {
      error_ = ctl_->error().empty() ? "job stream: no answer from redis" : ctl_->error();
      return;
    }
    if (r->type == REDIS_REPLY_ERROR && str(r.get()).rfind("BUSYGROUP", 0) != 0) {
      error_ = "job stream: " + str(r.get());  // e.g. Redis older than 5 (no streams)
      return;
    }
  }
  ok_ = true;
  if (slots_ > 0) taker_ = std::thread([this] { takerLoop(); });
  listener_ = std::thread([this] { listenerLoop(); });
}

RedisJobQueue::~RedisJobQueue() {
  stop();
  std::lock_guard lock(ctlMu_);
  if (ok_) ctl_->cmd({"DEL", repliesKey()});
}

void RedisJobQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  if (taker_.joinable()) taker_.join();
  if (listener_.joinable()) listener_.join();
}

RedisJobQueue::Stats RedisJobQueue::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

// ---- origin side -------------------------------------------------------------

uint64_t RedisJobQueue::enqueue(const std::string& key, const JobSpec& spec, Scheduler::Done done) {
  if (!ok_) return 0;
  std::string job = encodeJob(0, spec, true);
  std::lock_guard lock(mu_);
  if (stopping_) return 0;
  auto& ws = waiters_[key];
  if (ws.empty()) {
    Rep r;
    {
      std::lock_guard c(ctlMu_);
      r = ctl_->cmd({"XADD", jobsKey(), "*", "key", key, "origin", repliesKey(), "job", job});
    }
    if (isError(r)) {
      waiters_.erase(key);
      return 0;
    }
    stats_.enqueued++;
  }
  uint64_t id = nextWaiter_++;
  ws.push_back({id, std::move(done)});
  waiterKey_[id] = key;
  return id;
}

void RedisJobQueue::withdraw(uint64_t waiter) {
  std::lock_guard lock(mu_);
  auto it = waiterKey_.find(waiter);
  if (it == waiterKey_.end()) return;
  auto w = waiters_.find(it->second);
  if (w != waiters_.end()) {
    std::erase_if(w->second, [&](const Waiter& x) { return x.id == waiter; });
    // no waiter left: the job still runs where it was taken (its result is stored)
    if (w->second.empty()) waiters_.erase(w);
  }
  waiterKey_.erase(it);
}

void RedisJobQueue::listenerLoop() {
  Conn c(opts_.redis);
  std::string last = "0-0";
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    Rep r = c.cmd({"XREAD", "COUNT", "64", "BLOCK", "200", "STREAMS", repliesKey(), last});
    if (!r || r->type == REDIS_REPLY_ERROR) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements == 0) continue;  // nil: nothing in 200 ms
    const redisReply* entries = r->element[0]->element[1];
    for (size_t i = 0; i < entries->elements; ++i) {
      const redisReply* e = entries->element[i];
      std::string id = str(e->element[0]);
      auto f = fieldsOf(e->element[1]);
      last = id;
      JobOutcome out = decodeOutcome(f["outcome"]);
      std::vector<Waiter> ws;
      {
        std::lock_guard lock(mu_);
        stats_.replies++;
        if (auto it = waiters_.find(f["key"]); it != waiters_.end()) {
          ws.swap(it->second);
          waiters_.erase(it);
          for (auto& w : ws) waiterKey_.erase(w.id);
        }
      }
      for (auto& w : ws) w.done(out);
      c.cmd({"XDEL", repliesKey(), id});
    }
  }
}

// ---- runner side -------------------------------------------------------------

void RedisJobQueue::takerLoop() {
  Conn c(opts_.redis);
  const auto beatEvery = std::chrono::milliseconds(std::max(100L, opts_.claimMs / 3));
  const auto reclaimEvery = std::chrono::milliseconds(std::max(100L, opts_.claimMs / 4));
  auto lastBeat = Clock::now(), lastReclaim = Clock::now();
  Clock::time_point busySince{};  // when the workers became busy (while !idle)
  bool busy = false;
  std::string cursor = "0-0";
  for (;;) {
    std::size_t held;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      held = held_.size();
    }
    auto now = Clock::now();
    if (now - lastBeat >= beatEvery) {
      heartbeat(c);
      lastBeat = now;
    }
    bool idle = idle_ ? idle_() : true;
    if (idle) {
      busy = false;
    } else if (!busy) {
      busy = true;
      busySince = now;
    }
    bool room = held < slots_ && (idle || (held == 0 && now - busySince >= std::chrono::seconds(1)));
    if (!room) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (now - lastReclaim >= reclaimEvery) {
      lastReclaim = now;
      if (reclaimOne(c, cursor)) continue;
    }
    Rep r = c.cmd({"XREADGROUP", "GROUP", kGroup, consumer_, "COUNT", "1", "BLOCK", "200", "STREAMS", jobsKey(), ">"});
    if (!r) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    if (r->type == REDIS_REPLY_ERROR) {
      // NOGROUP: the stream was deleted (Redis flushed, restarted without its AOF): create it again
      c.cmd({"XGROUP", "CREATE", jobsKey(), kGroup, "0", "MKSTREAM"});
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements == 0) continue;
    const redisReply* entries = r->element[0]->element[1];
    for (size_t i = 0; i < entries->elements; ++i) {
      const redisReply* e = entries->element[i];
      handle(c, str(e->element[0]), fieldsOf(e->element[1]), 1, false);
    }
  }
}

bool RedisJobQueue::reclaimOne(Conn& c, std::string& cursor) {
  // the cursor walks the whole pending list over successive calls (XAUTOCLAIM looks at a
  // bounded number of entries per call), back to 0-0 at its end
  Rep r = c.cmd({"XAUTOCLAIM", jobsKey(), kGroup, consumer_, std::to_string(opts_.claimMs), cursor, "COUNT", "1"});
  if (isError(r) || r->type != REDIS_REPLY_ARRAY || r->elements < 2) {
    cursor = "0-0";
    return false;
  }
  cursor = str(r->element[0]);
  if (cursor.empty()) cursor = "0-0";
  const redisReply* entries = r->element[1];
  bool any = false;
  for (size_t i = 0; i < entries->elements; ++i) {
    const redisReply* e = entries->element[i];
    if (!e || e->type != REDIS_REPLY_ARRAY || e->elements < 2 || e->element[1]->type != REDIS_REPLY_ARRAY) continue;
    std::string id = str(e->element[0]);
    // the delivery count (XAUTOCLAIM counted this delivery)
    long deliveries = 1;
    Rep p = c.cmd({"XPENDING", jobsKey(), kGroup, id, id, "1"});
    if (!isError(p) && p->type == REDIS_REPLY_ARRAY && p->elements == 1 && p->element[0]->elements >= 4)
      deliveries = static_cast<long>(p->element[0]->element[3]->integer);
    handle(c, id, fieldsOf(e->element[1]), deliveries, true);
    any = true;
  }
  return any;
}

void RedisJobQueue::heartbeat(Conn& c) {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, h] : held_) ids.push_back(id);
  }
  for (const auto& id : ids) c.cmd({"EVAL", kTouch, "1", jobsKey(), kGroup, consumer_, id, "0"});
}

void RedisJobQueue::handle(Conn& c, const std::string& id, const std::map<std::string, std::string>& fields,
                           long deliveries, bool reclaimed) {
  auto get = [&](const char* k) {
    auto it = fields.find(k);
    return it == fields.end() ? std::string() : it->second;
  };
  std::string key = get("key"), origin = get("origin");
  if (deliveries > opts_.maxDeliveries) {
    // its runners died on it (or released it) maxDeliveries times already
    Rep why = c.cmd({"HGET", failKey(), id});
    std::string reason = why && why->type == REDIS_REPLY_STRING ? str(why.get()) : "its replica stopped while running it";
    JobOutcome o;
    o.kind = JobOutcome::Kind::Failed;
    o.error = "failed on " + std::to_string(opts_.maxDeliveries) + " deliveries: " + reason;
    {
      std::lock_guard g(ctlMu_);
      if (replyTo(origin, key, o)) ackLocked(id);
    }
    std::lock_guard lock(mu_);  // lock order: mu_ before ctlMu_ (enqueue), never inside it
    stats_.failed++;
    return;
  }
  JobSpec spec;
  try {
    spec = decodeJob(get("job"));
  } catch (const std::exception& e) {
    JobOutcome o;
    o.kind = JobOutcome::Kind::InputError;
    o.error = std::string("a malformed job in the stream: ") + e.what();
    std::lock_guard g(ctlMu_);
    if (replyTo(origin, key, o)) ackLocked(id);
    return;
  }
  {
    std::lock_guard lock(mu_);
    held_[id] = Held{key, origin, deliveries};
    (reclaimed ? stats_.reclaimed : stats_.taken)++;
  }
  run_(key, std::move(spec), [this, id](const JobOutcome& out) { finish(id, out); });
}

void RedisJobQueue::finish(const std::string& id, const JobOutcome& out) {
  Held h;
  {
    std::lock_guard lock(mu_);
    auto it = held_.find(id);
    if (it == held_.end()) return;
    h = it->second;
    held_.erase(it);
  }
  const bool answer = out.kind == JobOutcome::Kind::Done || out.kind == JobOutcome::Kind::InputError ||
                      (out.kind == JobOutcome::Kind::Failed && out.error.rfind("time limit exceeded", 0) == 0);
  bool failed = false;
  {
    std::lock_guard g(ctlMu_);
    // acked only once the reply is out (the result is stored already: the runner's
    // finish); a reply that cannot be sent leaves the job pending: it is delivered
    // again after claimMs (and then served from the store)
    if (answer) {
      if (replyTo(h.origin, h.key, out)) ackLocked(id);
      return;
    }
    if (out.kind == JobOutcome::Kind::Failed && h.deliveries >= opts_.maxDeliveries) {
      JobOutcome o = out;
      o.error = "failed on " + std::to_string(h.deliveries) + " deliveries: " + out.error;
      if (replyTo(h.origin, h.key, o)) ackLocked(id);
      failed = true;
    } else {
      if (out.kind == JobOutcome::Kind::Failed) ctl_->cmd({"HSET", failKey(), id, out.error});
      releaseLocked(id);  // failed (another delivery may succeed) or cancelled here (replica stopping)
    }
  }
  std::lock_guard lock(mu_);
  (failed ? stats_.failed : stats_.released)++;
}

bool RedisJobQueue::replyTo(const std::string& origin, const std::string& key, const JobOutcome& out) {
  if (origin.empty()) return true;  // nobody to answer
  Rep r = ctl_->cmd({"XADD", origin, "*", "key", key, "outcome", encodeOutcome(out, consumer_)});
  if (isError(r)) return false;
  ctl_->cmd({"PEXPIRE", origin, "3600000"});
  return true;
}

void RedisJobQueue::ackLocked(const std::string& id) {
  ctl_->cmd({"XACK", jobsKey(), kGroup, id});
  ctl_->cmd({"XDEL", jobsKey(), id});
  ctl_->cmd({"HDEL", failKey(), id});
}

void RedisJobQueue::releaseLocked(const std::string& id) {
  ctl_->cmd({"EVAL", kTouch, "1", jobsKey(), kGroup, consumer_, id, kReleaseIdleMs});
}

}  // namespace argus::server
