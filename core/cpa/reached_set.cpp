#include "core/cpa/reached_set.h"

#include <algorithm>
#include <stdexcept>

namespace argus::cpa {

ReachedSet::ReachedSet(WaitlistOrder order, KeyFn key, PriorityFn priority)
    : order_(order), key_(std::move(key)), priority_(std::move(priority)) {
  if (order_ == WaitlistOrder::Priority && !priority_) throw std::invalid_argument("ReachedSet: priority order needs a priority function");
}

ReachedSet::WaitKey ReachedSet::waitKey(const Entry& e) const {
  int64_t seq = static_cast<int64_t>(e.seq);
  if (order_ != WaitlistOrder::Bfs) seq = -seq;
  return {order_ == WaitlistOrder::Priority ? e.prio : 0, seq, e.state.get()};
}

void ReachedSet::add(const StatePtr& s, const PrecisionPtr& p) {
  if (contains(s)) throw std::logic_error("ReachedSet::add: state already reached");
  uint64_t n = seq_++;
  Entry e{s, p, n, n, key_ ? key_(*s) : 0, true, priority_ ? priority_(*s) : 0};
  if (!first_) first_ = s;
  partitions_[e.key].push_back(s.get());
  waitlist_.insert(waitKey(e));
  entries_.emplace(s.get(), std::move(e));
}

void ReachedSet::reAddToWaitlist(const StatePtr& s) {
  auto it = entries_.find(s.get());
  if (it == entries_.end()) throw std::logic_error("ReachedSet::reAddToWaitlist: state not reached");
  if (it->second.waiting) return;
  it->second.seq = seq_++;  // re-added states are treated as new for the order
  it->second.waiting = true;
  waitlist_.insert(waitKey(it->second));
}

void ReachedSet::unwait(const StatePtr& s) {
  auto it = entries_.find(s.get());
  if (it == entries_.end() || !it->second.waiting) return;
  waitlist_.erase(waitKey(it->second));
  it->second.waiting = false;
}

void ReachedSet::remove(const StatePtr& s) {
  auto it = entries_.find(s.get());
  if (it == entries_.end()) return;
  if (it->second.waiting) waitlist_.erase(waitKey(it->second));
  auto& part = partitions_[it->second.key];
  part.erase(std::find(part.begin(), part.end(), s.get()));
  if (part.empty()) partitions_.erase(it->second.key);
  if (first_ == s) first_ = nullptr;
  entries_.erase(it);
}

void ReachedSet::replace(const StatePtr& old, const StatePtr& fresh, const PrecisionPtr& p) {
  auto it = entries_.find(old.get());
  if (it == entries_.end()) throw std::logic_error("ReachedSet::replace: state not reached");
  bool wasFirst = first_ == old;
  remove(old);
  add(fresh, p);
  if (wasFirst) first_ = fresh;
}

bool ReachedSet::isWaiting(const StatePtr& s) const {
  auto it = entries_.find(s.get());
  return it != entries_.end() && it->second.waiting;
}

PrecisionPtr ReachedSet::precision(const StatePtr& s) const {
  auto it = entries_.find(s.get());
  if (it == entries_.end()) throw std::logic_error("ReachedSet::precision: state not reached");
  return it->second.precision;
}

void ReachedSet::setPrecision(const StatePtr& s, const PrecisionPtr& p) {
  auto it = entries_.find(s.get());
  if (it == entries_.end()) throw std::logic_error("ReachedSet::setPrecision: state not reached");
  it->second.precision = p;
}

size_t ReachedSet::partitionSize(const AbstractState& s) const {
  auto it = partitions_.find(key_ ? key_(s) : 0);
  return it == partitions_.end() ? 0 : it->second.size();
}

std::vector<StatePtr> ReachedSet::partition(const AbstractState& s) const {
  std::vector<StatePtr> out;
  auto it = partitions_.find(key_ ? key_(s) : 0);
  if (it == partitions_.end()) return out;
  for (const AbstractState* x : it->second) out.push_back(entries_.at(x).state);
  return out;
}

std::vector<StatePtr> ReachedSet::states() const {
  std::vector<const Entry*> es;
  for (auto& [k, e] : entries_) es.push_back(&e);
  std::sort(es.begin(), es.end(), [](const Entry* a, const Entry* b) { return a->added < b->added; });
  std::vector<StatePtr> out;
  for (const Entry* e : es) out.push_back(e->state);
  return out;
}

std::pair<StatePtr, PrecisionPtr> ReachedSet::pop() {
  if (waitlist_.empty()) throw std::logic_error("ReachedSet::pop: empty waitlist");
  WaitKey k = *waitlist_.begin();
  waitlist_.erase(waitlist_.begin());
  Entry& e = entries_.at(k.s);
  e.waiting = false;
  return {e.state, e.precision};
}

}  // namespace argus::cpa
