#include <cctype>

#include "cli/cli.hpp"

namespace robot_edge::cli {

namespace {

struct Pending {
  const Option* option;
  std::string name;
  std::string value;
};

struct Scanned {
  std::vector<Pending> options;
  std::vector<std::string> words;  // not options
};

const Option* Find(const Spec& spec, const std::string& name) {
  for (const OptionGroup& group : spec.options) {
    for (const Option& option : group.options) {
      if (name == option.name || (!option.short_name.empty() && name == option.short_name)) {
        return &option;
      }
    }
  }
  return nullptr;
}

const Option& Known(const Spec& spec, const std::string& name) {
  const Option* option = Find(spec, name);
  if (option == nullptr) throw UsageError(spec.unknown + " '" + name + "'");
  return *option;
}

// "-0.5", "-.5": a negative number, not an option.
bool IsNumber(const std::string& arg) {
  return arg.size() >= 2 && arg[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.');
}

// Splits the line into options (with their values) and the other words; applies nothing.
Scanned Scan(const Spec& spec, std::span<const std::string> args) {
  const bool takes_words = spec.arguments || !spec.commands.empty();
  Scanned out;
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool word =
        options_ended || arg.size() < 2 || arg[0] != '-' || (takes_words && IsNumber(arg));
    if (word && !takes_words) throw UsageError("unexpected argument '" + arg + "'");
    if (word) {
      out.words.push_back(arg);
      continue;
    }
    if (arg == "--" && takes_words) {
      options_ended = true;
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const Option& option = Known(spec, name);
    std::string value;
    if (!option.value.empty() && equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (!option.value.empty()) {
      if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
      value = args[++i];
    } else if (equals != std::string::npos) {
      throw UsageError(name + " takes no value");
    }
    out.options.push_back({&option, name, value});
  }
  return out;
}

// Applies the `first` options (and the word "help" as --help); whether there was one.
bool ApplyFirst(const Spec& spec, const Scanned& scanned) {
  bool any = false;
  if (!spec.commands.empty() && !scanned.words.empty() && scanned.words.front() == "help") {
    if (const Option* help = Find(spec, "--help")) {
      help->apply("--help", "");
      any = true;
    }
  }
  for (const Pending& p : scanned.options) {
    if (p.option->first) {
      p.option->apply(p.name, p.value);
      any = true;
    }
  }
  return any;
}

const Subcommand& Choose(const Spec& spec, const std::string& name) {
  for (const SubcommandGroup& group : spec.commands) {
    for (const Subcommand& subcommand : group.subcommands) {
      if (subcommand.name == name) return subcommand;
    }
  }
  throw UsageError("unknown command '" + name + "'");
}

bool AppliesTo(const Option& option, const std::string& subcommand) {
  if (option.only.empty()) return true;
  for (const std::string& s : option.only) {
    if (s == subcommand) return true;
  }
  return false;
}

}  // namespace

Parsed Parse(const Spec& spec, std::span<const std::string> args) {
  Scanned scanned = Scan(spec, args);
  Parsed parsed;
  parsed.first = ApplyFirst(spec, scanned);
  if (parsed.first) return parsed;
  if (!spec.commands.empty()) {
    if (scanned.words.empty()) throw UsageError("no command given");
    const Subcommand& chosen = Choose(spec, scanned.words.front());
    parsed.subcommand = chosen.name;
    scanned.words.erase(scanned.words.begin());
    if (chosen.select) chosen.select();
  }
  for (const Pending& p : scanned.options) {
    if (!AppliesTo(*p.option, parsed.subcommand)) {
      throw UsageError(p.name + " does not apply to '" + parsed.subcommand + "'");
    }
    if (p.option->apply) p.option->apply(p.name, p.value);
  }
  parsed.arguments = std::move(scanned.words);
  return parsed;
}

bool WantsCompletion(std::span<const std::string> args) {
  return args.size() == 1 && args[0] == "--bash-completion";
}

}  // namespace robot_edge::cli
