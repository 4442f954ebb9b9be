// BashCompletion(): the script follows what robot-edgectl's hand-written completion did. The
// word under the cursor is an option's value, an option, the subcommand or an argument.
#include <algorithm>

#include "cli/cli.hpp"

namespace robot_edge::cli {

namespace {

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// What the hint offers for the word in $value (the text after "--name=" or the word itself).
std::string HintScript(const Hint& hint) {
  const std::string reply = "mapfile -t COMPREPLY < <(";
  switch (hint.kind) {
    case Complete::kNone: return "";
    case Complete::kFile:
      if (hint.words.empty()) {
        return "compopt -o filenames 2>/dev/null; " + reply + "compgen -f -- \"$value\")";
      }
      return "compopt -o filenames 2>/dev/null; " + reply + "compgen -f -X '!" + hint.words +
             "' -- \"$value\"; compgen -d -- \"$value\")";
    case Complete::kDir:
      return "compopt -o filenames 2>/dev/null; " + reply + "compgen -d -- \"$value\")";
    default: break;
  }
  const std::string words = hint.kind == Complete::kWords ? hint.words : "$(" + hint.words + ")";
  std::string out;
  std::string prefix;
  std::string last = "\"$value\"";
  if (hint.list) {  // complete the last item of a comma-separated list
    out +=
        "local done=\"\" last=$value; if [[ $value == *,* ]]; then done=${value%,*},; "
        "last=${value##*,}; fi; compopt -o nospace 2>/dev/null; ";
    prefix = "-P \"$done\" ";
    last = "\"$last\"";
  }
  if (!hint.suffix.empty()) {
    out += "[[ $prev == \"" + hint.suffix + "\" || $value == *" + hint.suffix +
           "* ]] && return 0; compopt -o nospace 2>/dev/null; ";
    prefix += "-S \"" + hint.suffix + "\" ";
  }
  return out + reply + "compgen " + prefix + "-W \"" + words + "\" -- " + last + ")";
}

std::vector<const Option*> Visible(const Spec& spec) {
  std::vector<const Option*> out;
  for (const OptionGroup& group : spec.options) {
    for (const Option& option : group.options) {
      if (!option.hidden) out.push_back(&option);
    }
  }
  return out;
}

// The arrays and lookups: _P_subcommands, _P_global_options, _P_valued, _P_takes_value,
// _P_options_of SUBCOMMAND.
std::string Tables(const Spec& spec, const std::string& p) {
  std::vector<std::string> subcommands;
  std::vector<std::string> global;
  std::vector<std::string> valued;
  for (const SubcommandGroup& group : spec.commands) {
    for (const Subcommand& s : group.subcommands) subcommands.push_back(s.name);
  }
  for (const Option* o : Visible(spec)) {
    if (!o->value.empty()) valued.push_back(o->name);
    if (!o->only.empty()) continue;
    if (!o->short_name.empty()) global.push_back(o->short_name);
    global.push_back(o->name);
  }
  std::string out = p + "_subcommands=(" + Join(subcommands) + ")\n" + p + "_global_options=(" +
                    Join(global) + ")\n" + p + "_valued=(" + Join(valued) + ")\n";
  out += p + "_takes_value() { [[ \" ${" + p + "_valued[*]} \" == *\" $1 \"* ]]; }\n";
  out += p + "_options_of() {\n  case $1 in\n";
  for (const std::string& s : subcommands) {
    std::vector<std::string> own;
    for (const Option* o : Visible(spec)) {
      if (std::find(o->only.begin(), o->only.end(), s) != o->only.end()) own.push_back(o->name);
    }
    if (!own.empty()) out += "    " + s + ") echo " + Join(own) + " ;;\n";
  }
  return out + "  esac\n}\n";
}

// _P_value OPTION: COMPREPLY for an option's value in $value.
std::string Values(const Spec& spec, const std::string& p) {
  std::string out = p + "_value() {\n  local value=$2 prev=$3\n  case $1 in\n";
  for (const Option* o : Visible(spec)) {
    const std::string script = HintScript(o->hint);
    if (!o->value.empty() && !script.empty()) out += "    " + o->name + ") " + script + " ;;\n";
  }
  return out + "  esac\n}\n";
}

// One case of _P_argument: the hints of the arguments by their index ($2).
std::string ArgumentCase(const std::vector<Hint>& hints, bool repeats) {
  std::string out;
  for (std::size_t i = 0; i < hints.size(); ++i) {
    const std::string script = HintScript(hints[i]);
    if (script.empty()) continue;
    const bool every = repeats && i + 1 == hints.size();
    out += "      if (($2 " + std::string(every ? ">=" : "==") + " " + std::to_string(i) +
           ")); then " + script + "; fi\n";
  }
  return out;
}

// _P_argument SUBCOMMAND INDEX: COMPREPLY for an argument in $value.
std::string Arguments(const Spec& spec, const std::string& p) {
  std::string out = p + "_argument() {\n  local value=$3 prev=$4\n  case $1 in\n";
  for (const SubcommandGroup& group : spec.commands) {
    for (const Subcommand& s : group.subcommands) {
      const std::string body = ArgumentCase(s.arguments, s.repeats);
      if (!body.empty()) out += "    " + s.name + ")\n" + body + "      ;;\n";
    }
  }
  const std::string body = ArgumentCase(spec.argument_hints, true);
  if (spec.commands.empty() && !body.empty()) out += "    \"\")\n" + body + "      ;;\n";
  return out + "  esac\n}\n";
}

}  // namespace

std::string BashCompletion(const Spec& spec) {
  std::string p = "_" + spec.program;
  std::replace(p.begin(), p.end(), '-', '_');
  const bool has_subcommands = !spec.commands.empty();
  std::string out = "# bash completion for " + spec.program + ", written by `" + spec.program +
                    " --bash-completion` (cli/completion.cpp)\n";
  out += Tables(spec, p) + spec.functions + Values(spec, p) + Arguments(spec, p);
  out += p + "() {\n";
  out += R"sh(  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local subcommand="" word i positional=0 has_subcommands=)sh" +
         std::string(has_subcommands ? "1" : "") + R"sh(
  # The subcommand: the first word that is neither an option nor an option's value; then the
  # index of the current word among the arguments.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == -* && $word != -[0-9.]* ]]; then
      [[ $word != *=* ]] && @P@_takes_value "$word" && i=$((i + 1))
      continue
    fi
    [[ $word == "=" || ${COMP_WORDS[i-1]} == "=" ]] && continue
    if [[ -n $has_subcommands && -z $subcommand ]]; then
      subcommand=$word
    else
      positional=$((positional + 1))
    fi
  done
  # An option's value: "--name VALUE", "--name=VALUE" (bash splits the "=" off as a word of its
  # own when it is in COMP_WORDBREAKS, as by default).
  local option="" value=$cur
  if [[ $cur == --*=* ]]; then
    option=${cur%%=*}
    value=${cur#*=}
  elif [[ $cur == "=" ]]; then
    option=$prev
    value=""
  elif [[ $prev == "=" && $COMP_CWORD -ge 2 ]]; then
    option=${COMP_WORDS[COMP_CWORD-2]}
  elif [[ $prev == -* ]]; then
    option=$prev
  fi
  if [[ -n $option ]] && @P@_takes_value "$option"; then
    @P@_value "$option" "$value" "$prev"
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${@P@_global_options[*]} $(@P@_options_of "$subcommand")" -- "$cur")
    return 0
  fi
  if [[ -n $has_subcommands && -z $subcommand ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${@P@_subcommands[*]}" -- "$cur")
    return 0
  fi
  @P@_argument "$subcommand" "$positional" "$cur" "$prev"
  return 0
}
)sh";
  // The body above names the prefix @P@; the program's is _PROGRAM.
  for (std::size_t i = out.find("@P@"); i != std::string::npos; i = out.find("@P@", i)) {
    out.replace(i, 3, p);
  }
  return out + "complete -F " + p + " " + spec.program + "\n";
}

}  // namespace robot_edge::cli
