// All LSP protocol structs (umbrella header).
#pragma once

#include "protocol/LspBasic.h"
#include "protocol/LspCodeLens.h"
#include "protocol/LspDiagnostics.h"
#include "protocol/LspLifecycle.h"
#include "protocol/LspProgress.h"
#include "protocol/LspTextSync.h"
