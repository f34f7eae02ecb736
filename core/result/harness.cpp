#include "core/result/harness.h"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace argus::result {

namespace {

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool endsWith(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool isBoolName(const std::string& f) { return endsWith(f, "_bool") || endsWith(f, "_Bool"); }

// The C type a function returning a `width`-bit value is given in the harness (the
// program and the harness are separate translation units; integer results of these
// widths come back in the same register either way).
std::string cType(const std::string& function, uint32_t width, bool isSigned) {
  if (isBoolName(function)) return "_Bool";
  std::string u = isSigned ? "" : "unsigned ";
  switch (width) {
    case 128: return u + "__int128";
    case 8: return (isSigned ? "signed " : "unsigned ") + std::string("char");
    case 16: return u + "short";
    case 32: return u + "int";
    default: return u + "long long";
  }
}

std::string cString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool isNondetFunctionName(const std::string& name) {
  return startsWith(name, "__VERIFIER_nondet_") || startsWith(name, "nondet_") || startsWith(name, "__nondet");
}

std::string writeHarness(const Counterexample& cex, const HarnessOptions& o) {
  std::ostringstream h;
  h << "/* Concrete-playback harness written by Argus for "
    << (o.programFile.empty() ? std::string("the program") : o.programFile) << ".\n"
    << " * Compile it with the program (its reach_error/__VERIFIER_error bodies, if it defines them,\n"
    << " * instrumented to call __argus_error_reached()), e.g.\n"
    << " *   cc " << (o.ilp32 ? "-m32 " : "") << "-fwrapv -fsanitize=undefined -fno-sanitize-recover=all PROGRAM.c HARNESS.c\n"
    << " * Exit codes: " << kHarnessErrorExit << " the error was reached, " << kHarnessAbortExit << " abort(), "
    << kHarnessExhaustedExit << " a nondet function ran out of values, " << kHarnessAssumeExit
    << " an assumption failed. */\n"
    << "/* No #include: the harness may have to define library functions the program calls\n"
    << " * without a body that Argus treats as returning any value (printf's result, time, ...). */\n"
    << "long write(int, const void*, unsigned long);\n"
    << "void _exit(int) __attribute__((noreturn));\n"
    << "static void argus_puts(const char* s) {\n"
    << "  unsigned long n = 0;\n  while (s[n]) n++;\n  (void)write(2, s, n);\n}\n"
    << (o.leakCheckAtEnd ? "void __lsan_do_leak_check(void);\n" : "")
    << "static void argus_report(const char* what, const char* detail, int code) {\n"
    << "  argus_puts(\"argus-harness: \"); argus_puts(what); argus_puts(detail);\n"
    << "  argus_puts(\" \"); argus_puts(" << cString(o.token) << "); argus_puts(\"\\n\");\n";
  if (o.leakCheckAtEnd)  // a program end: the leak check (it exits with its own code on a leak)
    h << "  if (code == " << kHarnessErrorExit << " || code == " << kHarnessAbortExit
      << ") __lsan_do_leak_check();\n";
  h << "  _exit(code);\n}\n\n";
  if (o.leakCheckAtEnd)  // _Exit ends the program without atexit handlers, LeakSanitizer's too
    h << "void _Exit(int code) {\n  __lsan_do_leak_check();\n  _exit(code);\n}\n";
  h
    << "void __argus_error_reached(void) { argus_report(\"error reached\", \"\", " << kHarnessErrorExit << "); }\n"
    << "__attribute__((weak)) void reach_error(void) { __argus_error_reached(); }\n"
    << "__attribute__((weak)) void __VERIFIER_error(void) { __argus_error_reached(); }\n"
    << "__attribute__((weak)) void __VERIFIER_assert(int cond) { if (!cond) __argus_error_reached(); }\n"
    << "__attribute__((weak)) void __assert_fail(const char* a, const char* f, unsigned l, const char* fn) {\n"
    << "  (void)a; (void)f; (void)l; (void)fn; __argus_error_reached();\n}\n"
    << "__attribute__((weak)) void __assert_perror_fail(int e, const char* f, unsigned l, const char* fn) {\n"
    << "  (void)e; (void)f; (void)l; (void)fn; __argus_error_reached();\n}\n"
    << "__attribute__((weak)) void __assert(const char* a, const char* f, int l) {\n"
    << "  (void)a; (void)f; (void)l; __argus_error_reached();\n}\n"
    << "__attribute__((weak)) void assert(int cond) { if (!cond) __argus_error_reached(); }\n";
  for (const char* assume : {"__VERIFIER_assume", "__ESBMC_assume", "__CPROVER_assume", "assume_abort_if_not"})
    h << "__attribute__((weak)) void " << assume << "(int cond) {\n"
      << "  if (!cond) argus_report(\"assumption failed\", \"\", " << kHarnessAssumeExit << ");\n}\n";
  h
    << "__attribute__((weak)) void abort(void) { argus_report(\"abort called\", \"\", " << kHarnessAbortExit
    << "); }\n";

  // one queue per function, in first-call order
  std::vector<std::string> order;
  std::map<std::string, std::vector<const PathInput*>> byFunc;
  for (const PathInput& in : cex.inputs) {
    if (!byFunc.count(in.function)) order.push_back(in.function);
    byFunc[in.function].push_back(&in);
  }
  size_t k = 0;
  for (const std::string& f : order) {
    const auto& vals = byFunc[f];
    std::string t = cType(f, vals.front()->width, vals.front()->isSigned);
    bool wide = false;  // 128-bit results (__int128): each value from its two 64-bit halves
    for (const PathInput* v : vals) wide = wide || v->width > 64;
    h << "\n/* " << f << ": " << vals.size() << " value(s) */\n"
      << "static const unsigned " << (wide ? "__int128" : "long long") << " argus_v" << k << "[] = {";
    for (size_t i = 0; i < vals.size(); ++i) {
      uint64_t lo = static_cast<uint64_t>(vals[i]->value), hi = static_cast<uint64_t>(vals[i]->value >> 64);
      if (wide)
        h << (i % 4 == 0 ? "\n  " : " ") << "((unsigned __int128)" << hi << "ULL << 64 | " << lo << "ULL),";
      else
        h << (i % 4 == 0 ? "\n  " : " ") << lo << "ULL,";
      h << " /* " << vals[i]->file.substr(vals[i]->file.find_last_of('/') + 1) << ":" << vals[i]->line << " */";
    }
    // __VERIFIER_nondet_float/double (and nondet_float, ...) return a float in a
    // floating-point register: the harness returns the recorded bit image as that type
    uint32_t w = vals.front()->width;
    const char* ft = endsWith(f, "_float") && w == 32 ? "float" : endsWith(f, "_double") && w == 64 ? "double" : nullptr;
    h << "\n};\nstatic unsigned long argus_n" << k << ";\n"
      << (ft ? ft : t) << " " << f << "(void) {\n"
      << "  if (argus_n" << k << " >= sizeof argus_v" << k << " / sizeof argus_v" << k
      << "[0]) argus_report(\"out of values: \", " << cString(f) << ", " << kHarnessExhaustedExit << ");\n";
    if (ft) {
      h << "  " << t << " b = (" << t << ")argus_v" << k << "[argus_n" << k << "++];\n"
        << "  " << ft << " r;\n  __builtin_memcpy(&r, &b, sizeof r);\n  return r;\n}\n";
      ++k;
      continue;
    }
    h << "  return (" << t << ")" << (isBoolName(f) ? "(argus_v" : "argus_v") << k << "[argus_n" << k << "++]"
      << (isBoolName(f) ? " != 0)" : "") << ";\n}\n";
    ++k;
  }
  std::set<std::string> defined(order.begin(), order.end());
  for (const std::string& f : o.unexpected) {
    if (!defined.insert(f).second) continue;
    h << "\nlong long " << f << "(void) { return 0; }  /* no value on the path (void, or not called) */\n";
  }
  return h.str();
}

std::string instrumentErrorFunctions(const std::string& src, const std::string& fileName, int* count) {
  std::string out = "void __argus_error_reached(void);\n#line 1 " + cString(fileName) + "\n";
  int n = 0;
  size_t i = 0, copied = 0;
  const size_t len = src.size();
  auto skipSpaceAndComments = [&](size_t j) {
    while (j < len) {
      if (std::isspace(static_cast<unsigned char>(src[j]))) ++j;
      else if (src.compare(j, 2, "/*") == 0) {
        size_t e = src.find("*/", j + 2);
        j = e == std::string::npos ? len : e + 2;
      } else if (src.compare(j, 2, "//") == 0) {
        size_t e = src.find('\n', j);
        j = e == std::string::npos ? len : e;
      } else break;
    }
    return j;
  };
  bool lineStart = true;
  while (i < len) {
    char c = src[i];
    if (c == '\n') {
      lineStart = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (lineStart && c == '#') {  // a preprocessor line (with continuations)
      while (i < len && src[i] != '\n') i += (src[i] == '\\' && i + 1 < len) ? 2 : 1;
      continue;
    }
    lineStart = false;
    if (src.compare(i, 2, "/*") == 0 || src.compare(i, 2, "//") == 0) {
      size_t j = skipSpaceAndComments(i);
      // keep line starts right after a // comment
      i = j;
      if (i > 0 && src[i - 1] == '\n') lineStart = true;
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < len && src[i] != c && src[i] != '\n') i += src[i] == '\\' ? 2 : 1;
      ++i;
      continue;
    }
    if (!identChar(c)) {
      ++i;
      continue;
    }
    size_t s = i;
    while (i < len && identChar(src[i])) ++i;
    std::string id = src.substr(s, i - s);
    if (id != "reach_error" && id != "__VERIFIER_error") continue;
    size_t j = skipSpaceAndComments(i);
    if (j >= len || src[j] != '(') continue;
    int depth = 0;
    for (; j < len; ++j) {
      if (src[j] == '(') ++depth;
      else if (src[j] == ')' && --depth == 0) break;
    }
    if (j >= len) continue;
    j = skipSpaceAndComments(j + 1);
    if (j < len && src[j] == '{') {
      out.append(src, copied, j + 1 - copied);
      out += " __argus_error_reached();";
      copied = j + 1;
      i = j + 1;
      ++n;
    }
  }
  out.append(src, copied, std::string::npos);
  if (count) *count = n;
  return out;
}

}  // namespace argus::result
