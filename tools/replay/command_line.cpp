#include "tools/replay/command_line.hpp"

#include <cstdlib>

#include "cli/cli.hpp"
#include "tools/common/usage.hpp"

namespace robot_edge::replay {

namespace {

using cli::UsageError;

constexpr const char* kDescription =
    R"(A run robot-edged recorded (an MCAP file of its flight recorder or black box,
docs/recording-and-live-view.md), looked at again, driven again, or compared with its replay.
)";

constexpr const char* kEpilogue = R"(Exit status:
  0  done
  1  the file could not be read, or robot-edged or the port could not be reached
  2  usage error

Examples:
  $ robot-edge-replay serve /var/lib/robot-edge/recordings/blackbox_20261126-061540.785_FALL_DETECTED.mcap
  $ robot-edge-replay drive run.mcap --socket /tmp/sim/api.sock
  $ robot-edge-replay compare run.mcap replayed.mcap
)";

std::vector<cli::SubcommandGroup> Commands(Args* a) {
  auto select = [a](const char* name) { return [a, name] { a->command = name; }; };
  return {
      {"Commands:",
       {cli::Command("serve", "FILE",
                     "play the file to the live view at its own pace: the dashboard at\n"
                     "http://ADDRESS/ and Foxglove at ws://ADDRESS (Open connection), as for\n"
                     "the live robot; starts 1 s after the first viewer connects")
            .Arguments({cli::Files("*.mcap")})
            .OnSelect(select("serve")),
        cli::Command("drive", "FILE",
                     "send the file's commands to a running robot-edged (the simulator, to\n"
                     "reproduce a run), each at its recorded time after the first, each client\n"
                     "as the controller it was; record that run to compare it")
            .Arguments({cli::Files("*.mcap")})
            .OnSelect(select("drive")),
        cli::Command("compare", "RECORDED REPLAYED",
                     "\nhow closely the replayed run's motor commands (q_des, kp, kd: what the\n"
                     "CAN frames carried) match the recorded run's, aligned at each run's first\n"
                     "command")
            .Arguments({cli::Files("*.mcap")}, true)
            .OnSelect(select("compare"))}}};
}

cli::Apply Set(std::string* field) {
  return [field](auto&, auto& v) { *field = v; };
}

std::vector<cli::Option> Options(Args* a) {
  using cli::Flag;
  using cli::Valued;
  return {
      Valued("--address", "HOST:PORT",
             "serve: where to listen (default 127.0.0.1:8765; port 0 = any)", Set(&a->address))
          .Only({"serve"}),
      Valued("--token-file", "FILE",
             "serve: viewers' token (required off loopback); drive: the controller's token\n"
             "over TCP (default $ROBOT_EDGE_TOKEN)",
             Set(&a->token_file))
          .Only({"serve", "drive"})
          .Completes(cli::Files()),
      tools::RefusedTokenOption(),
      Valued("--speed", "X", "serve: play X times as fast (default 1)",
             [a](auto& n, auto& v) {
               char* end = nullptr;
               a->speed = std::strtod(v.c_str(), &end);
               if (end == v.c_str() || *end != '\0' || !(a->speed > 0 && a->speed <= 100)) {
                 throw UsageError(n + ": '" + v + "' is not a number in (0, 100]");
               }
             })
          .Only({"serve"}),
      Flag("--loop", "serve: start again at the end", [a](auto&, auto&) { a->loop = true; })
          .Only({"serve"}),
      Flag("--no-wait", "serve: play at once, without waiting for a viewer",
           [a](auto&, auto&) { a->wait = false; })
          .Only({"serve"}),
      Valued("--config", "FILE",
             "serve: the robot's config, for a file without a robot description", Set(&a->config))
          .Only({"serve"})
          .Completes(cli::Files("*.yaml")),
      Valued("--web-root", "DIR", "serve: the dashboard's files (default: the installed ones)",
             Set(&a->web_root))
          .Only({"serve"})
          .Completes(cli::Dirs()),
      Valued("--socket", "PATH",
             "drive: robot-edged's Unix socket (default $ROBOT_EDGE_SOCKET, else\n"
             "/run/robot-edge/api.sock)",
             Set(&a->socket))
          .Only({"drive"})
          .Completes(cli::Files()),
      Valued("--tcp", "HOST:PORT", "drive: robot-edged's TCP listener instead", Set(&a->tcp))
          .Only({"drive"}),
      Flag("--real-robot",
           "drive: also a robot-edged on real CAN buses (refused otherwise: the\n"
           "commands are stamped as sent now and would move the robot)",
           [a](auto&, auto&) { a->real_robot = true; })
          .Only({"drive"}),
      Flag("--json", "compare: one JSON object", [a](auto&, auto&) { a->json = true; })
          .Only({"compare"}),
      Flag("--help", "print this text", [a](auto&, auto&) { a->help = true; }).Short("-h").First(),
      Flag("--version", "print robot-edge-replay's version",
           [a](auto&, auto&) { a->version = true; })
          .First(),
  };
}

cli::Spec Spec(Args* a) {
  cli::Spec spec;
  spec.program = "robot-edge-replay";
  spec.synopsis =
      "serve|drive FILE [OPTIONS]\n  or:  robot-edge-replay compare RECORDED REPLAYED [--json]";
  spec.description = kDescription;
  spec.commands = Commands(a);
  spec.options = {{"Options:", Options(a)}};
  spec.epilogue = kEpilogue;
  return spec;
}

}  // namespace

Args Parse(const std::vector<std::string>& argv, const char* env_socket) {
  Args a;
  a.socket = env_socket != nullptr ? env_socket : tools::kDefaultSocket;
  const cli::Parsed parsed = cli::Parse(Spec(&a), argv);
  if (parsed.first) return a;
  a.files = parsed.arguments;
  const std::size_t want = a.command == "compare" ? 2 : 1;
  if (a.files.size() != want) {
    throw UsageError(a.command + " takes " + (want == 2 ? "two files" : "one file"));
  }
  return a;
}

std::string HelpText() { return cli::HelpOf(&Spec); }

std::string CompletionScript() { return cli::CompletionOf(&Spec); }

}  // namespace robot_edge::replay
