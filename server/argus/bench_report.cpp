#include "bench_report.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace argus::cli::bench {
namespace {

struct Counts {
  std::size_t total = 0, correctTrue = 0, correctFalse = 0, wrongTrue = 0, wrongFalse = 0,
              unknown = 0, falseConfirmedNative = 0;
  double cpuSec = 0;
  void add(const TaskResult& r) {
    ++total;
    if (r.outcome.verdict == Verdict::False && r.outcome.confirmedNative) ++falseConfirmedNative;
    cpuSec += r.cpuSec;
    switch (r.cls) {
      case Classification::CorrectTrue: ++correctTrue; break;
      case Classification::CorrectFalse: ++correctFalse; break;
      case Classification::WrongTrue: ++wrongTrue; break;
      case Classification::WrongFalse: ++wrongFalse; break;
      case Classification::Unknown: ++unknown; break;
    }
  }
  long score() const {
    return 2 * long(correctTrue) + long(correctFalse) - 32 * long(wrongTrue) - 16 * long(wrongFalse);
  }
};

double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

// "true", "false" or "false(PROPERTY)"
std::string expectedText(const ManifestTask& t) {
  if (t.expectedSafe) return "true";
  return t.expectedViolation.empty() ? "false" : "false(" + t.expectedViolation + ")";
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  if (s.size() >= w) return s;
  std::string fill(w - s.size(), ' ');
  return right ? fill + s : s + fill;
}

// One-line form of a reason for the terminal.
std::string condensed(const std::string& s, std::size_t max) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += " | ";
    else if (c != '\r') out += c == '\t' ? ' ' : c;
  }
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

void printTable(std::ostream& os, const std::string& firstHeader,
                const std::vector<std::pair<std::string, Counts>>& rows) {
  std::vector<std::string> headers = {firstHeader,  "total",       "correct true",
                                      "correct false", "wrong true", "wrong false",
                                      "unknown",       "CPU time"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& [name, c] : rows)
    cells.push_back({name, std::to_string(c.total), std::to_string(c.correctTrue),
                     std::to_string(c.correctFalse), std::to_string(c.wrongTrue),
                     std::to_string(c.wrongFalse), std::to_string(c.unknown),
                     fixed(c.cpuSec, 1) + "s"});
  std::vector<std::size_t> width(headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    width[i] = headers[i].size();
    for (const auto& row : cells) width[i] = std::max(width[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (std::size_t i = 0; i < row.size(); ++i)
      s += (i ? "  " : "") + pad(row[i], width[i], i > 0);
    os << s << '\n';
  };
  line(headers);
  std::size_t totalWidth = 0;
  for (std::size_t w : width) totalWidth += w + 2;
  os << std::string(totalWidth - 2, '-') << '\n';
  for (const auto& row : cells) line(row);
}

}  // namespace

nlohmann::json resultsJson(const RunInfo& info, const std::vector<TaskResult>& results) {
  nlohmann::json tasks = nlohmann::json::array();
  Counts all;
  std::size_t notRun = 0;
  for (const TaskResult& r : results) {
    if (!r.done) {
      ++notRun;
      continue;
    }
    all.add(r);
    tasks.push_back({{"task", r.task->id},
                     {"file", r.task->file},
                     {"category", r.task->category},
                     {"data_model", r.task->dataModel},
                     {"expected", expectedText(*r.task)},
                     {"property", r.task->property.empty() ? "unreach-call" : r.task->property},
                     {"verdict", verdictName(r.outcome.verdict)},
                     {"result", classificationName(r.cls)},
                     {"cpu_time_s", round3(r.cpuSec)},
                     {"wall_time_s", round3(r.wallSec)},
                     {"memory_mb", round3(r.memoryMb)},
                     {"reason", r.outcome.reason},
                     {"condition", r.outcome.condition}});
    if (r.outcome.verdict == Verdict::False) {
      tasks.back()["confirmed_native"] = r.outcome.confirmedNative;
      if (!r.outcome.nativeNote.empty()) tasks.back()["native_check"] = r.outcome.nativeNote;
    }
  }
  auto opt = [](const std::optional<std::string>& s) -> nlohmann::json {
    return s ? nlohmann::json(*s) : nlohmann::json(nullptr);
  };
  return {{"manifest", info.manifest},
          {"algorithm", opt(info.algorithm)},
          {"solver", opt(info.solver)},
          {"refiner", opt(info.refiner)},
          {"abstraction", opt(info.abstraction)},
          {"abstraction_formulas", opt(info.abstractionFormulas)},
          {"timeout_s", info.timeoutSec},
          {"memory_mb", info.memoryMb},
          {"jobs", info.jobs},
          {"verifier", info.verifier},
          {"interrupted", info.interrupted},
          {"in_progress", info.inProgress},
          {"tasks", tasks},
          {"summary",
           {{"total", all.total},
            {"correct_true", all.correctTrue},
            {"correct_false", all.correctFalse},
            {"wrong_true", all.wrongTrue},
            {"wrong_false", all.wrongFalse},
            {"unknown", all.unknown},
            {"false_confirmed_native", all.falseConfirmedNative},
            {"not_run", notRun},
            {"score", all.score()},
            {"cpu_time_s", round3(all.cpuSec)},
            {"wall_time_s", round3(info.wallSec)}}}};
}

std::string progressLine(std::size_t n, std::size_t total, std::size_t idWidth,
                         const TaskResult& r) {
  std::string num = std::to_string(total);
  std::string s = "[" + pad(std::to_string(n), num.size(), true) + "/" + num + "] ";
  s += pad(r.task->id, idWidth, false) + "  " + pad(verdictName(r.outcome.verdict), 7, false) + "  ";
  std::string detail;
  switch (r.cls) {
    case Classification::CorrectTrue:
    case Classification::CorrectFalse: s += "\u2713    "; break;  // one column wide
    case Classification::WrongTrue:
    case Classification::WrongFalse:
      s += "WRONG";
      detail = "expected " + expectedText(*r.task) +
               (r.outcome.violatedProperty.empty() ? std::string() : ", said false(" + r.outcome.violatedProperty + ")");
      break;
    case Classification::Unknown:
      s += "?    ";
      detail = condensed(r.outcome.reason, 100);
      break;
  }
  s += "  " + pad(fixed(r.wallSec, 2) + "s", 8, true);
  if (!detail.empty()) s += "  " + detail;
  return s;
}

void printSummary(std::ostream& os, const RunInfo& info, const std::vector<TaskResult>& results) {
  Counts all;
  std::map<std::string, Counts> byCategory, byProperty;
  std::vector<const TaskResult*> wrong;
  std::size_t notRun = 0;
  for (const TaskResult& r : results) {
    if (!r.done) {
      ++notRun;
      continue;
    }
    all.add(r);
    byCategory[r.task->category.empty() ? "(none)" : r.task->category].add(r);
    byProperty[(r.task->property.empty() ? std::string("unreach-call") : r.task->property) + " " + expectedText(*r.task)].add(r);
    if (r.cls == Classification::WrongTrue || r.cls == Classification::WrongFalse)
      wrong.push_back(&r);
  }

  os << "\nargus bench: " << info.manifest << "\n"
     << "algorithm " << info.algorithm.value_or("(default)") << ", solver "
     << info.solver.value_or("(default)") << (info.refiner ? ", refiner " + *info.refiner : std::string())
     << ", timeout " << info.timeoutSec << " s, memory "
     << info.memoryMb << " MB, jobs " << info.jobs << ", wall time " << fixed(info.wallSec, 1)
     << " s" << (info.interrupted ? ", INTERRUPTED" : "") << "\n\n";
  printTable(os, "", {{"all", all}});
  os << "score (SV-COMP points): " << all.score();
  if (notRun) os << "   not run: " << notRun;
  os << "\n";
  // concrete playback (native_check.h): how many `false` a native run confirmed, and why not the others
  std::size_t falses = all.correctFalse + all.wrongFalse;
  os << "false confirmed natively: " << all.falseConfirmedNative << " of " << falses << "\n";
  std::map<std::string, std::vector<std::string>> notNative;
  for (const TaskResult& r : results)
    if (r.done && r.outcome.verdict == Verdict::False && !r.outcome.confirmedNative) {
      std::string why = r.outcome.nativeNote.empty() ? "(no native check reported)" : r.outcome.nativeNote;
      if (why.size() > 90) why = why.substr(0, 87) + "...";
      notNative[why].push_back(r.task->id);
    }
  for (const auto& [why, ids] : notNative) {
    os << "  " << ids.size() << " not confirmed natively: " << why << "\n";
    for (std::size_t i = 0; i < ids.size() && i < 5; ++i) os << "      " << ids[i] << "\n";
    if (ids.size() > 5) os << "      ... (" << ids.size() - 5 << " more)\n";
  }
  os << "\n";

  std::vector<std::pair<std::string, Counts>> rows(byCategory.begin(), byCategory.end());
  printTable(os, "category", rows);
  if (byProperty.size() > 1 || (byProperty.size() == 1 && byProperty.begin()->first != "unreach-call true" &&
                                byProperty.begin()->first != "unreach-call false")) {
    os << "\n";
    std::vector<std::pair<std::string, Counts>> prows(byProperty.begin(), byProperty.end());
    printTable(os, "property expected", prows);
  }

  os << "\nwrong verdicts: " << wrong.size() << "\n";
  for (const TaskResult* r : wrong)
    os << "  " << (r->cls == Classification::WrongTrue ? "WRONG TRUE " : "WRONG FALSE") << "  "
       << r->task->id << "  (said " << verdictName(r->outcome.verdict)
       << (r->outcome.violatedProperty.empty() ? std::string() : "(" + r->outcome.violatedProperty + ")")
       << ", expected " << expectedText(*r->task) << ")\n";
}

}  // namespace argus::cli::bench
