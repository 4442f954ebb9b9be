#include "daemon/damp_plan.hpp"

#include <net/if.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "daemon/api/atomic_file.hpp"

namespace robot_edge::daemon {
namespace {

constexpr std::string_view kMagic = "robot-edge damp-plan 1";
constexpr std::size_t kMaxFramesPerBus = 2 * can::kMaxJoints;

std::string FrameLine(char kind, const can_frame& f) {
  char line[64];
  std::snprintf(line, sizeof(line), "%c %08x %u ", kind, f.can_id, static_cast<unsigned>(f.len));
  std::string text = line;
  for (unsigned i = 0; i < f.len && i < CAN_MAX_DLEN; ++i) {
    std::snprintf(line, sizeof(line), "%02x", f.data[i]);
    text += line;
  }
  return text + "\n";
}

// Reads the plan's lines in order; each Expect*() fails with the line's number.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  bool Next(std::string* line) {
    ++number_;  // a missing line is reported as the one expected
    const auto end = text_.find('\n', at_);
    if (end == std::string_view::npos) return false;  // every line ends with '\n'
    *line = std::string(text_.substr(at_, end - at_));
    at_ = end + 1;
    return true;
  }
  std::size_t offset() const { return at_; }
  bool done() const { return at_ == text_.size(); }
  std::string Where() const { return "line " + std::to_string(number_) + ": "; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  int number_ = 0;
};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// "d 00000001 8 7fff7ff000000ccc" (kind 'd') into *f.
bool ParseFrame(const std::string& line, char kind, can_frame* f) {
  if (line.size() < 13 || line[0] != kind || line[1] != ' ' || line[10] != ' ' || line[12] != ' ')
    return false;
  std::uint32_t id = 0;
  for (std::size_t i = 2; i < 10; ++i) {
    const int d = HexDigit(line[i]);
    if (d < 0) return false;
    id = id << 4 | static_cast<std::uint32_t>(d);
  }
  const int len = line[11] - '0';
  if (len < 0 || len > CAN_MAX_DLEN || line.size() != 13 + 2 * static_cast<std::size_t>(len))
    return false;
  *f = can_frame{};
  f->can_id = id;
  f->len = static_cast<std::uint8_t>(len);
  for (int i = 0; i < len; ++i) {
    const int hi = HexDigit(line[13 + 2 * i]), lo = HexDigit(line[14 + 2 * i]);
    if (hi < 0 || lo < 0) return false;
    f->data[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

// "bus can0 6 6" into the bus's interface and its two counts.
bool ParseBus(const std::string& line, can::BusDamp* bus, std::size_t* damp, std::size_t* exit) {
  std::istringstream words(line);
  std::string word, rest;
  if (!(words >> word >> bus->interface >> *damp >> *exit) || word != "bus" || (words >> rest))
    return false;
  return line ==
             "bus " + bus->interface + " " + std::to_string(*damp) + " " + std::to_string(*exit) &&
         bus->interface.size() < IFNAMSIZ && *damp <= kMaxFramesPerBus && *exit <= kMaxFramesPerBus;
}

bool Fail(std::string* error, const std::string& why) {
  *error = why;
  return false;
}

bool ReadFrames(Lines* lines, char kind, std::size_t count, std::vector<can_frame>* out,
                std::string* error) {
  std::string line;
  for (std::size_t i = 0; i < count; ++i) {
    can_frame f;
    if (!lines->Next(&line) || !ParseFrame(line, kind, &f)) {
      return Fail(error, lines->Where() + "expected a '" + std::string(1, kind) + "' frame");
    }
    out->push_back(f);
  }
  return true;
}

}  // namespace

std::string DampPlanPath(const char* runtime_directory) {
  std::string dir = runtime_directory == nullptr ? "" : runtime_directory;
  dir = dir.substr(0, dir.find(':'));
  if (dir.empty()) dir = "/run/robot-edge";
  return dir + "/damp-plan";
}

std::uint32_t Crc32(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const char c : bytes) {
    crc ^= static_cast<std::uint8_t>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string EncodeDampPlan(const DampPlan& plan) {
  std::string source = plan.source;
  std::replace(source.begin(), source.end(), '\n', ' ');  // one line
  std::string text = std::string(kMagic) + "\nsource " + source + "\n";
  for (const can::BusDamp& bus : plan.buses) {
    text += "bus " + bus.interface + " " + std::to_string(bus.damp.size()) + " " +
            std::to_string(bus.exit.size()) + "\n";
    for (const can_frame& f : bus.damp) text += FrameLine('d', f);
    for (const can_frame& f : bus.exit) text += FrameLine('x', f);
  }
  char crc[32];
  std::snprintf(crc, sizeof(crc), "crc32 %08x\n", Crc32(text));
  return text + crc;
}

bool DecodeDampPlan(std::string_view text, DampPlan* plan, std::string* error) {
  Lines lines(text);
  std::string line;
  if (!lines.Next(&line) || line != kMagic) {
    return Fail(error, "line 1: not '" + std::string(kMagic) + "' (another version, or no plan)");
  }
  if (!lines.Next(&line) || line.rfind("source ", 0) != 0) {
    return Fail(error, lines.Where() + "expected 'source ...'");
  }
  DampPlan p;
  p.source = line.substr(7);
  for (;;) {
    const std::size_t before = lines.offset();
    if (!lines.Next(&line)) return Fail(error, lines.Where() + "no crc32 line (truncated?)");
    if (line.rfind("crc32 ", 0) == 0) {
      char expected[16];
      std::snprintf(expected, sizeof(expected), "%08x", Crc32(text.substr(0, before)));
      if (line.substr(6) != expected) {
        return Fail(error, lines.Where() + "checksum " + line.substr(6) + ", content " + expected);
      }
      if (!lines.done()) return Fail(error, lines.Where() + "bytes after the checksum");
      if (p.buses.empty()) return Fail(error, lines.Where() + "no bus");
      *plan = std::move(p);
      return true;
    }
    can::BusDamp bus;
    std::size_t damp = 0, exit = 0;
    if (!ParseBus(line, &bus, &damp, &exit)) {
      return Fail(error, lines.Where() + "expected 'bus INTERFACE DAMP EXIT' or 'crc32 ...'");
    }
    if (!ReadFrames(&lines, 'd', damp, &bus.damp, error) ||
        !ReadFrames(&lines, 'x', exit, &bus.exit, error)) {
      return false;
    }
    p.buses.push_back(std::move(bus));
  }
}

std::string WriteDampPlan(const std::string& path, const DampPlan& plan) {
  return WriteFileAtomically(path, EncodeDampPlan(plan), 0640);
}

}  // namespace robot_edge::daemon
