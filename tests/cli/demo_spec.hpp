// A small program's Spec for the cli tests: two option groups, three subcommands (one with
// per-subcommand options and a repeated argument), every kind of completion hint.
#pragma once

#include <string>
#include <vector>

#include "cli/spec.hpp"

namespace robot_edge::cli::test {

// What the demo's callbacks record.
struct Seen {
  bool help = false;
  std::string socket;
  double rate = 0;
  bool json = false;
  std::vector<std::string> applied;  // "name=value" in the order applied
  std::string selected;              // the subcommand's select() ran
};

inline Spec DemoSpec(Seen* seen, bool subcommands = true) {
  auto record = [seen](const std::string& n, const std::string& v) {
    seen->applied.push_back(n + "=" + v);
  };
  Spec spec;
  spec.program = "demo-ctl";
  spec.synopsis = subcommands ? "[OPTIONS] COMMAND" : "[OPTIONS]";
  spec.description = "Demonstrates the layer.\n";
  if (subcommands) {
    spec.commands = {
        {"Commands:",
         {Command("status", "", "one line").OnSelect([seen] { seen->selected = "status"; }),
          Command("move", "JOINT=RAD...", "a move\nover two lines")
              .Arguments({Suffixed(CommandWords("echo knee hip"), "=")}, true)
              .OnSelect([seen] { seen->selected = "move"; })}},
        {"Recording:",
         {Command("record", "start|stop|status", "recording")
              .Arguments({Words("start stop status")})}},
    };
  }
  spec.options = {
      {"Connection options:",
       {Valued("--socket", "PATH", "the socket", [seen](auto&, auto& v) { seen->socket = v; })
            .Completes(Files()),
        Valued("--model", "FILE.xml", "a model", record).Completes(Files("*.xml")),
        Valued("--joints", "A,B,...", "joints", record)
            .Completes(List(CommandWords("echo knee hip"))),
        Flag("--json", "JSON lines", [seen](auto&, auto&) { seen->json = true; })}},
      {"Command options:",
       {Valued("--rate", "HZ", "move: packets per second\n(default 50)",
               [seen](auto& n, auto& v) { seen->rate = ParseNumber(n, v, "Hz"); })
            .Only(subcommands ? std::vector<std::string>{"move"} : std::vector<std::string>{}),
        Valued("--calibrated-at", "RAD", "long label", record),
        Valued("--pose", "zero|stand", "a pose", record).Completes(Words("zero stand")),
        Valued("--kp", "N·m/rad", "stiffness", record),
        Flag("--help", "print this text", [seen](auto&, auto&) { seen->help = true; })
            .Short("-h")
            .First(),
        Flag("--secret", "hidden", record).Hidden()}},
  };
  spec.epilogue = "Exit status:\n  0  done\n";
  return spec;
}

}  // namespace robot_edge::cli::test
