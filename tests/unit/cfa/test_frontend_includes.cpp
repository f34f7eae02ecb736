// FrontendOptions::systemHeadersOnly: text from remote clients may include system
// headers, and nothing else of the machine's files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/frontend/frontend.h"

namespace {

using argus::frontend::DataModel;
using argus::frontend::FrontendOptions;
using argus::frontend::parseSource;

FrontendOptions restricted(DataModel dm = DataModel::LP64) {
  FrontendOptions o;
  o.dataModel = dm;
  o.systemHeadersOnly = true;
  return o;
}

// A private header next to the "main file", with a marker the diagnostics must not show.
struct Workspace {
  std::filesystem::path dir;
  Workspace() {
    dir = std::filesystem::temp_directory_path() / ("argus-inc-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "secret.h") << "SECRET_MARKER_7f3a is not C\nint from_header = 1;\n";
    std::ofstream(dir / "ok.h") << "int from_header = 1;\n";
  }
  ~Workspace() { std::filesystem::remove_all(dir); }
  std::string main() const { return (dir / "main.c").string(); }
};

TEST(FrontendIncludes, SystemHeadersStillWorkInBothDataModels) {
  for (DataModel dm : {DataModel::LP64, DataModel::ILP32}) {
    auto r = parseSource("#include <stdlib.h>\n#include <string.h>\n#include <stdint.h>\n#include <limits.h>\n"
                         "int main(void){ int32_t x = INT_MAX; char b[4]; memset(b, 0, 4); return x == 0 ? abort(), 0 : 0; }",
                         "remote.c", restricted(dm));
    EXPECT_TRUE(r.ok()) << r.diagnostics;
  }
}

TEST(FrontendIncludes, OtherFilesAreNotFoundAndNotShown) {
  Workspace ws;
  const std::vector<std::string> includes = {"\"/etc/passwd\"", "\"/etc/hostname\"", "\"secret.h\"",
                                            "\"" + ws.dir.string() + "/secret.h\"",
                                            "\"/usr/include/../../etc/passwd\"", "</etc/passwd>"};
  for (const std::string& inc : includes) {
    auto r = parseSource("#include " + inc + "\nint main(void){ return 0; }\n", ws.main(), restricted());
    EXPECT_FALSE(r.ok()) << inc;
    EXPECT_NE(r.diagnostics.find("file not found"), std::string::npos) << inc << ": " << r.diagnostics;
    EXPECT_EQ(r.diagnostics.find("SECRET_MARKER"), std::string::npos) << r.diagnostics;
    EXPECT_EQ(r.diagnostics.find("root:"), std::string::npos) << r.diagnostics;
  }
  // -include and -I cannot open a way either
  FrontendOptions o = restricted();
  o.extraArgs = {"-I" + ws.dir.string()};
  auto r = parseSource("#include \"ok.h\"\nint main(void){ return from_header; }\n", ws.main(), o);
  EXPECT_FALSE(r.ok());
}

TEST(FrontendIncludes, LocalFilesAreReadWithoutTheRestriction) {
  Workspace ws;
  auto r = parseSource("#include \"ok.h\"\nint main(void){ return from_header; }\n", ws.main(), {});
  EXPECT_TRUE(r.ok()) << r.diagnostics;
  // the marker file is read (and rejected by the parser) when nothing restricts it
  auto s = parseSource("#include \"secret.h\"\nint main(void){ return 0; }\n", ws.main(), {});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.diagnostics.find("SECRET_MARKER"), std::string::npos) << s.diagnostics;
}

}  // namespace
