// A headless Chromium driven through ChromeDriver's W3C WebDriver API, for
// the dashboard's browser test and benchmark: navigate, run a script, take
// a screenshot. Debian's chromium and chromium-driver packages
// (scripts/install-deps.sh). Failures throw WebDriverError (a test that
// does not catch it fails with its message).
#ifndef TUNER_TESTS_SERVER_WEBDRIVER_H_
#define TUNER_TESTS_SERVER_WEBDRIVER_H_

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>  // before Asio: Boost 1.74 with GCC 12 needs it

#include "tests/support/wait_for.h"
#include "trial_runner/processes/spawn.h"
#include "tuner/server/http_client.h"

namespace tuner::testing {

constexpr const char* kChromium = "/usr/bin/chromium";
constexpr const char* kChromeDriver = "/usr/bin/chromedriver";

// What went wrong talking to the driver: the command and its answer.
class WebDriverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline bool BrowserInstalled() {
  return access(kChromium, X_OK) == 0 && access(kChromeDriver, X_OK) == 0;
}

// A loopback port nobody listens on right now.
inline unsigned short FreePort() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(
      io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

// One ChromeDriver process and one browser session. Every call throws
// WebDriverError unless it succeeds, naming the command and the answer.
class Browser {
 public:
  // ChromeDriver's log goes to `log_path`.
  explicit Browser(const std::string& log_path, int width = 1400,
                   int height = 2000) {
    unsigned short port = FreePort();
    runner::SpawnRequest request;
    request.argv = {kChromeDriver, "--port=" + std::to_string(port)};
    request.stdout_path = log_path;
    request.stderr_path = log_path + ".err";
    std::filesystem::create_directories(
        std::filesystem::path(log_path).parent_path());
    auto driver = runner::Spawn(request);
    if (!driver.ok()) throw WebDriverError(driver.message());
    driver_ = driver.value();
    url_ = "http://127.0.0.1:" + std::to_string(port);
    WaitReady();
    // The flags Chromium needs on a machine with no network, no display
    // and no D-Bus (as root, hence --no-sandbox).
    nlohmann::json args = {"--headless",
                           "--no-sandbox",
                           "--disable-gpu",
                           "--disable-dev-shm-usage",
                           "--disable-background-networking",
                           "--disable-component-update",
                           "--disable-sync",
                           "--no-first-run",
                           "--window-size=" + std::to_string(width) + "," +
                               std::to_string(height)};
    nlohmann::json caps = {{"capabilities",
                            {{"alwaysMatch",
                              {{"goog:chromeOptions",
                                {{"binary", kChromium}, {"args", args}}}}}}}};
    session_ = Command("POST", "/session", caps)["sessionId"];
  }

  ~Browser() {
    if (!session_.empty()) (void)Call("DELETE", "/session/" + session_, {});
    kill(-driver_.pid, SIGTERM);
    bool ended = static_cast<bool>(WaitFor(
        "chromedriver to exit", std::chrono::seconds(5),
        [&] { return waitpid(driver_.pid, nullptr, WNOHANG) != 0; },
        std::chrono::milliseconds(20)));
    if (!ended) {
      kill(-driver_.pid, SIGKILL);
      waitpid(driver_.pid, nullptr, 0);
    }
    if (driver_.pidfd >= 0) close(driver_.pidfd);
  }
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  void Navigate(const std::string& url) {
    Command("POST", Session("/url"), {{"url", url}});
  }

  // Runs `body` (a function body: `return ...;`) in the page.
  nlohmann::json Eval(const std::string& body) {
    return Command("POST", Session("/execute/sync"),
                   {{"script", body}, {"args", nlohmann::json::array()}});
  }

  // Polls `body` until it returns true, for up to `seconds`.
  bool WaitUntil(const std::string& body, double seconds) {
    return static_cast<bool>(WaitFor(
        "the page's `" + body + "`",
        std::chrono::milliseconds(static_cast<int>(seconds * 1e3)),
        [&] { return Eval(body) == true; }, std::chrono::milliseconds(100)));
  }

  // The viewport as a PNG file; returns its size in bytes.
  size_t Screenshot(const std::filesystem::path& path) {
    std::string base64 = Command("GET", Session("/screenshot"), nullptr);
    std::string png(boost::beast::detail::base64::decoded_size(base64.size()),
                    '\0');
    auto sizes = boost::beast::detail::base64::decode(png.data(), base64.data(),
                                                      base64.size());
    png.resize(sizes.first);
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << png;
    return png.size();
  }

 private:
  std::string Session(const std::string& path) const {
    return "/session/" + session_ + path;
  }

  core::Result<server::ClientResponse> Call(const std::string& method,
                                            const std::string& path,
                                            const nlohmann::json& body) {
    auto client = server::HttpClient::Connect(url_);
    if (!client.ok()) return client.error();
    return client.value()->Call(method, path,
                                body.is_null() ? "" : body.dump());
  }

  // The command's "value"; throws unless the driver answers 200.
  nlohmann::json Command(const std::string& method, const std::string& path,
                         const nlohmann::json& body) {
    auto response = Call(method, path, body);
    if (!response.ok()) {
      throw WebDriverError(method + " " + path + ": " + response.message());
    }
    if (response.value().status != 200) {
      throw WebDriverError(method + " " + path + ": " +
                           std::to_string(response.value().status) + " " +
                           response.value().body);
    }
    return nlohmann::json::parse(response.value().body)["value"];
  }

  void WaitReady() {
    auto ready = [&] {
      auto status = Call("GET", "/status", nullptr);
      return status.ok() && status.value().status == 200;
    };
    if (WaitFor("chromedriver to answer", std::chrono::seconds(20), ready,
                std::chrono::milliseconds(50))) {
      return;
    }
    throw WebDriverError("chromedriver did not answer on " + url_);
  }

  runner::SpawnedProcess driver_;
  std::string url_;
  std::string session_;
};

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SERVER_WEBDRIVER_H_
