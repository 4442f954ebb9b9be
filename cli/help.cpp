#include "cli/cli.hpp"

namespace robot_edge::cli {

namespace {

constexpr std::size_t kIndent = 2;  // where an entry's name starts

// Characters on the screen: UTF-8 continuation bytes take no column ("N·m/rad").
std::size_t Width(const std::string& text) {
  std::size_t width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return width;
}

// `help`'s lines, the later ones indented to `column`.
std::string Indented(const std::string& help, std::size_t column) {
  std::string out;
  for (const char c : help) {
    out += c;
    if (c == '\n') out += std::string(column, ' ');
  }
  return out;
}

// One entry: "  LABEL" then its help at `column`, or on the next line when `wrap` and the label
// reaches it (else two spaces after the label), or when the help starts with "\n".
std::string Entry(const std::string& label, const std::string& help, std::size_t column,
                  bool wrap) {
  std::string out = std::string(kIndent, ' ') + label;
  const std::size_t end = kIndent + Width(label);
  if (help.empty()) return out + "\n";
  if (help.front() == '\n') return out + Indented(help, column) + "\n";  // the next line
  if (end + 2 <= column) {
    out += std::string(column - end, ' ');
  } else if (wrap) {
    out += "\n" + std::string(column, ' ');
  } else {
    out += "  ";
  }
  return out + Indented(help, column) + "\n";
}

std::string OptionLabel(const Option& option) {
  std::string label = option.short_name.empty() ? "" : option.short_name + ", ";
  label += option.name;
  if (!option.value.empty()) label += " " + option.value;
  return label;
}

}  // namespace

std::string Help(const Spec& spec) {
  std::string out = "Usage: " + spec.program + " " + spec.synopsis + "\n\n" + spec.description;
  for (const SubcommandGroup& group : spec.commands) {
    out += "\n" + group.heading + "\n";
    for (const Subcommand& s : group.subcommands) {
      out +=
          Entry(s.args.empty() ? s.name : s.name + " " + s.args, s.help, spec.help_column, false);
    }
  }
  for (const OptionGroup& group : spec.options) {
    out += "\n" + group.heading + "\n";
    for (const Option& option : group.options) {
      if (!option.hidden) out += Entry(OptionLabel(option), option.help, spec.help_column, true);
    }
  }
  return out + "\n" + spec.epilogue;
}

}  // namespace robot_edge::cli
