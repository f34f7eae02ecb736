#include "protocol/json_parse.h"

#include <limits>

namespace argus::protocol {

bool JsonPath::fail(std::string_view what) const {
  if (error_ && error_->empty()) *error_ = where_ + ": " + std::string(what);
  return false;
}

bool fromJSON(const json& j, bool& out, JsonPath path) {
  if (!j.is_boolean()) return path.fail("expected boolean");
  out = j.get<bool>();
  return true;
}

bool fromJSON(const json& j, std::int64_t& out, JsonPath path) {
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return path.fail("integer out of range");
    out = static_cast<std::int64_t>(u);
    return true;
  }
  if (!j.is_number_integer()) return path.fail("expected integer");
  out = j.get<std::int64_t>();
  return true;
}

bool fromJSON(const json& j, int& out, JsonPath path) {
  std::int64_t v = 0;
  if (!fromJSON(j, v, path)) return false;
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    return path.fail("integer out of range");
  out = static_cast<int>(v);
  return true;
}

bool fromJSON(const json& j, double& out, JsonPath path) {
  if (!j.is_number()) return path.fail("expected number");
  out = j.get<double>();
  return true;
}

bool fromJSON(const json& j, std::string& out, JsonPath path) {
  if (!j.is_string()) return path.fail("expected string");
  out = j.get<std::string>();
  return true;
}

bool fromJSON(const json& j, json& out, JsonPath) {
  out = j;
  return true;
}

}  // namespace argus::protocol
