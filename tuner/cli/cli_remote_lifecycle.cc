// `tuner delete` and `tuner extend` with --server: the service's
// /delete and /extend endpoints (docs/service.md).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tuner/base/one_line.h"
#include "tuner/cli/cli_remote.h"
#include "tuner/server/http_client.h"

namespace tuner {

namespace {

// POSTs `target`; the answer's JSON in `out`. The exit code, as with
// --db: 0 on 2xx, 2 for 400 (bad input), 1 otherwise (404: an unknown
// name, 409: it runs).
int Post(const RemoteOptions& remote, const std::string& target,
         nlohmann::json& out) {
  server::ClientResponse response;
  int code = RemoteExchange(remote, "POST", target, "", response);
  if (code != 0) return response.status == 409 ? 1 : code;
  out = nlohmann::json::parse(response.body, nullptr, false);
  if (out.is_object()) return 0;
  std::fprintf(stderr, "tuner: the server answered %d without JSON\n",
               response.status);
  return 1;
}

std::string Target(const std::string& name, const std::string& verb) {
  return "/api/experiments/" + server::UrlEncode(name) + "/" + verb;
}

}  // namespace

int RemoteDelete(const std::string& name, const RemoteOptions& remote) {
  if (int code = RefuseImpossibleName(name)) return code;
  nlohmann::json answer;
  if (int code = Post(remote, Target(name, "delete"), answer)) return code;
  std::printf("%s: deleted (%lld trials, %lld paths removed)\n",
              OneLine(name).c_str(), answer.value("trials", 0LL),
              answer.value("removed", 0LL));
  return 0;
}

int RemoteExtend(const std::string& name, int64_t trials,
                 const RemoteOptions& remote) {
  if (int code = RefuseImpossibleName(name)) return code;
  nlohmann::json answer;
  std::string target =
      Target(name, "extend") + "?trials=" + std::to_string(trials);
  if (int code = Post(remote, target, answer)) return code;
  std::printf("%s: budget %lld trials (%lld so far, %s)", OneLine(name).c_str(),
              answer.value("budget", 0LL), answer.value("trials", 0LL),
              OneLine(answer.value("status", std::string())).c_str());
  if (answer.value("running", false)) {
    std::printf("; the tuner running it launches the new ones\n");
  } else {
    std::printf("; run them: tuner resume %s --server %s\n",
                OneLine(name).c_str(), OneLine(remote.server).c_str());
  }
  return 0;
}

}  // namespace tuner
