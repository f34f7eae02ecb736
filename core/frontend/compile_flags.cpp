#include "core/frontend/compile_flags.h"

#include <filesystem>

namespace argus::frontend {

std::vector<std::string> splitCommand(const std::string& command) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < command.size()) cur += command[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      cur += command[++i];
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

std::vector<std::string> frontendFlags(const std::vector<std::string>& args, const std::string& directory) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto withValue = [&](const std::string& opt) -> bool {
      if (a.rfind(opt, 0) != 0) return false;
      std::string v = a.size() > opt.size() ? a.substr(opt.size()) : (i + 1 < args.size() ? args[++i] : "");
      if ((opt == "-I" || opt == "-isystem" || opt == "-include") && !v.empty() && fs::path(v).is_relative())
        v = (fs::path(directory) / v).lexically_normal().string();
      if (opt == "-isystem" || opt == "-include") {
        out.push_back(opt);
        out.push_back(v);
      } else {
        out.push_back(opt + v);
      }
      return true;
    };
    if (withValue("-isystem") || withValue("-include") || withValue("-I") || withValue("-D") || withValue("-U")) continue;
    if (a.rfind("-std=", 0) == 0) out.push_back(a);
  }
  return out;
}

}  // namespace argus::frontend
