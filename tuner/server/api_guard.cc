// Api::Guard: what every request must pass before it is routed. Modelled on
// Jupyter Server: a Host that is not the server's own is refused (DNS
// rebinding), a mutation needs the token, comes from no foreign Origin, and
// carries a content type that no HTML form nor `no-cors` fetch can send, so
// that a web page the user visits cannot command the service.
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "tuner/server/api.h"

namespace tuner::server {

namespace {

std::string Lower(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

// The media type of a Content-Type ("application/json; charset=utf-8" ->
// "application/json").
std::string MediaType(const std::string& content_type) {
  std::string type = content_type.substr(0, content_type.find(';'));
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  type.erase(std::remove_if(type.begin(), type.end(), space), type.end());
  return Lower(type);
}

// Types that make a browser send a CORS preflight, which this server never
// answers: a cross-site page cannot send them.
bool IsApiContentType(const std::string& content_type) {
  std::string type = MediaType(content_type);
  return type == "application/json" || type == "application/yaml" ||
         type == "application/x-yaml";
}

Response Refused(int status, const std::string& message) {
  Response r = ErrorResponse(status, message);
  if (status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
  return r;
}

}  // namespace

std::string HostName(const std::string& host_header) {
  std::string host = host_header;
  if (!host.empty() && host[0] == '[') {
    size_t close = host.find(']');
    if (close == std::string::npos) return "";
    std::string rest = host.substr(close + 1);
    if (!rest.empty() && rest[0] != ':') return "";
    host = host.substr(1, close - 1);
  } else if (size_t colon = host.find(':'); colon != std::string::npos) {
    std::string port = host.substr(colon + 1);
    if (port.find_first_not_of("0123456789") != std::string::npos) return "";
    host = host.substr(0, colon);
  }
  if (!host.empty() && host.back() == '.') host.pop_back();
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' &&
        c != ':' && c != '_') {
      return "";
    }
  }
  return Lower(host);
}

bool IsMutation(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

bool Api::HostAllowed(const std::string& host) const {
  if (host.empty()) return false;
  if (options_.any_ip_host && IsIpLiteral(host)) return true;
  const auto& allowed = options_.allowed_hosts;
  return std::find(allowed.begin(), allowed.end(), host) != allowed.end();
}

bool Api::Authorized(const Request& request, const Query& query,
                     bool allow_query_token) const {
  if (!options_.token) return false;
  // The scheme is case-insensitive (RFC 9110, 11.1).
  const std::string prefix = "bearer ";
  const std::string& given = request.authorization;
  if (given.size() >= prefix.size() &&
      std::equal(prefix.begin(), prefix.end(), given.begin(),
                 [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
                 })) {
    return ConstantTimeEquals(given.substr(prefix.size()), *options_.token);
  }
  // EventSource cannot send headers: reads may carry ?token=.
  auto it = query.find("token");
  return allow_query_token && it != query.end() &&
         ConstantTimeEquals(it->second, *options_.token);
}

Response Api::Unauthorized(const Request& request) const {
  if (!options_.token) {
    return Refused(401, "this server has no token and accepts no changes");
  }
  if (!request.authorization.empty()) {
    return Refused(401,
                   "the token sent is not this server's (tuner serve keeps "
                   "it in <db>.token)");
  }
  return Refused(401,
                 "this server needs a token: Authorization: Bearer <token> "
                 "(tuner serve keeps it in <db>.token)");
}

std::optional<Response> Api::Guard(const Request& request,
                                   const std::vector<std::string>& path,
                                   const Query& query) const {
  std::string host = HostName(request.host);
  if (!HostAllowed(host)) {
    return Refused(403, "Host '" + request.host.substr(0, 100) +
                            "' is not this server's (start it with "
                            "--allow-host NAME to use that name)");
  }
  if (IsMutation(request.method)) {
    if (!request.origin.empty() && request.origin != "http://" + request.host) {
      return Refused(403, "cross-origin request refused (Origin '" +
                              request.origin.substr(0, 100) + "')");
    }
    if (!IsApiContentType(request.content_type)) {
      return Refused(415,
                     "a request that changes something must be sent as "
                     "Content-Type: application/json or application/yaml");
    }
    if (!Authorized(request, query, false)) return Unauthorized(request);
    return std::nullopt;
  }
  // A trial's log may hold what its script printed of secrets: the token,
  // always.
  bool log = path.size() == 4 && path[0] == "api" && path[1] == "trials" &&
             path[3] == "log";
  if (log && !Authorized(request, query, true)) {
    if (!request.authorization.empty() || query.count("token")) {
      return Unauthorized(request);
    }
    return Refused(401,
                   "a trial's log needs the token, on any address: "
                   "Authorization: Bearer <token> (tuner serve keeps it in "
                   "<db>.token)");
  }
  // The dashboard's own files and /healthz are public; they hold no data.
  bool public_path =
      path.empty() || (path.size() == 1 &&
                       (assets_.count("/" + path[0]) || path[0] == "healthz"));
  if (options_.token_for_reads && !public_path &&
      !Authorized(request, query, true)) {
    return Refused(401,
                   "this server needs a token for reads too: "
                   "Authorization: Bearer <token> (or ?token= on a GET)");
  }
  return std::nullopt;
}

}  // namespace tuner::server
