#include "server/argus/native_check.h"

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstring>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "core/result/harness.h"
#include "server/argus/bench_process.h"

extern char** environ;

namespace argus::cli {

namespace fs = std::filesystem;

namespace {

std::string compiler() {
  const char* cc = std::getenv("ARGUS_CC");
  return cc && *cc ? cc : "cc";
}

bool onPath(const std::string& exe) {
  if (exe.find('/') != std::string::npos) return access(exe.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
  return false;
}

bench::ChildResult runOne(std::vector<std::string> argv, double wallS, bool liftAddressSpace = false) {
  bench::ChildSpec spec;
  spec.argv = std::move(argv);
  spec.limits.liftAddressSpace = liftAddressSpace;
  spec.limits.wallSec = wallS;
  spec.limits.cpuSoftSec = static_cast<int>(wallS) + 1;
  spec.limits.cpuHardSec = static_cast<int>(wallS) + 2;
  bench::PoolOptions po;
  po.maxStdoutBytes = 1 << 16;
  po.stderrTailBytes = 16384;  // a leak report lists every block
  bench::ChildResult out;
  bench::runChildren({spec}, po, [&](size_t, bench::ChildResult r) { out = std::move(r); });
  return out;
}

// The first line of a compiler's stderr that says "error", else its last line.
std::string firstError(const std::string& err) {
  std::stringstream ss(err);
  std::string line, last;
  while (std::getline(ss, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

std::string describe(const bench::ChildResult& r) {
  if (!r.started) return "could not start: " + r.startError;
  if (r.wallKilled) return "timeout";
  if (!r.exited) return "killed by signal " + std::to_string(r.termSignal);
  auto lastLine = [&](const std::string& key) {
    size_t p = r.errTail.rfind(key);
    if (p == std::string::npos) return std::string();
    size_t e = r.errTail.find('\n', p);
    return r.errTail.substr(p, e == std::string::npos ? std::string::npos : e - p);
  };
  switch (r.exitCode) {
    case result::kHarnessAbortExit: return "abort() called";
    case result::kHarnessAssumeExit: return "an assumption failed";
    case result::kHarnessExhaustedExit: {
      std::string l = lastLine("argus-harness: ");
      return l.empty() ? "exit code 99" : l.substr(15);
    }
    case result::kHarnessUbsanExit: {
      std::string l = lastLine("runtime error: ");
      return "undefined behaviour" + (l.empty() ? std::string() : ": " + l);
    }
    default: return "exit code " + std::to_string(r.exitCode) + " without reaching the error";
  }
}

// Whether UBSan's report (`FILE:LINE:COL: runtime error: WHAT`) is the violation of
// `property` at `line`.
bool ubsanConfirms(const std::string& property, const std::string& errTail, uint32_t line) {
  const std::string key = "runtime error: ";
  size_t p = errTail.find(key);
  if (p == std::string::npos) return false;
  size_t start = errTail.rfind('\n', p);
  start = start == std::string::npos ? 0 : start + 1;
  std::string where = errTail.substr(start, p - start);  // FILE:LINE:COL:
  std::string what = errTail.substr(p + key.size(), errTail.find('\n', p) - p - key.size());
  // FILE:LINE:COL: -- drop the trailing ": ", then LINE is between the last two colons
  while (!where.empty() && (where.back() == ' ' || where.back() == ':')) where.pop_back();
  size_t c2 = where.rfind(':');
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : where.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return false;
  if (std::strtoul(where.c_str() + c1 + 1, nullptr, 10) != line) return false;
  auto has = [&](const char* s) { return what.find(s) != std::string::npos; };
  if (property == "no-overflow")
    return has("signed integer overflow") || (has("negation of") && has("cannot be represented")) ||
           (has("division of") && has("cannot be represented"));
  if (property == "div-by-zero") return has("division by zero");
  if (property == "shift") return has("shift exponent");
  return false;
}

bool isMemoryProperty(const std::string& p) { return p.rfind("valid-", 0) == 0; }

// Whether LeakSanitizer's report (`Direct leak of N byte(s) ... allocated from:` then
// `#0 ... in malloc`, `#1 ... in FUNC DIR/FILE:LINE:COL`) has a block allocated directly
// at one of the places the interpreter's violation names ("... still allocated: `p`
// (f.c:12), allocated at f.c:20"). valid-memcleanup runs LeakSanitizer with no roots
// (every block still allocated is reported), so the C library's own blocks (stdio
// buffers) show up too and must not pass for the program's.
bool leakAt(const std::string& violation, const std::string& errTail) {
  size_t from = violation.find("still allocated: ");
  if (from == std::string::npos) return false;
  std::set<std::string> places;  // "f.c:12"
  std::string v = violation.substr(from);
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != ':' || i + 1 >= v.size() || !std::isdigit(static_cast<unsigned char>(v[i + 1]))) continue;
    size_t b = i;
    while (b > 0 && v[b - 1] != ' ' && v[b - 1] != '(' && v[b - 1] != ',') --b;
    size_t e = i + 1;
    while (e < v.size() && std::isdigit(static_cast<unsigned char>(v[e]))) ++e;
    if (b < i) places.insert(v.substr(b, e - b));
  }
  std::stringstream ss(errTail);
  std::string line;
  while (std::getline(ss, line)) {
    size_t h = line.find_first_not_of(' ');
    if (h == std::string::npos || line.compare(h, 3, "#1 ") != 0) continue;
    for (const std::string& p : places)
      for (size_t q = line.find(p + ":"); q != std::string::npos; q = line.find(p + ":", q + 1))
        if (q > 0 && (line[q - 1] == '/' || line[q - 1] == ' ')) return true;
  }
  return false;
}

// Whether AddressSanitizer's (or LeakSanitizer's) report is a violation of the memory-
// safety subproperty `property` (issue 26).
bool asanConfirms(const std::string& property, const std::string& errTail, const std::string& violation) {
  auto has = [&](const char* s) { return errTail.find(s) != std::string::npos; };
  if (property == "valid-deref")
    return (has("AddressSanitizer") || has("runtime error: ")) &&
           (has("heap-buffer-overflow") || has("stack-buffer-overflow") || has("global-buffer-overflow") ||
            has("heap-use-after-free") || has("stack-use-after-return") || has("stack-use-after-scope") ||
            has("SEGV on unknown address") || has("stack-buffer-underflow") || has("dynamic-stack-buffer-overflow") ||
            // UBSan (also on) stops first at a null pointer and an array index out of bounds
            has("runtime error: load of null pointer") || has("runtime error: store to null pointer") ||
            has("runtime error: member access within null pointer") ||
            (has("runtime error: index ") && has("out of bounds for type")));
  if (property == "valid-free")
    return has("AddressSanitizer") && (has("attempting double-free") || has("bad-free") ||
                                       has("attempting free on address which was not malloc()-ed"));
  if (property == "valid-memtrack") return has("LeakSanitizer: detected memory leaks");
  if (property == "valid-memcleanup") return has("LeakSanitizer: detected memory leaks") && leakAt(violation, errTail);
  return false;
}

}  // namespace

bool canRun32Bit(std::string* why) {
  static int known = -1;
  static std::string reason;
  if (known < 0) {
    known = 0;
    std::error_code ec;
    fs::path dir = fs::temp_directory_path(ec) / ("argus-m32-" + std::to_string(getpid()));
    fs::create_directories(dir, ec);
    {
      std::ofstream(dir / "t.c") << "int main(void) { return sizeof(void*) == 4 ? 42 : 1; }\n";
    }
    bench::ChildResult c = runOne({compiler(), "-m32", "-o", (dir / "t").string(), (dir / "t.c").string()}, 30);
    if (!c.exited || c.exitCode != 0) {
      reason = "cc -m32 cannot build 32-bit binaries here (" + firstError(c.errTail) + ")";
    } else {
      // posix_spawn, not a PATH search: execvp would run a binary the kernel rejects
      // (ENOEXEC) as a shell script
      std::string exe = (dir / "t").string();
      char* argv[] = {exe.data(), nullptr};
      pid_t pid = 0;
      int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, environ);
      int status = 0;
      if (rc != 0) reason = std::string("32-bit binaries cannot execute here: ") + std::strerror(rc);
      else if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 42) known = 1;
      else reason = "32-bit binaries cannot execute here (the test program did not exit with 42)";
    }
    fs::remove_all(dir, ec);
  }
  if (why) *why = reason;
  return known == 1;
}

void nativeCheck(const std::string& file, const std::string* source, result::VerificationResult& r,
                 const NativeCheckOptions& o) {
  if (r.verdict != result::Verdict::False || !r.counterexample) return;
  result::Counterexample& cex = *r.counterexample;
  result::Counterexample played = cex;  // what the harness returns
  if (o.corruptForTest)
    for (result::PathInput& in : played.inputs)
      in.value = (in.value ^ 0x5a5a5a5a) & cfa::valueMask(in.width);
  std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(
                          std::chrono::steady_clock::now().time_since_epoch().count()));
  result::HarnessOptions ho;
  ho.token = "token-" + std::to_string(rng());
  ho.programFile = file;
  ho.ilp32 = o.ilp32;
  // valid-memcleanup: a block still allocated at any end of the program, error and
  // abort() included (SV-COMP), pointed to or not
  ho.leakCheckAtEnd = cex.property == "valid-memcleanup";

  std::string text;
  if (source) {
    text = *source;
  } else {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  int instrumented = 0;
  std::string program = result::instrumentErrorFunctions(text, file, &instrumented);

  auto writeOut = [&](const result::HarnessOptions& h) {
    if (o.harnessOut.empty()) return;
    result::HarnessOptions copy = h;
    copy.token = "argus";
    std::ofstream(o.harnessOut) << result::writeHarness(played, copy);
    if (instrumented > 0) {
      std::string p = o.harnessOut;
      if (p.size() > 2 && p.compare(p.size() - 2, 2, ".c") == 0) p.resize(p.size() - 2);
      std::ofstream(p + ".program.c") << program;
    }
  };
  auto cannot = [&](const std::string& why) {
    cex.nativeNote = "not run: " + why;
    writeOut(ho);
  };

  if (!o.run) return cannot("--no-native-check");
  if (cex.entry != "main") return cannot("the entry is '" + cex.entry + "', not main (--function)");
  // a violated contract (README "Contracts") is a check of Argus's own: the compiled
  // program has no such check to reach (the interpreter confirmed the path)
  if (cex.violation.rfind("precondition of ", 0) == 0 && cex.property.empty())
    return cannot("a contract's precondition, which the compiled program does not check");
  std::string cc = compiler();
  // A property violation (issue 26) is confirmed by UBSan's report of the operation:
  // GCC folds some of them away even at -O0 (x + (y - x) is y), Clang at -O0 keeps
  // every operation, so Clang is preferred when it is there and ARGUS_CC is not set.
  if (!cex.property.empty() && !std::getenv("ARGUS_CC") && onPath("clang")) cc = "clang";
  if (!onPath(cc)) return cannot("no C compiler '" + cc + "' on PATH");
  if (o.ilp32) {
    std::string why;
    if (!canRun32Bit(&why)) return cannot("ILP32: " + why);
  }

  std::error_code ec;
  fs::path tmpl = fs::temp_directory_path(ec) / "argus-native-XXXXXX";
  std::string t = tmpl.string();
  if (!mkdtemp(t.data())) return cannot("cannot create a temporary directory");
  fs::path dir(t);
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(d, e);
    }
  } cleanup{dir};

  std::vector<std::string> flags = {"-O0", "-w", "-fsanitize=undefined", "-fno-sanitize-recover=all"};
  // Argus's semantics wrap signed overflow; not for a no-overflow violation, whose path
  // has no overflow before it and which UBSan reports only without -fwrapv (with it,
  // every no-overflow counterexample ran past the overflow and became unknown)
  if (cex.property != "no-overflow") flags.insert(flags.begin() + 2, "-fwrapv");
  // memory safety (issue 26): AddressSanitizer with leak checking confirms the violation
  if (isMemoryProperty(cex.property)) flags.push_back("-fsanitize=address");
  // valid-memcleanup: the leak report's allocation lines (leakAt) need debug information
  if (cex.property == "valid-memcleanup") flags.push_back("-g");
  if (o.ilp32) flags.push_back("-m32");
  std::vector<std::string> cflags = flags;
  fs::path srcDir = fs::absolute(fs::path(file), ec).parent_path();
  cflags.push_back("-I" + srcDir.string());
  for (size_t i = 0; i < o.extraArgs.size(); ++i) {
    const std::string& a = o.extraArgs[i];
    if (a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0 || a.rfind("-I", 0) == 0 || a.rfind("-std=", 0) == 0) {
      cflags.push_back(a);
      if ((a == "-D" || a == "-U" || a == "-I") && i + 1 < o.extraArgs.size()) cflags.push_back(o.extraArgs[++i]);
    }
  }
  { std::ofstream(dir / "program.c", std::ios::binary) << program; }
  std::vector<std::string> cp = {cc};
  cp.insert(cp.end(), cflags.begin(), cflags.end());
  for (const char* x : {"-c", "-o"}) cp.push_back(x);
  cp.push_back((dir / "program.o").string());
  cp.push_back((dir / "program.c").string());
  bench::ChildResult c = runOne(cp, 60);
  if (!c.exited || c.exitCode != 0)
    return cannot("the program does not compile natively: " + firstError(c.errTail));

  // Link; functions the program references without a body that libc does not define
  // get stubs (calling one ends the run), then one more try.
  bench::ChildResult l;
  for (int attempt = 0; attempt < 2; ++attempt) {
    { std::ofstream(dir / "harness.c") << result::writeHarness(played, ho); }
    std::vector<std::string> lk = {cc};
    lk.insert(lk.end(), flags.begin(), flags.end());
    for (const char* x : {"-o"}) lk.push_back(x);
    lk.push_back((dir / "program").string());
    lk.push_back((dir / "program.o").string());
    lk.push_back((dir / "harness.c").string());
    lk.push_back("-lm");
    l = runOne(lk, 60);
    if (l.exited && l.exitCode == 0) break;
    std::set<std::string> missing;
    const std::string key = "undefined reference to `";
    for (size_t p = l.errTail.find(key); p != std::string::npos; p = l.errTail.find(key, p + 1)) {
      size_t s = p + key.size(), e = l.errTail.find('\'', s);
      if (e != std::string::npos) missing.insert(l.errTail.substr(s, e - s));
    }
    if (missing.empty()) break;
    for (const std::string& m : missing) ho.unexpected.push_back(m);
  }
  writeOut(ho);
  if (!l.exited || l.exitCode != 0) return cannot("the program does not link natively: " + firstError(l.errTail));

  setenv("UBSAN_OPTIONS",
         ("exitcode=" + std::to_string(result::kHarnessUbsanExit) + ":print_stacktrace=0:halt_on_error=1").c_str(), 1);
  // AddressSanitizer reserves terabytes of shadow memory (LP64) at start: under an
  // address-space limit (argus bench's --memory-mb, RLIMIT_AS) it dies with SIGSEGV
  // before main. The sanitized run lifts the soft limit to the hard one (bench sets
  // only the soft limit) and keeps the memory bound as a resident-set limit instead
  // (hard_rss_limit_mb: ASan ends the run, which then confirms nothing).
  const bool asan = isMemoryProperty(cex.property);
  std::string rssLimit;
  if (struct rlimit as; asan && ::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    rssLimit = ":hard_rss_limit_mb=" + std::to_string(std::max<rlim_t>(64, as.rlim_cur >> 20));
  setenv("ASAN_OPTIONS",
         ("exitcode=" + std::to_string(result::kHarnessUbsanExit) +
          ":detect_leaks=1:detect_stack_use_after_return=1:print_summary=1" + rssLimit)
             .c_str(),
         1);
  // valid-memcleanup: LeakSanitizer with no roots reports every block still allocated
  // (leakAt then requires one of the violation's); the other properties: its defaults
  if (cex.property == "valid-memcleanup")
    setenv("LSAN_OPTIONS", "use_stacks=0:use_registers=0:use_globals=0:use_tls=0", 1);
  else
    unsetenv("LSAN_OPTIONS");
  bench::ChildResult run =
      runOne({"/bin/sh", "-c", "cd \"$0\" && exec ./program", dir.string()}, o.timeoutS, asan);
  bool reached = cex.property.empty() && run.exited && run.exitCode == result::kHarnessErrorExit &&
                 run.errTail.find(ho.token) != std::string::npos;
  // A property violation (issue 26): UBSan must stop the program with the matching
  // runtime error at the counterexample's last line.
  if (!cex.property.empty() && run.exited && run.exitCode == result::kHarnessUbsanExit && !cex.steps.empty())
    reached = isMemoryProperty(cex.property) ? asanConfirms(cex.property, run.errTail, cex.violation)
                                             : ubsanConfirms(cex.property, run.errTail, cex.steps.back().line);
  if (reached) {
    cex.confirmedBy.push_back("native");
    cex.nativeNote.clear();
    return;
  }
  // the token is the harness's secret: not part of the description
  for (size_t p = run.errTail.find(ho.token); p != std::string::npos; p = run.errTail.find(ho.token))
    run.errTail.erase(p > 0 && run.errTail[p - 1] == ' ' ? p - 1 : p, ho.token.size() + (p > 0 && run.errTail[p - 1] == ' '));
  std::string what = describe(run);
  if (!cex.uncontrolled.empty()) {
    std::string u;
    for (size_t i = 0; i < cex.uncontrolled.size() && i < 3; ++i) u += (i ? "; " : "") + cex.uncontrolled[i];
    if (cex.uncontrolled.size() > 3) u += "; ...";
    cex.nativeNote = "not confirmed (" + what + "), but the path depends on choices a native run cannot set: " + u;
    return;
  }
  cex.nativeNote = "not confirmed: " + what;
  r.verdict = result::Verdict::Unknown;
  r.reason = "counterexample not confirmed by the native run (" + what + ")";
  r.condition.kind = "unconfirmed";
  r.condition.summary = "nothing verified";
}

}  // namespace argus::cli
