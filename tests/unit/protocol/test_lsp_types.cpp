#include "protocol/lsp.h"

#include <gtest/gtest.h>

namespace argus::protocol {
namespace {

template <class T>
T parseOk(const json& j) {
  T out{};
  std::string error;
  EXPECT_TRUE(parseJSON(j, out, &error)) << error << " in " << j.dump();
  return out;
}

template <class T>
std::string parseError(const json& j) {
  T out{};
  std::string error;
  EXPECT_FALSE(parseJSON(j, out, &error)) << j.dump();
  return error;
}

template <class T>
void expectRoundTrip(const T& value) {
  json j = toJSON(value);
  EXPECT_EQ(parseOk<T>(j), value) << j.dump();
}

Range range(int l1, int c1, int l2, int c2) { return Range{{l1, c1}, {l2, c2}}; }

TEST(LspTypesTest, BasicStructsRoundTrip) {
  expectRoundTrip(Position{3, 7});
  expectRoundTrip(range(0, 0, 10, 2));
  expectRoundTrip(Location{"file:///x.c", range(1, 2, 3, 4)});
  expectRoundTrip(TextDocumentIdentifier{"file:///x.c"});
  expectRoundTrip(VersionedTextDocumentIdentifier{"file:///x.c", 12});
  expectRoundTrip(TextDocumentItem{"file:///x.c", "c", 1, "int main(){}\n"});
  EXPECT_EQ(toJSON(Position{1, 2}), json::parse(R"({"line":1,"character":2})"));
}

TEST(LspTypesTest, PositionErrorsNameTheField) {
  EXPECT_EQ(parseError<Position>(json::parse(R"({"line":1})")), "params.character: missing required field");
  EXPECT_EQ(parseError<Position>(json::parse(R"({"line":-1,"character":0})")), "params.line: must not be negative");
  EXPECT_EQ(parseError<Position>(json::parse(R"({"line":"1","character":0})")), "params.line: expected integer");
  EXPECT_EQ(parseError<Position>(json::parse(R"({"line":1.5,"character":0})")), "params.line: expected integer");
  EXPECT_EQ(parseError<Position>(json::parse(R"({"line":4294967296,"character":0})")),
            "params.line: integer out of range");
  EXPECT_EQ(parseError<Position>(json::array()), "params: expected object");
}

TEST(LspTypesTest, TextSyncParams) {
  auto change = parseOk<DidChangeTextDocumentParams>(json::parse(R"({
    "textDocument": {"uri": "file:///a.c", "version": 4},
    "contentChanges": [
      {"range": {"start": {"line": 0, "character": 1}, "end": {"line": 0, "character": 3}}, "rangeLength": 2, "text": "xy"},
      {"text": "full"}
    ]})"));
  EXPECT_EQ(change.textDocument.version, 4);
  ASSERT_EQ(change.contentChanges.size(), 2u);
  EXPECT_EQ(change.contentChanges[0].range, std::optional<Range>(range(0, 1, 0, 3)));
  EXPECT_EQ(change.contentChanges[0].rangeLength, std::optional<int>(2));
  EXPECT_FALSE(change.contentChanges[1].range.has_value());
  expectRoundTrip(change);

  EXPECT_EQ(parseError<DidChangeTextDocumentParams>(json::parse(
                R"({"textDocument":{"uri":"u","version":1},"contentChanges":[{"text":"a"},{"range":null}]})")),
            "params.contentChanges[1].text: missing required field");

  expectRoundTrip(DidOpenTextDocumentParams{TextDocumentItem{"u", "c", 0, "x"}});
  expectRoundTrip(DidSaveTextDocumentParams{{"u"}, std::nullopt});
  expectRoundTrip(DidSaveTextDocumentParams{{"u"}, "text"});
  expectRoundTrip(DidCloseTextDocumentParams{{"u"}});
}

TEST(LspTypesTest, Diagnostics) {
  Diagnostic d;
  d.range = range(4, 2, 4, 20);
  d.severity = DiagnosticSeverity::Error;
  d.code = "reach_error";
  d.source = "argus";
  d.message = "reach_error() is reachable (from main)";
  d.relatedInformation = std::vector<DiagnosticRelatedInformation>{
      {Location{"file:///a.c", range(1, 0, 1, 5)}, "step 1: x = 3"},
      {Location{"file:///a.c", range(2, 0, 2, 5)}, "step 2: x > 2"}};
  d.data = json{{"trace", 7}};
  PublishDiagnosticsParams p{"file:///a.c", 3, {d}};
  expectRoundTrip(p);
  json j = toJSON(p);
  EXPECT_EQ(j["diagnostics"][0]["severity"], 1);
  EXPECT_EQ(j["diagnostics"][0]["relatedInformation"][1]["message"], "step 2: x > 2");
  // Optional members are omitted, not null.
  EXPECT_FALSE(toJSON(Diagnostic{}).contains("severity"));
  EXPECT_FALSE(toJSON(PublishDiagnosticsParams{"u", std::nullopt, {}}).contains("version"));
  // Integer codes are accepted.
  auto parsed = parseOk<Diagnostic>(json::parse(R"({"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"m","code":42})"));
  EXPECT_EQ(parsed.code, std::optional<std::string>("42"));
  EXPECT_EQ(parseError<Diagnostic>(json::parse(R"({"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"m","severity":5})")),
            "params.severity: severity must be 1..4");
}

TEST(LspTypesTest, CodeLensAndCommands) {
  CodeLens lens{range(3, 0, 3, 10), Command{"verified (loops ≤ 8)", "argus.showCondition", std::vector<json>{"f", 1}},
                json{{"fn", "f"}}};
  expectRoundTrip(lens);
  expectRoundTrip(CodeLens{range(0, 0, 0, 1), std::nullopt, std::nullopt});
  expectRoundTrip(CodeLensParams{{"file:///a.c"}});
  expectRoundTrip(ExecuteCommandParams{"argus.verify", std::nullopt});
  json j = toJSON(lens);
  EXPECT_EQ(j["command"]["arguments"], json::parse(R"(["f",1])"));
}

TEST(LspTypesTest, InitializeParamsFromVsCodeLikeMessage) {
  auto p = parseOk<InitializeParams>(json::parse(R"({
    "processId": 1234, "rootUri": "file:///ws", "clientInfo": {"name": "vscode"},
    "capabilities": {"textDocument": {}, "window": {"workDoneProgress": true, "showMessage": {}}},
    "initializationOptions": {"token": "s3cret"}, "trace": "off"})"));
  EXPECT_EQ(p.processId, std::optional<std::int64_t>(1234));
  EXPECT_EQ(p.rootUri, std::optional<std::string>("file:///ws"));
  EXPECT_TRUE(p.workDoneProgress);
  EXPECT_EQ(p.initializationOptions["token"], "s3cret");

  auto minimal = parseOk<InitializeParams>(json::parse(R"({"processId": null, "rootUri": null, "capabilities": {}})"));
  EXPECT_FALSE(minimal.processId.has_value());
  EXPECT_FALSE(minimal.workDoneProgress);
  EXPECT_TRUE(minimal.initializationOptions.is_null());
  expectRoundTrip(p);
  EXPECT_EQ(parseError<InitializeParams>(json::parse(R"({"capabilities":{"window":{"workDoneProgress":"yes"}}})")),
            "params.capabilities.window.workDoneProgress: expected boolean");
}

TEST(LspTypesTest, InitializeResultAdvertisesCapabilities) {
  InitializeResult r;
  r.capabilities.executeCommands = {"argus.verify"};
  r.serverInfo = ServerInfo{"argusd", "0.1"};
  json j = toJSON(r);
  EXPECT_EQ(j["capabilities"]["textDocumentSync"]["change"], 2);
  EXPECT_EQ(j["capabilities"]["textDocumentSync"]["openClose"], true);
  EXPECT_EQ(j["capabilities"]["codeLensProvider"]["resolveProvider"], false);
  EXPECT_EQ(j["capabilities"]["executeCommandProvider"]["commands"], json::array({"argus.verify"}));
  EXPECT_EQ(j["capabilities"]["executeCommandProvider"]["workDoneProgress"], true);
  EXPECT_EQ(j["serverInfo"]["name"], "argusd");
  r.capabilities.executeCommands.clear();
  r.capabilities.codeLensProvider = false;
  json k = toJSON(r);
  EXPECT_FALSE(k["capabilities"].contains("executeCommandProvider"));
  EXPECT_FALSE(k["capabilities"].contains("codeLensProvider"));
}

TEST(LspTypesTest, Progress) {
  ProgressParams<WorkDoneProgressBegin> begin{"verify-1", {"Verifying a.c", true, "main", 0}};
  EXPECT_EQ(toJSON(begin), json::parse(R"({"token":"verify-1","value":{"kind":"begin","title":"Verifying a.c",
                                            "cancellable":true,"message":"main","percentage":0}})"));
  ProgressParams<WorkDoneProgressReport> report{7, {std::nullopt, "k=3", 40}};
  EXPECT_EQ(toJSON(report), json::parse(R"({"token":7,"value":{"kind":"report","message":"k=3","percentage":40}})"));
  ProgressParams<WorkDoneProgressEnd> end{7, {std::nullopt}};
  EXPECT_EQ(toJSON(end), json::parse(R"({"token":7,"value":{"kind":"end"}})"));
  expectRoundTrip(WorkDoneProgressCreateParams{"tok"});
  expectRoundTrip(WorkDoneProgressCancelParams{9});
  expectRoundTrip(CancelParams{RequestId("abc")});
  EXPECT_EQ(parseError<CancelParams>(json::parse(R"({"id":1.5})")), "params.id: expected integer or string");
}

TEST(LspTypesTest, DidChangeConfiguration) {
  DidChangeConfigurationParams p;
  std::string error;
  ASSERT_TRUE(parseJSON(json::parse(R"({"settings":{"argus":{"timeout":5}}})"), p, &error)) << error;
  EXPECT_EQ(p.settings["argus"]["timeout"], 5);
}

}  // namespace
}  // namespace argus::protocol
