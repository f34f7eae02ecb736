#include "protocol/tcp_server.h"

#include <sys/socket.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "protocol/fd_transport.h"

namespace argus::protocol {

namespace asio = boost::asio;
using asio::ip::tcp;

struct TcpServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
};

struct TcpServer::Session {
  SessionInfo info;
  std::unique_ptr<FdTransport> transport;
  std::thread thread;
  std::atomic<bool> done{false};
};

TcpServer::TcpServer(TcpServerOptions options, SessionFactory factory, LogFn log)
    : options_(std::move(options)), factory_(std::move(factory)), log_(std::move(log)), impl_(new Impl) {
  if (!log_)
    log_ = [](std::string_view line) {
      std::fprintf(stderr, "[argus-tcp] %.*s\n", static_cast<int>(line.size()), line.data());
    };
}

TcpServer::~TcpServer() { stop(); }

std::uint16_t TcpServer::start() {
  if (started_.exchange(true)) throw std::runtime_error("TcpServer::start called twice");
  boost::system::error_code ec;
  tcp::endpoint endpoint;
  auto address = asio::ip::make_address(options_.host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, options_.port);
  } else {
    tcp::resolver resolver(impl_->io);
    auto results = resolver.resolve(options_.host, std::to_string(options_.port), ec);
    if (ec || results.empty()) throw std::runtime_error("cannot resolve host '" + options_.host + "'");
    endpoint = results.begin()->endpoint();
  }
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    acceptor.close();
    throw std::runtime_error("cannot listen on " + options_.host + ":" + std::to_string(options_.port) + ": " +
                             ec.message());
  }
  port_ = acceptor.local_endpoint().port();
  accept();
  ioThread_ = std::thread([this] { impl_->io.run(); });
  return port_;
}

void TcpServer::accept() {
  impl_->acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) {
      if (ec == asio::error::operation_aborted || !impl_->acceptor.is_open()) return;
      log_("accept failed: " + ec.message());
    } else {
      boost::system::error_code epEc;
      auto remote = socket.remote_endpoint(epEc);
      std::string peer = epEc ? "?" : remote.address().to_string() + ":" + std::to_string(remote.port());
      int fd = socket.release(epEc);
      if (epEc || fd < 0) {
        log_("cannot take over accepted socket: " + epEc.message());
      } else {
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        startSession(fd, std::move(peer));
      }
    }
    if (!stopped_.load()) accept();
  });
}

void TcpServer::startSession(int fd, std::string peer) {
  reapFinished();
  std::lock_guard<std::mutex> lock(sessionsMu_);
  std::size_t active = 0;
  for (const auto& s : sessions_) active += !s->done.load();
  if (active >= options_.maxSessions || stopped_.load()) {
    log_("refusing connection from " + peer + ": too many sessions");
    ::close(fd);
    return;
  }
  if (options_.sendBufferBytes > 0)
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &options_.sendBufferBytes, sizeof options_.sendBufferBytes);
  auto session = std::make_unique<Session>();
  session->info = SessionInfo{nextSessionId_++, std::move(peer)};
  session->transport = std::make_unique<FdTransport>(fd, fd, /*closeIn=*/true, /*closeOut=*/true, options_.limits);
  Session* s = session.get();
  s->thread = std::thread([this, s] {
    try {
      std::unique_ptr<TransportHandler> handler = factory_(*s->transport, s->info);
      if (handler) {
        RunEnd end = s->transport->run(*handler);
        log_("session " + std::to_string(s->info.id) + " (" + s->info.peer + ") ended: " + toString(end));
        handler.reset();
      }
    } catch (const std::exception& e) {
      log_("session " + std::to_string(s->info.id) + " failed: " + e.what());
    }
    s->transport->close();
    s->done.store(true);
  });
  sessions_.push_back(std::move(session));
}

void TcpServer::reapFinished() {
  std::list<std::unique_ptr<Session>> finished;
  {
    std::lock_guard<std::mutex> lock(sessionsMu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if ((*it)->done.load()) {
        finished.push_back(std::move(*it));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& s : finished)
    if (s->thread.joinable()) s->thread.join();
}

void TcpServer::stop() {
  if (!started_.load() || stopped_.exchange(true)) return;
  impl_->io.stop();
  if (ioThread_.joinable()) ioThread_.join();
  boost::system::error_code ec;
  impl_->acceptor.close(ec);

  std::list<std::unique_ptr<Session>> all;
  {
    std::lock_guard<std::mutex> lock(sessionsMu_);
    for (auto& s : sessions_) s->transport->close();
    all.swap(sessions_);
  }
  for (auto& s : all)
    if (s->thread.joinable()) s->thread.join();
}

std::size_t TcpServer::activeSessions() const {
  std::lock_guard<std::mutex> lock(sessionsMu_);
  std::size_t n = 0;
  for (const auto& s : sessions_) n += !s->done.load();
  return n;
}

}  // namespace argus::protocol
