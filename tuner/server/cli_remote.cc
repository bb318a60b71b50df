#include "tuner/server/cli_remote.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tuner/server/http_client.h"

namespace tuner::server {

namespace {

namespace fs = std::filesystem;

int Fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "tuner: %s\n", message.c_str());
  return code;
}

std::string Token(const RemoteOptions& remote) {
  std::string token;
  if (remote.token_file) {
    std::ifstream in(*remote.token_file);
    std::getline(in, token);
  } else if (const char* env = std::getenv("TUNER_TOKEN")) {
    token = env;
  }
  while (!token.empty() &&
         std::isspace(static_cast<unsigned char>(token.back()))) {
    token.pop_back();
  }
  return token;
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

// Sends the request; prints the body (2xx) or the error. `code_for_4xx`
// is the exit code of a refused request.
int Ask(const RemoteOptions& remote, const std::string& method,
        const std::string& target, const std::string& body = "",
        bool print = true) {
  auto client = HttpClient::Connect(remote.server, Token(remote));
  if (!client.ok()) return Fail(client.message());
  auto response = client.value()->Call(method, target, body);
  if (!response.ok()) {
    return Fail(remote.server + ": " + response.message());
  }
  const ClientResponse& r = response.value();
  if (r.status / 100 != 2) {
    return Fail(ErrorOf(r), r.status == 400 || r.status == 409 ? 2 : 1);
  }
  if (print) std::fputs(r.body.c_str(), stdout);
  return 0;
}

std::string Experiment(const std::string& name) {
  return "/api/experiments/" + UrlEncode(name);
}

}  // namespace

int RemoteSubmit(const std::string& config_path, const RemoteOptions& remote) {
  std::ifstream in(config_path);
  if (!in) return Fail(config_path + ": cannot read the file", 2);
  std::stringstream text;
  text << in.rdbuf();
  fs::path path = fs::absolute(config_path);
  std::string target =
      "/api/experiments?base=" + UrlEncode(path.parent_path().string()) +
      "&source=" + UrlEncode(path.string());
  auto client = HttpClient::Connect(remote.server, Token(remote));
  if (!client.ok()) return Fail(client.message());
  auto response = client.value()->Call("POST", target, text.str());
  if (!response.ok()) return Fail(remote.server + ": " + response.message());
  if (response.value().status != 201) {
    int status = response.value().status;
    return Fail(ErrorOf(response.value()),
                status == 400 || status == 409 ? 2 : 1);
  }
  auto json = nlohmann::json::parse(response.value().body, nullptr, false);
  std::string name = json.is_object() ? json.value("name", "") : "";
  std::printf("submitted experiment '%s': %s%s\n", name.c_str(),
              remote.server.c_str(), Experiment(name).c_str());
  return 0;
}

int RemoteStatus(const std::string& name, const RemoteOptions& remote) {
  return Ask(remote, "GET",
             "/api/experiments?format=table&name=" + UrlEncode(name));
}

int RemoteBest(const std::string& name, int64_t top, const std::string& format,
               const RemoteOptions& remote) {
  return Ask(remote, "GET",
             Experiment(name) + "/best?top=" + std::to_string(top) +
                 "&format=" + format);
}

int RemoteTrials(const std::string& name, const std::string& format,
                 const RemoteOptions& remote) {
  return Ask(remote, "GET", Experiment(name) + "/trials?format=" + format);
}

int RemoteStop(const std::string& name, bool force,
               const RemoteOptions& remote) {
  int code =
      Ask(remote, "POST",
          Experiment(name) + "/stop" + (force ? "?force=1" : ""), "", false);
  if (code == 0) std::printf("stopping experiment '%s'\n", name.c_str());
  return code;
}

}  // namespace tuner::server
