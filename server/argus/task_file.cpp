#include "server/argus/task_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/engine/verify.h"
#include "core/result/yaml.h"

namespace argus::cli {

namespace fs = std::filesystem;
using nlohmann::json;

std::string TaskProperty::expectedText() const {
  if (!hasExpected) return "";
  if (expectedSafe) return "true";
  return expectedViolation.empty() ? "false" : "false(" + expectedViolation + ")";
}

bool isTaskFileName(const std::string& name) {
  auto ends = [&](const char* s) {
    std::string x(s);
    return name.size() > x.size() && name.compare(name.size() - x.size(), x.size(), x) == 0;
  };
  return ends(".yml") || ends(".yaml");
}

namespace {

std::string scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  return "";
}

std::string readAll(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  if (ok) ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TaskFile loadTaskFile(const std::string& path) {
  TaskFile t;
  t.path = path;
  auto fail = [&](const std::string& msg) { throw std::invalid_argument("task " + path + ": " + msg); };
  bool ok = false;
  std::string text = readAll(path, ok);
  if (!ok) fail("cannot read it");
  json y;
  try {
    y = result::parseYamlSubset(text);
  } catch (const std::exception& e) {
    fail(std::string("not a task definition: ") + e.what());
  }
  if (!y.is_object()) fail("not a task definition (a mapping with input_files and properties)");
  const fs::path dir = fs::path(path).parent_path();
  auto resolve = [&](const std::string& f) {
    fs::path p(f);
    if (p.is_relative()) p = dir / p;
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    return (ec ? p : abs).lexically_normal();
  };

  // input_files: one C file
  if (!y.contains("input_files")) fail("no input_files");
  std::vector<std::string> inputs;
  const json& in = y["input_files"];
  if (in.is_array())
    for (const json& f : in) inputs.push_back(scalar(f));
  else
    inputs.push_back(scalar(in));
  if (inputs.size() != 1 || inputs[0].empty())
    fail("input_files must name one file (Argus verifies one translation unit per task)");
  fs::path input = resolve(inputs[0]);
  std::error_code ec;
  if (!fs::is_regular_file(input, ec)) fail("input file not found: " + input.string());
  t.inputFile = input.string();

  if (y.contains("options") && y["options"].is_object()) {
    const json& o = y["options"];
    if (o.contains("language")) {
      std::string lang = scalar(o["language"]);
      if (lang != "C" && lang != "c") fail("language " + lang + " (Argus verifies C)");
    }
    if (o.contains("data_model")) {
      std::string dm = scalar(o["data_model"]);
      if (dm != "ILP32" && dm != "LP64") fail("bad data_model '" + dm + "' (ILP32 or LP64)");
      t.dataModel = dm;
    }
  }

  if (!y.contains("properties") || !y["properties"].is_array() || y["properties"].empty()) fail("no properties");
  for (const json& p : y["properties"]) {
    if (!p.is_object() || !p.contains("property_file")) fail("a property without property_file");
    std::string pf = scalar(p["property_file"]);
    fs::path prp = resolve(pf);
    TaskProperty tp;
    tp.file = prp.string();
    bool read = false;
    std::string spec = readAll(prp, read);
    if (!read) {
      // SV-COMP names property files after their property
      spec = prp.stem().string();
      t.notes.push_back("property file " + prp.string() + " not found: taken as '" + spec + "' by its name");
    }
    std::set<std::string> names;
    try {
      names = engine::parseProperties(spec);
    } catch (const std::invalid_argument& e) {
      t.notes.push_back("property " + pf + " skipped: " + e.what());
      continue;
    }
    for (const std::string& n : names) tp.property += (tp.property.empty() ? "" : ",") + n;
    if (p.contains("expected_verdict")) {
      std::string v = scalar(p["expected_verdict"]);
      if (v == "true") tp.expectedSafe = true;
      else if (v == "false") tp.expectedSafe = false;
      else fail("bad expected_verdict '" + v + "' for " + pf + " (true or false)");
      tp.hasExpected = true;
      if (!tp.expectedSafe) {
        if (p.contains("subproperty")) tp.expectedViolation = scalar(p["subproperty"]);
        else if (names.size() == 1 && *names.begin() != "unreach-call" && *names.begin() != "valid-memsafety")
          tp.expectedViolation = *names.begin();
        if (tp.expectedViolation == "unreach-call") tp.expectedViolation.clear();
      }
    }
    t.properties.push_back(std::move(tp));
  }
  if (t.properties.empty()) fail("none of its properties is one Argus checks");
  return t;
}

bench::Manifest manifestOfTaskFiles(const std::vector<std::string>& inputs) {
  bench::Manifest m;
  std::string errors;
  std::vector<std::pair<std::string, std::string>> ymls;  // (path, id base)
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && isTaskFileName(it->path().string())) found.push_back(it->path());
      std::sort(found.begin(), found.end());
      if (found.empty()) errors += in + ": no .yml task definitions in this folder\n";
      for (const fs::path& p : found) {
        fs::path rel = p.lexically_relative(in);
        ymls.emplace_back(p.string(), rel.replace_extension().generic_string());
      }
    } else if (isTaskFileName(in)) {
      ymls.emplace_back(in, fs::path(in).stem().string());
    } else {
      errors += in + ": neither a manifest (.tsv, alone), a task definition (.yml) nor a folder\n";
    }
  }
  if (!inputs.empty()) {
    std::error_code ec;
    fs::path abs = fs::absolute(inputs.front(), ec);
    m.path = (ec ? fs::path(inputs.front()) : abs).lexically_normal().string();
  }
  std::set<std::string> seen;
  for (const auto& [path, base] : ymls) {
    TaskFile t;
    try {
      t = loadTaskFile(path);
    } catch (const std::invalid_argument& e) {
      errors += std::string(e.what()) + "\n";
      continue;
    }
    for (const TaskProperty& p : t.properties) {
      if (!p.hasExpected) continue;
      bench::ManifestTask mt;
      mt.id = t.properties.size() > 1 ? base + ":" + p.property : base;
      if (!seen.insert(mt.id).second) {
        errors += path + ": task id '" + mt.id + "' given twice\n";
        continue;
      }
      mt.file = t.inputFile;
      mt.expectedSafe = p.expectedSafe;
      mt.expectedViolation = p.expectedViolation;
      mt.property = p.property == "unreach-call" ? "" : p.property;
      mt.dataModel = t.dataModel.empty() ? "LP64" : t.dataModel;
      m.tasks.push_back(std::move(mt));
    }
  }
  if (!errors.empty()) throw bench::ManifestError(errors);
  return m;
}

}  // namespace argus::cli
