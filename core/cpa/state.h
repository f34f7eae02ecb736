// Abstract states and precisions of configurable program analyses (CPAs).
//
// Contract (unifying-view paper, Sect. 3): abstract states and precisions are
// immutable once handed to the algorithm; operators create new ones. The one
// exception is the ARG CPA's graph links (parents/children/coverage), which the
// algorithm and refiners update in place (see arg_cpa.h).
//
// States are shared by `StatePtr`. A wrapper or composite state exposes its parts
// through components(), and extract<T>() finds the part of a given type, so an
// operator that needs a sibling's information (e.g. the predicate CPA needs the
// location) asks for it by type instead of downcasting an untyped interface.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace argus::cpa {

class AbstractState {
public:
  virtual ~AbstractState() = default;
  // Parts of a wrapper/composite state (empty for leaf states).
  virtual std::span<const std::shared_ptr<const AbstractState>> components() const { return {}; }
  // Structural equality (used by merge-agree in the composite CPA and by tests).
  virtual bool equals(const AbstractState& other) const { return this == &other; }
  virtual std::string str() const = 0;
};
using StatePtr = std::shared_ptr<const AbstractState>;

class Precision {
public:
  virtual ~Precision() = default;
  virtual std::span<const std::shared_ptr<const Precision>> components() const { return {}; }
};
using PrecisionPtr = std::shared_ptr<const Precision>;

// The precision of CPAs that do not use one.
class NoPrecision final : public Precision {
public:
  static PrecisionPtr get() {
    static const PrecisionPtr p = std::make_shared<NoPrecision>();
    return p;
  }
};

// The first part of `s` (depth first, `s` itself included) of type T, or null.
template <class T>
const T* extract(const AbstractState& s) {
  if (auto* t = dynamic_cast<const T*>(&s)) return t;
  for (const StatePtr& c : s.components())
    if (c)
      if (const T* t = extract<T>(*c)) return t;
  return nullptr;
}

template <class T>
std::shared_ptr<const T> extractPtr(const StatePtr& s) {
  if (auto t = std::dynamic_pointer_cast<const T>(s)) return t;
  for (const StatePtr& c : s->components())
    if (c)
      if (auto t = extractPtr<T>(c)) return t;
  return nullptr;
}

template <class T>
std::shared_ptr<const T> extractPrecision(const PrecisionPtr& p) {
  if (!p) return nullptr;
  if (auto t = std::dynamic_pointer_cast<const T>(p)) return t;
  for (const PrecisionPtr& c : p->components())
    if (auto t = extractPrecision<T>(c)) return t;
  return nullptr;
}

}  // namespace argus::cpa
