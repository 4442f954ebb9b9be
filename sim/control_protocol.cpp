#include "sim/control_protocol.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace robot_edge::sim {

const char* const kControlHelp =
    "commands: temp JOINT CELSIUS|release; silence JOINT on|off; fault JOINT CODE; mount JOINT "
    "OFFSET DIR; "
    "tilt ROLL_DEG PITCH_DEG; imu on|off; battery PERCENT|on|off; gantry HEIGHT_M|off; push BODY "
    "FX FY FZ SECONDS; "
    "truth; record; qpos; busoff BUS; restarted BUS; link BUS down|up; "
    "get JOINT; status; help (JOINT = name or index, BUS = name or interface)";

namespace {

constexpr double kMinPinnedC = -50;
constexpr double kMaxPinnedC = 300;

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string Quoted(std::string_view word) {
  std::string quoted(1, '\'');
  quoted.append(word).push_back('\'');
  return quoted;
}

bool ParseDouble(std::string_view word, double* out) {
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, *out);
  return ec == std::errc() && ptr == end && std::isfinite(*out);
}

bool ParseUnsigned(std::string_view word, unsigned long* out) {
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// Reads word i of a split line as a joint, bus, number, switch or error code: each reader fills
// *out and returns "", or returns the error message.
class ArgParser {
 public:
  ArgParser(const std::vector<std::string_view>& words, const config::Config& config)
      : words_(words), config_(config) {}

  std::string_view word(std::size_t i) const { return words_[i]; }

  std::string Joint(std::size_t i, std::size_t* out) const {
    const std::string_view w = words_[i];
    for (std::size_t j = 0; j < config_.joints.size(); ++j) {
      if (config_.joints[j].name == w) {
        *out = j;
        return {};
      }
    }
    unsigned long index = 0;
    if (ParseUnsigned(w, &index) && index < config_.joints.size()) {
      *out = index;
      return {};
    }
    return "unknown joint " + Quoted(w) + " (a joint name or 0.." +
           std::to_string(config_.joints.size() - 1) + ")";
  }

  std::string Bus(std::size_t i, std::size_t* out) const {
    const std::string_view w = words_[i];
    for (std::size_t b = 0; b < config_.buses.size(); ++b) {
      if (config_.buses[b].name == w || config_.buses[b].interface == w) {
        *out = b;
        return {};
      }
    }
    std::string known;
    for (const auto& bus : config_.buses) known += (known.empty() ? "" : ", ") + bus.name;
    return "unknown bus " + Quoted(w) + " (known: " + known + ", or their interfaces)";
  }

  std::string Number(std::size_t i, double lo, double hi, const char* what, double* out) const {
    if (!ParseDouble(words_[i], out)) return "bad number " + Quoted(words_[i]) + " for " + what;
    if (*out < lo || *out > hi) {
      return std::string(what) + " " + std::string(words_[i]) + " is outside " + Num(lo) + ".." +
             Num(hi);
    }
    return {};
  }

  // `on_word` -> true, `off_word` -> false.
  std::string Switch(std::size_t i, const char* on_word, const char* off_word, bool* out) const {
    if (words_[i] == on_word || words_[i] == off_word) {
      *out = words_[i] == on_word;
      return {};
    }
    return "expected " + std::string(on_word) + " or " + off_word + ", got " + Quoted(words_[i]);
  }

  std::string Code(std::size_t i, std::uint8_t* out) const {
    unsigned long code = 0;
    if (!ParseUnsigned(words_[i], &code) || code > 255) {
      return "bad error code " + Quoted(words_[i]) + " (an integer 0..255)";
    }
    *out = static_cast<std::uint8_t>(code);
    return {};
  }

 private:
  static std::string Num(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", x);
    return buffer;
  }

  const std::vector<std::string_view>& words_;
  const config::Config& config_;
};

// Each verb: its name, its usage, its argument count and a function that fills the command from
// the arguments (returns an error message, "" when fine).
using ArgsFn = std::string (*)(const ArgParser&, ControlCommand*);

struct VerbSpec {
  std::string_view name;
  const char* usage;
  std::size_t args;
  ArgsFn parse;
};

std::string ParseTemp(const ArgParser& a, ControlCommand* c) {
  if (std::string e = a.Joint(1, &c->joint); !e.empty()) return e;
  if (a.word(2) == "release") {
    c->verb = ControlVerb::kTempRelease;
    return {};
  }
  c->verb = ControlVerb::kTemp;
  return a.Number(2, kMinPinnedC, kMaxPinnedC, "temperature (°C)", &c->celsius);
}

std::string ParseSilence(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kSilence;
  if (std::string e = a.Joint(1, &c->joint); !e.empty()) return e;
  return a.Switch(2, "on", "off", &c->on);
}

std::string ParseFault(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kFault;
  if (std::string e = a.Joint(1, &c->joint); !e.empty()) return e;
  return a.Code(2, &c->code);
}

std::string ParseMount(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kMount;
  if (std::string e = a.Joint(1, &c->joint); !e.empty()) return e;
  if (std::string e = a.Number(2, -2 * M_PI, 2 * M_PI, "offset (rad)", &c->offset_rad);
      !e.empty()) {
    return e;
  }
  if (std::string e = a.Number(3, -1, 1, "direction", &c->direction); !e.empty()) return e;
  if (c->direction != 1 && c->direction != -1) return "direction must be 1 or -1";
  return {};
}

std::string ParseTilt(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kTilt;
  if (std::string e = a.Number(1, -180, 180, "roll (°)", &c->roll_deg); !e.empty()) return e;
  return a.Number(2, -180, 180, "pitch (°)", &c->pitch_deg);
}

std::string ParseImu(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kImu;
  return a.Switch(1, "on", "off", &c->on);
}

std::string ParseBattery(const ArgParser& a, ControlCommand* c) {
  if (a.word(1) == "on" || a.word(1) == "off") {
    c->verb = ControlVerb::kBattery;
    return a.Switch(1, "on", "off", &c->on);
  }
  c->verb = ControlVerb::kBatteryCharge;
  return a.Number(1, 0, 100, "state of charge (%)", &c->percent);
}

std::string ParseGantry(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kGantry;
  c->on = a.word(1) != "off";
  if (!c->on) return {};
  return a.Number(1, 0, 5, "gantry height (m)", &c->height_m);
}

std::string ParsePush(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kPush;
  c->body = std::string(a.word(1));
  for (std::size_t i = 0; i < 3; ++i) {
    if (std::string e = a.Number(2 + i, -5000, 5000, "force (N)", &c->force_n[i]); !e.empty()) {
      return e;
    }
  }
  return a.Number(5, 0, 10, "duration (s)", &c->seconds);
}

std::string ParseTruth(const ArgParser&, ControlCommand* c) {
  c->verb = ControlVerb::kTruth;
  return {};
}

std::string ParseRecord(const ArgParser&, ControlCommand* c) {
  c->verb = ControlVerb::kRecord;
  return {};
}

std::string ParseQpos(const ArgParser&, ControlCommand* c) {
  c->verb = ControlVerb::kQpos;
  return {};
}

std::string ParseBusOff(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kBusOff;
  return a.Bus(1, &c->bus);
}

std::string ParseRestarted(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kRestarted;
  return a.Bus(1, &c->bus);
}

std::string ParseLink(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kLink;
  if (std::string e = a.Bus(1, &c->bus); !e.empty()) return e;
  return a.Switch(2, "up", "down", &c->on);
}

std::string ParseGet(const ArgParser& a, ControlCommand* c) {
  c->verb = ControlVerb::kGet;
  return a.Joint(1, &c->joint);
}

std::string ParseStatus(const ArgParser&, ControlCommand* c) {
  c->verb = ControlVerb::kStatus;
  return {};
}

std::string ParseHelp(const ArgParser&, ControlCommand* c) {
  c->verb = ControlVerb::kHelp;
  return {};
}

constexpr VerbSpec kVerbs[] = {
    {"temp", "temp JOINT CELSIUS|release", 2, ParseTemp},
    {"silence", "silence JOINT on|off", 2, ParseSilence},
    {"fault", "fault JOINT CODE", 2, ParseFault},
    {"mount", "mount JOINT OFFSET_RAD DIRECTION", 3, ParseMount},
    {"tilt", "tilt ROLL_DEG PITCH_DEG", 2, ParseTilt},
    {"imu", "imu on|off", 1, ParseImu},
    {"battery", "battery PERCENT|on|off", 1, ParseBattery},
    {"gantry", "gantry HEIGHT_M|off", 1, ParseGantry},
    {"push", "push BODY FX FY FZ SECONDS", 5, ParsePush},
    {"truth", "truth", 0, ParseTruth},
    {"record", "record", 0, ParseRecord},
    {"qpos", "qpos", 0, ParseQpos},
    {"busoff", "busoff BUS", 1, ParseBusOff},
    {"restarted", "restarted BUS", 1, ParseRestarted},
    {"link", "link BUS down|up", 2, ParseLink},
    {"get", "get JOINT", 1, ParseGet},
    {"status", "status", 0, ParseStatus},
    {"help", "help", 0, ParseHelp},
};

}  // namespace

ParseResult ParseControlLine(std::string_view line, const config::Config& config) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::vector<std::string_view> words = SplitWords(line);
  if (words.empty()) return {std::nullopt, "empty command (try help)"};
  for (const VerbSpec& spec : kVerbs) {
    if (words[0] != spec.name) continue;
    const std::size_t given = words.size() - 1;
    if (given != spec.args) {
      return {std::nullopt,
              std::string(given < spec.args ? "missing argument" : "too many arguments") +
                  ", usage: " + spec.usage};
    }
    ControlCommand command;
    const ArgParser parser(words, config);
    std::string error = spec.parse(parser, &command);
    if (!error.empty()) return {std::nullopt, std::move(error)};
    return {command, {}};
  }
  return {std::nullopt, "unknown command " + Quoted(words[0]) + " (try help)"};
}

}  // namespace robot_edge::sim
