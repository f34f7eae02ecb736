#include "server/service/cfa_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <system_error>

namespace argus::server {

std::string makeCfaDir(const std::filesystem::path& tmp, int& lockFd) {
  lockFd = -1;
  std::string tmpl = (tmp / (std::string(kCfaDirPrefix) + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) return "";
  std::string owner = (std::filesystem::path(tmpl) / kCfaDirOwner).string();
  int fd = ::open(owner.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    fd = -1;
  }
  lockFd = fd;  // -1: the directory still works, a later sweep leaves it alone
  return tmpl;
}

int sweepStaleCfaDirs(const std::filesystem::path& tmp, double minAgeS) {
  int removed = 0;
  std::error_code ec;
  const uid_t me = ::geteuid();
  const auto now = std::chrono::system_clock::now();
  for (std::filesystem::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path dir = it->path();
    if (dir.filename().string().rfind(kCfaDirPrefix, 0) != 0) continue;
    struct stat ds;
    if (::lstat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode) || ds.st_uid != me) continue;
    const std::filesystem::path owner = dir / kCfaDirOwner;
    struct stat os;
    if (::lstat(owner.c_str(), &os) != 0 || !S_ISREG(os.st_mode)) continue;  // no owner file: not ours to judge
    auto mtime = std::chrono::system_clock::from_time_t(os.st_mtime);
    if (std::chrono::duration<double>(now - mtime).count() < minAgeS) continue;
    int fd = ::open(owner.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    bool stale = ::flock(fd, LOCK_EX | LOCK_NB) == 0;  // its daemon is gone
    if (stale) {
      std::error_code rec;
      std::filesystem::remove_all(dir, rec);
      if (!rec) ++removed;
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace argus::server
