// The dashboard's static files (tuner/server/dashboard/), compiled into the
// binary at build time by cmake/embed_assets.cmake.
#ifndef TUNER_TUNER_SERVER_DASHBOARD_H_
#define TUNER_TUNER_SERVER_DASHBOARD_H_

#include <map>
#include <string>

#include "tuner/server/api.h"

namespace tuner::server {

// By request path: "/" (index.html), "/app.js", "/style.css".
std::map<std::string, Asset> DashboardAssets();

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_DASHBOARD_H_
