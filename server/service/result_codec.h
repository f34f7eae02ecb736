// Lossless JSON form of result::VerificationResult, for the worker pipe and the
// result store (server-side only; core stays JSON-free in its service API).
// result::toJson gives the public `argus verify --format json` shape; this adds
// nothing public and can be read back.
#pragma once

#include <nlohmann/json.hpp>

#include "core/result/result.h"

namespace argus::server {

nlohmann::json encodeResult(const result::VerificationResult& r);
// Throws nlohmann::json::exception on malformed input.
result::VerificationResult decodeResult(const nlohmann::json& j);

}  // namespace argus::server
