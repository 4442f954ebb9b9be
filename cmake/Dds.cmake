# robot-edge-dds (dds/), the DDS bridge for PNDbotics Adam clients, needs Cyclone DDS (Debian:
# cyclonedds-dev for the library, cyclonedds-tools for idlc). It is optional:
#   -DROBOT_EDGE_DDS=AUTO  (default) built when Cyclone DDS and idlc are found; a STATUS
#                          message says when it is not, and why
#   -DROBOT_EDGE_DDS=ON    required: configuring fails without them (CI, scripts/build)
#   -DROBOT_EDGE_DDS=OFF   never built
# Sets ROBOT_EDGE_DDS_BUILD (ON/OFF) for dds/ and tests/. The generated type code is C, hence C
# is enabled here, at the top directory, and only when the bridge is built.
set(ROBOT_EDGE_DDS AUTO CACHE STRING "Build robot-edge-dds, the DDS bridge (AUTO, ON or OFF)")
set_property(CACHE ROBOT_EDGE_DDS PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${ROBOT_EDGE_DDS}" _robot_edge_dds)
if(NOT _robot_edge_dds MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "ROBOT_EDGE_DDS must be AUTO, ON or OFF, not '${ROBOT_EDGE_DDS}'")
endif()

set(ROBOT_EDGE_DDS_BUILD OFF)
if(_robot_edge_dds STREQUAL "OFF")
  message(STATUS "robot-edge-dds: not built (ROBOT_EDGE_DDS=OFF)")
else()
  find_package(CycloneDDS CONFIG QUIET)
  find_program(ROBOT_EDGE_IDLC idlc)
  set(_robot_edge_dds_missing "")
  if(NOT CycloneDDS_FOUND)
    set(_robot_edge_dds_missing "Cyclone DDS (CMake package CycloneDDS, Debian cyclonedds-dev)")
  elseif(NOT ROBOT_EDGE_IDLC)
    set(_robot_edge_dds_missing "idlc (Debian cyclonedds-tools)")
  endif()
  if(_robot_edge_dds_missing STREQUAL "")
    set(ROBOT_EDGE_DDS_BUILD ON)
    enable_language(C)
    message(STATUS "robot-edge-dds: built (Cyclone DDS ${CycloneDDS_VERSION})")
  elseif(_robot_edge_dds STREQUAL "ON")
    message(FATAL_ERROR "ROBOT_EDGE_DDS=ON, but ${_robot_edge_dds_missing} is not installed "
                        "(run scripts/bootstrap, or configure with -DROBOT_EDGE_DDS=OFF)")
  else()
    message(STATUS "robot-edge-dds: not built: ${_robot_edge_dds_missing} not found "
                   "(scripts/bootstrap installs it; -DROBOT_EDGE_DDS=ON makes it required)")
  endif()
endif()
