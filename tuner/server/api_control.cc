// The API's writes: submitting, stopping and resuming experiments. Nothing
// here runs a command; a submitted experiment runs its own `command`.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tuner/base/tuner_lock.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"
#include "tuner/server/api.h"

namespace tuner::server {

namespace {

namespace fs = std::filesystem;

Response Accepted(int status, const std::string& name,
                  const std::string& state) {
  nlohmann::ordered_json body = {
      {"name", name}, {"status", state}, {"url", "/api/experiments/" + name}};
  return JsonResponse(status, body.dump() + "\n");
}

// What the hub's answer becomes: `status` with {name, state, url}, or the
// error.
Control::Done Answer(const Api::Reply& reply, int status,
                     const std::string& name, const std::string& state) {
  return [reply, status, name, state](core::Status done) {
    if (!done.ok()) {
      return reply(ErrorResponse(done.error()));
    }
    reply(Accepted(status, name, state));
  };
}

}  // namespace

std::optional<Response> Api::Submit(const Request& request, const Query& query,
                                    const Reply& reply) const {
  std::string base = options_.default_base_dir;
  if (auto it = query.find("base"); it != query.end()) base = it->second;
  if (base.empty() || base[0] != '/') {
    return ErrorResponse(400, "base: an absolute directory");
  }
  // Where error messages say the config came from, and where a resume
  // finds its relative paths (next to it).
  std::string source = "submitted.yaml";
  if (auto it = query.find("source"); it != query.end() && !it->second.empty())
    source = it->second;
  fs::path source_path = fs::path(source).is_absolute()
                             ? fs::path(source)
                             : fs::path(base) / fs::path(source).filename();
  if (request.body.empty()) {
    return ErrorResponse(400,
                         "the body is empty; send the experiment's YAML "
                         "(or JSON)");
  }
  // Parsing is bounded but not instant (a config of 1 MiB, did-you-mean
  // over its names): it runs off the HTTP threads, like detection. The
  // work holds no pointer to this Api, which may go first at shutdown.
  control_.Offload([&control = control_, db_path = options_.db_path,
                    body = request.body, source, base,
                    stored_at = source_path.string(), reply] {
    try {
      auto config = LoadConfigText(body, source, base, base);
      if (!config.ok()) return reply(ErrorResponse(400, config.message()));
      if (auto workdir = CheckWorkdir(config.value(), source); !workdir.ok())
        return reply(ErrorResponse(400, workdir.message()));
      std::string name = config.value().name;
      std::string stored =
          StoredConfigJson(config.value(), body, stored_at, base, db_path);
      control.Submit(std::move(config).value(), std::move(stored),
                     Answer(reply, 201, name, "running"));
    } catch (const std::exception& e) {
      reply(ErrorResponse(500, std::string("internal error: ") + e.what()));
    }
  });
  return std::nullopt;
}

void Api::Stop(const std::string& name, const Query& query,
               const Reply& reply) const {
  auto it = query.find("force");
  bool force = it != query.end() && (it->second == "1" || it->second == "true");
  control_.Stop(name, force, Answer(reply, 202, name, "stopping"));
}

void Api::Resume(const std::string& name, const Reply& reply) const {
  control_.Resume(name, Answer(reply, 202, name, "running"));
}

}  // namespace tuner::server
