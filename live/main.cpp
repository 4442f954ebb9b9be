// robot-edge-live: the live view (Foxglove WebSocket protocol and the dashboard) in a process of
// its own, a client of robot-edged's API (bridge.hpp), so that nothing a viewer does costs
// robot-edged memory, descriptors or loop time. Reads robot-edged's own config (its `live:`
// section, api.unix_socket, control.rate_hz), checked by robot-edged's validator before anything
// opens; runs until SIGTERM / SIGINT (cli/stop_signals.hpp). Its command line: command_line.hpp.
#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <atomic>
#include <iostream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "access/tls_config.hpp"
#include "access/tokens.hpp"
#include "cli/cli.hpp"
#include "cli/stop_signals.hpp"
#include "config/config.hpp"
#include "live/bridge.hpp"
#include "live/command_line.hpp"
#include "live/live_server.hpp"
#include "live/robot_document.hpp"
#include "live/web_root.hpp"

namespace {

using namespace robot_edge;

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

// "host:port" -> live.host, live.port (the config parser's rule: the port is last).
bool ApplyAddress(const std::string& address, config::LiveConfig* live) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  try {
    const unsigned long port = std::stoul(address.substr(colon + 1));
    if (port > 65535) return false;
    live->address = address;
    live->host = host;
    live->port = static_cast<std::uint16_t>(port);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

live::LiveOptions OptionsOf(const config::Config& config) {
  const config::LiveConfig& c = config.live;
  std::vector<std::string> warnings;
  live::LiveOptions o;
  o.address = c.host == "localhost" ? "127.0.0.1" : c.host;
  o.port = c.port;
  if (!c.token_path.empty())
    o.token = access::ReadTokenFile("live.token_file", c.token_path, &warnings);
  if (!c.operator_token_path.empty()) {
    o.operator_token =
        access::ReadTokenFile("live.operator_token_file", c.operator_token_path, &warnings);
  }
  for (const std::string& w : warnings) spdlog::warn("{}", w);
  o.web_root = c.web_root.empty() ? live::DefaultWebRoot() : c.web_root;
  o.name = "robot-edge " + config.robot_name;
  o.max_connections = c.max_connections;
  o.allowed_origins = c.allowed_origins;
  o.reserved_fds = 32;  // two API connections, an eventfd, the log: this process has little else
  // live.tls: read now (a file that is missing, not PEM or a key that does not match throws:
  // exit 1); a key others can read is warned about.
  std::vector<std::string> tls_warnings;
  o.tls = access::ServerTlsContextOf(c.tls, "live.tls", &tls_warnings);
  for (const std::string& w : tls_warnings) spdlog::warn("{}", w);
  return o;
}

std::string UrlOf(const live::LiveOptions& o, std::uint16_t port) {
  const bool v6 = o.address.find(':') != std::string::npos;
  return (o.tls ? "https://" : "http://") + (v6 ? "[" + o.address + "]" : o.address) + ":" +
         std::to_string(port) + "/";
}

int Serve(const config::Config& config, const std::atomic<bool>& stop) {
  live::LiveOptions options = OptionsOf(config);
  live::LiveServer server(options);
  const std::string url = UrlOf(options, server.port());
  live::Bridge bridge({config.api.unix_socket, static_cast<std::uint32_t>(config.control.rate_hz)},
                      &server);
  server.SetDocument("/robot.json", "application/json", live::RobotDocument(config));
  server.AddService({"/robot_edge/damp", "robot_edge/Damp", "", "", /*operator_only=*/true},
                    [&bridge](std::string_view) {
                      if (!bridge.RequestDamp()) {
                        spdlog::error("DAMP from the live view: robot-edged is not connected");
                        return live::ServiceReply{false,
                                                  "robot-edged is not connected: DAMP not "
                                                  "sent (robot-edgectl damp, or the e-stop)"};
                      }
                      return live::ServiceReply{true, R"({"accepted":true})"};
                    });
  server.Start();
  spdlog::info("live view on {} (dashboard and Foxglove WebSocket{})", url,
               options.token.empty() ? "" : ", token required");
  sd_notify(0, ("READY=1\nSTATUS=live view on " + url + ", connecting to robot-edged").c_str());
  bridge.Run(stop, [&url](bool connected, const std::string& line) {
    if (connected) {
      spdlog::info("{}", line);
    } else {
      spdlog::warn("{}", line);
    }
    sd_notify(0, ("STATUS=live view on " + url + "; " + line).c_str());
  });
  sd_notify(0, "STOPPING=1");
  server.Stop();
  return kExitOk;
}

// The command line, or an exit status when main() should return it (--help, --version, a bad
// command line).
std::variant<live::CommandLine, int> Parse(const std::vector<std::string>& args) {
  if (cli::WantsCompletion(args)) {
    std::cout << live::CompletionScript();
    return kExitOk;
  }
  live::CommandLine cl;
  try {
    cl = live::ParseCommandLine(args);
  } catch (const cli::UsageError& e) {
    std::cerr << "robot-edge-live: " << e.what() << "\n" << live::HelpText();
    return kExitUsage;
  }
  if (cl.help) std::cout << live::HelpText();
  if (cl.version) std::cout << "robot-edge-live " << ROBOT_EDGE_VERSION << "\n";
  if (cl.help || cl.version) return kExitOk;
  return cl;
}

}  // namespace

int main(int argc, char** argv) {
  const auto parsed = Parse({argv + 1, argv + argc});
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const live::CommandLine& cl = std::get<live::CommandLine>(parsed);
  spdlog::set_default_logger(spdlog::stderr_color_mt("robot-edge-live"));
  config::Config config;
  try {
    config = config::LoadConfig(cl.config);
  } catch (const config::ConfigError& e) {
    std::cerr << "robot-edge-live: invalid configuration:\n" << e.what() << "\n";
    return kExitUsage;
  }
  if (!cl.api_socket.empty()) config.api.unix_socket = cl.api_socket;
  if (!cl.address.empty() && !ApplyAddress(cl.address, &config.live)) {
    std::cerr << "robot-edge-live: --address '" << cl.address << "' is not HOST:PORT\n";
    return kExitUsage;
  }
  if (!cl.web_root.empty()) config.live.web_root = cl.web_root;
  if (!cl.operator_token_file.empty()) config.live.operator_token_path = cl.operator_token_file;
  if (config.live.address.empty()) {
    std::cerr << "robot-edge-live: live.address is empty in " << cl.config
              << ": the live view is off\n";
    return kExitUsage;
  }
  const cli::StopSignals signals;  // before any other thread starts
  try {
    return Serve(config, signals.stop());
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
  }
  return kExitFailed;
}
