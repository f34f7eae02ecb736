#include "protocol/transport.h"

namespace argus::protocol {

const char* toString(RunEnd end) {
  switch (end) {
    case RunEnd::EndOfStream: return "end of stream";
    case RunEnd::Closed: return "closed";
    case RunEnd::IoError: return "I/O error";
  }
  return "?";
}

std::string serializeMessage(const nlohmann::json& message) {
  return encodeFrame(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace argus::protocol
