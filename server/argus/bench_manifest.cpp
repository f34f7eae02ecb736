#include "bench_manifest.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/engine/verify.h"

namespace argus::cli::bench {
namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> splitTabs(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    out.push_back(trim(line.substr(start, tab == std::string_view::npos ? tab : tab - start)));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

bool ignorable(std::string_view line) {
  std::string t = trim(line);
  return t.empty() || t[0] == '#';
}

}  // namespace

Manifest parseManifest(std::string_view text, const std::filesystem::path& baseDir,
                       const std::string& name, bool checkFiles) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::string> errors;
  auto error = [&](int line, const std::string& msg) {
    errors.push_back(name + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + msg);
  };

  Manifest m;
  std::map<std::string, size_t> col;  // header name -> index
  size_t ncols = 0;
  bool haveHeader = false;
  std::set<std::string> seen;
  const char* required[] = {"task", "file", "expected", "data_model"};

  int lineNo = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (ignorable(line)) continue;
    std::vector<std::string> fields = splitTabs(line);

    if (!haveHeader) {
      haveHeader = true;
      ncols = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        std::string h = lower(fields[i]);
        if (h.empty()) continue;
        if (!col.emplace(h, i).second) error(lineNo, "duplicate column '" + h + "' in header");
      }
      for (const char* r : required)
        if (!col.count(r)) error(lineNo, std::string("missing column '") + r + "' in header");
      if (!errors.empty()) break;
      continue;
    }

    if (fields.size() > ncols) {
      error(lineNo, "expected " + std::to_string(ncols) + " tab-separated fields, got " +
                        std::to_string(fields.size()));
      continue;
    }
    auto get = [&](const char* c) -> std::optional<std::string> {
      auto it = col.find(c);
      if (it == col.end()) return std::nullopt;
      return it->second < fields.size() ? fields[it->second] : std::string();
    };

    ManifestTask t;
    t.line = lineNo;
    t.id = *get("task");
    std::string file = *get("file");
    std::string expected = lower(*get("expected"));
    std::string dm = *get("data_model");
    t.category = get("category").value_or("");
    size_t before = errors.size();
    if (t.id.empty()) error(lineNo, "empty task id");
    else if (!seen.insert(t.id).second) error(lineNo, "duplicate task id '" + t.id + "'");
    if (expected == "true") t.expectedSafe = true;
    else if (expected == "false") t.expectedSafe = false;
    else if (expected.size() > 7 && expected.compare(0, 6, "false(") == 0 && expected.back() == ')') {
      t.expectedSafe = false;
      t.expectedViolation = expected.substr(6, expected.size() - 7);
    } else error(lineNo, "bad expected value '" + expected + "' (want true, false or false(PROPERTY))");
    std::string dmUpper = dm;
    for (char& c : dmUpper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (dmUpper == "ILP32" || dmUpper == "LP64") t.dataModel = dmUpper;
    else error(lineNo, "bad data_model '" + dm + "' (want ILP32 or LP64)");
    if (auto prop = get("property"); prop && !prop->empty() && *prop != "unreach-call") {
      try {
        engine::parseProperties(*prop);
        t.property = *prop;
      } catch (const std::invalid_argument& e) {
        error(lineNo, e.what());
      }
    }
    if (t.expectedViolation == "unreach-call") t.expectedViolation.clear();
    if (file.empty()) {
      error(lineNo, "empty file");
    } else {
      std::filesystem::path p(file);
      if (p.is_relative()) p = baseDir / p;
      std::error_code ec;
      std::filesystem::path abs = std::filesystem::absolute(p, ec);
      t.file = (ec ? p : abs).lexically_normal().string();
      if (checkFiles && !std::filesystem::is_regular_file(t.file, ec))
        error(lineNo, "file not found: " + t.file);
    }
    if (errors.size() == before) m.tasks.push_back(std::move(t));
  }

  if (!haveHeader) error(0, "empty manifest (no header line)");
  else if (errors.empty() && m.tasks.empty()) error(0, "manifest has no tasks");
  if (!errors.empty()) {
    std::ostringstream os;
    const size_t maxShown = 20;
    for (size_t i = 0; i < errors.size() && i < maxShown; ++i) os << (i ? "\n" : "") << errors[i];
    if (errors.size() > maxShown) os << "\n... and " << errors.size() - maxShown << " more";
    throw ManifestError(os.str());
  }
  return m;
}

Manifest loadManifest(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ManifestError(path + ": manifest not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ManifestError(path + ": cannot read manifest");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::filesystem::path abs = std::filesystem::absolute(path, ec).lexically_normal();
  Manifest m = parseManifest(ss.str(), abs.parent_path(), path, true);
  m.path = abs.string();
  return m;
}

}  // namespace argus::cli::bench
