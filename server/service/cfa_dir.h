// The daemon's private directory for serialized CFAs (TMPDIR/argusd-cfa-XXXXXX), and the
// removal of such directories that a daemon killed without its destructor (SIGKILL, a
// crash, a container stopped hard) left behind.
//
// Each directory holds an owner file that its daemon keeps locked (flock) while it runs;
// the kernel drops the lock when the process ends, however it ends, and the lock works
// across pid namespaces that share the directory (containers with one /tmp). A daemon
// starting up removes every argusd-cfa-* directory of its user whose owner file it can
// lock and that is older than a minute (a daemon that has just created its directory and
// not yet locked the file keeps it). Directories without an owner file (older versions)
// are left alone.
#pragma once

#include <filesystem>
#include <string>

namespace argus::server {

inline constexpr const char* kCfaDirPrefix = "argusd-cfa-";
inline constexpr const char* kCfaDirOwner = ".owner";

// A fresh directory under `tmp` with its owner file locked; `lockFd` holds the lock
// (close it after removing the directory). Empty string (lockFd -1) on failure.
std::string makeCfaDir(const std::filesystem::path& tmp, int& lockFd);

// Removes the stale directories under `tmp` (see above); returns how many.
int sweepStaleCfaDirs(const std::filesystem::path& tmp, double minAgeS = 60);

}  // namespace argus::server
