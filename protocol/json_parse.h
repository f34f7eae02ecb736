// Helpers for the `bool fromJSON(const json&, T&, JsonPath)` convention used
// by all protocol structs (found by ADL, so server-side types can add their
// own overloads in their namespace).
//
// Contract: fromJSON returns false on a shape mismatch and records the first
// error with its location ("params.textDocument.uri: expected string"); it
// never throws. Unknown object members are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace argus::protocol {

using json = nlohmann::json;

// Where in the value we are; shares one error slot with its parent paths.
class JsonPath {
 public:
  // `error` receives the first error; it must outlive the path.
  explicit JsonPath(std::string* error, std::string where = "params")
      : error_(error), where_(std::move(where)) {}

  JsonPath field(std::string_view name) const { return JsonPath(error_, where_ + "." + std::string(name)); }
  JsonPath index(std::size_t i) const { return JsonPath(error_, where_ + "[" + std::to_string(i) + "]"); }

  // Records "<where>: <what>" unless an error was already recorded; returns false.
  bool fail(std::string_view what) const;
  const std::string& where() const { return where_; }

 private:
  std::string* error_;
  std::string where_;
};

// Primitives. Integers must be integral JSON numbers within range.
bool fromJSON(const json& j, bool& out, JsonPath path);
bool fromJSON(const json& j, int& out, JsonPath path);
bool fromJSON(const json& j, std::int64_t& out, JsonPath path);
bool fromJSON(const json& j, double& out, JsonPath path);
bool fromJSON(const json& j, std::string& out, JsonPath path);
// Any value (including null) is accepted as-is.
bool fromJSON(const json& j, json& out, JsonPath path);

// null → nullopt; otherwise parse T.
template <class T>
bool fromJSON(const json& j, std::optional<T>& out, JsonPath path) {
  if (j.is_null()) {
    out.reset();
    return true;
  }
  T value{};
  if (!fromJSON(j, value, path)) return false;
  out = std::move(value);
  return true;
}

template <class T>
bool fromJSON(const json& j, std::vector<T>& out, JsonPath path) {
  if (!j.is_array()) return path.fail("expected array");
  out.clear();
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    T value{};
    if (!fromJSON(j[i], value, path.index(i))) return false;
    out.push_back(std::move(value));
  }
  return true;
}

// Reads members of an object. Construct it, check ok(), then chain
// required()/optional() with &&.
class ObjectReader {
 public:
  ObjectReader(const json& j, JsonPath path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) path_.fail("expected object");
  }

  bool ok() const { return j_.is_object(); }

  // Missing member → error. (A present null is passed to T's fromJSON.)
  template <class T>
  bool required(std::string_view key, T& out) const {
    auto it = j_.find(key);
    if (it == j_.end()) return path_.field(key).fail("missing required field");
    return fromJSON(*it, out, path_.field(key));
  }

  // Missing member or null → `out` unchanged (keeps its default).
  template <class T>
  bool optional(std::string_view key, T& out) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    return fromJSON(*it, out, path_.field(key));
  }

  // Missing member or null → nullopt.
  template <class T>
  bool optional(std::string_view key, std::optional<T>& out) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      out.reset();
      return true;
    }
    return fromJSON(*it, out, path_.field(key));
  }

  const JsonPath& path() const { return path_; }

 private:
  const json& j_;
  JsonPath path_;
};

// Convenience: parse `j` as T; on failure `*error` says where and why.
template <class T>
bool parseJSON(const json& j, T& out, std::string* error, std::string root = "params") {
  std::string local;
  std::string* sink = error ? error : &local;
  sink->clear();
  return fromJSON(j, out, JsonPath(sink, std::move(root)));
}

// toJSON for vectors of anything that has a toJSON overload.
template <class T>
json toJSON(const std::vector<T>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back(toJSON(x));
  return a;
}

}  // namespace argus::protocol
