// robot-edged: see daemon.hpp. Parses the command line, loads and validates the configuration
// before anything opens, then runs the daemon in the foreground (systemd, never forks).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "access/tls_config.hpp"
#include "cli/cli.hpp"
#include "config/config.hpp"
#include "config/library_options.hpp"
#include "daemon/api/access.hpp"
#include "daemon/api/stop_latch_file.hpp"
#include "daemon/daemon.hpp"
#include "daemon/damp_plan.hpp"
#include "daemon/emergency_damp.hpp"
#include "daemon/options.hpp"
#include "policy/load.hpp"

namespace {

using namespace robot_edge;

// systemd's RuntimeDirectory= (the unit's /run/robot-edge), where the daemon leaves its DAMP plan
// for --emergency-damp.
std::string PlanPath() { return daemon::DampPlanPath(std::getenv("RUNTIME_DIRECTORY")); }

// A configuration (or its policy's model) that cannot run: each problem on a line; exit 1.
int InvalidConfiguration(const std::exception& e) {
  std::fprintf(stderr, "robot-edged: invalid configuration:\n%s\n", e.what());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (cli::WantsCompletion(args)) {
    std::fputs(daemon::CompletionScript().c_str(), stdout);
    return 0;
  }
  std::string error;
  const auto cl = daemon::ParseCommandLine(args, &error);
  if (!cl) {
    std::fprintf(stderr, "robot-edged: %s\n\n%s", error.c_str(), daemon::HelpText().c_str());
    return 2;
  }
  if (cl->help) {
    std::fputs(daemon::HelpText().c_str(), stdout);
    return 0;
  }
  if (cl->version) {
    std::printf("robot-edged %s\n", daemon::kVersion);
    return 0;
  }
  if (cl->emergency_damp) {
    return daemon::RunEmergencyDamp({.config_path = cl->config_path, .plan_path = PlanPath()});
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("robot-edged"));
  spdlog::set_level(spdlog::level::from_str(cl->log_level));
  spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");

  config::Config config;
  std::string policy_summary;
  try {
    config = config::LoadConfig(cl->config_path);
    // The policy's model is part of the configuration: checked now, before anything opens.
    if (config.policy.enabled) {
      policy_summary = policy::LoadPolicyModel(config::PolicySetupOf(config))->Describe();
    }
  } catch (const config::ConfigError& e) {
    return InvalidConfiguration(e);
  } catch (const policy::ModelRefused& e) {  // the model is part of the configuration
    return InvalidConfiguration(e);
  }
  const std::vector<std::string> warnings = config::Warnings(config);
  if (cl->check_config) {
    std::vector<std::string> tls_warnings;
    try {
      daemon::CheckApiTokenFiles(config);            // tokens long enough, as at start
      daemon::ApiTlsContext(config, &tls_warnings);  // the files, read as the daemon will
      if (!config.live.address.empty()) {            // and as robot-edge-live will
        access::ServerTlsContextOf(config.live.tls, "live.tls", &tls_warnings);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "robot-edged: invalid configuration:\n%s\n", e.what());
      return 1;
    }
    std::printf("%s: valid (%zu joints on %zu buses, %g Hz)\n", cl->config_path.c_str(),
                config.joints.size(), config.buses.size(), config.control.rate_hz);
    for (const std::string& w : warnings) std::printf("warning: %s\n", w.c_str());
    for (const std::string& w : daemon::TokenFileWarnings(config)) {
      std::printf("warning: %s\n", w.c_str());
    }
    for (const std::string& w : tls_warnings) std::printf("warning: %s\n", w.c_str());
    if (config.policy.enabled) {
      std::printf("policy %s: %s\n", config.policy.model_path.c_str(), policy_summary.c_str());
    }
    return 0;
  }
  for (const std::string& w : warnings) spdlog::warn("{}", w);
  return daemon::RunDaemon(config,
                           daemon::DaemonOptions{.api_socket = cl->api_socket,
                                                 .damp_plan_path = PlanPath(),
                                                 .stop_latch_path = daemon::StopLatchPath(
                                                     std::getenv("STATE_DIRECTORY"), PlanPath())});
}
