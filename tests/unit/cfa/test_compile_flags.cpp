// The compilation-database flag filter (core/frontend/compile_flags.h).
#include <gtest/gtest.h>

#include "core/frontend/compile_flags.h"

namespace argus::frontend {
namespace {

using V = std::vector<std::string>;

TEST(CompileFlags, SplitsLikeAShell) {
  EXPECT_EQ(splitCommand("cc  -DA='x y' \"-DB=\\\"q\\\"\" -I dir\\ 2 -c a.c"),
            (V{"cc", "-DA=x y", "-DB=\"q\"", "-I", "dir 2", "-c", "a.c"}));
  EXPECT_EQ(splitCommand(""), V{});
  EXPECT_EQ(splitCommand("cc ''"), (V{"cc", ""}));
}

TEST(CompileFlags, KeepsWhatTheFrontendNeeds) {
  V args{"gcc", "-O2", "-Iinc", "-I", "/abs", "-isystem", "sys", "-include", "cfg.h", "-DX=1", "-D", "Y",
         "-UZ", "-std=c11", "-Wall", "-o", "a.o", "-c", "a.c"};
  EXPECT_EQ(frontendFlags(args, "/p/build"),
            (V{"-I/p/build/inc", "-I/abs", "-isystem", "/p/build/sys", "-include", "/p/build/cfg.h", "-DX=1", "-DY",
               "-UZ", "-std=c11"}));
  // relative paths with .. are normalised against the directory
  EXPECT_EQ(frontendFlags(V{"cc", "-I../include"}, "/p/build"), V{"-I/p/include"});
  // the compiler itself (args[0]) is never a flag
  EXPECT_EQ(frontendFlags(V{"-DNOT_A_FLAG"}, "/p"), V{});
}

}  // namespace
}  // namespace argus::frontend
