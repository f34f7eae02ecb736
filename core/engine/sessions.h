// Warm incremental verification state kept between requests.
//
// argusd runs a function's shallow stage (ibmc up to a small bound) and then its deep
// stage (ibmc without a bound) as two jobs. A worker keeps the first job's unwinding
// and solver here, so the deep stage continues from the shallow bound instead of
// starting again. Entries are evicted least recently used first, bounded by count and
// by the total size of their term DAGs (a proxy for solver memory).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "core/algorithms/bmc/bmc.h"

namespace argus::engine {

class SessionCache {
public:
  struct Entry {
    std::shared_ptr<const void> keepAlive;            // owns the Program the session reads
    std::unique_ptr<algorithms::BmcSession> session;
    uint32_t bound = 0;                                // explored up to here
  };

  SessionCache(size_t maxEntries = 8, size_t maxTerms = 4'000'000) : maxEntries_(maxEntries), maxTerms_(maxTerms) {}

  // Removes and returns the entry stored under key (null if none).
  std::unique_ptr<Entry> take(const std::string& key);
  // Stores an entry (replacing one with the same key), then evicts down to the limits.
  void put(const std::string& key, std::unique_ptr<Entry> e);

  size_t size() const { return entries_.size(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t evictions() const { return evictions_; }

private:
  size_t maxEntries_, maxTerms_;
  std::list<std::pair<std::string, std::unique_ptr<Entry>>> entries_;  // most recent first
  uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
};

}  // namespace argus::engine
