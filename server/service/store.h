// The result store: key (hex hash, see service.h) → encoded result. Two back ends behind
// one interface (ResultStore):
// - SqliteStore (the embedded default): one SQLite table on disk. Survives daemon
//   restarts; several daemons may share a file (SQLite locking, WAL journal).
// - RedisStore (server/service/redis_store.h, `argusd --redis URL`): one Redis hash
//   shared by every replica of a team service.
// Both are thread-safe (one connection, one mutex), use the same keys (engine id +
// function closure hash + stage + options: the key changes whenever the result could)
// and never expire an entry. A store that cannot be opened degrades to "no
// persistence" with an error message, never a crash.
#pragma once

#include <mutex>
#include <optional>
#include <string>

struct sqlite3;

namespace argus::server {

class ResultStore {
 public:
  virtual ~ResultStore() = default;
  virtual bool ok() const = 0;
  virtual const std::string& error() const = 0;
  virtual std::optional<std::string> get(const std::string& key) = 0;
  virtual void put(const std::string& key, const std::string& value) = 0;
  virtual std::size_t size() = 0;
  // Single flight across the daemons sharing a store: claim(key) before computing a
  // result; false means another daemon holds the key's claim (it is computing it: wait
  // for the result, or claim again later). A claim expires after ttlMs; release() after
  // the result is stored (or the job failed). A store not shared by daemons, or one that
  // cannot be reached, always grants the claim (the result is computed here).
  virtual bool claim(const std::string& key, long ttlMs) { return true; }
  virtual void release(const std::string& key) {}
};

class SqliteStore : public ResultStore {
 public:
  // `path` empty → no persistence (get() misses, put() does nothing).
  explicit SqliteStore(const std::string& path);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  bool ok() const override { return db_ != nullptr; }
  const std::string& error() const override { return error_; }

  std::optional<std::string> get(const std::string& key) override;
  void put(const std::string& key, const std::string& value) override;
  std::size_t size() override;

 private:
  std::mutex mu_;        // guards db_ use
  sqlite3* db_ = nullptr;
  std::string error_;
};

// $ARGUS_STORE, else $XDG_CACHE_HOME/argus/results.sqlite, else ~/.cache/argus/results.sqlite.
std::string defaultStorePath();

}  // namespace argus::server
