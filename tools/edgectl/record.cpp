// robot-edgectl record start|stop|status and blackbox list|save (edge_api.proto
// RecorderRequest): through robot-edged's flight recorder. docs/recording-and-live-view.md.
#include <cstdio>

#include "tools/edgectl/format.hpp"
#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {
namespace {

std::string Mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// Sends `request`, waits for its answer; prints it as JSON with --json, a refusal on err.
std::optional<edge::RecorderResult> Ask(Context& ctx, edge::RecorderRequest request) {
  static std::uint32_t next_id = 1;
  request.set_request_id(next_id++);
  auto result = ctx.client->Record(request, ctx.timeout());
  if (!result) {
    *ctx.err << "robot-edgectl: no answer from robot-edged within " << ctx.timeout().count()
             << " ms\n";
    return std::nullopt;
  }
  if (ctx.options.json) *ctx.out << ToJson(*result) << "\n";
  if (!result->ok()) {
    *ctx.err << "refused: " << result->error() << "\n";
    return std::nullopt;
  }
  return result;
}

void PrintStatus(Context& ctx, const edge::RecorderStatus& s) {
  if (s.recording()) {
    *ctx.out << "recording to " << s.file() << " (" << Mib(s.file_bytes()) << ")\n";
  } else {
    *ctx.out << "not recording" << (s.error().empty() ? "" : ": " + s.error()) << "\n";
  }
  *ctx.out << "directory   " << s.directory() << ": " << s.files_kept() << " recordings, "
           << Mib(s.bytes_kept()) << ", " << Mib(s.free_bytes()) << " free\n"
           << "messages    " << s.messages_written() << " written, " << s.messages_lost()
           << " lost\n"
           << "black box   "
           << (!s.black_box()          ? "off"
               : s.black_box_writing() ? "on, writing one now"
                                       : "on")
           << ", " << s.black_box_written() << " written since start-up\n";
}

}  // namespace

int RunRecord(Context& ctx) {
  edge::RecorderRequest request;
  const std::string& action = ctx.options.action;
  request.set_op(action == "start"  ? edge::RecorderRequest::OP_START
                 : action == "stop" ? edge::RecorderRequest::OP_STOP
                                    : edge::RecorderRequest::OP_STATUS);
  const auto result = Ask(ctx, request);
  if (!result) return kExitFailed;
  if (!ctx.options.json) PrintStatus(ctx, result->status());
  return kExitOk;
}

int RunBlackBox(Context& ctx) {
  edge::RecorderRequest request;
  const bool save = ctx.options.action == "save";
  request.set_op(save ? edge::RecorderRequest::OP_BLACKBOX_SAVE
                      : edge::RecorderRequest::OP_BLACKBOX_LIST);
  request.set_reason(ctx.options.reason);
  const auto result = Ask(ctx, request);
  if (!result) return kExitFailed;
  if (ctx.options.json) return kExitOk;
  if (save) {
    *ctx.out << "black box being written to " << result->saving()
             << " (with the seconds that follow)\n";
    return kExitOk;
  }
  for (const edge::RecordingFile& f : result->black_box_files()) {
    const bool partial = f.path().ends_with(".partial");  // recorder::kPartialSuffix
    *ctx.out << FormatTimestamp(f.trigger_time_us()) << "  " << f.reason() << "  " << f.path()
             << " (" << Mib(f.bytes()) << (partial ? ", not whole: cut short or being written" : "")
             << ")\n";
  }
  if (result->black_box_files_size() == 0) *ctx.out << "no black-box files\n";
  return kExitOk;
}

}  // namespace robot_edge::edgectl
