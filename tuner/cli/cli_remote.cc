#include "tuner/cli/cli_remote.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tuner/base/one_line.h"
#include "tuner/base/small_file.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/config_values.h"
#include "tuner/server/http_client.h"
#include "tuner/server/token.h"
#include "tuner/text/printable_stream.h"

namespace tuner {

using server::ClientResponse;
using server::ClientToken;
using server::FindClientToken;
using server::HttpClient;
using server::MayCarryToken;
using server::RecordedServiceListens;
using server::UrlEncode;

namespace {

namespace fs = std::filesystem;

int Fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "tuner: %s\n", OneLine(message).c_str());
  return code;
}

// A non-2xx answer in one line: the service's {"error": ...} as it came
// (the text the verb prints with --db); any other answer (a proxy's,
// another program's) named by the server, its status and reason. The
// client follows no redirect, so a 3xx says so and where it pointed.
std::string ErrorOf(const HttpClient& server, const ClientResponse& response) {
  std::string answered = "http://" + server.authority() + " answered " +
                         std::to_string(response.status) + " " +
                         response.reason;
  if (response.status / 100 == 3) {
    return answered + ": the tuner does not follow redirects" +
           (response.location.empty() ? ""
                                      : " (to " + response.location + ")") +
           "; give --server the address of `tuner serve` itself";
  }
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  if (json.is_object() && json.contains("error") && json["error"].is_string()) {
    return json["error"].get<std::string>();
  }
  return answered + (response.body.empty() ? "" : ": " + response.body);
}

// Gives `client` the token, where it may go; the exit code (2) after
// saying why not. Without a token the server answers 401 itself.
int GiveToken(HttpClient& client, const ClientToken& token,
              const RemoteOptions& remote) {
  if (token.value.empty() && token.refused.empty()) return 0;
  auto may = MayCarryToken(token, client.peer(), remote.allow_plain_http);
  if (may.ok()) may = RecordedServiceListens(token, client.peer());
  if (!may.ok()) return Fail(may.message(), 2);
  client.SetToken(token.value);
  return 0;
}

// GETs `target` and prints the answer's body (the same text the verb
// prints with --db in `format`), through the one sanitiser: the server's
// text reaches the terminal as the database's would.
int Ask(const RemoteOptions& remote, const std::string& target,
        const std::string& format) {
  ClientResponse response;
  int code = RemoteExchange(remote, "GET", target, "", response);
  if (code == 0)
    std::fputs(PrintableFor(format, response.body).c_str(), stdout);
  return code;
}

std::string Experiment(const std::string& name) {
  return "/api/experiments/" + UrlEncode(name);
}

}  // namespace

int RemoteExchange(const RemoteOptions& remote, const std::string& method,
                   const std::string& target, const std::string& body,
                   ClientResponse& out) {
  auto token = FindClientToken(remote.token_file, remote.db_path);
  if (!token.ok()) return Fail(token.message(), 2);
  auto client = HttpClient::Connect(remote.server);
  if (!client.ok()) return Fail(client.message());
  HttpClient& server = *client.value();
  const bool read = method == "GET";
  if (!read) {
    if (int code = GiveToken(server, token.value(), remote)) return code;
  }
  auto response = server.Call(method, target, body);
  if (read && response.ok() && response.value().status == 401 &&
      (!token.value().value.empty() || !token.value().refused.empty())) {
    if (int code = GiveToken(server, token.value(), remote)) return code;
    response = server.Call(method, target, body);
  }
  if (!response.ok()) {
    return Fail(remote.server + ": " + response.message());
  }
  out = std::move(response).value();
  if (out.status / 100 != 2) {
    return Fail(ErrorOf(server, out),
                out.status == 400 || out.status == 409 ? 2 : 1);
  }
  return 0;
}

int RemoteSubmit(const std::string& config_path, const RemoteOptions& remote,
                 const std::vector<std::string>& overrides) {
  auto file = ReadSmallFile(config_path, kMaxConfigBytes);
  if (!file.ok()) return Fail(file.message(), 2);
  auto text = OverriddenConfigText(file.value(), config_path,
                                   fs::current_path().string(), overrides);
  if (!text.ok()) return Fail(text.message(), 2);
  fs::path path = fs::absolute(config_path);
  // Relative paths in the config are this directory's, as with `tuner run`.
  std::string target =
      "/api/experiments?base=" + UrlEncode(fs::current_path().string()) +
      "&source=" + UrlEncode(path.string());
  ClientResponse response;
  int code = RemoteExchange(remote, "POST", target, text.value(), response);
  if (code != 0) return code;
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  std::string name = json.is_object() ? json.value("name", "") : "";
  std::printf("submitted experiment '%s': %s%s\n", OneLine(name).c_str(),
              OneLine(remote.server).c_str(), Experiment(name).c_str());
  return 0;
}

int RefuseImpossibleName(const std::string& name) {
  if (config::IsName(name)) return 0;
  return Fail("no experiment " + core::QuotedInput(name) + " in this server");
}

int RemoteStatus(const std::string& name, const RemoteOptions& remote,
                 const std::string& format) {
  if (!name.empty()) {
    if (int code = RefuseImpossibleName(name)) return code;
  }
  return Ask(remote,
             "/api/experiments?format=" + UrlEncode(format) +
                 "&name=" + UrlEncode(name),
             format);
}

int RemoteBest(const std::string& name, int64_t top, const std::string& format,
               const RemoteOptions& remote, const std::string& by) {
  if (int code = RefuseImpossibleName(name)) return code;
  return Ask(remote,
             Experiment(name) + "/best?top=" + std::to_string(top) +
                 "&format=" + UrlEncode(format) + "&by=" + UrlEncode(by),
             format);
}

int RemoteReports(const std::string& name, const std::string& format,
                  const RemoteOptions& remote) {
  if (int code = RefuseImpossibleName(name)) return code;
  return Ask(remote, Experiment(name) + "/reports?format=" + UrlEncode(format),
             format);
}

int RemoteTrials(const std::string& name, const std::string& format,
                 const RemoteOptions& remote) {
  if (int code = RefuseImpossibleName(name)) return code;
  return Ask(remote, Experiment(name) + "/trials?format=" + UrlEncode(format),
             format);
}

int RemoteStop(const std::string& name, bool force,
               const RemoteOptions& remote) {
  if (int code = RefuseImpossibleName(name)) return code;
  ClientResponse response;
  int code = RemoteExchange(
      remote, "POST", Experiment(name) + "/stop" + (force ? "?force=1" : ""),
      "", response);
  // As with --db: stopping what does not run is bad input (409: exit 2),
  // an unknown name is not found (404: exit 1).
  if (code != 0) return code;
  // Like `tuner stop --db`, return once its trials are gone.
  auto deadline = std::chrono::steady_clock::now() + remote.stop_wait;
  for (;;) {
    if (RemoteExchange(remote, "GET", Experiment(name), "", response) != 0)
      return 1;
    auto json = nlohmann::json::parse(response.body, nullptr, false);
    std::string status = json.is_object() ? json.value("status", "") : "";
    if (status != "running" && status != "stopping") break;
    if (std::chrono::steady_clock::now() > deadline) {
      return Fail("experiment '" + name + "' is still stopping");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("%s: stopped\n", OneLine(name).c_str());
  return 0;
}

}  // namespace tuner

namespace tuner {

int RemoteResume(const std::string& name, const RemoteOptions& remote) {
  if (int code = RefuseImpossibleName(name)) return code;
  ClientResponse response;
  int code = RemoteExchange(remote, "POST", Experiment(name) + "/resume", "",
                            response);
  if (code != 0) return code;
  std::printf("%s: resumed on %s\n", OneLine(name).c_str(),
              OneLine(remote.server).c_str());
  return 0;
}

}  // namespace tuner
