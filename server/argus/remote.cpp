#include "server/argus/remote.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/engine/verify.h"
#include "core/result/codec.h"
#include "core/result/sarif.h"
#include "protocol/tcp_client.h"
#include "server/argus/native_check.h"
#include "server/argus/render.h"

namespace argus::cli {

namespace {

int fail(const std::string& msg) {
  std::cerr << "argus remote: " << msg << "\n";
  return 2;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  return s;
}

}  // namespace

int runRemote(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "verify") return fail("usage: argus remote verify FILE.c --server HOST:PORT --token-file F");
  std::string file, server, tokenFile, format = "text", algorithm, solver, dataModel, function = "main";
  // as argus verify: reachability unless --property names others (the server's editor
  // default does not apply to the CLI)
  std::string properties = "unreach-call";
  double timeoutS = -1;
  bool haveFile = false;
  NativeCheckOptions native;
  std::vector<std::string> flags;
  try {
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw std::invalid_argument("option " + a + " needs a value");
        return args[++i];
      };
      if (a == "--server") server = value();
      else if (a == "--token-file") tokenFile = value();
      else if (a == "--format") {
        format = value();
        if (format != "text" && format != "json" && format != "sarif")
          throw std::invalid_argument("bad --format '" + format + "' (text, json or sarif)");
      } else if (a == "--algorithm") algorithm = value();
      else if (a == "--solver") solver = value();
      else if (a == "--data-model") dataModel = value();
      else if (a == "--function") function = value();
      else if (a == "--property") {
        properties = value();
        if (properties.size() > 4 && properties.compare(properties.size() - 4, 4, ".prp") == 0) {  // SV-COMP property file
          std::ifstream f(properties);
          if (!f) throw std::invalid_argument("cannot read property file '" + properties + "'");
          std::stringstream prp;
          prp << f.rdbuf();
          properties = prp.str();
        }
        engine::parseProperties(properties);  // unknown names: a usage error here, not on the server
      }
      else if (a == "--timeout") {
        const std::string& v = value();
        char* end = nullptr;
        timeoutS = std::strtod(v.c_str(), &end);
        if (!end || *end || timeoutS < 0) throw std::invalid_argument("bad --timeout '" + v + "'");
      } else if (a == "--no-native-check") native.run = false;
      else if (a == "--") {
        flags.assign(args.begin() + static_cast<long>(i) + 1, args.end());
        break;
      } else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "'");
      else if (!haveFile) {
        file = a;
        haveFile = true;
      } else throw std::invalid_argument("more than one input file ('" + a + "')");
    }
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  if (!haveFile) return fail("remote verify needs a C file");
  if (server.empty()) return fail("remote verify needs --server HOST:PORT");
  if (tokenFile.empty()) return fail("remote verify needs --token-file F");
  std::ifstream in(file);
  if (!in) return fail("cannot read '" + file + "': " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  std::ifstream tin(tokenFile);
  if (!tin) return fail("cannot read the token file '" + tokenFile + "'");
  std::stringstream ts;
  ts << tin.rdbuf();
  const std::string token = trimmed(ts.str());
  if (token.empty()) return fail("the token file is empty");

  const bool progress = isatty(STDERR_FILENO);
  std::vector<std::string> argv{"argus", "remote"};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string started = result::utcNow();
  result::VerificationResult res;
  // each stage's line as argus verify prints it (stdout for text, stderr for JSON/SARIF)
  std::ostream& stageOut = format == "text" ? std::cout : std::cerr;
  try {
    protocol::TcpClient c(server);
    nlohmann::json opts = {{"token", token}};
    if (!solver.empty()) opts["solver"] = solver;
    if (!dataModel.empty()) opts["dataModel"] = dataModel;
    c.call("initialize", {{"processId", nullptr}, {"capabilities", nlohmann::json::object()}, {"initializationOptions", opts}},
           30);
    c.notify("initialized", nlohmann::json::object());
    if (progress) std::cerr << "argus remote: verifying " << file << " on " << server << std::endl;
    nlohmann::json params = {{"text", text.str()}, {"filename", file}, {"function", function}, {"format", "codec"},
                             {"properties", properties}};
    if (!algorithm.empty()) params["algorithm"] = algorithm;
    if (timeoutS >= 0) params["timeout"] = timeoutS;
    if (!flags.empty()) params["flags"] = flags;
    // the server bounds the run by its timeout (60 s when none is given); the
    // connection waits that long plus a margin for the queue
    double waitS = (timeoutS > 0 ? timeoutS : 60) * 4 + 120;
    nlohmann::json r = c.call("argus/verify", params, waitS, [&](const std::string& method, const nlohmann::json& p) {
      if (method != "argus/partialResult" || !p.contains("result")) return;
      const nlohmann::json& pr = p["result"];
      result::VerificationResult st;
      st.verdict = pr.value("verdict", "unknown") == "true"    ? result::Verdict::True
                   : pr.value("verdict", "unknown") == "false" ? result::Verdict::False
                                                               : result::Verdict::Unknown;
      if (pr.contains("stats") && pr["stats"].is_object()) st.stats.cpuTimeS = pr["stats"].value("cpu_time_s", 0.0);
      if (pr.contains("condition") && pr["condition"].is_object())
        st.condition.summary = pr["condition"].value("summary", std::string());
      std::string spec = pr.value("algorithm", std::string("?"));
      if (p.value("cached", false)) spec += " (cached)";
      stageOut << stageLine(p.value("stage", 0u), spec, st) << std::endl;
      if (progress)
        std::cerr << "argus remote: stage " << p.value("stage", 0u) + 1 << " " << spec << ": " << pr.value("verdict", "?")
                  << std::endl;
    });
    res = result::decodeResult(r);
  } catch (const protocol::RpcCallError& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  // concrete playback here, on the job's machine, as argus verify does
  native.ilp32 = dataModel == "ILP32";
  native.extraArgs = flags;
  nativeCheck(file, nullptr, res, native);
  std::cout << renderResult(format, res, argv, started, file) << std::flush;
  return 0;
}

}  // namespace argus::cli
