#include "server/argus/render.h"

#include <sstream>

#include "core/result/sarif.h"

namespace argus::cli {

std::string renderResult(const std::string& format, const result::VerificationResult& r,
                         const std::vector<std::string>& argv, const std::string& started, const std::string& file) {
  if (format == "json") return result::toJson(r).dump(2) + "\n";
  if (format == "sarif") {
    result::SarifInvocation inv{argv, started, result::utcNow(), true};
    return result::toSarif({{file, result::toJson(r)}}, inv).dump(2) + "\n";
  }
  return result::toText(r);
}

std::string stageLine(size_t index, const std::string& spec, const result::VerificationResult& r) {
  std::ostringstream o;
  o << "stage " << index + 1 << " " << spec << ": " << result::verdictName(r.verdict) << " (" << r.stats.cpuTimeS
    << " s cpu)";
  if (!r.condition.summary.empty()) o << " - " << r.condition.summary;
  return o.str();
}

}  // namespace argus::cli
