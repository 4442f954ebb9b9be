// robot-edge-dds's command line, declared once: its parser, --help (and so its man page) and its
// bash completion come from this Spec (cli/spec.hpp).
#include <cmath>

#include "dds/mapping.hpp"
#include "dds/options.hpp"

namespace robot_edge::dds {

namespace {

constexpr const char* kDescription =
    R"(PNDbotics Adam's low-level DDS interface in front of robot-edged, so that a client written
for Adam (pnd_sdk_python, pnd_sdk_cpp) drives this robot unchanged: it subscribes to rt/lowcmd
(pnd_adam::msg::dds_::LowCmd_) and publishes rt/lowstate (LowState_) on Cyclone DDS. It is a
client of robot-edged's API like any other: the daemon's controller rules, command freshness,
validation and limits apply to every command it forwards, as the controller 'dds'.

DDS Security is required: only participants whose permissions (signed by the permissions CA)
grant publishing rt/lowcmd reach the robot. It comes from --security DIR or from a <Security>
element in $CYCLONEDDS_URI; robot-edge-dds starts only once Cyclone refuses it a writer of
rt/lowcmd (access control in effect). --insecure runs without it, on 127.0.0.1 only, saying so in
its log and systemd status: every local user can then command the robot.

One writer at a time: the first rt/lowcmd writer heard from is followed; samples of others are
ignored (each writer logged once) until it goes away (no longer matched). Each command carries
the sender's clock: timestamp_us is the sample's source timestamp, the sequence advances only
when that timestamp does, so robot-edged refuses stale, replayed or buffered samples like any
client's.

rt/lowcmd becomes a JointCommand (MOVE/JOINT_STREAM) per sample: per motor q (rad), dq
(rad/s), tau (N·m), kp (N·m/rad, 0..500), kd (N·m·s/rad, 0..5), ending --command-lifetime-ms
after it is sent; when the Adam client stops publishing the robot holds, then robot-edged's
200 ms watchdog DAMPs it. Ignored: mode_pr, each motor's mode, ki (logged once when not 0).
A sample with another motor count than the robot's joints, a non-finite value or a gain out of
range is refused whole (logged at most once a second), never partly applied.

rt/lowstate is robot-edged's joint state at --rate: per motor mode (0 no reply, 1 ok, 2 silent,
3 fault), q, dq, ddq (difference of dq), tau_est, state (the motor's fault code); the IMU's
quaternion [w,x,y,z], gyroscope, accelerometer (zeros without one), ypr; tick;
battery_data from robot-edged's battery source (config battery.source; zeros and status
"unknown" without one). wireless_remote is zeros: robot-edge has no remote.
)";

constexpr const char* kEpilogue =
    R"(SIGINT or SIGTERM stops it without a DAMP: once commands stop, robot-edged's watchdog DAMPs
the robot 200 ms after the last one.

Exit status:
  0  stopped by SIGINT or SIGTERM
  1  robot-edged closed the connection or refused it, an answer did not come in time, or DDS
     failed
  2  bad command line, one the robot contradicts (--motors, --controller, --rate), or DDS
     Security not in effect without --insecure
  3  cannot connect to robot-edged (not running, wrong socket, no permission)

Examples:
  $ robot-edge-dds --security /etc/robot-edge/dds
  $ robot-edge-dds --security /etc/robot-edge/dds --motors 25 --rate 200 --domain 1
  $ CYCLONEDDS_URI='<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="eth0"/></Interfaces></General></Domain></CycloneDDS>' robot-edge-dds --security /etc/robot-edge/dds
  $ robot-edge-dds --insecure     # development: this computer only
)";

// N, or an Adam model's name: lite (23), sp (29), pro (31).
std::size_t ParseMotors(const std::string& text) {
  if (text == "lite") return kAdamLiteMotors;
  if (text == "sp") return kAdamSpMotors;
  if (text == "pro") return kAdamProMotors;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    return cli::ParseWhole("--motors", text, 1, 1000);
  }
  throw UsageError("--motors: '" + text + "' is neither a motor count nor lite, sp or pro");
}

std::vector<cli::Option> ConnectionOptions(Options* o) {
  using cli::Valued;
  return {
      tools::SocketOption(&o->socket),
      tools::TcpOption(&o->tcp_host, &o->tcp_port),
      tools::RefusedTokenOption(),
      Valued("--token-file", "FILE",
             "the controller's token over TCP, read from FILE (default $ROBOT_EDGE_TOKEN;\n"
             "never --token TOKEN: a command line is visible to every user)",
             [o](auto& n, auto& v) { o->token = tools::ReadTokenFileOption(n, v); })
          .Completes(cli::Files()),
      Valued("--controller", "NAME",
             "the controller it commands as, one of robot-edged's api.controllers\n"
             "(default dds: a controller of its own in api.access)",
             [o](auto&, auto& v) { o->controller = v; }),
      tools::TimeoutOption(&o->timeout_s),
  };
}

std::vector<cli::Option> BridgeOptions(Options* o) {
  using cli::Flag;
  using cli::Valued;
  return {
      Valued("--domain", "N",
             "DDS domain id, 0..232 (default 0). Cyclone DDS reads its configuration\n"
             "(network interface, peers, security) from $CYCLONEDDS_URI",
             [o](auto& n, auto& v) {
               o->domain = static_cast<std::uint32_t>(cli::ParseWhole(n, v, 0, 232));
             }),
      Valued("--security", "DIR",
             "DDS Security from DIR's files: identity_ca.pem, identity.pem,\n"
             "identity_key.pem, permissions_ca.pem, governance.p7s, permissions.p7s\n"
             "(added to $CYCLONEDDS_URI's configuration)",
             [o](auto& n, auto& v) {
               if (v.empty()) throw UsageError(n + " needs a directory");
               o->security_dir = v;
             })
          .Completes(cli::Dirs()),
      Flag("--insecure",
           "no DDS Security: DDS on 127.0.0.1 only ($CYCLONEDDS_URI ignored), every\n"
           "local user can command the robot; for development only",
           [o](auto&, auto&) { o->insecure = true; }),
      Valued("--rate", "HZ",
             "rt/lowstate samples per second, at most robot-edged's control rate\n"
             "(default 500, or the control rate when lower)",
             [o](auto& n, auto& v) {
               o->rate_hz = static_cast<std::uint32_t>(cli::ParseWhole(n, v, 1, 100'000));
             }),
      Valued("--command-lifetime-ms", "MS", "how long each command executes, 1..1000 (default 50)",
             [o](auto& n, auto& v) {
               o->command_lifetime_us =
                   static_cast<std::int64_t>(cli::ParseWhole(n, v, 1, 1000)) * 1000;
             }),
      Valued("--velocity-safety-limit", "RAD_S",
             "DAMP when a joint moves faster than this while the bridge commands\n"
             "(JointCommand.velocity_safety_limit; default 0 = none)",
             [o](auto& n, auto& v) {
               const double limit = cli::ParseNumber(n, v, "rad/s");
               if (limit < 0) throw UsageError(n + " must be >= 0 rad/s (0 = none)");
               o->velocity_safety_limit = static_cast<float>(limit);
             }),
      Valued("--motors", "N|lite|sp|pro",
             "the motor count the Adam client sends (lite 23, sp 29, pro 31); it must\n"
             "be the robot's joint count, else robot-edge-dds refuses to start\n"
             "(default: the robot's joint count)",
             [o](auto&, auto& v) { o->motors = ParseMotors(v); })
          .Completes(cli::Words("lite sp pro")),
      Flag("--help", "print this text", [o](auto&, auto&) { o->help = true; }).Short("-h").First(),
      Flag("--version", "print robot-edge-dds's version", [o](auto&, auto&) { o->version = true; })
          .First(),
  };
}

}  // namespace

cli::Spec CommandLine(Options* o) {
  cli::Spec spec;
  spec.program = "robot-edge-dds";
  spec.synopsis = "[OPTIONS]";
  spec.description = kDescription;
  spec.options = {{"Connection options:", ConnectionOptions(o)},
                  {"Bridge options:", BridgeOptions(o)}};
  spec.epilogue = kEpilogue;
  return spec;
}

std::string HelpText() { return cli::HelpOf(&CommandLine); }

std::string CompletionScript() { return cli::CompletionOf(&CommandLine); }

}  // namespace robot_edge::dds
