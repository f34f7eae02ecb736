// Applying textDocument/didChange content changes to a UTF-8 document.
#pragma once

#include <string>
#include <vector>

#include "protocol/lsp_text_sync.h"

namespace argus::protocol {

// Applies one change: a full replacement (no range) or a replacement of the
// UTF-16 range (positions resolved with positionToOffset, see utf16.h).
// On error (line out of range, start after end) returns false, sets *error
// when given, and leaves `text` unchanged.
bool applyContentChange(std::string& text, const TextDocumentContentChangeEvent& change,
                        std::string* error = nullptr);

// Applies the changes in order, all or nothing: on the first failing change
// `text` is left as it was before the call and *error names that change.
bool applyContentChanges(std::string& text, const std::vector<TextDocumentContentChangeEvent>& changes,
                         std::string* error = nullptr);

}  // namespace argus::protocol
