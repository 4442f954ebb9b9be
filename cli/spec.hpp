// One program's command line, declared once: what Parse() accepts, what Help() prints (the
// --help text help2man turns into the man page) and what BashCompletion() completes. A program
// builds its Spec with apply callbacks bound to its own Options struct (see dds/options.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace robot_edge::cli {

// What TAB offers for an option's value or an argument.
enum class Complete {
  kNone,     // a number, a host, free text: nothing
  kWords,    // `words`, space-separated
  kFile,     // files (those matching the glob `words` if not "", and directories)
  kDir,      // directories
  kCommand,  // the words printed by the bash command `words` (e.g. a function of `functions`)
};
struct Hint {
  Complete kind = Complete::kNone;
  std::string words;
  bool list = false;   // a comma-separated list: completes its last item
  std::string suffix;  // put after the word, no space (e.g. "=" for JOINT=RAD)
};

using Apply = std::function<void(const std::string& name, const std::string& value)>;

// Built by Flag() or Valued() and the modifiers below (a table of them reads like the help).
struct Option {
  std::string name;        // "--socket"
  std::string short_name;  // "-h", or ""
  std::string value;       // the value's name in the help ("PATH"); "" = a flag
  std::string help;        // wrapped by hand: each '\n' starts a line at the help column
  Hint hint;
  std::vector<std::string> only;  // the subcommands it applies to; empty = all
  // Called with the name as given (--name or its short name) and the value ("" for a flag).
  // Throws UsageError. Options are applied in command-line order, after the whole line scanned.
  Apply apply;
  bool first = false;   // --help, --version: applied before anything else, then Parse() returns
  bool hidden = false;  // neither in the help nor completed

  Option& Short(std::string s) { return short_name = std::move(s), *this; }
  Option& Completes(Hint h) { return hint = std::move(h), *this; }
  Option& Only(std::vector<std::string> s) { return only = std::move(s), *this; }
  Option& First() { return first = true, *this; }
  Option& Hidden() { return hidden = true, *this; }
};
inline Option Flag(std::string name, std::string help, Apply apply) {
  Option o;
  o.name = std::move(name);
  o.help = std::move(help);
  o.apply = std::move(apply);
  return o;
}
inline Option Valued(std::string name, std::string value, std::string help, Apply apply) {
  Option o = Flag(std::move(name), std::move(help), std::move(apply));
  o.value = std::move(value);
  return o;
}

struct OptionGroup {
  std::string heading;  // "Connection options:"
  std::vector<Option> options;
};

struct Subcommand {
  std::string name;              // "jog"
  std::string args;              // in the help: "JOINT RAD"
  std::string help;              // wrapped by hand, as Option::help
  std::vector<Hint> arguments;   // completion of its arguments, by position
  bool repeats = false;          // the last hint completes every further argument
  std::function<void()> select;  // when chosen, before any option applies (defaults); may be empty

  Subcommand& Arguments(std::vector<Hint> h, bool repeat = false) {
    return arguments = std::move(h), repeats = repeat, *this;
  }
  Subcommand& OnSelect(std::function<void()> f) { return select = std::move(f), *this; }
};
inline Subcommand Command(std::string name, std::string args, std::string help) {
  Subcommand s;
  s.name = std::move(name);
  s.args = std::move(args);
  s.help = std::move(help);
  return s;
}
struct SubcommandGroup {
  std::string heading;  // "Commands:" (may span lines)
  std::vector<Subcommand> subcommands;
};

struct Spec {
  std::string program;                    // "robot-edgectl"
  std::string synopsis;                   // after "Usage: PROGRAM ": "[OPTIONS] COMMAND [ARGS...]"
  std::string description;                // the paragraphs after the usage line
  std::vector<SubcommandGroup> commands;  // none: a program without subcommands
  std::vector<OptionGroup> options;
  std::string epilogue;    // the sections after the options, "Exit status:" among them
  bool arguments = false;  // without subcommands: whether it takes arguments besides options
  std::vector<Hint> argument_hints;        // their completion, by position (the last one repeats)
  std::string functions;                   // bash functions the completion's kCommand hints call
  std::size_t help_column = 22;            // where an entry's help starts in the help
  std::string unknown = "unknown option";  // an unknown option's error: "unknown option '--x'"
};

// A hint of each kind; List() and Suffixed() modify one.
inline Hint MakeHint(Complete kind, std::string words) {
  Hint h;
  h.kind = kind;
  h.words = std::move(words);
  return h;
}
inline Hint Words(std::string words) { return MakeHint(Complete::kWords, std::move(words)); }
inline Hint Files(std::string glob = "") { return MakeHint(Complete::kFile, std::move(glob)); }
inline Hint Dirs() { return MakeHint(Complete::kDir, ""); }
inline Hint CommandWords(std::string command) {
  return MakeHint(Complete::kCommand, std::move(command));
}
inline Hint List(Hint h) { return h.list = true, h; }
inline Hint Suffixed(Hint h, std::string suffix) { return h.suffix = std::move(suffix), h; }

}  // namespace robot_edge::cli
