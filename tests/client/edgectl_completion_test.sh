#!/usr/bin/env bash
# shellcheck disable=SC2154  # the _robot_edgectl_* arrays come from the sourced completion
# robot-edgectl's bash completion (tools/edgectl/robot-edgectl.bash-completion.in) against the
# program: the subcommands and options it offers are the ones `robot-edgectl --help` lists; the
# options it offers after each subcommand are exactly those the parser accepts there (an option
# that does not apply is refused with "does not apply"); joint names come from the config.
#   edgectl_completion_test.sh ROBOT_EDGECTL COMPLETION_FILE CONFIG
set -u
edgectl=$1
completion=$2
config=$3
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=/dev/null
source "$completion" || fail "cannot source $completion"
complete -p robot-edgectl >/dev/null 2>&1 || fail "no completion for robot-edgectl"

sorted() { tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' '; }
help=$("$edgectl" --help)

# Subcommands: "  NAME ..." lines (two spaces, a lower-case word) up to the connection options.
help_subcommands=$(sed -n '/^Commands:/,/^Connection options:/p' <<<"$help" |
                   sed -n 's/^  \([a-z][a-z-]*\).*/\1/p' | sorted)
offered_subcommands=$(echo "${_robot_edgectl_subcommands[*]}" | sorted)
[[ $help_subcommands == "$offered_subcommands" ]] ||
  fail "subcommands: --help lists '$help_subcommands', the completion offers '$offered_subcommands'"

# Options: every --name (and -h) that starts a line of the help's option lists.
help_options=$(sed -n 's/^  \(-h, \)\{0,1\}\(--[a-z-]*\).*/\1 \2/p' <<<"$help" | tr -d ',' | sorted)
every_option="${_robot_edgectl_global_options[*]}"
for s in "${_robot_edgectl_subcommands[@]}"; do every_option+=" $(_robot_edgectl_options_of "$s")"; done
offered_options=$(echo "$every_option" | sorted)
[[ $help_options == "$offered_options" ]] ||
  fail "options: --help lists '$help_options', the completion offers '$offered_options'"

# Which options each subcommand takes, as the parser says.
value_of() {
  case $1 in
    --pose) echo zero ;;
    --joints) echo L_Knee ;;
    --model) echo robot.xml ;;
    *) echo 1 ;;
  esac
}
for s in "${_robot_edgectl_subcommands[@]}"; do
  own=" $(_robot_edgectl_options_of "$s") "
  for option in $every_option; do
    [[ " ${_robot_edgectl_global_options[*]} " == *" $option "* ]] && continue
    args=(--socket /nonexistent/api.sock --timeout 0.1 "$s" "$option")
    _robot_edgectl_takes_value "$option" && args+=("$(value_of "$option")")
    out=$("$edgectl" "${args[@]}" 2>&1 </dev/null)
    if grep -q "does not apply" <<<"$out"; then
      [[ $own != *" $option "* ]] || fail "the completion offers $option after $s, which refuses it"
    else
      [[ $own == *" $option "* ]] || fail "$s takes $option, the completion does not offer it"
    fi
  done
done

# What TAB offers for the last word of a command line.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _robot_edgectl
  echo "${COMPREPLY[*]}"
}
export ROBOT_EDGE_CONFIG=$config
expect() {  # expect "OFFERED" WORD...
  local want=$1 got
  shift
  got=$(complete_words "$@")
  [[ $got == "$want" ]] || fail "'$*': offers '$got', expected '$want'"
}
expect "check-direction calibrate clear-fault" robot-edgectl c
expect "clear-fault" robot-edgectl --socket /run/x.sock --json cl
expect "--duration" robot-edgectl walk --du
expect "--help" robot-edgectl --he
expect "" robot-edgectl status --du
expect "L_Knee" robot-edgectl jog L_Kn
expect "L_Knee" robot-edgectl --timeout 3 check-direction L_Kn
expect "" robot-edgectl jog L_Knee 0
expect "L_Knee=" robot-edgectl move L_Elbow = 1 L_Kn
expect "L_Knee=" robot-edgectl move L_Kn
expect "" robot-edgectl move L_Knee =
expect "L_Knee,R_Knee" robot-edgectl watch --joints L_Knee,R_Kn
expect "zero" robot-edgectl calibrate --pose z
expect "start status" robot-edgectl record sta
expect "save" robot-edgectl blackbox s
expect "" robot-edgectl blackbox save s
expect "--reason" robot-edgectl blackbox save --re
expect "zero" robot-edgectl calibrate --pose = z
expect "" robot-edgectl walk --duration 3
joints=$(complete_words robot-edgectl zero "" | wc -w)
[[ $joints -eq 25 ]] || fail "zero: offers $joints joint names, the config has 25"
ROBOT_EDGE_CONFIG=/nonexistent.yaml
expect "" robot-edgectl jog L_Kn
echo "PASS"
