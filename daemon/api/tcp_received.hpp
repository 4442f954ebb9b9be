// How many bytes a TCP peer has sent on a connection, as the kernel counts them (TCP_INFO's
// tcpi_bytes_received, Linux 4.1 on): whether a connection waiting at the door has said anything.
// Its own file: <linux/tcp.h> and <netinet/tcp.h> (which asio includes) cannot meet.
#pragma once

#include <cstdint>
#include <optional>

namespace robot_edge::daemon {

// nullopt when `fd` is not a TCP socket or the kernel does not say (the caller then assumes the
// peer has sent something). Threads: any; no allocation.
std::optional<std::uint64_t> TcpBytesReceived(int fd);

}  // namespace robot_edge::daemon
