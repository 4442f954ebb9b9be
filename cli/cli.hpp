// What a Spec (spec.hpp) gives a program: its parser, its --help and its bash completion.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cli/spec.hpp"
#include "cli/usage.hpp"

namespace robot_edge::cli {

struct Parsed {
  bool first = false;      // a `first` option (--help, --version) was given: nothing else checked
  std::string subcommand;  // the one chosen ("" without subcommands)
  std::vector<std::string> arguments;  // the words that are not options (after the subcommand)
};

// Parses argv without argv[0] and applies each option. Accepted: "--name value",
// "--name=value", a short name; with subcommands or arguments also "--" (ends the options), "-"
// and negative numbers ("-0.5") as arguments, options before or after the subcommand, and the
// word "help" as --help. Throws UsageError with a one-line reason: "unknown option '--x'",
// "--x needs a value", "--x takes no value", "unexpected argument 'x'", "no command given",
// "unknown command 'x'", "--x does not apply to 'sub'", or what an apply callback throws.
Parsed Parse(const Spec& spec, std::span<const std::string> args);

// The --help text: "Usage: PROGRAM SYNOPSIS", the description, the subcommand groups, the option
// groups (name and value padded to the help column, or the help on the next line when longer),
// then the epilogue.
std::string Help(const Spec& spec);

// A bash completion script for the program (complete -F _PROGRAM PROGRAM, '-' as '_'):
// subcommands, the options that apply to the subcommand on the line, values and arguments by
// their hints. Its functions and arrays are named _PROGRAM_*.
std::string BashCompletion(const Spec& spec);

// Help() and BashCompletion() of the Spec `make` builds on a throwaway T (its callbacks never
// run): what a program's HelpText() and CompletionScript() return.
template <typename T>
std::string HelpOf(Spec (*make)(T*)) {
  T unused;
  return Help(make(&unused));
}
template <typename T>
std::string CompletionOf(Spec (*make)(T*)) {
  T unused;
  return BashCompletion(make(&unused));
}

// The hidden option each program answers by printing BashCompletion() (CMake writes
// build/completions/PROGRAM from it): true when args is exactly {"--bash-completion"}.
bool WantsCompletion(std::span<const std::string> args);

}  // namespace robot_edge::cli
