#include "server/service/store.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>

namespace argus::server {

SqliteStore::SqliteStore(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    error_ = std::string("cannot open result store ") + path + ": " + (db_ ? sqlite3_errmsg(db_) : "?");
    sqlite3_close(db_);
    db_ = nullptr;
    return;
  }
  sqlite3_busy_timeout(db_, 2000);
  char* err = nullptr;
  const char* schema =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE IF NOT EXISTS results(key TEXT PRIMARY KEY, value TEXT NOT NULL,"
      " created INTEGER NOT NULL DEFAULT (strftime('%s','now')));";
  if (sqlite3_exec(db_, schema, nullptr, nullptr, &err) != SQLITE_OK) {
    error_ = std::string("result store ") + path + ": " + (err ? err : "?");
    sqlite3_free(err);
    sqlite3_close(db_);
    db_ = nullptr;
  }
}

SqliteStore::~SqliteStore() {
  if (db_) sqlite3_close(db_);
}

std::optional<std::string> SqliteStore::get(const std::string& key) {
  std::lock_guard lock(mu_);
  if (!db_) return std::nullopt;
  sqlite3_stmt* st = nullptr;
  std::optional<std::string> out;
  if (sqlite3_prepare_v2(db_, "SELECT value FROM results WHERE key = ?1", -1, &st, nullptr) != SQLITE_OK) return out;
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* v = sqlite3_column_text(st, 0);
    out = std::string(reinterpret_cast<const char*>(v), sqlite3_column_bytes(st, 0));
  }
  sqlite3_finalize(st);
  return out;
}

void SqliteStore::put(const std::string& key, const std::string& value) {
  std::lock_guard lock(mu_);
  if (!db_) return;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO results(key, value) VALUES (?1, ?2)", -1, &st, nullptr) != SQLITE_OK)
    return;
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  sqlite3_step(st);
  sqlite3_finalize(st);
}

std::size_t SqliteStore::size() {
  std::lock_guard lock(mu_);
  if (!db_) return 0;
  sqlite3_stmt* st = nullptr;
  std::size_t n = 0;
  if (sqlite3_prepare_v2(db_, "SELECT COUNT(*) FROM results", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = static_cast<std::size_t>(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  return n;
}

std::string defaultStorePath() {
  if (const char* p = std::getenv("ARGUS_STORE")) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/argus/results.sqlite";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/argus/results.sqlite";
  return "";
}

}  // namespace argus::server
