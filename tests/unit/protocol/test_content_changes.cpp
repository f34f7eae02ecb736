#include "protocol/content_changes.h"
#include "protocol/utf16.h"

#include <gtest/gtest.h>

namespace argus::protocol {
namespace {

// U+00E9 (2 bytes), U+4E2D (3 bytes), U+1F600 (4 bytes, a surrogate pair in UTF-16).
const std::string kE = "\xC3\xA9";
const std::string kZh = "\xE4\xB8\xAD";
const std::string kSmile = "\xF0\x9F\x98\x80";

TextDocumentContentChangeEvent edit(int l1, int c1, int l2, int c2, std::string text) {
  return TextDocumentContentChangeEvent{Range{{l1, c1}, {l2, c2}}, std::nullopt, std::move(text)};
}

std::size_t off(std::string_view text, int line, int character) {
  auto o = positionToOffset(text, Position{line, character});
  EXPECT_TRUE(o.has_value()) << line << ":" << character;
  return o.value_or(static_cast<std::size_t>(-1));
}

TEST(Utf16Test, Lengths) {
  EXPECT_EQ(utf16Length(""), 0u);
  EXPECT_EQ(utf16Length("abc"), 3u);
  EXPECT_EQ(utf16Length("a" + kE + kZh + kSmile), 5u);  // 1 + 1 + 1 + 2
  EXPECT_EQ(utf16Length("\xFF\xC3"), 2u);                // invalid bytes: one unit each
  EXPECT_EQ(utf16Length("\xED\xA0\x80"), 3u);            // encoded surrogate is invalid
}

TEST(Utf16Test, PositionToOffsetWithMultiByte) {
  const std::string line = "a" + kSmile + "b" + kE + "c";  // units: a=0, smile=1..2, b=3, e=4, c=5
  EXPECT_EQ(off(line, 0, 0), 0u);
  EXPECT_EQ(off(line, 0, 1), 1u);
  EXPECT_EQ(off(line, 0, 2), 1u);  // inside the surrogate pair: rounds down
  EXPECT_EQ(off(line, 0, 3), 5u);
  EXPECT_EQ(off(line, 0, 4), 6u);
  EXPECT_EQ(off(line, 0, 5), 8u);
  EXPECT_EQ(off(line, 0, 6), 9u);
  EXPECT_EQ(off(line, 0, 100), 9u);  // clamps to end of line
}

TEST(Utf16Test, LinesAndTerminators) {
  const std::string text = "ab\r\n" + kZh + "x\rlast\nend";
  EXPECT_EQ(off(text, 0, 99), 2u);  // clamp before CR LF
  EXPECT_EQ(off(text, 1, 0), 4u);
  EXPECT_EQ(off(text, 1, 1), 7u);
  EXPECT_EQ(off(text, 1, 9), 8u);  // before lone CR
  EXPECT_EQ(off(text, 2, 0), 9u);
  EXPECT_EQ(off(text, 3, 3), text.size());
  EXPECT_EQ(off(text, 4, 0), text.size());  // one past the last line
  EXPECT_FALSE(positionToOffset(text, Position{5, 0}).has_value());
  EXPECT_FALSE(positionToOffset(text, Position{-1, 0}).has_value());
  EXPECT_EQ(off("abc\n", 1, 0), 4u);
  EXPECT_EQ(off("abc\n", 2, 0), 4u);
  EXPECT_FALSE(positionToOffset("abc\n", Position{3, 0}).has_value());
}

TEST(Utf16Test, OffsetToPosition) {
  const std::string text = "a" + kSmile + "\r\n" + kE + "z";
  EXPECT_EQ(offsetToPosition(text, 0), (Position{0, 0}));
  EXPECT_EQ(offsetToPosition(text, 1), (Position{0, 1}));
  EXPECT_EQ(offsetToPosition(text, 3), (Position{0, 1}));  // inside the emoji
  EXPECT_EQ(offsetToPosition(text, 5), (Position{0, 3}));
  EXPECT_EQ(offsetToPosition(text, 6), (Position{0, 3}));  // between CR and LF
  EXPECT_EQ(offsetToPosition(text, 7), (Position{1, 0}));
  EXPECT_EQ(offsetToPosition(text, 9), (Position{1, 1}));
  EXPECT_EQ(offsetToPosition(text, 10), (Position{1, 2}));
  EXPECT_EQ(offsetToPosition(text, 999), (Position{1, 2}));
  // Round trip on every code point boundary.
  for (std::size_t o : {0u, 1u, 5u, 7u, 9u, 10u}) EXPECT_EQ(off(text, offsetToPosition(text, o).line,
                                                                offsetToPosition(text, o).character), o);
}

TEST(ContentChangesTest, InsertAfterEmoji) {
  std::string text = "x = \"" + kSmile + "\";\n";
  // VS Code: the emoji occupies characters 5-6; the closing quote is at 7.
  ASSERT_TRUE(applyContentChange(text, edit(0, 7, 0, 7, "!")));
  EXPECT_EQ(text, "x = \"" + kSmile + "!\";\n");
}

TEST(ContentChangesTest, DeleteEmojiAndMultiByteChars) {
  std::string text = kE + kSmile + kZh + "\n";
  ASSERT_TRUE(applyContentChange(text, edit(0, 1, 0, 3, "")));  // the emoji
  EXPECT_EQ(text, kE + kZh + "\n");
  ASSERT_TRUE(applyContentChange(text, edit(0, 0, 0, 1, "e")));  // é → e
  EXPECT_EQ(text, "e" + kZh + "\n");
  ASSERT_TRUE(applyContentChange(text, edit(0, 1, 0, 2, kSmile + kSmile)));
  EXPECT_EQ(text, "e" + kSmile + kSmile + "\n");
  ASSERT_TRUE(applyContentChange(text, edit(0, 3, 0, 5, "")));  // the second emoji (units 3-4)
  EXPECT_EQ(text, "e" + kSmile + "\n");
}

TEST(ContentChangesTest, MultiLineReplaceAndFullReplace) {
  std::string text = "int main() {\n  int " + kZh + " = 1;\n  return 0;\n}\n";
  ASSERT_TRUE(applyContentChange(text, edit(1, 6, 2, 10, "y = 2;\n  return y")));
  EXPECT_EQ(text, "int main() {\n  int y = 2;\n  return y;\n}\n");
  ASSERT_TRUE(applyContentChange(text, TextDocumentContentChangeEvent{std::nullopt, std::nullopt, "new"}));
  EXPECT_EQ(text, "new");
}

TEST(ContentChangesTest, AppendAtEndOfDocument) {
  std::string text = "a\nb";
  ASSERT_TRUE(applyContentChange(text, edit(1, 1, 1, 1, "\nc")));
  EXPECT_EQ(text, "a\nb\nc");
  ASSERT_TRUE(applyContentChange(text, edit(3, 0, 3, 0, "\n")));  // one past the last line
  EXPECT_EQ(text, "a\nb\nc\n");
}

TEST(ContentChangesTest, ErrorsLeaveTextUnchanged) {
  std::string text = "one\ntwo\n";
  std::string error;
  EXPECT_FALSE(applyContentChange(text, edit(5, 0, 5, 0, "x"), &error));
  EXPECT_NE(error.find("outside"), std::string::npos);
  EXPECT_FALSE(applyContentChange(text, edit(1, 2, 0, 1, "x"), &error));
  EXPECT_NE(error.find("after its end"), std::string::npos);
  EXPECT_EQ(text, "one\ntwo\n");
}

TEST(ContentChangesTest, SequentialChangesAllOrNothing) {
  std::string text = "abc";
  std::vector<TextDocumentContentChangeEvent> changes = {edit(0, 3, 0, 3, kSmile), edit(0, 5, 0, 5, "d")};
  ASSERT_TRUE(applyContentChanges(text, changes));
  EXPECT_EQ(text, "abc" + kSmile + "d");  // the second change sees the first one's result
  std::string error;
  changes = {edit(0, 0, 0, 1, "Z"), edit(9, 0, 9, 0, "bad")};
  EXPECT_FALSE(applyContentChanges(text, changes, &error));
  EXPECT_EQ(text, "abc" + kSmile + "d");
  EXPECT_NE(error.find("content change 1"), std::string::npos);
}

}  // namespace
}  // namespace argus::protocol
