// Turns the rows the benchmarks wrote (tab-separated: section, figure, value, budget, unit,
// verdict, source, note) into one table on stdout, and the same as JSON and Markdown.
//
// Usage: bench_report ROWS_FILE OUT_BASENAME KEY=VALUE...
//   writes OUT_BASENAME.json and OUT_BASENAME.md; KEY=VALUE pairs (date, commit, cpu, kernel,
//   harness, ...) describe the run and head both files.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string section, figure, value, budget, unit, verdict, source, note;
};

// Where a figure comes from: the `source` column's legend.
const std::vector<std::pair<std::string, std::string>> kLegend = {
    {"host",
     "Google Benchmark on this machine's CPU, median of 5 repetitions; no system calls "
     "in the measured code (FakeTransport); noisy on a shared machine"},
    {"alloc", "heap allocations counted by replacing the global operator new"},
    {"callgrind", "instructions counted by valgrind --tool=callgrind: independent of load"},
    {"config", "computed from config/robot-edge.yaml"},
    {"vcan/UML",
     "robot-edged + robot-edge-sim on vcan inside user-mode-linux (tests/vcan/run): "
     "one emulated CPU, every system call tens of µs (clock_gettime too; measured in each "
     "run, it depends on the host), timers coarse (sleeps late by "
     "~0.2 ms p50, ~3 ms p99). Timing figures are the emulator's, not the daemon's; "
     "budgets marked 'real kernel' apply on a real kernel"},
    {"vcan/kernel",
     "robot-edged + robot-edge-sim on vcan in a network namespace of the host "
     "kernel (tests/vcan/run, netns)"},
    {"in-process",
     "robot-edged's Hub, Listener, ControlLoop (its real clock_nanosleep loop) and "
     "BusHealth wired as daemon.cpp does, in one process on this machine's kernel; "
     "clients on its real Unix socket; the CAN transport replaced by one in memory "
     "that timestamps each frame when the control thread hands it over and answers "
     "every motor: no CAN system calls, no simulator. Shared, noisy machine"},
};

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

// Display width of UTF-8 text: code points, not bytes.
std::size_t Width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Pad(const std::string& s, std::size_t width, bool right = false) {
  const std::size_t w = Width(s);
  const std::string fill(w < width ? width - w : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A number as JSON if the value is one, else a string.
std::string JsonValue(const std::string& s) {
  if (s.empty()) return "null";
  std::size_t used = 0;
  try {
    std::stod(s, &used);
  } catch (...) {
    return JsonString(s);
  }
  return used == s.size() ? s : JsonString(s);
}

std::string MdEscape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void PrintTable(const std::vector<Row>& rows) {
  std::size_t wf = 6, wv = 5, wb = 6, wu = 4, ws = 6;
  for (const Row& r : rows) {
    wf = std::max(wf, Width(r.figure));
    wv = std::max(wv, Width(r.value));
    wb = std::max(wb, Width(r.budget));
    wu = std::max(wu, Width(r.unit));
    ws = std::max(ws, Width(r.source));
  }
  std::string section;
  for (const Row& r : rows) {
    if (r.section != section) {
      section = r.section;
      std::cout << "\n== " << section << " ==\n"
                << Pad("figure", wf) << "  " << Pad("value", wv, true) << "  " << Pad("budget", wb)
                << "  " << Pad("unit", wu) << "  " << Pad("", 4) << "  " << Pad("source", ws)
                << "\n";
    }
    std::cout << Pad(r.figure, wf) << "  " << Pad(r.value, wv, true) << "  " << Pad(r.budget, wb)
              << "  " << Pad(r.unit, wu) << "  " << Pad(r.verdict, 4) << "  " << Pad(r.source, ws)
              << (r.note.empty() ? "" : "  " + r.note) << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_report ROWS_FILE OUT_BASENAME [KEY=VALUE...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_report: cannot read %s\n", argv[1]);
    return 1;
  }
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    auto f = Split(line, '\t');
    if (f.size() < 8) continue;
    rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]});
  }
  std::vector<std::pair<std::string, std::string>> meta;
  for (int i = 3; i < argc; ++i) {
    const std::string kv = argv[i];
    const auto eq = kv.find('=');
    if (eq != std::string::npos) meta.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  std::size_t misses = 0;
  for (const Row& r : rows) misses += r.verdict == "MISS";

  PrintTable(rows);
  std::cout << "\n" << rows.size() << " figures, " << misses << " over budget (MISS)\n";

  const std::string base = argv[2];
  std::ofstream json(base + ".json");
  json << "{\n";
  for (const auto& [k, v] : meta) json << "  " << JsonString(k) << ": " << JsonString(v) << ",\n";
  json << "  \"legend\": {";
  for (std::size_t i = 0; i < kLegend.size(); ++i) {
    json << (i ? ", " : "") << JsonString(kLegend[i].first) << ": "
         << JsonString(kLegend[i].second);
  }
  json << "},\n  \"figures\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    json << "    {\"section\": " << JsonString(r.section)
         << ", \"figure\": " << JsonString(r.figure) << ", \"value\": " << JsonValue(r.value)
         << ", \"budget\": " << JsonString(r.budget) << ", \"unit\": " << JsonString(r.unit)
         << ", \"verdict\": " << JsonString(r.verdict) << ", \"source\": " << JsonString(r.source)
         << ", \"note\": " << JsonString(r.note) << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  json << "  ]\n}\n";

  std::ofstream md(base + ".md");
  md << "# robot-edge benchmark results\n\n"
     << "Produced by `bench/run` (see [bench/README.md](../README.md)); the latest run. "
     << "Benchmarks report, they do not pass or fail: `MISS` marks a figure over its budget.\n\n";
  for (const auto& [k, v] : meta) md << "- **" << k << "**: " << MdEscape(v) << "\n";
  md << "\nSources:\n\n";
  for (const auto& [k, v] : kLegend) md << "- `" << k << "`: " << v << "\n";
  std::string section;
  for (const Row& r : rows) {
    if (r.section != section) {
      section = r.section;
      md << "\n## " << section << "\n\n"
         << "| figure | value | budget | unit | | source | note |\n"
         << "|---|---:|---|---|---|---|---|\n";
    }
    md << "| " << MdEscape(r.figure) << " | " << MdEscape(r.value) << " | " << MdEscape(r.budget)
       << " | " << MdEscape(r.unit) << " | " << (r.verdict == "MISS" ? "**MISS**" : r.verdict)
       << " | " << r.source << " | " << MdEscape(r.note) << " |\n";
  }
  md << "\n" << rows.size() << " figures, " << misses << " over budget.\n";
  return 0;
}
