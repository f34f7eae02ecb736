#include "bench_outcome.h"

#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>

namespace argus::cli::bench {
namespace {

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string signalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGPIPE: return "SIGPIPE";
    case SIGINT: return "SIGINT";
    case SIGTRAP: return "SIGTRAP";
    default: return "";
  }
}

bool looksOutOfMemory(const ChildResult& r, const ChildLimits& lim) {
  for (const char* needle : {"bad_alloc", "out of memory", "Out of memory", "Cannot allocate memory",
                             "memory exhausted", "MemoryError"})
    if (r.errTail.find(needle) != std::string::npos) return true;
  return lim.memoryBytes > 0 && r.maxRssMb * 1024.0 * 1024.0 >= 0.95 * double(lim.memoryBytes);
}

std::string withStderr(std::string reason, const ChildResult& r) {
  std::string tail = trimmed(r.errTail);
  if (!tail.empty()) reason += ": " + tail;
  return reason;
}

// The JSON object on stdout; tolerates text before/after the object.
nlohmann::json parseOutput(const std::string& out, std::string& error) {
  std::string text = trimmed(out);
  if (text.empty()) {
    error = "empty output";
    return nullptr;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    size_t b = text.find('{'), e = text.rfind('}');
    if (b != std::string::npos && e != std::string::npos && e > b)
      j = nlohmann::json::parse(text.substr(b, e - b + 1), nullptr, false);
  }
  if (j.is_discarded() || !j.is_object()) {
    std::string head = text.substr(0, 120);
    for (char& c : head)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    error = "not a JSON object: " + head + (text.size() > 120 ? "..." : "");
    return nullptr;
  }
  return j;
}

}  // namespace

Outcome evaluateChild(const ChildResult& r, const ChildLimits& lim) {
  Outcome o;
  if (!r.started) {
    o.reason = "failed to start: " + r.startError;
    return o;
  }
  if (r.interrupted) {
    o.reason = "interrupted";
    return o;
  }
  if (r.wallKilled) {
    o.reason = "timeout (wall-clock limit)";
    return o;
  }
  if (!r.exited) {
    int sig = r.termSignal;
    bool cpuOut = lim.cpuSoftSec > 0 && r.cpuSec >= double(lim.cpuSoftSec) - 0.5;
    if (sig == SIGXCPU || (sig == SIGKILL && cpuOut)) {
      o.reason = "timeout (cpu limit)";
    } else if (looksOutOfMemory(r, lim)) {
      o.reason = "out of memory";
    } else {
      std::string name = signalName(sig);
      o.reason = withStderr(
          "crashed: signal " + std::to_string(sig) + (name.empty() ? "" : " (" + name + ")"), r);
    }
    return o;
  }
  if (r.exitCode != 0) {
    o.reason = looksOutOfMemory(r, lim)
                   ? "out of memory"
                   : withStderr("exit code " + std::to_string(r.exitCode), r);
    return o;
  }
  std::string error;
  nlohmann::json j = parseOutput(r.out, error);
  if (j.is_null()) {
    o.reason = "invalid output: " + error + (r.outTruncated ? " (output truncated)" : "");
    return o;
  }
  auto v = j.find("verdict");
  if (v == j.end() || !v->is_string()) {
    o.reason = "invalid output: no \"verdict\" string";
    return o;
  }
  if (auto c = j.find("condition"); c != j.end() && c->is_object()) {
    nlohmann::json cond = nlohmann::json::object();
    for (const char* k : {"kind", "summary", "bound", "automaton_states", "automaton_initial"})
      if (auto f = c->find(k); f != c->end()) cond[k] = *f;
    if (auto ex = c->find("excluded"); ex != c->end() && ex->is_array()) {
      nlohmann::json first = nlohmann::json::array();
      for (size_t i = 0; i < ex->size() && i < 3; ++i) first.push_back((*ex)[i]);
      cond["excluded"] = first;
      cond["excluded_count"] = ex->size();
    }
    o.condition = cond;
  }
  const std::string& s = v->get_ref<const std::string&>();
  if (s == "true") {
    o.verdict = Verdict::True;
  } else if (s == "false") {
    o.verdict = Verdict::False;
    if (auto cb = j.find("confirmed_by"); cb != j.end() && cb->is_array())
      for (const auto& x : *cb)
        if (x.is_string() && x.get<std::string>() == "native") o.confirmedNative = true;
    if (auto nc = j.find("native_check"); nc != j.end() && nc->is_string()) o.nativeNote = nc->get<std::string>();
    if (auto vp = j.find("violated_property"); vp != j.end() && vp->is_string())
      o.violatedProperty = vp->get<std::string>();
  } else if (s == "unknown") {
    auto reason = j.find("reason");
    o.reason = reason != j.end() && reason->is_string() && !reason->get<std::string>().empty()
                   ? reason->get<std::string>()
                   : "unknown (no reason given)";
  } else {
    o.reason = "invalid output: bad verdict \"" + s + "\"";
  }
  return o;
}

Classification classify(Verdict v, bool expectedSafe, const std::string& expectedViolation,
                        const std::string& violated) {
  switch (v) {
    case Verdict::True: return expectedSafe ? Classification::CorrectTrue : Classification::WrongTrue;
    case Verdict::False:
      if (expectedSafe || expectedViolation != violated) return Classification::WrongFalse;
      return Classification::CorrectFalse;
    case Verdict::Unknown: break;
  }
  return Classification::Unknown;
}

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::True: return "true";
    case Verdict::False: return "false";
    case Verdict::Unknown: break;
  }
  return "unknown";
}

const char* classificationName(Classification c) {
  switch (c) {
    case Classification::CorrectTrue: return "correct_true";
    case Classification::CorrectFalse: return "correct_false";
    case Classification::WrongTrue: return "wrong_true";
    case Classification::WrongFalse: return "wrong_false";
    case Classification::Unknown: break;
  }
  return "unknown";
}

}  // namespace argus::cli::bench
