#include "uplink/options.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "access/tokens.hpp"
#include "config/yaml_reader.hpp"
#include "uplink/spool.hpp"
#include "uplink/topics.hpp"

namespace robot_edge::uplink {

namespace {

using config::detail::MapReader;
using config::detail::ParseContext;

std::string Join(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "\n") + p;
  return text;
}

void ReadBroker(MapReader& root, BrokerOptions* b, ParseContext* ctx) {
  const YAML::Node node = root.Child("broker");
  if (!node) {
    ctx->errors.push_back(ctx->source + ": broker: missing required key 'broker'");
    return;
  }
  MapReader r(node, "broker", ctx);
  r.Require("host", &b->host);
  r.Read("port", &b->port);
  r.Require("ca", &b->ca);
  r.Require("cert", &b->cert);
  r.Require("key", &b->key);
  r.Read("keepalive_s", &b->keepalive_s);
  r.Read("reconnect_max_s", &b->reconnect_max_s);
  r.Read("max_packet_kib", &b->max_packet_kib);
  r.Finish();
}

void ReadSections(MapReader& root, UplinkOptions* o, ParseContext* ctx) {
  root.Require("robot_id", &o->robot_id);
  root.Read("topic_prefix", &o->topic_prefix);
  ReadBroker(root, &o->broker, ctx);
  root.Read("telemetry_rate_hz", &o->telemetry_rate_hz);
  if (const YAML::Node spool = root.Child("spool")) {
    MapReader r(spool, "spool", ctx);
    r.Read("dir", &o->spool.dir);
    r.Read("max_mib", &o->spool.max_mib);
    r.Finish();
  }
  if (const YAML::Node edged = root.Child("robot_edged")) {
    MapReader r(edged, "robot_edged", ctx);
    r.Read("socket", &o->robot_edged.socket);
    r.Read("token_file", &o->robot_edged.token_file);
    r.Read("config", &o->robot_edged.config);
    r.Read("apply_timeout_s", &o->robot_edged.apply_timeout_s);
    r.Read("start_limit_burst", &o->robot_edged.start_limit_burst);
    r.Read("start_limit_interval_s", &o->robot_edged.start_limit_interval_s);
    r.Finish();
  }
  if (const YAML::Node upload = root.Child("upload")) {
    MapReader r(upload, "upload", ctx);
    r.Read("announce", &o->upload.announce);
    r.Read("max_mib", &o->upload.max_mib);
    r.Read("queue", &o->upload.queue);
    r.Read("attempts", &o->upload.attempts);
    r.Read("chunk_kib", &o->upload.chunk_kib);
    r.Read("ca", &o->upload.ca);
    r.Read("allow_plain_http_loopback", &o->upload.allow_plain_http_loopback);
    r.Finish();
  }
  root.Read("commands", &o->commands);
  root.Read("controller", &o->controller);
  root.Read("max_command_age_ms", &o->max_command_age_ms);
  root.Read("config_updates", &o->config_updates);
  root.Finish();
}

// "file:line: key: message" for a value that parsed but breaks a rule.
class Rules {
 public:
  Rules(std::string source, const config::SourceLines& lines)
      : source_(std::move(source)), lines_(lines) {}
  void Check(bool ok, const std::string& key, const std::string& message) {
    if (ok) return;
    const auto it = lines_.find(key);
    const std::string at = it != lines_.end() ? ":" + std::to_string(it->second) : "";
    problems.push_back(source_ + at + ": " + key + ": " + message);
  }
  std::vector<std::string> problems;

 private:
  std::string source_;
  const config::SourceLines& lines_;
};

bool ValidPrefix(const std::string& prefix) {
  std::stringstream levels(prefix);
  std::string level;
  int count = 0;
  while (std::getline(levels, level, '/')) {
    if (!ValidTopicLevel(level)) return false;
    ++count;
  }
  return count > 0 && prefix.back() != '/';
}

void Validate(const UplinkOptions& o, Rules& r) {
  r.Check(ValidTopicLevel(o.robot_id), "robot_id",
          "must be 1..64 of A-Z a-z 0-9 _ . - (one MQTT topic level), not '" + o.robot_id + "'");
  r.Check(
      ValidPrefix(o.topic_prefix), "topic_prefix",
      "must be topic levels of A-Z a-z 0-9 _ . - separated by '/', not '" + o.topic_prefix + "'");
  r.Check(o.broker.port >= 1 && o.broker.port <= 65535, "broker.port", "must be 1..65535");
  r.Check(!o.broker.host.empty(), "broker.host", "must not be empty");
  r.Check(o.broker.keepalive_s >= 5 && o.broker.keepalive_s <= 600, "broker.keepalive_s",
          "must be 5..600 s");
  r.Check(o.broker.reconnect_max_s >= 1 && o.broker.reconnect_max_s <= 300,
          "broker.reconnect_max_s", "must be 1..300 s");
  r.Check(o.broker.max_packet_kib >= 80 && o.broker.max_packet_kib <= 262143,
          "broker.max_packet_kib",
          "must be 80..262143 KiB (a command is up to 64 KiB; MQTT's "
          "own limit is just under 256 MiB)");
  constexpr std::uint32_t kConfigPacketKib = config::detail::kMaxDocumentBytes / 1024 + 4;
  r.Check(!o.config_updates || o.broker.max_packet_kib >= kConfigPacketKib, "broker.max_packet_kib",
          "must be at least " + std::to_string(kConfigPacketKib) +
              " KiB when config_updates is true (a fleet configuration may be 256 KiB)");
  r.Check(o.telemetry_rate_hz > 0 && o.telemetry_rate_hz <= kMaxTelemetryRateHz,
          "telemetry_rate_hz", "must be more than 0 and at most 10 Hz");
  r.Check(!o.spool.dir.empty() && o.spool.dir.front() == '/', "spool.dir",
          "must be an absolute path");
  // The spool's index of records not acknowledged must fit the unit's MemoryMax=128M
  // (systemd/robot-edge-uplink.service.in) in the worst case, every record tiny: at most
  // max_mib MiB / kSpoolBytesPerIndexedRecord (64) records indexed, kSpoolIndexBytesPerRecord
  // (48) bytes each: 0.75 x max_mib MiB, 72 MiB at 96. Beside it: ~10 MiB resident at rest,
  // records held in memory on a failed write (8 MiB of payloads + 128 B each, ~16 MiB), the
  // 64 KiB read window of recovery, ~30 MiB for the allocator's slack and the rest: 128 MiB.
  constexpr std::uint32_t kMaxSpoolMib = 96;
  static_assert(kMaxSpoolMib * kSpoolIndexBytesPerRecord / kSpoolBytesPerIndexedRecord <= 72);
  r.Check(o.spool.max_mib >= 1 && o.spool.max_mib <= kMaxSpoolMib, "spool.max_mib",
          "must be 1.." + std::to_string(kMaxSpoolMib) +
              " MiB (the index of its records, 0.75 MiB per MiB at worst, must fit the unit's "
              "MemoryMax=128M)");
  r.Check(
      !o.config_updates || (!o.robot_edged.config.empty() && o.robot_edged.config.front() == '/'),
      "robot_edged.config", "must be an absolute path when config_updates is true");
  r.Check(o.robot_edged.apply_timeout_s >= 5 && o.robot_edged.apply_timeout_s <= 600,
          "robot_edged.apply_timeout_s", "must be 5..600 s");
  r.Check(o.robot_edged.start_limit_interval_s >= 1 && o.robot_edged.start_limit_interval_s <= 3600,
          "robot_edged.start_limit_interval_s",
          "must be 1..3600 s (the unit's StartLimitIntervalSec=)");
  // An apply may cost apply_timeout_s + 2 starts (config_restart.hpp, WorstCaseStarts).
  r.Check(o.robot_edged.start_limit_burst >= o.robot_edged.apply_timeout_s + 2 &&
              o.robot_edged.start_limit_burst <= 10000,
          "robot_edged.start_limit_burst",
          "must be at least apply_timeout_s + 2 (the starts one apply may cost) and at most 10000");
  const std::string& a = o.upload.announce;
  r.Check(a == "off" || a == "alerts" || a == "all", "upload.announce",
          "must be off, alerts or all, not '" + a + "'");
  r.Check(o.upload.max_mib >= 1 && o.upload.max_mib <= 65536, "upload.max_mib",
          "must be 1..65536 MiB");
  r.Check(o.upload.queue >= 1 && o.upload.queue <= 64, "upload.queue", "must be 1..64");
  r.Check(o.upload.attempts >= 1 && o.upload.attempts <= 20, "upload.attempts", "must be 1..20");
  r.Check(
      o.upload.chunk_kib >= 256 && o.upload.chunk_kib <= 1048576 && o.upload.chunk_kib % 256 == 0,
      "upload.chunk_kib", "must be a multiple of 256 in 256..1048576 KiB");
  r.Check(o.max_command_age_ms >= 100 && o.max_command_age_ms <= 60000, "max_command_age_ms",
          "must be 100..60000 ms");
  r.Check(!o.commands || !o.controller.empty(), "controller",
          "must name one of robot-edged's api.controllers when commands is true");
}

}  // namespace

UplinkConfigError::UplinkConfigError(const std::vector<std::string>& problems)
    : std::runtime_error(Join(problems)), problems_(problems) {}

UplinkOptions ParseUplinkConfig(const std::string& text, const std::string& source) {
  UplinkOptions o;
  o.source = source;
  config::SourceLines lines;
  ParseContext ctx{source, &lines, {}};
  YAML::Node root;
  try {
    root = config::detail::LoadDocument(text, source);
  } catch (const std::exception& e) {
    throw UplinkConfigError({e.what()});
  }
  if (!root.IsMap()) throw UplinkConfigError({source + ": the document must be a mapping"});
  config::detail::CheckKeys(root, &ctx);
  if (ctx.errors.empty()) {
    MapReader reader(root, "", &ctx);
    ReadSections(reader, &o, &ctx);
  }
  if (!ctx.errors.empty()) throw UplinkConfigError(ctx.errors);
  Rules rules(source, lines);
  Validate(o, rules);
  if (!rules.problems.empty()) throw UplinkConfigError(rules.problems);
  return o;
}

UplinkOptions LoadUplinkConfig(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw UplinkConfigError({path + ": cannot read the file"});
  std::stringstream text;
  text << file.rdbuf();
  return ParseUplinkConfig(text.str(), path);
}

void CheckFiles(const UplinkOptions& o) {
  std::vector<std::string> problems;
  const std::pair<const char*, const std::string*> files[] = {
      {"broker.ca", &o.broker.ca}, {"broker.cert", &o.broker.cert}, {"broker.key", &o.broker.key}};
  for (const auto& [key, path] : files) {
    if (::access(path->c_str(), R_OK) != 0) {
      problems.push_back(o.source + ": " + key + ": cannot read " + *path);
    }
  }
  if (!o.upload.ca.empty() && ::access(o.upload.ca.c_str(), R_OK) != 0) {
    problems.push_back(o.source + ": upload.ca: cannot read " + o.upload.ca);
  }
  if (!o.robot_edged.token_file.empty() && ::access(o.robot_edged.token_file.c_str(), R_OK) != 0) {
    problems.push_back(o.source + ": robot_edged.token_file: cannot read " +
                       o.robot_edged.token_file);
  }
  if (!problems.empty()) throw UplinkConfigError(problems);
}

std::vector<std::string> FileWarnings(const UplinkOptions& o) {
  std::vector<std::string> warnings;
  struct stat st {};
  if (::stat(o.broker.key.c_str(), &st) == 0) {
    if (auto w = access::TokenFileExposure(o.source + ": broker.key", o.broker.key, st.st_mode)) {
      warnings.push_back(*w);
    }
  }
  return warnings;
}

}  // namespace robot_edge::uplink
