// The reached set and the waitlist of CPA++ (unifying-view paper, Algorithm 2), kept
// together because CPA++ takes both as input and returns both.
//
// Every reached state has a precision. States are partitioned by a key (usually the
// location and callstack): merge and stop only look at states of the same partition,
// which is sound because states of different partitions are never ⊑-related in our
// composite CPAs (their location components differ). The waitlist is a subset of the
// reached set; its order is configurable:
//   Bfs      first in, first out
//   Dfs      last in, first out
//   Priority highest priority() first, ties last-in-first-out; callstack depth
//            ("deeper first", CPAchecker's callstack-sorted waitlist) and reverse
//            postorder inside a function (all predecessors of a join before the join,
//            which keeps ABE merges from re-expanding states) are such priorities.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <unordered_map>
#include <vector>

#include "core/cpa/state.h"

namespace argus::cpa {

enum class WaitlistOrder { Bfs, Dfs, Priority };

class ReachedSet {
public:
  using KeyFn = std::function<uint64_t(const AbstractState&)>;
  using PriorityFn = std::function<int64_t(const AbstractState&)>;

  explicit ReachedSet(WaitlistOrder order = WaitlistOrder::Bfs, KeyFn key = {}, PriorityFn priority = {});

  // Adds to the reached set and the waitlist.
  void add(const StatePtr& s, const PrecisionPtr& p);
  // Puts a reached state (back) on the waitlist.
  void reAddToWaitlist(const StatePtr& s);
  // Takes a reached state off the waitlist (it stays reached; no-op if not waiting).
  void unwait(const StatePtr& s);
  // Removes from the reached set and the waitlist (no-op if absent).
  void remove(const StatePtr& s);
  // `fresh` takes the place of `old` (reached and, if `old` was waiting, waitlist).
  void replace(const StatePtr& old, const StatePtr& fresh, const PrecisionPtr& p);

  bool contains(const StatePtr& s) const { return entries_.count(s.get()) != 0; }
  bool isWaiting(const StatePtr& s) const;
  PrecisionPtr precision(const StatePtr& s) const;
  void setPrecision(const StatePtr& s, const PrecisionPtr& p);

  // Reached states in the same partition as `s` (in insertion order).
  std::vector<StatePtr> partition(const AbstractState& s) const;
  // Number of reached states in the partition of `s`.
  size_t partitionSize(const AbstractState& s) const;
  // All reached states in insertion order.
  std::vector<StatePtr> states() const;
  size_t size() const { return entries_.size(); }
  const StatePtr& first() const { return first_; }  // the initial state

  bool waitlistEmpty() const { return waitlist_.empty(); }
  size_t waitlistSize() const { return waitlist_.size(); }
  // Removes and returns the next waiting state with its precision.
  std::pair<StatePtr, PrecisionPtr> pop();

private:
  struct Entry {
    StatePtr state;
    PrecisionPtr precision;
    uint64_t seq;    // waitlist order (renewed when re-added)
    uint64_t added;  // insertion order
    uint64_t key;
    bool waiting = false;
    int64_t prio = 0;
  };
  struct WaitKey {
    int64_t prio;
    int64_t seq;  // already negated for LIFO
    const AbstractState* s;
    bool operator<(const WaitKey& o) const {
      if (prio != o.prio) return prio > o.prio;
      if (seq != o.seq) return seq < o.seq;
      return s < o.s;
    }
  };
  WaitKey waitKey(const Entry& e) const;

  WaitlistOrder order_;
  KeyFn key_;
  PriorityFn priority_;
  uint64_t seq_ = 0;
  StatePtr first_;
  std::unordered_map<const AbstractState*, Entry> entries_;
  std::unordered_map<uint64_t, std::vector<const AbstractState*>> partitions_;
  std::set<WaitKey> waitlist_;
};

}  // namespace argus::cpa
