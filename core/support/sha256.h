// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the file hashes of
// verification witnesses (core/result/witness.h). Small and dependency-free; not for
// anything secret (no constant-time guarantees).
#pragma once

#include <string>
#include <string_view>

namespace argus::support {

std::string sha256Hex(std::string_view bytes);

}  // namespace argus::support
