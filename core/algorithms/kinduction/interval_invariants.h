// Interval invariants at the loop heads (cut points) of the inlined program, by
// data-flow analysis; and a generator thread that refines them over time.
//
// Domain: one interval per register variable (and the allocation pointer brk), over the
// variable's bit-vector values read as signed two's-complement numbers of its width.
// All operations follow the wrap-around semantics of core/cfa/expr.h: a result whose
// exact range does not fit the width without crossing the wrap point is top. Memory
// contents are not tracked (loads are top), except, with the memory-safety layout
// (cfa::memlayout), the cells of the object table in id 0's range that the program
// stores at addresses the analysis knows exactly (an object's size, state and kind when
// its address register is known, the next free id): a store at such an address sets the
// cell, a store whose address range may overlap the table forgets what it overlaps, a
// load of (a part of) a known cell reads it. So at the head of a loop that neither
// allocates nor frees, the entries of the objects allocated before it are facts the
// step case of k-induction can use (its memory is otherwise arbitrary).
//
// Precision levels, each a sound post-fixpoint followed by descending iterations:
//   0: widening straight to the type bounds;
//   1: widening with thresholds (the program's constants and their neighbours);
//   2: widening delayed for a few iterations per loop head, then with thresholds.
// Every level is sound on its own, so their conjunction is too.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/algorithms/kinduction/affine_invariants.h"
#include "core/algorithms/kinduction/flat_program.h"

namespace argus::algorithms {

struct Itv {
  int64_t lo, hi;  // signed view of a `width`-bit value, lo <= hi
  bool operator==(const Itv&) const = default;
};

struct IntervalFact {
  FlatVar var;      // FlatProgram::vars index, or vars.size() for brk (kMemCell: a memory cell)
  uint32_t width;
  Itv itv;
  uint64_t addr = 0;  // kMemCell: the `width / 8` bytes at this constant address
  static constexpr FlatVar kMemCell = UINT32_MAX;
  bool isMem() const { return var == kMemCell; }
};

// An invariant at every cut point: a conjunction of interval facts, or `unreachable`.
// (Several alternatives per cut point form a disjunction; the levels so far produce one.)
struct CutInvariant {
  bool unreachable = false;
  std::vector<std::vector<IntervalFact>> alternatives;  // disjunction of conjunctions
};
struct IntervalInvariant {
  int level = 0;
  // The analysis found no error and no unsupported construct reachable: on its own a
  // proof of safety (abstract interpretation).
  bool errorUnreachable = false;
  std::vector<CutInvariant> atCut;  // per FlatProgram::cuts index
};

// Runs the analysis at one precision level; nullopt when stopped or too large.
std::optional<IntervalInvariant> computeIntervals(const FlatProgram& fp, int level,
                                                  const std::atomic<bool>* stop = nullptr);

// Is `b` stronger than `a` at some cut point (so worth injecting after `a`)? Only
// compares the single-alternative form conservatively: any difference counts.
bool adds(const IntervalInvariant& a, const IntervalInvariant& b);

// Human-readable formula of a cut invariant ("0 <= i && i <= 10"), C names.
std::string formulaString(const FlatProgram& fp, const CutInvariant& inv);

// The generator: first the affine equalities (affine_invariants.h; takeAffine), then the
// interval levels one after the other, in its own thread; it queues each interval result
// that adds something. The flat program must outlive it.
class IntervalGenerator {
public:
  IntervalGenerator(std::shared_ptr<const FlatProgram> fp, int maxLevel = 2);
  ~IntervalGenerator();  // stops and joins
  void start();
  void stop();
  // Results produced since the last call.
  std::vector<IntervalInvariant> take();
  // The affine equalities, once (nullopt before they are ready, after they were taken,
  // or when the analysis gave up or found no relation).
  std::optional<AffineInvariant> takeAffine();
  double affineSeconds() const { return affineSeconds_.load(); }  // time of the affine analysis
  bool finished() const { return finished_.load(); }
  // Blocks until a result is queued or the generator finished (or timeoutMs passed).
  void waitForResult(unsigned timeoutMs);

private:
  std::shared_ptr<const FlatProgram> fp_;
  int maxLevel_;
  std::atomic<bool> stop_{false}, finished_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<IntervalInvariant> queue_;
  std::optional<AffineInvariant> affine_;
  std::atomic<double> affineSeconds_{0};
  std::thread thread_;
};

}  // namespace argus::algorithms
