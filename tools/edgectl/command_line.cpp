// robot-edgectl's command line, declared once: its parser, --help (and so its man page) and its
// bash completion come from this Spec (cli/spec.hpp).
#include "tools/edgectl/options.hpp"

namespace robot_edge::edgectl {

namespace {

using cli::Command;
using cli::Flag;
using cli::Valued;
using Apply = cli::Apply;

constexpr const char* kDescription =
    R"(Talks to robot-edged, the control daemon of the humanoid, over its local API.
)";

constexpr const char* kBringUpHeading =
    R"(Bring-up commands (docs/bring-up.md): in DAMP only, as a controller of the config's
api.maintenance_controllers (--controller, default maintainer):)";

constexpr const char* kRecordingHeading =
    R"(Recording (docs/recording-and-live-view.md; status and list for anyone, the rest as a controller,
--controller, default maintainer):)";

constexpr const char* kEpilogue =
    R"(Commanding subcommands ask for a CommandResult per command and print "accepted" or
"refused: REASON" (e.g. velocity_in_damp, velocity_no_policy, not_controller,
blocked_by_alert). walk goes on after a re-send dropped for arriving late (command_stale).

Trajectory sessions: in MOVE/TRAJECTORY the robot must receive a trajectory at least every
200 ms or it DAMPs by itself. When move or hold ends or is interrupted, streaming stops and the
robot DAMPs 200 ms later: use --hold, or follow with `robot-edgectl stand`.

Exit status:
  0  done; every command accepted
  1  refused by robot-edged, no answer in time, connection lost, move interrupted
  2  bad command line, unknown joint, or a move faster than --max-speed
  3  cannot connect to robot-edged (not running, wrong socket, no permission)
  4  check-direction --model: gravity cannot tell the direction at this pose (watch it)

Examples:
  $ robot-edgectl status
  $ robot-edgectl stand && sleep 2 && robot-edgectl walk 0.3 0 0 --duration 5
  $ robot-edgectl move L_Shoulder_Pitch=0.5 L_Elbow=1.2 --duration 3 --hold 1
  $ robot-edgectl stand && sleep 2 && robot-edgectl sine L_Elbow --amplitude 0.2 --rate 500
  $ robot-edgectl watch --joints L_Knee,R_Knee
  $ robot-edgectl events --resume 120 --json
  $ robot-edgectl --tcp 192.168.1.20:7000 --token-file ~/.config/robot-edge/cloud.token diag
  $ robot-edgectl scan && robot-edgectl jog L_Knee 0.3 && robot-edgectl calibrate --pose zero
)";

// The joint names of the configuration, one a line: the `name:` of each entry under `joints:` in
// $ROBOT_EDGE_CONFIG or the daemon's default config. Block (`- name: X`) and flow
// (`- {name: X, ...}`) entries; quotes stripped; the section ends at the next top-level key. No
// daemon is asked; nothing runs but awk.
constexpr const char* kJointsFunction = R"sh(_robot_edgectl_joints() {
  local config=${ROBOT_EDGE_CONFIG:-)sh" ROBOT_EDGE_FULL_SYSCONFDIR
                                        R"sh(/robot-edge/robot-edge.yaml}
  [[ -r $config ]] || return 0
  awk '
    /^[^[:space:]#]/ { in_joints = ($0 ~ /^joints:[[:space:]]*(#.*)?$/); next }
    in_joints && match($0, /(^|[-{,[:space:]])name:[[:space:]]*["'\'']?[A-Za-z0-9_.-]+/) {
      name = substr($0, RSTART, RLENGTH)
      sub(/^.*name:[[:space:]]*["'\'']?/, "", name)
      print name
    }' "$config" 2>/dev/null
}
)sh";

// An option whose value is a finite number of `unit`, stored in *field.
Apply Number(double* field, const char* unit) {
  return [field, unit](auto& n, auto& v) { *field = cli::ParseNumber(n, v, unit); };
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

cli::Hint Joints() { return cli::CommandWords("_robot_edgectl_joints"); }

// Chooses the subcommand and its defaults (before any option applies).
std::function<void()> Select(Options* o, Subcommand s) {
  return [o, s] {
    o->subcommand = s;
    if (s == Subcommand::kMove || s == Subcommand::kHold) o->duration_s = 2.0;
    if (s == Subcommand::kJog) o->duration_s = 20.0;
    if (s == Subcommand::kSine) {
      o->duration_s = 4.0;
      o->rate_hz = 200.0;
    }
  };
}

cli::Subcommand Sub(Options* o, Subcommand s, std::string args, std::string help) {
  return Command(ToString(s), std::move(args), std::move(help)).OnSelect(Select(o, s));
}

std::vector<cli::Subcommand> BringUpCommands(Options* o) {
  using S = Subcommand;
  return {
      Sub(o, S::kScan, "",
          "which configured motors answer (family, position, temperature, faults),\n"
          "which are missing, and which other ids 1..--max-id answer on each bus;\n"
          "exit 1 unless every motor answers cleanly and nothing else does"),
      Sub(o, S::kJog, "JOINT RAD",
          "move one joint to RAD at --speed with a fifth of its gains, every other\n"
          "joint limp; ends in DAMP when it arrives, after --duration, on Ctrl-C or\n"
          "when the connection is lost (the daemon DAMPs a jog not renewed for 200 ms)")
          .Arguments({Joints()}),
      Sub(o, S::kCheckDirection, "JOINT",
          "jog +--amount and back: whether the motor follows its commands; then\n"
          "confirm by eye that the joint turned in its positive direction. With\n"
          "--model ROBOT.xml (the robot's MJCF, hanging from a gantry): jog to\n"
          "+-amount, hold, and judge by gravity whether the torques the motors\n"
          "measure hold the robot at the pose its encoders report as configured or\n"
          "reversed (exit 0 agrees, 1 reversed, 4 cannot tell at this pose)")
          .Arguments({Joints()}),
      Sub(o, S::kCalibrate, "",
          "with the robot held in the --pose (zero: every joint at 0 rad, on a jig;\n"
          "stand: the stand pose), write the joint offsets that make each read its\n"
          "pose angle to the config's calibration file; restart robot-edged to use it"),
      Sub(o, S::kZero, "JOINT --confirm",
          "send the motor's own set-zero command (its firmware's zero moves)")
          .Arguments({Joints()}),
      Sub(o, S::kClearFault, "JOINT",
          "clear a latched fault in a Damiao or Robstride motor's firmware, then\n"
          "enable it (AK motors have none: power-cycle them)")
          .Arguments({Joints()}),
      Sub(o, S::kReleaseStop, "",
          "lift a latched stop (someone else's DAMP; it outlives restarts); on the\n"
          "robot's Unix socket only; the robot stays in DAMP until a STAND"),
  };
}

std::vector<cli::SubcommandGroup> Commands(Options* o) {
  using S = Subcommand;
  return {
      {"Commands:",
       {
           Sub(o, S::kStatus, "",
               "mode, controller, alerts and a per-joint table (position, velocity,\n"
               "temperature, current, torque) from one telemetry frame"),
           Sub(o, S::kStand, "", "ModeCommand(STAND): ramp to the stand pose (~2 s)"),
           Sub(o, S::kDamp, "",
               "ModeCommand(DAMP): motors go limp. Always accepted (emergency stop); sent\n"
               "as an observer unless --controller is given"),
           Sub(o, S::kWalk, "VX VY VYAW",
               "walk at VX m/s (-2..2), VY m/s (-1..1), VYAW rad/s (-2..2); needs STAND and\n"
               "a locomotion policy. Stays connected, re-sending the velocity every second,\n"
               "until --duration or Ctrl-C, then sends 0 0 0 (the daemon also stops the\n"
               "walk when its controller disconnects)"),
           Sub(o, S::kMove, "JOINT=RAD...",
               "stream a smooth (quintic) trajectory from the measured pose to the given\n"
               "joint positions (rad) over --duration at --rate; the other joints hold\n"
               "their measured position. Joint names as `status` prints them (any case)")
               .Arguments({cli::Suffixed(Joints(), "=")}, true),
           Sub(o, S::kHold, "",
               "stream the measured pose for --duration (keeps a trajectory session alive)"),
           Sub(o, S::kSine, "JOINT",
               "a sine of --amplitude RAD at --frequency HZ on one joint through the joint\n"
               "stream (MOVE/JOINT_STREAM: every joint at --kp / --kd, the others holding\n"
               "their measured position), --rate commands per second for --duration; then\n"
               "prints the command-to-effect latency measured from the echoed\n"
               "user_command_key (sent to the control tick that applied it)")
               .Arguments({Joints()}),
           Sub(o, S::kWatch, "", "one line per telemetry frame (10 Hz) until Ctrl-C or --count"),
           Sub(o, S::kEvents, "",
               "follow system events: errors, controller changes, diagnostics (summary)"),
           Sub(o, S::kDiag, "",
               "wait for the next diagnostics (every ~1 s) and print it: CAN bus health,\n"
               "control-loop timing, command drop counters"),
       }},
      {kBringUpHeading, BringUpCommands(o)},
      {kRecordingHeading,
       {
           Sub(o, S::kRecord, "start|stop|status",
               "continuous recording (MCAP files in the config's recorder.directory)")
               .Arguments({cli::Words("start stop status")}),
           Sub(o, S::kBlackBox, "list|save",
               "list: the black-box files (the last seconds before a critical alert);\n"
               "save [--reason TEXT]: write the black box now (its last seconds and the\n"
               "next ones)")
               .Arguments({cli::Words("list save")}),
       }},
  };
}

std::vector<cli::Option> ConnectionOptions(Options* o) {
  auto set = [](std::string* field) { return [field](auto&, auto& v) { *field = v; }; };
  return {
      tools::SocketOption(&o->socket),
      tools::TcpOption(&o->tcp_host, &o->tcp_port),
      Valued("--tls-ca", "FILE",
             "with --tcp: speak TLS (the daemon's api.tls), trusting the CA in FILE",
             set(&o->tls_ca))
          .Completes(cli::Files()),
      Valued("--tls-name", "NAME",
             "the name or IP the daemon's certificate must carry (default: --tcp's HOST)",
             set(&o->tls_name)),
      Valued("--tls-cert", "FILE",
             "a client certificate, when the daemon asks one (api.tls.client_ca)",
             set(&o->tls_cert))
          .Completes(cli::Files()),
      Valued("--tls-key", "FILE", "the key of --tls-cert", set(&o->tls_key))
          .Completes(cli::Files()),
      tools::RefusedTokenOption(),
      Valued("--token-file", "FILE",
             "the controller's token over TCP, read from FILE (default $ROBOT_EDGE_TOKEN;\n"
             "api.access.<name>.token_file). Never --token TOKEN: a command line is\n"
             "visible to every user",
             [o](auto& n, auto& v) { o->token = tools::ReadTokenFileOption(n, v); })
          .Completes(cli::Files()),
      Valued("--controller", "NAME",
             "controller named in the Hello (default: cloud for stand, walk, move, hold, sine;\n"
             "observer \"\" for the others; --controller \"\" makes any command an observer)",
             [o](auto&, auto& v) { o->controller = v; }),
      tools::TimeoutOption(&o->timeout_s),
      Flag("--json",
           "print protobuf messages as JSON, one per line (proto field names; 64-bit\n"
           "integers are strings, as the protobuf JSON mapping says)",
           [o](auto&, auto&) { o->json = true; }),
  };
}

std::vector<cli::Option> MotionOptions(Options* o) {
  return {
      Valued("--duration", "S",
             "move: length of the ramp (default 2); hold, sine: how long (2, 4);\n"
             "walk: how long to walk (default 0 = until Ctrl-C); jog: at most (20)",
             Number(&o->duration_s, "seconds"))
          .Only({"move", "hold", "walk", "jog", "sine"}),
      Valued("--rate", "HZ",
             "move, hold: packets per second, 10..500 (default 50); sine: 10..1000 (200)",
             Number(&o->rate_hz, "Hz"))
          .Only({"move", "hold", "sine"}),
      Valued("--hold", "S",
             "move: keep streaming the goal for S seconds after the ramp (default 0)",
             Number(&o->hold_s, "seconds"))
          .Only({"move"}),
      Valued("--max-speed", "RAD_S",
             "move: refuse a ramp whose peak joint speed exceeds this (default 2)",
             Number(&o->max_speed_rad_s, "rad/s"))
          .Only({"move"}),
      Valued("--amplitude", "RAD", "sine: 0..0.5 (default 0.1)", Number(&o->amplitude_rad, "rad"))
          .Only({"sine"}),
      Valued("--frequency", "HZ", "sine: 0..5 (default 0.5)", Number(&o->frequency_hz, "Hz"))
          .Only({"sine"}),
      Valued("--kp", "N·m/rad", "sine: every joint's stiffness, 0..500 (default 40)",
             Number(&o->kp, "N·m/rad"))
          .Only({"sine"}),
      Valued("--kd", "N·m·s/rad", "sine: every joint's damping, 0..5 (default 1)",
             Number(&o->kd, "N·m·s/rad"))
          .Only({"sine"}),
  };
}

std::vector<cli::Option> ObserveOptions(Options* o) {
  return {
      Valued("--count", "N", "watch, events: exit after N messages (default 0 = until Ctrl-C)",
             [o](auto& n, auto& v) { o->count = cli::ParseCount(n, v); })
          .Only({"watch", "events"}),
      Valued("--resume", "N", "events: first replay the kept events with a sequence above N",
             [o](auto& n, auto& v) {
               const std::uint64_t value = cli::ParseCount(n, v);
               if (value > UINT32_MAX) throw UsageError(n + ": event sequences are 32-bit");
               o->resume_after = static_cast<std::uint32_t>(value);
             })
          .Only({"events"}),
      Valued("--joints", "A,B,...", "watch: also print these joints' positions",
             [o](auto&, auto& v) { o->joints = SplitCommas(v); })
          .Only({"watch"})
          .Completes(cli::List(Joints())),
  };
}

std::vector<cli::Option> BringUpOptions(Options* o) {
  return {
      Valued("--speed", "RAD_S", "jog, check-direction: joint speed, 0..1 (default 0.2)",
             Number(&o->speed_rad_s, "rad/s"))
          .Only({"jog", "check-direction"}),
      Valued("--amount", "RAD", "check-direction: the step, 0..0.8 (default 0.1; 0.5 with --model)",
             [o](auto& n, auto& v) {
               o->amount_rad = cli::ParseNumber(n, v, "rad");
               o->amount_given = true;
             })
          .Only({"check-direction"}),
      Valued("--model", "FILE.xml", "check-direction: judge by gravity with the robot's MJCF model",
             [o](auto&, auto& v) { o->model = v; })
          .Only({"check-direction"})
          .Completes(cli::Files("*.xml")),
      Valued("--calibrated-at", "RAD",
             "check-direction --model: the joint's angle when its offset was\n"
             "calibrated (0 after calibrate --pose zero, default; its stand angle after\n"
             "--pose stand)",
             Number(&o->pivot_rad, "rad"))
          .Only({"check-direction"}),
      Valued("--max-id", "N", "scan: probe ids 1..N on every bus (default 32)",
             [o](auto& n, auto& v) {
               const std::uint64_t value = cli::ParseCount(n, v);
               if (value < 1 || value > 255) throw UsageError(n + " must be 1..255");
               o->max_id = static_cast<std::uint32_t>(value);
             })
          .Only({"scan"}),
      Valued("--pose", "zero|stand", "calibrate: the calibration pose (default zero)",
             [o](auto&, auto& v) { o->pose = v; })
          .Only({"calibrate"})
          .Completes(cli::Words("zero stand")),
      Flag("--confirm", "zero: really write the motor's zero",
           [o](auto&, auto&) { o->confirm = true; })
          .Only({"zero"}),
      Valued("--reason", "TEXT",
             "blackbox save: why (in the file's name and metadata; default operator)",
             [o](auto&, auto& v) { o->reason = v; })
          .Only({"blackbox"}),
  };
}

std::vector<cli::Option> CommandOptions(Options* o) {
  std::vector<cli::Option> all = MotionOptions(o);
  for (auto* part : {&ObserveOptions, &BringUpOptions}) {
    for (cli::Option& option : part(o)) all.push_back(std::move(option));
  }
  all.push_back(
      Flag("--help", "print this text", [o](auto&, auto&) { o->help = true; }).Short("-h").First());
  all.push_back(Flag("--version", "print robot-edgectl's version", [o](auto&, auto&) {
                  o->version = true;
                }).First());
  return all;
}

}  // namespace

cli::Spec CommandLine(Options* o) {
  cli::Spec spec;
  spec.program = "robot-edgectl";
  spec.synopsis = "[OPTIONS] COMMAND [ARGS...]";
  spec.description = kDescription;
  spec.commands = Commands(o);
  spec.options = {{"Connection options:", ConnectionOptions(o)},
                  {"Command options:", CommandOptions(o)}};
  spec.epilogue = kEpilogue;
  spec.functions = kJointsFunction;
  return spec;
}

std::string HelpText() { return cli::HelpOf(&CommandLine); }

std::string CompletionScript() { return cli::CompletionOf(&CommandLine); }

}  // namespace robot_edge::edgectl
