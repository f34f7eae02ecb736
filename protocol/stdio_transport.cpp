#include "protocol/stdio_transport.h"

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace argus::protocol {

std::unique_ptr<FdTransport> makeStdioTransport(FramingLimits limits, bool protectStdout) {
  std::signal(SIGPIPE, SIG_IGN);
  int out = STDOUT_FILENO;
  if (protectStdout) {
    std::fflush(stdout);
    out = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (out < 0) throw std::runtime_error("makeStdioTransport: cannot duplicate stdout");
    if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) throw std::runtime_error("makeStdioTransport: dup2 failed");
  }
  // fd 0 stays open; the private stdout duplicate is owned by the transport.
  return std::make_unique<FdTransport>(STDIN_FILENO, out, /*closeIn=*/false, /*closeOut=*/protectStdout, limits);
}

}  // namespace argus::protocol
