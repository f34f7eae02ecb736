// A blocking JSON-RPC client over TCP with LSP framing, for the command-line tools that
// talk to a running argusd (`argus remote verify`, `argusd --health`). One request at a
// time: call() sends it and reads messages until its response, handing notifications
// (e.g. argus/partialResult) to a callback and answering server requests with null
// (window/workDoneProgress/create). Every read has a deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "protocol/framing.h"

namespace argus::protocol {

// Transport failure (cannot connect, connection closed, deadline passed, bad framing).
struct TcpClientError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A JSON-RPC error response: code and message from the server.
struct RpcCallError : std::runtime_error {
  int code;
  RpcCallError(int c, const std::string& msg) : std::runtime_error(msg), code(c) {}
};

class TcpClient {
 public:
  using NotificationHandler = std::function<void(const std::string& method, const nlohmann::json& params)>;

  // Connects to HOST:PORT (HOST may be [::1]); throws TcpClientError.
  TcpClient(const std::string& hostPort, double connectTimeoutS = 5);
  ~TcpClient();
  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;

  // Sends a request and waits up to timeoutS for its response: the result, or throws
  // RpcCallError (error response) / TcpClientError (transport).
  nlohmann::json call(const std::string& method, const nlohmann::json& params, double timeoutS,
                      const NotificationHandler& onNotification = {});
  void notify(const std::string& method, const nlohmann::json& params);

 private:
  void send(const nlohmann::json& msg);
  nlohmann::json readMessage(double deadlineS);

  int fd_ = -1;
  int64_t nextId_ = 1;
  FrameReader reader_;
};

// "HOST:PORT" → host, port; throws std::invalid_argument.
std::pair<std::string, uint16_t> splitHostPort(const std::string& hostPort);

}  // namespace argus::protocol
