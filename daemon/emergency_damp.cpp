#include "daemon/emergency_damp.hpp"

#include <linux/can/raw.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "config/lenient.hpp"
#include "config/library_options.hpp"
#include "daemon/damp_plan.hpp"

namespace robot_edge::daemon {
namespace {

void Say(const std::string& text) {
  std::fprintf(stderr, "robot-edged --emergency-damp: %s\n", text.c_str());
}

// The daemon's plan, or nullopt (said why).
std::optional<DampPlan> ReadPlan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Say("no DAMP plan at " + path + ": " + std::strerror(errno));
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  DampPlan plan;
  std::string error;
  if (!DecodeDampPlan(text.str(), &plan, &error)) {
    Say("the DAMP plan " + path + " is corrupt (" + error + "): not used");
    return std::nullopt;
  }
  return plan;
}

// The config's buses and motors, read leniently; nullopt when none is usable.
std::optional<DampPlan> PlanFromConfig(const std::string& path) {
  std::vector<std::string> skipped;
  config::Config c;
  try {
    c = config::ReadMotorsLeniently(path, &skipped);
  } catch (const config::ConfigError& e) {
    Say(e.what());
    return std::nullopt;
  }
  for (const std::string& s : skipped) Say(path + ": " + s);
  if (c.joints.empty()) return std::nullopt;
  return DampPlan{"the config " + path + " read leniently (buses and motors only)",
                  can::DampPlanOf(config::WiringOf(c))};
}

int OpenCanSocket() {
  const int fd = ::socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
  if (fd < 0) {
    Say(std::string("cannot open a CAN socket: ") + std::strerror(errno));
    return -1;
  }
  ::setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, nullptr, 0);  // receive nothing
  sockaddr_can any{};
  any.can_family = AF_CAN;  // ifindex 0: every CAN interface, each frame names its own
  if (::bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof(any)) != 0) {
    Say(std::string("cannot bind the CAN socket: ") + std::strerror(errno));
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends the plan; true when every frame of every bus went out.
bool SendPlan(const DampPlan& plan) {
  std::vector<std::string> missing;
  const std::vector<can::RawFrame> frames = can::ResolvePlan(plan.buses, &missing);
  for (const std::string& name : missing) Say(name + ": no such interface");
  const int fd = OpenCanSocket();
  if (fd < 0) return false;
  auto sent = std::make_unique<bool[]>(frames.size());
  const std::size_t n = can::SendRaw(fd, frames.data(), frames.size(), /*retries=*/50, sent.get());
  ::close(fd);
  std::set<std::string> failed;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (!sent[i]) failed.insert(plan.buses[frames[i].bus].interface);
  }
  for (const std::string& name : failed) Say(name + ": frames not sent (link down?)");
  std::size_t motors = 0;
  for (const can::BusDamp& bus : plan.buses) motors += bus.damp.size();
  Say("DAMP then exit motor mode: " + std::to_string(n) + " of " + std::to_string(frames.size()) +
      " frames sent to " + std::to_string(motors) + " motors");
  return missing.empty() && failed.empty();
}

// After the frames: whether the config still loads (a daemon could not start with it).
bool ConfigLoads(const std::string& path) {
  try {
    config::LoadConfig(path);
    return true;
  } catch (const config::ConfigError& e) {
    Say(path + " does not load (robot-edged would not start):\n" + e.what());
    return false;
  }
}

}  // namespace

int RunEmergencyDamp(const EmergencyDampOptions& options) {
  if (std::optional<DampPlan> plan = ReadPlan(options.plan_path)) {
    Say("using the DAMP plan " + options.plan_path + " (" + plan->source + ")");
    return SendPlan(*plan) ? 0 : 1;
  }
  if (std::optional<DampPlan> plan = PlanFromConfig(options.config_path)) {
    Say("using " + plan->source);
    const bool sent = SendPlan(*plan);
    return sent && ConfigLoads(options.config_path) ? 0 : 1;
  }
  Say("no DAMP plan and no usable bus or motor in " + options.config_path + ": nothing sent");
  return 1;
}

}  // namespace robot_edge::daemon
