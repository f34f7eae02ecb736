// Transport over POSIX file descriptors: pipes, stdio, or a connected socket
// (the TCP server uses it per session). See transport.h for the threading
// contract.
//
// run() blocks in poll() on the input fd and on an internal wake-up pipe,
// so close() from another thread interrupts it even on a terminal or pipe.
// send() writes the whole frame under a mutex (partial writes and EINTR
// handled; EAGAIN waits with poll). Sockets are written with MSG_NOSIGNAL;
// for pipes the process should ignore SIGPIPE (argusd does), otherwise a
// vanished reader kills it.
// On a socket, close() also shuts the socket down, which unblocks a writer
// stuck on a full send buffer. A writer blocked on a full *pipe* is not
// interrupted.
#pragma once

#include <atomic>
#include <mutex>

#include "protocol/framing.h"
#include "protocol/transport.h"

namespace argus::protocol {

class FdTransport final : public Transport {
 public:
  // `closeIn`/`closeOut`: close that fd in the destructor (once if equal).
  FdTransport(int inFd, int outFd, bool closeIn, bool closeOut, FramingLimits limits = {});
  ~FdTransport() override;
  FdTransport(const FdTransport&) = delete;
  FdTransport& operator=(const FdTransport&) = delete;

  bool send(const nlohmann::json& message) override;
  RunEnd run(TransportHandler& handler) override;
  void close() override;

  // Writes already framed bytes (tests use it to inject raw input into a peer).
  bool sendRaw(std::string_view bytes);

 private:
  int inFd_;
  int outFd_;
  bool closeIn_;
  bool closeOut_;
  bool outIsSocket_;
  FramingLimits limits_;
  int wakeRead_ = -1;   // self-pipe: close() writes, run() polls
  int wakeWrite_ = -1;
  std::atomic<bool> closed_{false};
  std::mutex writeMu_;  // guards writes to outFd_ and broken_
  bool broken_ = false;
};

}  // namespace argus::protocol
