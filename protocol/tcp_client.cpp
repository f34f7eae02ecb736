#include "protocol/tcp_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace argus::protocol {

namespace {

double nowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::pair<std::string, uint16_t> splitHostPort(const std::string& hostPort) {
  auto colon = hostPort.rfind(':');
  if (colon == std::string::npos || colon == 0) throw std::invalid_argument("expected HOST:PORT, got '" + hostPort + "'");
  std::string host = hostPort.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  std::string p = hostPort.substr(colon + 1);
  size_t n = 0;
  unsigned long port = 0;
  try {
    port = std::stoul(p, &n);
  } catch (const std::exception&) {
    n = 0;
  }
  if (p.empty() || n != p.size() || port == 0 || port > 65535) throw std::invalid_argument("bad port in '" + hostPort + "'");
  return {host, static_cast<uint16_t>(port)};
}

TcpClient::TcpClient(const std::string& hostPort, double connectTimeoutS) {
  std::pair<std::string, uint16_t> hp;
  try {
    hp = splitHostPort(hostPort);
  } catch (const std::invalid_argument& e) {
    throw TcpClientError(e.what());
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port = std::to_string(hp.second);
  if (int rc = ::getaddrinfo(hp.first.c_str(), port.c_str(), &hints, &res); rc != 0)
    throw TcpClientError("cannot resolve " + hp.first + ": " + gai_strerror(rc));
  std::string lastError = "no address";
  for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc < 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, static_cast<int>(connectTimeoutS * 1000));
      int err = 0;
      socklen_t len = sizeof err;
      if (rc == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) rc = 0;
      else {
        errno = rc == 0 ? ETIMEDOUT : (err ? err : errno);
        rc = -1;
      }
    }
    if (rc == 0) {
      fd_ = fd;
      break;
    }
    lastError = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (fd_ < 0) throw TcpClientError("cannot connect to " + hostPort + ": " + lastError);
}

TcpClient::~TcpClient() {
  if (fd_ >= 0) ::close(fd_);
}

void TcpClient::send(const nlohmann::json& msg) {
  std::string frame = encodeFrame(msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  size_t off = 0;
  while (off < frame.size()) {
    ssize_t n = ::send(fd_, frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, 10000) <= 0) throw TcpClientError("the server does not read (send timed out)");
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw TcpClientError(std::string("connection lost: ") + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
}

nlohmann::json TcpClient::readMessage(double deadline) {
  for (;;) {
    if (auto ev = reader_.next()) {
      if (auto* err = std::get_if<FramingError>(&*ev)) throw TcpClientError("bad message from the server: " + err->detail);
      try {
        return nlohmann::json::parse(std::get<std::string>(*ev));
      } catch (const std::exception& e) {
        throw TcpClientError(std::string("bad JSON from the server: ") + e.what());
      }
    }
    double left = deadline - nowS();
    if (left <= 0) throw TcpClientError("no answer from the server in time");
    pollfd p{fd_, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (rc < 0 && errno != EINTR) throw TcpClientError(std::string("poll: ") + std::strerror(errno));
    if (rc <= 0) continue;
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) throw TcpClientError("the server closed the connection");
    reader_.feed(std::string_view(buf, static_cast<size_t>(n)));
  }
}

nlohmann::json TcpClient::call(const std::string& method, const nlohmann::json& params, double timeoutS,
                               const NotificationHandler& onNotification) {
  int64_t id = nextId_++;
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  double deadline = nowS() + timeoutS;
  for (;;) {
    nlohmann::json m = readMessage(deadline);
    if (!m.is_object()) continue;
    if (m.contains("method")) {
      if (m.contains("id")) send({{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", nullptr}});  // server request
      else if (onNotification) onNotification(m["method"].get<std::string>(), m.value("params", nlohmann::json()));
      continue;
    }
    if (!m.contains("id") || m["id"] != id) continue;
    if (m.contains("error")) {
      const auto& e = m["error"];
      throw RpcCallError(e.value("code", 0), e.value("message", std::string("error")));
    }
    return m.value("result", nlohmann::json());
  }
}

void TcpClient::notify(const std::string& method, const nlohmann::json& params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

}  // namespace argus::protocol
