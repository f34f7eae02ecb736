// LSP over the process' standard streams (`argusd --stdio`).
#pragma once

#include <memory>

#include "protocol/fd_transport.h"

namespace argus::protocol {

// A transport reading fd 0 and writing fd 1.
//
// With `protectStdout` (the default) the protocol gets a private duplicate of
// fd 1 and fd 1 itself is redirected to stderr, so stray printf()s from any
// library cannot corrupt the message stream. Also sets SIGPIPE to ignored, so
// a vanished client ends the write with an error instead of killing us.
// Call once, before starting threads that might write to stdout.
std::unique_ptr<FdTransport> makeStdioTransport(FramingLimits limits = {}, bool protectStdout = true);

}  // namespace argus::protocol
