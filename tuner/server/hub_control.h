// HubControl: the Api's Control, carried out by an ExperimentHub on the
// sweeps' thread; the HTTP threads never wait for it.
#ifndef TUNER_TUNER_SERVER_HUB_CONTROL_H_
#define TUNER_TUNER_SERVER_HUB_CONTROL_H_

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "tuner/config/device_setup.h"
#include "tuner/server/api.h"
#include "tuner/server/experiment_hub.h"

namespace tuner::server {

class HubControl : public Control {
 public:
  HubControl(boost::asio::io_context& io, ExperimentHub& hub)
      : io_(io), hub_(hub) {}
  // Waits for a config being parsed and a device detection under way (at
  // most the vendor tool's timeout); work queued behind them is dropped,
  // as is its `done`.
  ~HubControl() override {
    prepare_.stop();
    prepare_.join();
    detect_.stop();
    detect_.join();
  }

  // Detects the devices on this control's own thread (vendor tools can
  // take seconds), then starts the experiment on the sweeps' thread.
  void Submit(ExperimentConfig config, std::string stored_json,
              Done done) override {
    boost::asio::post(detect_, [this, config = std::move(config),
                                stored_json = std::move(stored_json),
                                done = std::move(done)]() mutable {
      auto pool = SetUpDevices(config.devices, config.workdir);
      if (!pool.ok()) return done(core::InvalidArgument(pool.message()));
      auto shared =
          std::make_shared<runner::DevicePool>(std::move(pool).value());
      boost::asio::post(io_, [hub = &hub_, config = std::move(config),
                              stored_json = std::move(stored_json), shared,
                              done = std::move(done)] {
        done(hub->Submit(config, stored_json, std::move(*shared)));
      });
    });
  }
  void Stop(const std::string& name, bool force, Done done) override {
    boost::asio::post(io_, [hub = &hub_, name, force, done = std::move(done)] {
      done(hub->Stop(name, force));
    });
  }
  // Checks the experiment and reads its config on the sweeps' thread, detects
  // the devices on this control's own thread, then resumes the experiment
  // on the sweeps' thread.
  void Resume(const std::string& name, Done done) override {
    boost::asio::post(io_, [this, name, done = std::move(done)]() mutable {
      auto found = hub_.FindResumable(name);
      if (!found.ok()) return done(found.status());
      boost::asio::post(detect_, [this, name, done = std::move(done),
                                  config = std::move(found).value().config] {
        auto pool = SetUpDevices(config.devices, config.workdir);
        if (!pool.ok()) return done(core::InvalidArgument(pool.message()));
        auto shared =
            std::make_shared<runner::DevicePool>(std::move(pool).value());
        boost::asio::post(io_, [this, name, shared, done] {
          done(hub_.Resume(name, std::move(*shared)));
        });
      });
    });
  }
  void Delete(const std::string& name, DeleteDone done) override {
    boost::asio::post(io_, [hub = &hub_, name, done = std::move(done)] {
      done(hub->Delete(name));
    });
  }
  void Extend(const std::string& name, int64_t trials,
              ExtendDone done) override {
    boost::asio::post(io_, [hub = &hub_, name, trials, done = std::move(done)] {
      done(hub->Extend(name, trials));
    });
  }
  std::vector<RunningInfo> Running() const override { return hub_.Running(); }
  void Offload(std::function<void()> work) override {
    boost::asio::post(prepare_, std::move(work));
  }

 private:
  boost::asio::io_context& io_;
  ExperimentHub& hub_;
  boost::asio::thread_pool detect_{1};   // device detection, off HTTP
  boost::asio::thread_pool prepare_{1};  // config parsing, off HTTP
};

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_HUB_CONTROL_H_
