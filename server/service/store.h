// The on-disk result store: key (hex hash, see service.h) → encoded result, in one
// SQLite table. Survives daemon restarts; several daemons may share a file (SQLite
// locking, WAL journal). Thread-safe (one connection, one mutex). A store that
// cannot be opened degrades to "no persistence" with an error message, never a crash.
#pragma once

#include <mutex>
#include <optional>
#include <string>

struct sqlite3;

namespace argus::server {

class ResultStore {
 public:
  // `path` empty → no persistence (get() misses, put() does nothing).
  explicit ResultStore(const std::string& path);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  bool ok() const { return db_ != nullptr; }
  const std::string& error() const { return error_; }

  std::optional<std::string> get(const std::string& key);
  void put(const std::string& key, const std::string& value);
  std::size_t size();

 private:
  std::mutex mu_;        // guards db_ use
  sqlite3* db_ = nullptr;
  std::string error_;
};

// $ARGUS_STORE, else $XDG_CACHE_HOME/argus/results.sqlite, else ~/.cache/argus/results.sqlite.
std::string defaultStorePath();

}  // namespace argus::server
