// HubControl: the Api's Control, carried out by an ExperimentHub on the
// sweeps' thread while the HTTP thread waits for the answer.
#ifndef TUNER_TUNER_SERVER_HUB_CONTROL_H_
#define TUNER_TUNER_SERVER_HUB_CONTROL_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "tuner/device_setup.h"
#include "tuner/server/api.h"
#include "tuner/server/experiment_hub.h"

namespace tuner::server {

class HubControl : public Control {
 public:
  HubControl(boost::asio::io_context& io, ExperimentHub& hub)
      : io_(io), hub_(hub) {}

  // Detects the devices here, on the caller's thread (vendor tools can
  // take seconds), then starts the experiment on the sweeps' thread.
  core::Status Submit(const ExperimentConfig& config,
                      const std::string& stored_json) override {
    auto pool = SetUpDevices(config.devices, config.workdir);
    if (!pool.ok()) return core::InvalidArgument(pool.message());
    auto shared = std::make_shared<runner::DevicePool>(std::move(pool).value());
    return OnHub([hub = &hub_, config, stored_json, shared] {
      return hub->Submit(config, stored_json, std::move(*shared));
    });
  }
  core::Status Stop(const std::string& name, bool force) override {
    return OnHub([hub = &hub_, name, force] { return hub->Stop(name, force); });
  }
  core::Status Resume(const std::string& name) override {
    return OnHub([hub = &hub_, name] { return hub->Resume(name); });
  }
  std::vector<RunningInfo> Running() const override { return hub_.Running(); }

 private:
  // Runs `action` (which owns copies of its arguments) on the sweeps'
  // thread; Unavailable if it does not get there in time (the service is
  // shutting down).
  template <typename Action>
  core::Status OnHub(Action action) {
    auto task = std::make_shared<std::packaged_task<core::Status()>>(action);
    auto result = task->get_future();
    boost::asio::post(io_, [task] { (*task)(); });
    if (result.wait_for(std::chrono::seconds(60)) !=
        std::future_status::ready) {
      return core::Error{core::ErrorCode::kUnavailable,
                         "the service is busy or shutting down"};
    }
    return result.get();
  }

  boost::asio::io_context& io_;
  ExperimentHub& hub_;
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_HUB_CONTROL_H_
