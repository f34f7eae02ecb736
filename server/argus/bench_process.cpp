#include <algorithm>
#include "bench_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>

namespace argus::cli::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;
  int outFd = -1, errFd = -1;
  Clock::time_point start, deadline, drainUntil;
  bool hasDeadline = false;
  bool exitSeen = false;  // exited (zombie, not yet reaped)
  ChildResult r;
};

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Only async-signal-safe calls between fork and exec.
[[noreturn]] void childExec(const ChildLimits& lim, char* const* argv, int devNull, int outW,
                            int errW) {
  ::setpgid(0, 0);
  ::dup2(devNull, 0);
  ::dup2(outW, 1);
  ::dup2(errW, 2);
  struct rlimit rl;
  if (lim.cpuSoftSec > 0) {
    rl.rlim_cur = static_cast<rlim_t>(lim.cpuSoftSec);
    rl.rlim_max = static_cast<rlim_t>(lim.cpuHardSec > lim.cpuSoftSec ? lim.cpuHardSec
                                                                       : lim.cpuSoftSec);
    ::setrlimit(RLIMIT_CPU, &rl);
  }
  if (lim.memoryBytes > 0 || lim.liftAddressSpace) {
    // the soft limit only (ChildLimits::memoryBytes): rlim_max stays the parent's
    // (getrlimit/setrlimit are plain system calls, safe after fork)
    struct rlimit as;
    if (::getrlimit(RLIMIT_AS, &as) == 0) {
      rlim_t want = lim.memoryBytes > 0 ? static_cast<rlim_t>(lim.memoryBytes) : as.rlim_max;
      if (as.rlim_max != RLIM_INFINITY && want > as.rlim_max) want = as.rlim_max;
      as.rlim_cur = want;
      ::setrlimit(RLIMIT_AS, &as);
    }
  }
  rl.rlim_cur = rl.rlim_max = 0;
  ::setrlimit(RLIMIT_CORE, &rl);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGCHLD})
    ::sigaction(sig, &dfl, nullptr);
  ::execvp(argv[0], argv);
  int err = errno;
  const char* msg = "argus bench: cannot execute ";
  (void)!::write(2, msg, std::strlen(msg));
  (void)!::write(2, argv[0], std::strlen(argv[0]));
  const char* why = err == ENOENT ? ": no such file\n" : err == EACCES ? ": permission denied\n"
                                                                      : ": exec failed\n";
  (void)!::write(2, why, std::strlen(why));
  ::_exit(127);
}

bool spawn(const ChildSpec& spec, int devNull, Running& run) {
  int outP[2], errP[2];
  if (::pipe2(outP, O_CLOEXEC) != 0) {
    run.r.startError = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (::pipe2(errP, O_CLOEXEC) != 0) {
    run.r.startError = std::string("pipe: ") + std::strerror(errno);
    ::close(outP[0]);
    ::close(outP[1]);
    return false;
  }
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  run.start = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) childExec(spec.limits, argv.data(), devNull, outP[1], errP[1]);
  int forkErr = errno;
  ::close(outP[1]);
  ::close(errP[1]);
  if (pid < 0) {
    ::close(outP[0]);
    ::close(errP[0]);
    run.r.startError = std::string("fork: ") + std::strerror(forkErr);
    return false;
  }
  ::setpgid(pid, pid);  // also in the child; whichever runs first wins
  run.pid = pid;
  run.outFd = outP[0];
  run.errFd = errP[0];
  ::fcntl(run.outFd, F_SETFL, ::fcntl(run.outFd, F_GETFL) | O_NONBLOCK);
  ::fcntl(run.errFd, F_SETFL, ::fcntl(run.errFd, F_GETFL) | O_NONBLOCK);
  if (spec.limits.wallSec > 0) {
    run.hasDeadline = true;
    run.deadline = run.start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(spec.limits.wallSec));
  }
  run.r.started = true;
  return true;
}

// Reads what is available; closes the fd at EOF or on error.
void drain(int& fd, std::string& buf, std::size_t cap, bool tail, bool& truncated) {
  char chunk[65536];
  while (fd >= 0) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buf.append(chunk, static_cast<std::size_t>(n));
      if (buf.size() > 2 * cap && tail) buf.erase(0, buf.size() - cap);
      if (buf.size() > cap && !tail) {
        buf.resize(cap);
        truncated = true;
      }
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      closeFd(fd);
    }
  }
}

void reap(Running& run, std::size_t tailBytes) {
  closeFd(run.outFd);
  closeFd(run.errFd);
  int status = 0;
  struct rusage ru;
  std::memset(&ru, 0, sizeof ru);
  while (::wait4(run.pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    run.r.exited = true;
    run.r.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.r.termSignal = WTERMSIG(status);
  }
  auto secs = [](const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; };
  run.r.cpuSec = secs(ru.ru_utime) + secs(ru.ru_stime);
  run.r.maxRssMb = double(ru.ru_maxrss) / 1024.0;  // Linux: kilobytes
  if (run.r.errTail.size() > tailBytes) run.r.errTail.erase(0, run.r.errTail.size() - tailBytes);
}

}  // namespace

void runChildren(const std::vector<ChildSpec>& specs, const PoolOptions& opts,
                 const std::function<void(std::size_t, ChildResult)>& done) {
  const int jobs = std::max(1, (opts.jobs < 1 ? 1 : opts.jobs) / std::max(1, opts.coresPerTask));
  int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::list<Running> running;
  std::size_t next = 0;
  bool stopped = false;
  Clock::time_point lastTick = Clock::now();

  while ((next < specs.size() && !stopped) || !running.empty()) {
    if (!stopped && opts.stopFlag && *opts.stopFlag) {
      stopped = true;
      for (Running& run : running) {
        if (run.exitSeen) continue;
        ::kill(-run.pid, SIGKILL);
        run.r.interrupted = true;
      }
    }
    while (!stopped && next < specs.size() && running.size() < std::size_t(jobs)) {
      Running run;
      run.index = next++;
      if (opts.onStart) opts.onStart(run.index);
      if (!spawn(specs[run.index], devNull, run)) {
        done(run.index, std::move(run.r));
        continue;
      }
      running.push_back(std::move(run));
    }

    std::vector<pollfd> fds;
    for (Running& run : running)
      for (int fd : {run.outFd, run.errFd})
        if (fd >= 0) fds.push_back(pollfd{fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 50);  // EINTR is fine: we loop

    Clock::time_point now = Clock::now();
    for (auto it = running.begin(); it != running.end();) {
      Running& run = *it;
      bool ignored = false;
      drain(run.outFd, run.r.out, opts.maxStdoutBytes, false, run.r.outTruncated);
      drain(run.errFd, run.r.errTail, opts.stderrTailBytes, true, ignored);
      if (!run.exitSeen) {
        siginfo_t info;
        std::memset(&info, 0, sizeof info);
        if (::waitid(P_PID, id_t(run.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == run.pid) {
          run.exitSeen = true;
          run.r.wallSec = std::chrono::duration<double>(now - run.start).count();
          ::kill(-run.pid, SIGKILL);  // stray grandchildren; the zombie keeps the pgid
          run.drainUntil = now + std::chrono::seconds(1);
        } else if (run.hasDeadline && now >= run.deadline && !run.r.wallKilled) {
          run.r.wallKilled = true;
          ::kill(-run.pid, SIGKILL);
        }
      }
      if (run.exitSeen &&
          ((run.outFd < 0 && run.errFd < 0) || now >= run.drainUntil)) {
        reap(run, opts.stderrTailBytes);
        std::size_t index = run.index;
        ChildResult r = std::move(run.r);
        it = running.erase(it);
        done(index, std::move(r));
        continue;
      }
      ++it;
    }

    if (opts.onTick && now - lastTick >= std::chrono::milliseconds(250)) {
      lastTick = now;
      opts.onTick();
    }
  }
  if (devNull >= 0) ::close(devNull);
}

}  // namespace argus::cli::bench
