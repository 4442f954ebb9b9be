// robot-edge-uplink's configuration: its own YAML file (default /etc/robot-edge/uplink.yaml),
// read into a typed struct and validated before any socket opens (pure but for reading the file;
// CheckFiles() looks at the TLS files). Every error names its key and line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace robot_edge::uplink {

inline constexpr const char* kDefaultConfigPath = "/etc/robot-edge/uplink.yaml";
inline constexpr double kMaxTelemetryRateHz = 10.0;
// broker.max_packet_kib's default: a fleet configuration at its largest (256 KiB,
// config::detail::kMaxDocumentBytes) with 16 KiB for the topic and the properties.
inline constexpr std::uint32_t kDefaultMaxPacketKib = 272;

struct BrokerOptions {
  std::string host;                    ///< broker.host: name or address of the MQTT 5 broker
  std::uint32_t port = 8883;           ///< broker.port: its TLS listener
  std::string ca;                      ///< broker.ca: the CA file that signed the broker's cert
  std::string cert;                    ///< broker.cert: this robot's client certificate (PEM)
  std::string key;                     ///< broker.key: its private key (PEM)
  std::uint32_t keepalive_s = 30;      ///< broker.keepalive_s: MQTT keep-alive, 5..600 s
  std::uint32_t reconnect_max_s = 30;  ///< broker.reconnect_max_s: back-off cap, 1..300 s
  std::uint32_t max_packet_kib = kDefaultMaxPacketKib;  ///< broker.max_packet_kib: the MQTT 5
                                                        ///< Maximum Packet Size sent in CONNECT
                                                        ///< (KiB): the broker never sends a larger
                                                        ///< packet, 80..262143 KiB
};

struct SpoolOptions {
  std::string dir = "/var/lib/robot-edge-uplink/spool";  ///< spool.dir: kept across restarts
  std::uint32_t max_mib = 64;  ///< spool.max_mib: bound on its files, 1..96 MiB; past it the
                               ///< oldest segment is evicted (and counted on `status`)
};

struct RobotEdgedOptions {
  std::string socket = "/run/robot-edge/api.sock";  ///< robot_edged.socket
  std::string token_file;  ///< robot_edged.token_file: api.token's file ("" = none)
  std::string config = "/etc/robot-edge/robot-edge.yaml";  ///< robot_edged.config: the file a
                                                           ///< fleet config replaces
  std::uint32_t apply_timeout_s = 10;  ///< robot_edged.apply_timeout_s: a fleet config is rolled
                                       ///< back when robot-edged is not back on it within this,
                                       ///< 5..600 s
  /// robot_edged.start_limit_burst: robot-edged's unit's StartLimitBurst= (the start budget)
  std::uint32_t start_limit_burst = 30;
  /// robot_edged.start_limit_interval_s: its StartLimitIntervalSec=
  std::uint32_t start_limit_interval_s = 60;
};

struct UploadOptions {
  std::string announce = "alerts";  ///< upload.announce: new black boxes announced on `status`:
                                    ///< off | alerts (not `manual-` ones) | all
  std::uint32_t max_mib = 256;      ///< upload.max_mib: larger files are refused, 1..65536 MiB
  std::uint32_t queue = 8;          ///< upload.queue: jobs waiting at most, 1..64
  std::uint32_t attempts = 5;       ///< upload.attempts: PUTs per job at most, 1..20
  std::uint32_t chunk_kib = 8192;   ///< upload.chunk_kib: a resumable session's bytes per PUT,
                                    ///< a multiple of 256 KiB (GCS's rule), 256..1048576 KiB
  std::string ca;                   ///< upload.ca: CA file for the HTTPS server ("" = system's)
  bool allow_plain_http_loopback = false;  ///< upload.allow_plain_http_loopback: tests only:
                                           ///< http:// to 127.0.0.1 / [::1]
};

struct UplinkOptions {
  std::string source = "<uplink config>";   ///< the file, for messages
  std::string robot_id;                     ///< robot_id: one topic level (topics.hpp)
  std::string topic_prefix = "robot-edge";  ///< topic_prefix: one or more topic levels
  BrokerOptions broker;
  double telemetry_rate_hz = 1.0;  ///< telemetry_rate_hz: QoS 0 telemetry, (0, 10] Hz
  SpoolOptions spool;
  RobotEdgedOptions robot_edged;
  bool commands = false;  ///< commands: forward `commands` to robot-edged as the controller `fleet`
  std::string controller = "fleet";         ///< controller: the controller commands are sent as
  std::uint32_t max_command_age_ms = 1000;  ///< max_command_age_ms: a fleet command stamped more
                                            ///< than this behind or ahead of the uplink's wall
                                            ///< clock is refused (command_gate.hpp), 100..60000
  UploadOptions upload;
  bool config_updates = false;  ///< config_updates: apply robot-edge.yaml documents published on
                                ///< `config` (fleet_config.hpp; in DAMP only)
};

// Every problem found, one per line ("file:line: key: message").
class UplinkConfigError : public std::runtime_error {
 public:
  explicit UplinkConfigError(const std::vector<std::string>& problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// Parses and validates `text` (read from `source`). Throws UplinkConfigError listing every
// problem: unknown keys, wrong types, values out of range.
UplinkOptions ParseUplinkConfig(const std::string& text, const std::string& source);
// Reads the file, then ParseUplinkConfig.
UplinkOptions LoadUplinkConfig(const std::string& path);
// The TLS files must be readable (UplinkConfigError naming the key otherwise).
void CheckFiles(const UplinkOptions& options);
// Warnings about the files (logged at start, not refused): broker.key readable or writable by
// anyone but its owner (access::TokenFileExposure's rule and text, naming the key).
std::vector<std::string> FileWarnings(const UplinkOptions& options);

}  // namespace robot_edge::uplink
