// The daemon's CFA directory (server/service/cfa_dir.h): a daemon killed without its
// destructor leaves TMPDIR/argusd-cfa-*; the next daemon removes exactly those whose owner
// is gone (the owner file's lock is free), never a running daemon's.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "common.h"
#include "server/service/cfa_dir.h"
#include "server/service/service.h"

namespace argus::server {
namespace {

namespace fs = std::filesystem;

// A directory as a daemon leaves it: an owner file (an hour old) and a serialized CFA.
fs::path leftBehind(const fs::path& tmp, const std::string& name) {
  fs::path d = tmp / name;
  fs::create_directories(d);
  std::ofstream(d / kCfaDirOwner) << "";
  std::ofstream(d / "abc.cfa") << "cfa";
  fs::last_write_time(d / kCfaDirOwner, fs::file_time_type::clock::now() - std::chrono::hours(1));
  return d;
}

TEST(CfaDir, OnlyDirectoriesWhoseOwnerIsGoneAreRemoved) {
  test::TempDir tmp;
  fs::path stale = leftBehind(tmp.path, "argusd-cfa-stale1");
  fs::path live = leftBehind(tmp.path, "argusd-cfa-live01");
  fs::path young = leftBehind(tmp.path, "argusd-cfa-young1");
  fs::last_write_time(young / kCfaDirOwner, fs::file_time_type::clock::now());
  fs::path noOwner = tmp.path / "argusd-cfa-old001";  // an older daemon's: no owner file
  fs::create_directories(noOwner);
  fs::path other = leftBehind(tmp.path, "other-dir");
  // a running daemon holds its owner file's lock (another open file: flock conflicts)
  int fd = ::open((live / kCfaDirOwner).c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);

  EXPECT_EQ(sweepStaleCfaDirs(tmp.path), 1);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live / "abc.cfa")) << "a running daemon's directory was removed";
  EXPECT_TRUE(fs::exists(young)) << "a directory younger than a minute was removed";
  EXPECT_TRUE(fs::exists(noOwner));
  EXPECT_TRUE(fs::exists(other));

  ::close(fd);  // the daemon ends: its directory is stale now
  EXPECT_EQ(sweepStaleCfaDirs(tmp.path), 1);
  EXPECT_FALSE(fs::exists(live));
  EXPECT_TRUE(fs::exists(young));
}

TEST(CfaDir, ANewDirectoryIsLockedUntilItsOwnerLetsGo) {
  test::TempDir tmp;
  int lock = -1;
  std::string d = makeCfaDir(tmp.path, lock);
  ASSERT_FALSE(d.empty());
  ASSERT_GE(lock, 0);
  EXPECT_EQ(fs::path(d).parent_path(), tmp.path);
  EXPECT_EQ(fs::path(d).filename().string().rfind(kCfaDirPrefix, 0), 0u);
  EXPECT_EQ(sweepStaleCfaDirs(tmp.path, 0), 0);
  EXPECT_TRUE(fs::exists(d));
  ::close(lock);
  EXPECT_EQ(sweepStaleCfaDirs(tmp.path, 0), 1);
  EXPECT_FALSE(fs::exists(d));
}

TEST(CfaDir, AServiceRemovesWhatAKilledDaemonLeftAndItsOwnAtExit) {
  test::TempDir tmp;
  fs::path stale = leftBehind(tmp.path, "argusd-cfa-killed");
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.path.c_str(), 1);
  auto count = [&] {
    int n = 0;
    for (auto& e : fs::directory_iterator(tmp.path)) n += e.path().filename().string().rfind(kCfaDirPrefix, 0) == 0;
    return n;
  };
  {
    ServiceOptions o;
    o.scheduler.workerExe = test::workerExe();
    o.scheduler.workers = 1;
    Service svc(o);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_EQ(count(), 1) << "the service's own directory";
    EXPECT_EQ(sweepStaleCfaDirs(tmp.path, 0), 0) << "a running service's directory is not stale";
  }
  EXPECT_EQ(count(), 0) << "the service removes its directory at exit";
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
}

}  // namespace
}  // namespace argus::server
