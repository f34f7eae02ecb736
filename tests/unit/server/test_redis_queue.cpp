// The job stream's protocol pieces (server/service/redis_queue.h) against a real
// redis-server (Debian package, scripts/install-deps.sh) on a free loopback port, with
// runners that are plain functions (no worker processes): reply to the origin and ack,
// reclaim of a silent consumer's job, heartbeat of a long job, failure after N deliveries.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <condition_variable>
#include <mutex>
#include <optional>

#include "common.h"
#include "server/service/redis_queue.h"

namespace argus::server {
namespace {

int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// One redis-server for the test (no persistence), stopped at the end.
class RedisServer {
 public:
  // The port comes from the kernel and is closed again before redis-server binds it: a
  // test running beside this one can take the same port in between (its own redis-server,
  // or a client's local port). So the server that answers must be ours (INFO's process_id),
  // and a child that exited (bind failed) means another port.
  RedisServer() {
    for (int attempt = 0; attempt < 5 && !up_; ++attempt) {
      if (pid_ > 0) stopChild();
      port_ = freePort();
      std::string p = std::to_string(port_), d = dir_.path.string();
      pid_ = ::fork();
      if (pid_ == 0) {
        int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0) ::dup2(null, 1), ::dup2(null, 2);
        ::execlp("redis-server", "redis-server", "--port", p.c_str(), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", d.c_str(), "--loglevel", "warning", nullptr);
        ::_exit(127);
      }
      cfg_.port = port_;
      int status = 0;
      bool exited = false;
      up_ = test::waitFor(
          [&] {
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
              exited = true, pid_ = -1;
              return true;
            }
            return serverPid() == pid_;
          },
          10);
      if (exited) up_ = false;
      if (exited && WIFEXITED(status) && WEXITSTATUS(status) == 127) return;  // not installed: the tests skip
    }
  }
  ~RedisServer() { stopChild(); }
  bool up() const { return up_; }
  const RedisConfig& config() const { return cfg_; }
  long long integer(const std::vector<std::string>& args) {
    std::string err;
    redisContext* c = openRedis(cfg_, err, 2000);
    if (!c) return -1;
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (auto& a : args) argv.push_back(a.data()), lens.push_back(a.size());
    auto* r = static_cast<redisReply*>(redisCommandArgv(c, int(args.size()), argv.data(), lens.data()));
    long long v = -1;
    if (r && r->type == REDIS_REPLY_INTEGER) v = r->integer;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 && r->element[0]->type == REDIS_REPLY_INTEGER)
      v = r->element[0]->integer;  // XPENDING summary: [count, first, last, consumers]
    if (r) freeReplyObject(r);
    redisFree(c);
    return v;
  }

 private:
  void stopChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }
  // The process id of the redis-server answering on the port (-1: none answers).
  long long serverPid() {
    std::string err;
    redisContext* c = openRedis(cfg_, err, 500);
    if (!c) return -1;
    long long pid = -1;
    auto* r = static_cast<redisReply*>(redisCommand(c, "INFO server"));
    if (r && r->type == REDIS_REPLY_STRING) {  // RESP2: a bulk string
      std::string info(r->str, r->len);
      if (auto at = info.find("process_id:"); at != std::string::npos) pid = std::atoll(info.c_str() + at + 11);
    }
    if (r) freeReplyObject(r);
    redisFree(c);
    return pid;
  }
  test::TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  RedisConfig cfg_;
  bool up_ = false;
};

// The outcome a waiter receives.
struct Answer {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<JobOutcome> out;
  int calls = 0;
  Scheduler::Done done() {
    return [this](const JobOutcome& o) {
      std::lock_guard lock(mu);
      out = o;
      calls++;
      cv.notify_all();
    };
  }
  bool wait(double seconds) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return out.has_value(); });
  }
};

RedisQueueOptions options(const RedisServer& r, const std::string& prefix, long claimMs = 15000, int maxDeliveries = 3) {
  RedisQueueOptions o;
  o.redis = r.config();
  o.prefix = prefix;
  o.claimMs = claimMs;
  o.maxDeliveries = maxDeliveries;
  return o;
}

JobSpec spec(const std::string& function) {
  JobSpec s;
  s.file = "q.c";
  s.source = "int main(void) { return 0; }";
  s.function = function;
  s.stage = "bmc";
  return s;
}

// A runner that answers at once: a `false` verdict naming the function and the runner.
RedisJobQueue::Runner answering(const std::string& who) {
  return [who](const std::string&, JobSpec s, RedisJobQueue::Finish finish) {
    JobOutcome o;
    o.kind = JobOutcome::Kind::Done;
    o.result.verdict = result::Verdict::False;
    o.result.algorithm = who + ":" + s.function;
    finish(o);
  };
}

RedisJobQueue::Runner never() {
  return [](const std::string&, JobSpec, RedisJobQueue::Finish) {};
}

#define NEED_REDIS(r)                                                    \
  if (!(r).up()) GTEST_SKIP() << "redis-server is not installed or did not start"

TEST(RedisJobQueue, ResultGoesBackToTheOriginAndTheJobIsAckedAndDeleted) {
  RedisServer redis;
  NEED_REDIS(redis);
  RedisJobQueue origin(options(redis, "t1:"), 0, never(), {});  // takes no job
  ASSERT_TRUE(origin.ok()) << origin.error();
  RedisJobQueue runner(options(redis, "t1:"), 1, answering("runner"), [] { return true; });
  ASSERT_TRUE(runner.ok()) << runner.error();
  Answer a, b;
  ASSERT_NE(origin.enqueue("key1", spec("f"), a.done()), 0u);
  ASSERT_NE(origin.enqueue("key1", spec("f"), b.done()), 0u);  // same key: one entry, two waiters
  ASSERT_TRUE(a.wait(10));
  ASSERT_TRUE(b.wait(10));
  EXPECT_EQ(a.out->kind, JobOutcome::Kind::Done);
  EXPECT_EQ(a.out->result.verdict, result::Verdict::False);
  EXPECT_EQ(a.out->result.algorithm, "runner:f");
  EXPECT_EQ(b.out->result.algorithm, "runner:f");
  EXPECT_EQ(origin.stats().enqueued, 1u);
  EXPECT_EQ(runner.stats().taken, 1u);
  EXPECT_EQ(origin.stats().replies, 1u);
  // replied first, then acked and deleted (a runner dying in between: the job runs again)
  EXPECT_TRUE(test::waitFor([&] { return redis.integer({"XPENDING", "t1:jobs", RedisJobQueue::kGroup}) == 0; }, 5))
      << "the job was not acked";
  EXPECT_TRUE(test::waitFor([&] { return redis.integer({"XLEN", "t1:jobs"}) == 0; }, 5)) << "the job was not deleted";
}

TEST(RedisJobQueue, AWithdrawnWaiterIsNotCalled) {
  RedisServer redis;
  NEED_REDIS(redis);
  RedisJobQueue origin(options(redis, "t2:"), 0, never(), {});
  ASSERT_TRUE(origin.ok()) << origin.error();
  Answer a, b;
  uint64_t wa = origin.enqueue("k", spec("f"), a.done());
  origin.enqueue("k", spec("f"), b.done());
  origin.withdraw(wa);
  RedisJobQueue runner(options(redis, "t2:"), 1, answering("r"), [] { return true; });
  ASSERT_TRUE(b.wait(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(a.calls, 0);
  EXPECT_EQ(b.calls, 1);
}

TEST(RedisJobQueue, ASilentConsumersJobIsReclaimedAfterTheClaimTime) {
  RedisServer redis;
  NEED_REDIS(redis);
  RedisJobQueue origin(options(redis, "t3:"), 0, never(), {});
  ASSERT_TRUE(origin.ok()) << origin.error();
  Answer a;
  {
    // takes the job and never finishes it, then stops (no more heartbeat): a dead runner
    RedisJobQueue dead(options(redis, "t3:", 600), 1, never(), [] { return true; });
    ASSERT_NE(origin.enqueue("k", spec("g"), a.done()), 0u);
    ASSERT_TRUE(test::waitFor([&] { return dead.stats().taken == 1; }, 10));
  }
  auto t0 = std::chrono::steady_clock::now();
  RedisJobQueue rescuer(options(redis, "t3:", 600), 1, answering("rescuer"), [] { return true; });
  ASSERT_TRUE(a.wait(15));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.out->kind, JobOutcome::Kind::Done);
  EXPECT_EQ(a.out->result.algorithm, "rescuer:g");
  EXPECT_EQ(rescuer.stats().reclaimed, 1u);
  EXPECT_EQ(rescuer.stats().taken, 0u);
  EXPECT_LT(waited, 5.0);
  EXPECT_TRUE(test::waitFor([&] { return redis.integer({"XLEN", "t3:jobs"}) == 0; }, 5));
}

TEST(RedisJobQueue, TheHeartbeatKeepsALongJobFromBeingReclaimed) {
  RedisServer redis;
  NEED_REDIS(redis);
  RedisJobQueue origin(options(redis, "t4:"), 0, never(), {});
  ASSERT_TRUE(origin.ok()) << origin.error();
  std::vector<std::thread> running;
  // answers after 3 s: five claim times of 600 ms
  RedisJobQueue slow(options(redis, "t4:", 600), 1,
                     [&](const std::string&, JobSpec s, RedisJobQueue::Finish finish) {
                       running.emplace_back([s, finish] {
                         std::this_thread::sleep_for(std::chrono::seconds(3));
                         JobOutcome o;
                         o.kind = JobOutcome::Kind::Done;
                         o.result.algorithm = "slow:" + s.function;
                         finish(o);
                       });
                     },
                     [] { return true; });
  struct Joiner {
    std::vector<std::thread>& v;
    ~Joiner() {
      for (auto& t : v)
        if (t.joinable()) t.join();
    }
  } joiner{running};
  Answer a;
  ASSERT_NE(origin.enqueue("k", spec("h"), a.done()), 0u);
  ASSERT_TRUE(test::waitFor([&] { return slow.stats().taken == 1; }, 10));
  RedisJobQueue other(options(redis, "t4:", 600), 1, answering("other"), [] { return true; });
  ASSERT_TRUE(a.wait(15));
  EXPECT_EQ(a.out->result.algorithm, "slow:h");
  EXPECT_EQ(other.stats().reclaimed, 0u) << "a live runner's job was stolen";
}

TEST(RedisJobQueue, AJobFailingOnEveryDeliveryIsReportedFailedWithTheReason) {
  RedisServer redis;
  NEED_REDIS(redis);
  RedisJobQueue origin(options(redis, "t5:"), 0, never(), {});
  ASSERT_TRUE(origin.ok()) << origin.error();
  int runs = 0;
  std::mutex mu;
  RedisJobQueue failing(options(redis, "t5:", 400, 3), 1,
                        [&](const std::string&, JobSpec, RedisJobQueue::Finish finish) {
                          {
                            std::lock_guard lock(mu);
                            runs++;
                          }
                          JobOutcome o;
                          o.kind = JobOutcome::Kind::Failed;
                          o.error = "worker process crashed (signal 9)";
                          finish(o);
                        },
                        [] { return true; });
  Answer a;
  ASSERT_NE(origin.enqueue("k", spec("bad"), a.done()), 0u);
  ASSERT_TRUE(a.wait(20));
  EXPECT_EQ(a.out->kind, JobOutcome::Kind::Failed);
  EXPECT_NE(a.out->error.find("failed on 3 deliveries"), std::string::npos) << a.out->error;
  EXPECT_NE(a.out->error.find("worker process crashed"), std::string::npos) << a.out->error;
  EXPECT_TRUE(test::waitFor([&] { return failing.stats().failed == 1; }, 5));
  EXPECT_TRUE(test::waitFor([&] { return redis.integer({"XLEN", "t5:jobs"}) == 0; }, 5)) << "the failed job is removed";
  EXPECT_TRUE(test::waitFor([&] { return redis.integer({"HLEN", "t5:jobfail"}) == 0; }, 5)) << "its failure note stays";
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(runs, 3);
  }
  EXPECT_EQ(failing.stats().released, 2u);
  EXPECT_EQ(failing.stats().taken + failing.stats().reclaimed, 3u);
}

TEST(RedisJobQueue, UnreachableRedisIsAnErrorAndEnqueueDeclines) {
  RedisQueueOptions o;
  o.redis.port = 1;
  o.redis.password = "secret-pw";
  RedisJobQueue q(o, 1, never(), {});
  EXPECT_FALSE(q.ok());
  EXPECT_NE(q.error().find("cannot connect"), std::string::npos) << q.error();
  EXPECT_EQ(q.error().find("secret-pw"), std::string::npos);
  Answer a;
  EXPECT_EQ(q.enqueue("k", spec("f"), a.done()), 0u);
}

}  // namespace
}  // namespace argus::server
