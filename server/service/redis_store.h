// The shared result store of a team service (`argusd --redis URL`): results live in one
// Redis hash, `argus:results` (field = the store key of store.h, value = the encoded
// result), so every argusd replica connected to the same Redis serves what any of them
// verified. Same keys and invalidation as SqliteStore: the key holds the engine id, so a
// different argusd build never reads another's results; nothing expires.
//
// Connection: hiredis (libhiredis, Debian), one synchronous connection per store, guarded
// by a mutex, with a 2 s connect/command timeout. A lost connection is re-established on
// the next call (Redis restarted: the results it kept in its AOF are served again); a
// call that fails after that is a miss (get) or is dropped (put), never an error to the
// client. The password (and ACL user) come from a file or the environment, never from
// the URL, and never appear in an error message.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "server/service/store.h"

struct redisContext;

namespace argus::server {

struct RedisConfig {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
  std::string user;      // ACL user ("" = default user)
  std::string password;  // "" = no AUTH
};

// Parses redis://[USER@]HOST[:PORT][/DB]. A password in the URL is refused (it would be
// visible on the command line): throws std::invalid_argument with the reason.
RedisConfig parseRedisUrl(const std::string& url);

// Opens one connection: connect, AUTH (when a password is given), SELECT, PING, with
// timeoutMs for the connect and every command. nullptr and `error` (no secret in it)
// when that fails. The caller frees it with redisFree. Used by RedisStore and the job
// stream (server/service/redis_queue.h).
redisContext* openRedis(const RedisConfig& cfg, std::string& error, int timeoutMs);

class RedisStore : public ResultStore {
 public:
  // Connects at once; ok() false and error() say why when that fails (no server, wrong
  // password, bad database).
  explicit RedisStore(RedisConfig cfg);
  ~RedisStore() override;
  RedisStore(const RedisStore&) = delete;
  RedisStore& operator=(const RedisStore&) = delete;

  bool ok() const override { return ok_; }
  const std::string& error() const override { return error_; }
  std::optional<std::string> get(const std::string& key) override;
  void put(const std::string& key, const std::string& value) override;
  std::size_t size() override;
  // SET argus:lock:KEY <this store's id> NX PX ttl; a claim this store holds already is
  // granted again. release() deletes the lock only while it is this store's.
  bool claim(const std::string& key, long ttlMs) override;
  void release(const std::string& key) override;

  static constexpr const char* kHash = "argus:results";
  static constexpr const char* kLockPrefix = "argus:lock:";

 private:
  bool connectLocked();  // (re)connects, AUTH, SELECT, PING; sets error_
  void dropLocked();

  RedisConfig cfg_;
  std::string id_;  // this store's claim owner: host name, pid, address
  std::mutex mu_;
  redisContext* ctx_ = nullptr;
  bool ok_ = false;
  std::string error_;
};

}  // namespace argus::server
