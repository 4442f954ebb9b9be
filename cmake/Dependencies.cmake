# Every dependency comes from a Debian 12 package (scripts/bootstrap installs them).
# Nothing is downloaded at build time.
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
# Eigen (libeigen3-dev): the policy's network, the bring-up tools' model statics.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SOCKETCAN REQUIRED IMPORTED_TARGET libsocketcan)
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
# recorder/: MCAP chunk compression (libzstd-dev, liblz4-dev; LZ4 in its frame format).
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)

# Standalone asio (libasio-dev) is header-only.
find_path(ASIO_INCLUDE_DIR asio.hpp REQUIRED)
add_library(robot_edge_asio INTERFACE)
target_include_directories(robot_edge_asio SYSTEM INTERFACE ${ASIO_INCLUDE_DIR})
target_compile_definitions(robot_edge_asio INTERFACE ASIO_STANDALONE ASIO_NO_DEPRECATED)
target_link_libraries(robot_edge_asio INTERFACE Threads::Threads)

# websocketpp (libwebsocketpp-dev), header-only, for the live view (live/): it runs on standalone
# asio but needs asio's deprecated names, so live/ defines ASIO_STANDALONE itself rather than
# linking robot_edge_asio (which sets ASIO_NO_DEPRECATED).
find_package(websocketpp CONFIG REQUIRED)

if(BUILD_TESTING)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
