#include "live/command_line.hpp"

#include "cli/cli.hpp"

namespace robot_edge::live {

namespace {

constexpr const char* kDescription =
    R"(The robot's live view: a Foxglove WebSocket server (foxglove.websocket.v1) and the
dashboard on the same port (https and wss with live.tls, else http and ws), fed by
robot-edged's state stream at the control rate over its API socket (as an observer).
The dashboard's DAMP, for whoever presents the operator token, is an observer's DAMP.
Reconnects, with a back-off, when robot-edged restarts.
)";

constexpr const char* kEpilogue = R"(Exit status:
  0  stopped by a signal (SIGTERM, SIGINT)
  1  failed (the port could not be taken, a token file or live.tls's certificate or key
     could not be read, or the key does not match the certificate)
  2  bad command line or configuration, or live.address is empty (the live view is off)
)";

cli::Apply Set(std::string* field) {
  return [field](auto&, auto& v) { *field = v; };
}

cli::Spec Spec(CommandLine* c) {
  using cli::Flag;
  using cli::Valued;
  cli::Spec spec;
  spec.program = "robot-edge-live";
  spec.synopsis =
      "[--config FILE] [--api-socket PATH] [--address HOST:PORT]\n"
      "                       [--web-root DIR] [--operator-token-file FILE]";
  spec.description = kDescription;
  spec.options = {
      {"Options:",
       {Valued("--config", "FILE",
               "robot-edged's configuration, section live: (default\n"
               "/etc/robot-edge/robot-edge.yaml)",
               Set(&c->config))
            .Completes(cli::Files("*.yaml")),
        Valued("--api-socket", "PATH", "robot-edged's API socket (overrides api.unix_socket)",
               Set(&c->api_socket))
            .Completes(cli::Files()),
        Valued("--address", "HOST:PORT", "where to listen (overrides live.address; port 0 = any)",
               Set(&c->address)),
        Valued("--web-root", "DIR", "the dashboard's files (overrides live.web_root)",
               Set(&c->web_root))
            .Completes(cli::Dirs()),
        Valued("--operator-token-file", "FILE",
               "the operator's token (overrides live.operator_token_file)",
               Set(&c->operator_token_file))
            .Completes(cli::Files()),
        Flag("--help", "print this text", [c](auto&, auto&) { c->help = true; })
            .Short("-h")
            .First(),
        Flag("--version", "print robot-edge-live's version", [c](auto&, auto&) {
          c->version = true;
        }).First()}}};
  spec.epilogue = kEpilogue;
  spec.help_column = 31;
  spec.unknown = "unknown argument";
  return spec;
}

}  // namespace

CommandLine ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine c;
  cli::Parse(Spec(&c), args);
  return c;
}

std::string HelpText() { return cli::HelpOf(&Spec); }

std::string CompletionScript() { return cli::CompletionOf(&Spec); }

}  // namespace robot_edge::live
