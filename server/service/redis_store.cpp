#include "server/service/redis_store.h"

#include <hiredis/hiredis.h>

#include <unistd.h>

#include <climits>
#include <stdexcept>

namespace argus::server {

RedisConfig parseRedisUrl(const std::string& url) {
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0) throw std::invalid_argument("--redis takes redis://[USER@]HOST[:PORT][/DB]");
  std::string rest = url.substr(scheme.size());
  RedisConfig c;
  if (auto at = rest.rfind('@'); at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    if (userinfo.find(':') != std::string::npos)
      throw std::invalid_argument(
          "a password in the --redis URL is refused (it would show on the command line): "
          "give it with --redis-password-file or ARGUS_REDIS_PASSWORD");
    c.user = userinfo;
    rest = rest.substr(at + 1);
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    std::string db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    if (!db.empty()) {
      size_t n = 0;
      c.db = std::stoi(db, &n);
      if (n != db.size() || c.db < 0) throw std::invalid_argument("bad database number in the --redis URL");
    }
  }
  std::string host = rest;
  if (!rest.empty() && rest.front() == '[') {  // [::1]:6379
    auto close = rest.find(']');
    if (close == std::string::npos) throw std::invalid_argument("bad host in the --redis URL");
    host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() == ':') c.port = std::stoi(rest.substr(1));
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    size_t n = 0;
    std::string p = rest.substr(colon + 1);
    c.port = std::stoi(p, &n);
    if (n != p.size()) throw std::invalid_argument("bad port in the --redis URL");
  }
  if (c.port <= 0 || c.port > 65535) throw std::invalid_argument("bad port in the --redis URL");
  if (!host.empty()) c.host = host;
  return c;
}

namespace {

struct Reply {
  redisReply* r;
  explicit Reply(void* p) : r(static_cast<redisReply*>(p)) {}
  ~Reply() {
    if (r) freeReplyObject(r);
  }
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;
  bool isError() const { return !r || r->type == REDIS_REPLY_ERROR; }
  std::string text() const { return r && r->str ? std::string(r->str, r->len) : std::string(); }
};

}  // namespace

RedisStore::RedisStore(RedisConfig cfg) : cfg_(std::move(cfg)) {
  char host[HOST_NAME_MAX + 1] = {};
  ::gethostname(host, sizeof host - 1);
  id_ = std::string(host) + ":" + std::to_string(::getpid()) + ":" + std::to_string(reinterpret_cast<uintptr_t>(this));
  std::lock_guard lock(mu_);
  ok_ = connectLocked();
}

RedisStore::~RedisStore() {
  std::lock_guard lock(mu_);
  dropLocked();
}

void RedisStore::dropLocked() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
}

redisContext* openRedis(const RedisConfig& cfg, std::string& error, int timeoutMs) {
  const std::string where = "redis " + cfg.host + ":" + std::to_string(cfg.port) + "/" + std::to_string(cfg.db);
  timeval tv{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
  redisContext* ctx = redisConnectWithTimeout(cfg.host.c_str(), cfg.port, tv);
  auto fail = [&](std::string msg) -> redisContext* {
    error = std::move(msg);
    if (ctx) redisFree(ctx);
    return nullptr;
  };
  if (!ctx || ctx->err) return fail("cannot connect to " + where + ": " + (ctx ? ctx->errstr : "out of memory"));
  redisSetTimeout(ctx, tv);
  if (!cfg.password.empty()) {
    Reply a(cfg.user.empty()
                ? redisCommand(ctx, "AUTH %b", cfg.password.data(), cfg.password.size())
                : redisCommand(ctx, "AUTH %b %b", cfg.user.data(), cfg.user.size(), cfg.password.data(),
                               cfg.password.size()));
    // Redis's own message (WRONGPASS ...) names neither the password nor the user's secret.
    if (a.isError()) return fail(where + ": authentication failed: " + (a.r ? a.text() : std::string(ctx->errstr)));
  }
  if (cfg.db != 0) {
    Reply s(redisCommand(ctx, "SELECT %d", cfg.db));
    if (s.isError()) return fail(where + ": cannot select the database: " + (s.r ? s.text() : std::string(ctx->errstr)));
  }
  Reply p(redisCommand(ctx, "PING"));
  if (p.isError())
    // NOAUTH: the server wants a password and none was given.
    return fail(where + ": " + (p.r ? p.text() : std::string(ctx->errstr)) +
                (cfg.password.empty() ? " (no password given: --redis-password-file or ARGUS_REDIS_PASSWORD)" : ""));
  error.clear();
  return ctx;
}

bool RedisStore::connectLocked() {
  dropLocked();
  ctx_ = openRedis(cfg_, error_, 2000);
  return ctx_ != nullptr;
}

std::optional<std::string> RedisStore::get(const std::string& key) {
  std::lock_guard lock(mu_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ctx_ && !connectLocked()) return std::nullopt;
    Reply r(redisCommand(ctx_, "HGET %s %b", kHash, key.data(), key.size()));
    if (!r.r) {  // connection lost (Redis restarted): reconnect once
      dropLocked();
      continue;
    }
    if (r.r->type == REDIS_REPLY_STRING) return r.text();
    return std::nullopt;
  }
  return std::nullopt;
}

void RedisStore::put(const std::string& key, const std::string& value) {
  std::lock_guard lock(mu_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ctx_ && !connectLocked()) return;
    Reply r(redisCommand(ctx_, "HSET %s %b %b", kHash, key.data(), key.size(), value.data(), value.size()));
    if (!r.r) {
      dropLocked();
      continue;
    }
    return;
  }
}

bool RedisStore::claim(const std::string& key, long ttlMs) {
  const std::string lock = std::string(kLockPrefix) + key;
  std::lock_guard g(mu_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ctx_ && !connectLocked()) return true;  // no Redis: compute here
    Reply r(redisCommand(ctx_, "SET %b %b NX PX %ld", lock.data(), lock.size(), id_.data(), id_.size(), ttlMs));
    if (!r.r) {
      dropLocked();
      continue;
    }
    if (r.r->type == REDIS_REPLY_STATUS) return true;  // OK: ours now
    if (r.r->type != REDIS_REPLY_NIL) return true;     // an error reply: do not block on it
    Reply o(redisCommand(ctx_, "GET %b", lock.data(), lock.size()));
    if (!o.r) {
      dropLocked();
      return true;
    }
    return o.r->type == REDIS_REPLY_STRING && o.text() == id_;  // held already by this store
  }
  return true;
}

void RedisStore::release(const std::string& key) {
  const std::string lock = std::string(kLockPrefix) + key;
  static const char* kScript =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
  std::lock_guard g(mu_);
  if (!ctx_ && !connectLocked()) return;
  Reply r(redisCommand(ctx_, "EVAL %s 1 %b %b", kScript, lock.data(), lock.size(), id_.data(), id_.size()));
  if (!r.r) dropLocked();
}

std::size_t RedisStore::size() {
  std::lock_guard lock(mu_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ctx_ && !connectLocked()) return 0;
    Reply r(redisCommand(ctx_, "HLEN %s", kHash));
    if (!r.r) {
      dropLocked();
      continue;
    }
    return r.r->type == REDIS_REPLY_INTEGER ? static_cast<std::size_t>(r.r->integer) : 0;
  }
  return 0;
}

}  // namespace argus::server
