#include "sim/simulator.hpp"

#include <linux/can/error.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "sim/bus_faults.hpp"

namespace robot_edge::sim {
namespace {

using Clock = std::chrono::steady_clock;

// After a socket error (e.g. the interface vanished), wait this long before waiting again.
constexpr auto kRetryDelay = std::chrono::milliseconds(200);

can::SocketCanOptions BusOptions(const config::BusConfig& bus,
                                 const std::vector<std::uint32_t>& ids) {
  can::SocketCanOptions options;
  options.interface = bus.interface;
  for (std::uint32_t id : ids) options.filters.push_back(can::ExactStandardId(id));
  options.receive_errors = false;  // the robot's side has no use for error frames
  return options;
}

}  // namespace

Simulator::Simulator(const config::Config& config, SimulatorOptions options)
    : config_(config),
      options_(std::move(options)),
      start_(Clock::now()),
      robot_(config, 0),
      imu_timer_(io_),
      status_timer_(io_),
      signals_(io_, SIGINT, SIGTERM),
      imu_period_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / config.sim.imu_rate_hz))) {
  for (std::size_t b = 0; b < config.buses.size(); ++b) {
    Port port;
    port.bus =
        std::make_unique<can::SocketCanBus>(io_, BusOptions(config.buses[b], robot_.MotorIdsOn(b)));
    port.retry = std::make_unique<asio::steady_timer>(io_);
    ports_.push_back(std::move(port));
  }
  rx_.resize(can::SocketCanBus::kMaxBatch);
  replies_.reserve(can::SocketCanBus::kMaxBatch);
  if (!options_.control_path.empty()) {
    control_ = std::make_unique<ControlServer>(
        io_, options_.control_path,
        [this](std::string_view line) { return HandleControlLine(line); });
  }
}

Simulator::~Simulator() = default;

std::int64_t Simulator::NowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count();
}

void Simulator::Run() {
  signals_.async_wait([this](std::error_code ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: shutting down", signal);
    Shutdown();
  });
  for (std::size_t b = 0; b < ports_.size(); ++b) WaitForFrames(b);
  next_imu_ = Clock::now();
  ScheduleImu();
  ScheduleStatus();
  io_.run();
}

void Simulator::WaitForFrames(std::size_t bus) {
  ports_[bus].bus->socket().async_wait(asio::socket_base::wait_read,
                                       [this, bus](std::error_code ec) { OnReadable(bus, ec); });
}

void Simulator::OnReadable(std::size_t bus, std::error_code ec) {
  if (stopping_) return;
  Port& port = ports_[bus];
  if (ec) {
    // The socket was closed under the wait (SocketCanBus reopens it when its interface returns)
    // or failed: wait again on the current socket a little later.
    port.retry->expires_after(kRetryDelay);
    port.retry->async_wait([this, bus](std::error_code retry_ec) {
      if (retry_ec || stopping_) return;
      ports_[bus].bus->Send(
          std::span<const can_frame>());  // lets the bus reopen a vanished interface
      WaitForFrames(bus);
    });
    return;
  }
  const std::int64_t now_us = NowUs();
  for (;;) {
    const std::size_t n = port.bus->Receive(rx_);
    if (n == 0) break;
    replies_.clear();
    robot_.OnFrames(bus, std::span<const can_frame>(rx_.data(), n), now_us, &replies_);
    if (!replies_.empty()) port.bus->Send(replies_);
    if (n < rx_.size()) break;  // drained
  }
  WaitForFrames(bus);
}

void Simulator::ScheduleImu() {
  const auto now = Clock::now();
  next_imu_ += imu_period_;
  if (next_imu_ < now - imu_period_) next_imu_ = now + imu_period_;  // far behind: skip
  imu_timer_.expires_at(next_imu_);
  imu_timer_.async_wait([this](std::error_code ec) {
    if (ec || stopping_) return;
    if (robot_.imu().enabled()) {
      const std::array<can_frame, 2> frames = robot_.imu().Frames();
      ports_[robot_.imu_bus()].bus->Send(frames);
    }
    ScheduleImu();
  });
}

void Simulator::ScheduleStatus() {
  status_timer_.expires_after(std::chrono::seconds(1));
  status_timer_.async_wait([this](std::error_code ec) {
    if (ec || stopping_) return;
    const std::int64_t now_us = NowUs();
    robot_.AdvanceAll(now_us);
    robot_.UpdateRates(now_us);
    if (options_.status_lines) {
      std::uint64_t send_failures = 0;
      for (const Port& port : ports_) send_failures += port.bus->counters().send_failures.load();
      spdlog::info("{} send_failures={}", robot_.StatusLine(), send_failures);
    }
    ScheduleStatus();
  });
}

std::string Simulator::HandleControlLine(std::string_view line) {
  const ParseResult parsed = ParseControlLine(line, config_);
  std::string reply;
  if (!parsed.command) {
    reply = "error: " + parsed.error;
  } else {
    switch (parsed.command->verb) {
      case ControlVerb::kBusOff:
      case ControlVerb::kRestarted:
      case ControlVerb::kLink:
        reply = ExecuteBusCommand(*parsed.command);
        break;
      default:
        reply = robot_.Execute(*parsed.command, NowUs());
        break;
    }
  }
  spdlog::debug("control: '{}' -> '{}'", line, reply);
  return reply;
}

std::string Simulator::ExecuteBusCommand(const ControlCommand& command) {
  const config::BusConfig& bus = config_.buses[command.bus];
  if (command.verb == ControlVerb::kLink) {
    const std::string error = SetLinkUp(bus.interface, command.on);
    if (!error.empty()) return "error: " + error;
    spdlog::info("control: link {} {}", bus.interface, command.on ? "up" : "down");
    return "ok";
  }
  const canid_t error_class =
      command.verb == ControlVerb::kBusOff ? CAN_ERR_BUSOFF : CAN_ERR_RESTARTED;
  const can_frame frame = MakeErrorFrame(error_class);
  if (ports_[command.bus].bus->Send(std::span<const can_frame>(&frame, 1)) != 1) {
    return "error: " + bus.interface + ": the error frame was not sent (is the link down?)";
  }
  spdlog::info("control: {} error frame on {}",
               command.verb == ControlVerb::kBusOff ? "bus-off" : "restarted", bus.interface);
  return "ok";
}

void Simulator::Shutdown() {
  stopping_ = true;
  std::error_code ignored;
  signals_.cancel(ignored);
  imu_timer_.cancel();
  status_timer_.cancel();
  if (control_) control_->Stop();
  for (Port& port : ports_) {
    port.retry->cancel();
    port.bus->socket().close(ignored);
  }
}

}  // namespace robot_edge::sim
