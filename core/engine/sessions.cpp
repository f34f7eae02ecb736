#include "core/engine/sessions.h"

namespace argus::engine {

std::unique_ptr<SessionCache::Entry> SessionCache::take(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->first == key) {
      std::unique_ptr<Entry> e = std::move(it->second);
      entries_.erase(it);
      ++hits_;
      return e;
    }
  ++misses_;
  return nullptr;
}

void SessionCache::put(const std::string& key, std::unique_ptr<Entry> e) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->first == key) {
      entries_.erase(it);
      break;
    }
  entries_.emplace_front(key, std::move(e));
  auto terms = [&] {
    size_t n = 0;
    for (auto& [k, x] : entries_) n += x->session ? x->session->termCount() : 0;
    return n;
  };
  while (entries_.size() > maxEntries_ || (entries_.size() > 1 && terms() > maxTerms_)) {
    entries_.pop_back();
    ++evictions_;
  }
}

}  // namespace argus::engine
