// `tuner delete` and `tuner extend` with --server: the service's
// /delete and /extend endpoints (docs/service.md).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tuner/server/cli_remote.h"
#include "tuner/server/http_client.h"
#include "tuner/server/token.h"

namespace tuner::server {

namespace {

// POSTs `target`; the answer's JSON in `out`. The exit code, as with
// --db: 0 on 2xx, 2 for 400 (bad input), 1 otherwise (404: an unknown
// name, 409: it runs).
int Post(const RemoteOptions& remote, const std::string& target,
         nlohmann::json& out) {
  auto token = FindClientToken(remote.token_file, remote.db_path);
  if (!token.ok()) {
    std::fprintf(stderr, "tuner: %s\n", token.message().c_str());
    return 2;
  }
  auto client = HttpClient::Connect(remote.server, token.value());
  auto response = client.ok() ? client.value()->Call("POST", target, "")
                              : core::Result<ClientResponse>(client.error());
  if (!response.ok()) {
    std::fprintf(stderr, "tuner: %s: %s\n", remote.server.c_str(),
                 response.message().c_str());
    return 1;
  }
  int status = response.value().status;
  out = nlohmann::json::parse(response.value().body, nullptr, false);
  if (status / 100 == 2 && out.is_object()) return 0;
  std::string error =
      out.is_object() && out.contains("error") && out["error"].is_string()
          ? out["error"].get<std::string>()
          : "the server answered " + std::to_string(status);
  std::fprintf(stderr, "tuner: %s\n", error.c_str());
  return status == 400 ? 2 : 1;
}

std::string Target(const std::string& name, const std::string& verb) {
  return "/api/experiments/" + UrlEncode(name) + "/" + verb;
}

}  // namespace

int RemoteDelete(const std::string& name, const RemoteOptions& remote) {
  nlohmann::json answer;
  if (int code = Post(remote, Target(name, "delete"), answer)) return code;
  std::printf("%s: deleted (%lld trials, %lld paths removed)\n", name.c_str(),
              answer.value("trials", 0LL), answer.value("removed", 0LL));
  return 0;
}

int RemoteExtend(const std::string& name, int64_t trials,
                 const RemoteOptions& remote) {
  nlohmann::json answer;
  std::string target =
      Target(name, "extend") + "?trials=" + std::to_string(trials);
  if (int code = Post(remote, target, answer)) return code;
  std::printf("%s: budget %lld trials (%lld so far, %s)", name.c_str(),
              answer.value("budget", 0LL), answer.value("trials", 0LL),
              answer.value("status", std::string()).c_str());
  if (answer.value("running", false)) {
    std::printf("; the tuner running it launches the new ones\n");
  } else {
    std::printf("; run them: tuner resume %s --server %s\n", name.c_str(),
                remote.server.c_str());
  }
  return 0;
}

}  // namespace tuner::server
