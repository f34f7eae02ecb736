#include "protocol/content_changes.h"

#include "protocol/utf16.h"

namespace argus::protocol {

namespace {
std::string describe(const Position& p) {
  return std::to_string(p.line) + ":" + std::to_string(p.character);
}
}  // namespace

bool applyContentChange(std::string& text, const TextDocumentContentChangeEvent& change, std::string* error) {
  if (!change.range) {
    text = change.text;
    return true;
  }
  auto start = positionToOffset(text, change.range->start);
  auto end = positionToOffset(text, change.range->end);
  if (!start || !end) {
    if (error)
      *error = "range " + describe(change.range->start) + "-" + describe(change.range->end) +
               " is outside the document";
    return false;
  }
  if (*start > *end) {
    if (error) *error = "range start " + describe(change.range->start) + " is after its end";
    return false;
  }
  text.replace(*start, *end - *start, change.text);
  return true;
}

bool applyContentChanges(std::string& text, const std::vector<TextDocumentContentChangeEvent>& changes,
                         std::string* error) {
  std::string work = text;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    std::string why;
    if (!applyContentChange(work, changes[i], &why)) {
      if (error) *error = "content change " + std::to_string(i) + ": " + why;
      return false;
    }
  }
  text = std::move(work);
  return true;
}

}  // namespace argus::protocol
