// JSON-RPC (LSP framing) over TCP: `argusd --listen HOST:PORT`.
//
// Threads: one Boost.Asio io_context thread accepts connections; each
// accepted connection becomes a *session* with its own thread, its own
// FdTransport on the socket, and its own handler (typically an object owning a
// Dispatcher plus the per-client server state) made by the SessionFactory on
// the session thread. A session ends when its client disconnects (even in
// the middle of a message), its handler closes the transport, or the server
// stops; that ends only that session. Finished sessions are joined and freed
// on the next accept and in stop().
//
// Lifetime inside a session: factory(transport) → transport.run(handler)
// (handler.onClose() at its end) → handler destroyed → transport destroyed.
// Authentication (the `initialize` token) is the handler's business.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "protocol/dispatcher.h"
#include "protocol/framing.h"
#include "protocol/transport.h"

namespace argus::protocol {

struct TcpServerOptions {
  std::string host = "127.0.0.1";  // loopback by default
  std::uint16_t port = 0;          // 0 → ephemeral, see TcpServer::port()
  FramingLimits limits;
  std::size_t maxSessions = 64;    // connections beyond this are closed at once
  // SO_SNDBUF of each session's socket (0: the kernel's autotuning, up to several MB):
  // bounds what the kernel holds for a client that does not read, so the server's own
  // bounded queue sees it stall.
  int sendBufferBytes = 256 * 1024;
};

struct SessionInfo {
  std::uint64_t id = 0;  // 1, 2, ... in accept order
  std::string peer;      // "address:port"
};

class TcpServer {
 public:
  // Returns the handler for a new session, or null to refuse it. May throw
  // (the connection is then closed). Called on the session's thread.
  using SessionFactory = std::function<std::unique_ptr<TransportHandler>(Transport&, const SessionInfo&)>;

  TcpServer(TcpServerOptions options, SessionFactory factory, LogFn log = {});
  ~TcpServer();  // stop()
  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  // Binds, listens and starts accepting; returns the bound port. Throws
  // std::runtime_error (bad host, port in use, ...). Call once.
  std::uint16_t start();
  std::uint16_t port() const { return port_; }

  // Stops accepting, closes every session and joins all threads. Idempotent;
  // must not be called from a session thread.
  void stop();

  // Sessions whose thread has not finished yet.
  std::size_t activeSessions() const;

 private:
  struct Impl;
  struct Session;
  void accept();
  void startSession(int fd, std::string peer);
  void reapFinished();

  TcpServerOptions options_;
  SessionFactory factory_;
  LogFn log_;
  std::unique_ptr<Impl> impl_;  // Asio objects stay out of this header
  std::thread ioThread_;
  std::uint16_t port_ = 0;
  std::atomic<bool> started_{false};
  std::atomic<bool> stopped_{false};
  std::uint64_t nextSessionId_ = 1;  // io thread only

  mutable std::mutex sessionsMu_;  // guards sessions_
  std::list<std::unique_ptr<Session>> sessions_;
};

}  // namespace argus::protocol
