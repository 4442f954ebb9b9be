# Installs config/robot-edge.yaml as SYSCONFDIR/robot-edge/robot-edge.yaml; run by `cmake
# --install` and by CPack (install(SCRIPT), config/CMakeLists.txt, which sets
# ROBOT_EDGE_DEFAULT_CONFIG and ROBOT_EDGE_SYSCONFDIR first).
#
# Decided at install time, not configure time, so that:
#  - the directory follows the prefix given to `cmake --install build --prefix P`: P/etc, never
#    the host's /etc; the prefix /usr (the Debian package, `sudo cmake --install`) gives /etc,
#    /opt/X gives /etc/opt/X, as GNUInstallDirs says;
#  - a configuration already there is kept, like the package's conffile: reinstalling from source
#    never puts the simulated robot's buses over a real robot's edited file.
if(IS_ABSOLUTE "${ROBOT_EDGE_SYSCONFDIR}")
  set(robot_edge_etc "${ROBOT_EDGE_SYSCONFDIR}")
elseif(CMAKE_INSTALL_PREFIX MATCHES "^/(usr/?)?$")
  set(robot_edge_etc "/${ROBOT_EDGE_SYSCONFDIR}")
elseif(CMAKE_INSTALL_PREFIX MATCHES "^/opt/")
  set(robot_edge_etc "/${ROBOT_EDGE_SYSCONFDIR}${CMAKE_INSTALL_PREFIX}")
else()
  set(robot_edge_etc "${CMAKE_INSTALL_PREFIX}/${ROBOT_EDGE_SYSCONFDIR}")
endif()
# file(INSTALL) puts DESTDIR in front of the destination itself; the check needs it spelt out.
set(robot_edge_config_dir "${robot_edge_etc}/robot-edge")
set(robot_edge_config "$ENV{DESTDIR}${robot_edge_config_dir}/robot-edge.yaml")

if(EXISTS "${robot_edge_config}")
  file(SHA256 "${robot_edge_config}" robot_edge_installed)
  file(SHA256 "${ROBOT_EDGE_DEFAULT_CONFIG}" robot_edge_default)
  if(robot_edge_installed STREQUAL robot_edge_default)
    message(STATUS "Up-to-date: ${robot_edge_config}")
  else()
    message(STATUS "Kept: ${robot_edge_config} (differs from the default, which is not "
                   "installed over it: ${ROBOT_EDGE_DEFAULT_CONFIG})")
  endif()
else()
  file(INSTALL DESTINATION "${robot_edge_config_dir}" TYPE FILE FILES "${ROBOT_EDGE_DEFAULT_CONFIG}")
endif()
