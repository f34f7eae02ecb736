// All LSP protocol structs (umbrella header).
#pragma once

#include "protocol/lsp_basic.h"
#include "protocol/lsp_code_lens.h"
#include "protocol/lsp_diagnostics.h"
#include "protocol/lsp_lifecycle.h"
#include "protocol/lsp_progress.h"
#include "protocol/lsp_text_sync.h"
