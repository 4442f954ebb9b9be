# ctest: systemd-sysusers creates the user and group robot-edge from robot-edge.sysusers in an
# empty root directory, without complaining about the file.
#   cmake -DSYSTEMD_SYSUSERS=... -DSYSUSERS=... -DROOT=<scratch dir> -P verify_sysusers.cmake
file(REMOVE_RECURSE ${ROOT})
file(MAKE_DIRECTORY ${ROOT}/etc)
execute_process(
  COMMAND ${SYSTEMD_SYSUSERS} --root=${ROOT} ${SYSUSERS}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
if(NOT status EQUAL 0 OR output MATCHES "ignoring|garbage|[Ff]ailed|[Ii]nvalid")
  message(FATAL_ERROR "systemd-sysusers ${SYSUSERS} (exit status ${status}):\n${output}")
endif()
file(STRINGS ${ROOT}/etc/passwd passwd REGEX "^robot-edge:")
file(STRINGS ${ROOT}/etc/group group REGEX "^robot-edge:")
if(NOT passwd MATCHES "/usr/sbin/nologin$" OR NOT group)
  message(FATAL_ERROR "no user / group robot-edge:\npasswd: ${passwd}\ngroup: ${group}")
endif()
message(STATUS "${passwd}")
# The live view's user, an observer: a member of the group robot-edge.
file(STRINGS ${ROOT}/etc/passwd live REGEX "^robot-edge-live:")
file(STRINGS ${ROOT}/etc/group members REGEX "^robot-edge:.*robot-edge-live")
if(NOT live OR NOT members)
  message(FATAL_ERROR "no user robot-edge-live in the group robot-edge:\n${live}\n${members}")
endif()
