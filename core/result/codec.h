// Lossless JSON form of VerificationResult: the daemon's worker pipe and result
// store, `argus project`'s workers, and the engine's parallel stages (one process per
// member) use it. result::toJson gives the public `argus verify --format json` shape;
// this adds what it leaves out (assignment order, every assumption clause, the
// condition's automaton) and can be read back.
#pragma once

#include <nlohmann/json.hpp>

#include "core/result/result.h"

namespace argus::result {

nlohmann::json encodeResult(const VerificationResult& r);
// Throws nlohmann::json::exception on malformed input.
VerificationResult decodeResult(const nlohmann::json& j);

}  // namespace argus::result
