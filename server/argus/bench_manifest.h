// Benchmark manifest (MANIFEST.tsv) parsing for `argus bench`.
//
// Format: UTF-8, tab-separated, one header line naming the columns (any order).
// Required columns: task, file, expected, data_model. Optional: category,
// property (unreach-call, the default, or another property `argus verify --property`
// knows: valid-memsafety, valid-memcleanup, no-overflow, ...), source, notes and any
// other. `expected` is true, false, or false(SUBPROPERTY) (SV-COMP's syntax: a `false`
// answer must name that subproperty to be correct).
// `file` is relative to the manifest's folder (or absolute). Blank lines and
// lines starting with '#' are ignored; CRLF line ends and a BOM are accepted.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace argus::cli::bench {

struct ManifestTask {
  std::string id;
  std::string file;       // absolute, normalised
  std::string category;   // "" when the manifest has no category column
  bool expectedSafe = true;  // expected verdict: true (safe) / false (bug)
  std::string property;      // "" = unreach-call; else passed on as --property
  std::string expectedViolation;  // false(X): X ("" for a plain false)
  std::string dataModel;  // "ILP32" or "LP64"
  int line = 0;           // 1-based line in the manifest
};

struct Manifest {
  std::string path;  // absolute path of the manifest file
  std::vector<ManifestTask> tasks;
};

// All problems found, one per line ("MANIFEST:LINE: message").
class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and parses a manifest file; throws ManifestError.
Manifest loadManifest(const std::string& path);

// Parses manifest text; `baseDir` resolves relative `file` entries, `name`
// prefixes error messages. With checkFiles, every task file must exist.
Manifest parseManifest(std::string_view text, const std::filesystem::path& baseDir,
                       const std::string& name, bool checkFiles = true);

}  // namespace argus::cli::bench
