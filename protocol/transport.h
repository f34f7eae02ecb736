// The wire: moves framed JSON-RPC messages between us and one peer.
//
// Threading contract for every Transport:
// - send() may be called from any thread at any time (writes are serialised
//   by a mutex inside the transport; each message is written whole). After
//   close(), or after a write error, send() is a no-op returning false.
// - run() is called once, on one thread; it blocks, delivering every incoming
//   event to the handler *on that thread, in order*, until end of stream,
//   close() or an I/O error.
// - close() may be called from any thread (including from inside a handler
//   callback); it makes run() return promptly. It does not wait.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "protocol/framing.h"

namespace argus::protocol {

// Receives what a Transport reads. Called on the transport's run() thread.
class TransportHandler {
 public:
  virtual ~TransportHandler() = default;
  // One complete message body (not yet parsed as JSON).
  virtual void onMessage(std::string_view body) = 0;
  // A recoverable framing error; the transport keeps reading.
  virtual void onFramingError(const FramingError& error) = 0;
  // run() is about to return (end of stream, close() or I/O error). Called
  // exactly once per run().
  virtual void onClose() {}
};

enum class RunEnd {
  EndOfStream,  // the peer closed its side
  Closed,       // close() was called
  IoError,      // read failed
};

const char* toString(RunEnd end);

class Transport {
 public:
  virtual ~Transport() = default;

  // Serialises `message` (invalid UTF-8 replaced by U+FFFD) and writes one
  // frame. Thread-safe. Returns false if the transport is closed or broken.
  virtual bool send(const nlohmann::json& message) = 0;

  // Blocks delivering incoming events to `handler`; see the contract above.
  virtual RunEnd run(TransportHandler& handler) = 0;

  // Thread-safe; makes run() return; later sends are dropped.
  virtual void close() = 0;
};

// The serialised form send() writes.
std::string serializeMessage(const nlohmann::json& message);

}  // namespace argus::protocol
