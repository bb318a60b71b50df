#include "tuner/server/cli_remote.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tuner/base/small_file.h"
#include "tuner/config/config_loader.h"
#include "tuner/server/http_client.h"
#include "tuner/server/token.h"

namespace tuner::server {

namespace {

namespace fs = std::filesystem;

int Fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "tuner: %s\n", message.c_str());
  return code;
}

// The server's {"error": ...}, or the body as it came.
std::string ErrorOf(const ClientResponse& response) {
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  if (json.is_object() && json.contains("error") && json["error"].is_string()) {
    return json["error"].get<std::string>();
  }
  return "the server answered " + std::to_string(response.status) + ": " +
         response.body;
}

// Sends the request. 0 with the answer in `out` when the server accepted
// it (2xx); else the exit code, after printing why: 2 for a refused request
// (400, 409) or an unreadable token file, 1 otherwise.
int Exchange(const RemoteOptions& remote, const std::string& method,
             const std::string& target, const std::string& body,
             ClientResponse& out) {
  auto token = FindClientToken(remote.token_file, remote.db_path);
  if (!token.ok()) return Fail(token.message(), 2);
  auto client = HttpClient::Connect(remote.server, token.value());
  if (!client.ok()) return Fail(client.message());
  auto response = client.value()->Call(method, target, body);
  if (!response.ok()) {
    return Fail(remote.server + ": " + response.message());
  }
  out = std::move(response).value();
  if (out.status / 100 != 2) {
    return Fail(ErrorOf(out), out.status == 400 || out.status == 409 ? 2 : 1);
  }
  return 0;
}

// Sends the request and prints the answer's body (the same text the verb
// prints with --db).
int Ask(const RemoteOptions& remote, const std::string& method,
        const std::string& target, bool print = true) {
  ClientResponse response;
  int code = Exchange(remote, method, target, "", response);
  if (code == 0 && print) std::fputs(response.body.c_str(), stdout);
  return code;
}

std::string Experiment(const std::string& name) {
  return "/api/experiments/" + UrlEncode(name);
}

}  // namespace

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
  int code = Exchange(remote, "POST", target, text.value(), response);
  if (code != 0) return code;
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  std::string name = json.is_object() ? json.value("name", "") : "";
  std::printf("submitted experiment '%s': %s%s\n", name.c_str(),
              remote.server.c_str(), Experiment(name).c_str());
  return 0;
}

int RemoteStatus(const std::string& name, const RemoteOptions& remote,
                 const std::string& format) {
  return Ask(remote, "GET",
             "/api/experiments?format=" + UrlEncode(format) +
                 "&name=" + UrlEncode(name));
}

int RemoteBest(const std::string& name, int64_t top, const std::string& format,
               const RemoteOptions& remote, const std::string& by) {
  return Ask(remote, "GET",
             Experiment(name) + "/best?top=" + std::to_string(top) +
                 "&format=" + UrlEncode(format) + "&by=" + UrlEncode(by));
}

int RemoteReports(const std::string& name, const std::string& format,
                  const RemoteOptions& remote) {
  return Ask(remote, "GET",
             Experiment(name) + "/reports?format=" + UrlEncode(format));
}

int RemoteTrials(const std::string& name, const std::string& format,
                 const RemoteOptions& remote) {
  return Ask(remote, "GET", Experiment(name) + "/trials?format=" + format);
}

int RemoteStop(const std::string& name, bool force,
               const RemoteOptions& remote) {
  ClientResponse response;
  int code = Exchange(remote, "POST",
                      Experiment(name) + "/stop" + (force ? "?force=1" : ""),
                      "", response);
  // As with --db: stopping what does not run is bad input.
  if (code != 0) return response.status == 404 ? 2 : code;
  // Like `tuner stop --db`, return once its trials are gone.
  auto deadline = std::chrono::steady_clock::now() + remote.stop_wait;
  for (;;) {
    if (Exchange(remote, "GET", Experiment(name), "", response) != 0) return 1;
    auto json = nlohmann::json::parse(response.body, nullptr, false);
    std::string status = json.is_object() ? json.value("status", "") : "";
    if (status != "running" && status != "stopping") break;
    if (std::chrono::steady_clock::now() > deadline) {
      return Fail("experiment '" + name + "' is still stopping");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("%s: stopped\n", name.c_str());
  return 0;
}

}  // namespace tuner::server

namespace tuner::server {

int RemoteResume(const std::string& name, const RemoteOptions& remote) {
  ClientResponse response;
  int code =
      Exchange(remote, "POST", Experiment(name) + "/resume", "", response);
  if (code != 0) return response.status == 404 ? 2 : code;
  std::printf("%s: resumed on %s\n", name.c_str(), remote.server.c_str());
  return 0;
}

}  // namespace tuner::server
