#include "protocol/fd_transport.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace argus::protocol {

namespace {

bool isSocket(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

FdTransport::FdTransport(int inFd, int outFd, bool closeIn, bool closeOut, FramingLimits limits)
    : inFd_(inFd), outFd_(outFd), closeIn_(closeIn), closeOut_(closeOut), outIsSocket_(isSocket(outFd)), limits_(limits) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("FdTransport: pipe2 failed");
  wakeRead_ = fds[0];
  wakeWrite_ = fds[1];
}

FdTransport::~FdTransport() {
  ::close(wakeRead_);
  ::close(wakeWrite_);
  if (closeIn_) ::close(inFd_);
  if (closeOut_ && !(closeIn_ && outFd_ == inFd_)) ::close(outFd_);
}

void FdTransport::close() {
  if (closed_.exchange(true)) return;
  char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(wakeWrite_, &byte, 1);
  if (outIsSocket_) ::shutdown(outFd_, SHUT_RDWR);
  if (inFd_ != outFd_ && isSocket(inFd_)) ::shutdown(inFd_, SHUT_RDWR);
}

bool FdTransport::send(const nlohmann::json& message) { return sendRaw(serializeMessage(message)); }

bool FdTransport::sendRaw(std::string_view bytes) {
  std::lock_guard<std::mutex> lock(writeMu_);
  if (closed_.load() || broken_) return false;
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = outIsSocket_ ? ::send(outFd_, p, left, MSG_NOSIGNAL) : ::write(outFd_, p, left);
    if (n > 0) {
      p += n;
      left -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{outFd_, POLLOUT, 0};
      if (::poll(&pfd, 1, 1000) < 0 && errno != EINTR) break;
      if (closed_.load()) break;
      continue;
    }
    break;  // error (EPIPE, ECONNRESET, ...)
  }
  if (left > 0) broken_ = true;
  return left == 0;
}

RunEnd FdTransport::run(TransportHandler& handler) {
  FrameReader reader(limits_);
  std::string chunk(64 * 1024, '\0');
  RunEnd end = RunEnd::Closed;
  while (!closed_.load()) {
    pollfd fds[2] = {{inFd_, POLLIN, 0}, {wakeRead_, POLLIN, 0}};
    int r = ::poll(fds, 2, -1);
    if (r < 0) {
      if (errno == EINTR) continue;
      end = RunEnd::IoError;
      break;
    }
    if (closed_.load() || (fds[1].revents & POLLIN)) break;
    if (fds[0].revents == 0) continue;
    ssize_t n = ::read(inFd_, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      // A socket shut down by close() may report ECONNRESET etc.
      end = closed_.load() ? RunEnd::Closed : RunEnd::IoError;
      break;
    }
    if (n == 0) {
      end = closed_.load() ? RunEnd::Closed : RunEnd::EndOfStream;
      break;
    }
    reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
    while (!closed_.load()) {
      auto event = reader.next();
      if (!event) break;
      if (auto* body = std::get_if<std::string>(&*event))
        handler.onMessage(*body);
      else
        handler.onFramingError(std::get<FramingError>(*event));
    }
  }
  handler.onClose();
  return end;
}

}  // namespace argus::protocol
