#include "uplink/upload.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "uplink/json.hpp"
#include "uplink/sha256.hpp"

namespace robot_edge::uplink {

namespace {

const char* StateName(UploadReport::State state) {
  switch (state) {
    case UploadReport::State::kAnnounce: return "announce";
    case UploadReport::State::kUploading: return "uploading";
    case UploadReport::State::kRetrying: return "retrying";
    case UploadReport::State::kOk: return "ok";
    case UploadReport::State::kError: return "error";
  }
  return "error";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

// One attempt at a resumable session: chunk after chunk from what the server holds (asked first
// when `ask_first`: after a failure) to its 200/201. A 308 moves on from the server's offset.
PutResult ResumableAttempt(const UploadJob& job, PutTransport& transport, int fd, bool ask_first,
                           UploadReport* r) {
  const std::string& url = job.request.url;
  std::uint64_t offset = 0;
  if (ask_first) {
    const ChunkResult status = transport.PutChunk(url, fd, 0, 0, r->bytes);
    if (status.put.ok || !status.incomplete) return status.put;
    offset = status.persisted;
    r->resumed_from = offset;
  }
  for (;;) {
    if (offset > r->bytes) return {false, 308, "the server holds more bytes than the file", false};
    const std::uint64_t length = std::min(job.chunk_bytes, r->bytes - offset);
    const ChunkResult chunk = transport.PutChunk(url, fd, offset, length, r->bytes);
    r->sent_bytes += chunk.sent;
    if (chunk.put.ok || !chunk.incomplete) return chunk.put;
    if (chunk.persisted <= offset) return {false, 308, "the server kept none of the chunk", true};
    offset = chunk.persisted;
  }
}

}  // namespace

std::string ReportJson(const UploadReport& r) {
  const bool announce = r.state == UploadReport::State::kAnnounce;
  std::string json = std::string("{\"type\":") + (announce ? "\"blackbox\"" : "\"upload\"");
  if (!announce)
    json += ",\"id\":" + JsonQuoted(r.id) + ",\"state\":\"" + StateName(r.state) + "\"";
  json += ",\"file\":" + JsonQuoted(r.file) + ",\"bytes\":" + std::to_string(r.bytes) +
          ",\"sha256\":" + JsonQuoted(r.sha256);
  if (announce) return json + "}";
  json += ",\"attempt\":" + std::to_string(r.attempt) + ",\"seconds\":" + std::to_string(r.seconds);
  if (r.state == UploadReport::State::kRetrying || r.state == UploadReport::State::kError) {
    json +=
        ",\"http_status\":" + std::to_string(r.http_status) + ",\"reason\":" + JsonQuoted(r.reason);
  }
  if (r.state == UploadReport::State::kRetrying) {
    json += ",\"retry_in_ms\":" + std::to_string(r.retry_in_ms);
  }
  if (r.resumable) {
    json += ",\"resumed_from\":" + std::to_string(r.resumed_from) +
            ",\"sent_bytes\":" + std::to_string(r.sent_bytes);
  }
  return json + "}";
}

ChunkResult PutTransport::PutChunk(const std::string&, int, std::uint64_t, std::uint64_t,
                                   std::uint64_t) {
  ChunkResult out;
  out.put = {false, 0, "this transport has no resumable uploads", false};
  return out;
}

std::int64_t Backoff::DelayUs(int failures) const {
  std::int64_t delay = first_us;
  for (int i = 1; i < failures && delay < max_us; ++i) delay *= 2;
  return std::min(delay, max_us);
}

int OpenInDirectory(const std::string& directory, const std::string& name, std::string* error) {
  if (!ValidFileName(name)) {
    *error = "not a file name in the recordings directory: '" + name + "'";
    return -1;
  }
  const Fd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    *error = "cannot open the recordings directory " + directory + ": " + std::strerror(errno);
    return -1;
  }
  const int fd = ::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = name + (errno == ELOOP ? ": a symbolic link (never followed)"
                                    : std::string(": ") + std::strerror(errno));
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    *error = name + ": not a regular file";
    return -1;
  }
  // robot-edged writes each file under one name; a second link is another file's (red team
  // round six, F4: a hard link to a secret, named like a recording, was uploaded).
  if (st.st_nlink != 1) {
    ::close(fd);
    *error = name + ": " + std::to_string(st.st_nlink) +
             " hard links (refused: a file "
             "robot-edged wrote has one)";
    return -1;
  }
  return fd;
}

void RunUpload(const UploadJob& job, PutTransport& transport, UploadClock& clock,
               const Backoff& backoff, const std::function<void(const UploadReport&)>& report) {
  const std::int64_t start_us = clock.MonotonicMicros();
  UploadReport r;
  r.id = job.request.id;
  r.file = job.request.file;
  r.resumable = job.request.resumable;
  const auto finish = [&](UploadReport::State state, std::string reason) {
    r.state = state;
    r.reason = std::move(reason);
    r.seconds = static_cast<double>(clock.MonotonicMicros() - start_us) / 1e6;
    report(r);
  };
  std::string error;
  const Fd fd(OpenInDirectory(job.directory, job.request.file, &error));
  if (fd.get() < 0) return finish(UploadReport::State::kError, error);
  struct stat first {};
  ::fstat(fd.get(), &first);
  r.bytes = static_cast<std::uint64_t>(first.st_size);
  if (r.bytes > job.max_bytes) {
    return finish(
        UploadReport::State::kError,
        "the file is larger than the cap (upload.max_mib): " + std::to_string(r.bytes) + " bytes");
  }
  const auto digest = Sha256OfFile(fd.get(), r.bytes);
  if (!digest) return finish(UploadReport::State::kError, "the file could not be read");
  r.sha256 = Hex(*digest);
  if (job.announce_only) return finish(UploadReport::State::kAnnounce, "");
  const std::string checksum = job.request.checksum_header ? Base64(*digest) : "";
  if (clock.WallSeconds() >= job.request.expires_at_s) {
    return finish(UploadReport::State::kError, "the URL expired before the upload began");
  }
  for (;;) {
    struct stat now {};
    if (::fstat(fd.get(), &now) != 0 || !SameFile(first, now)) {
      return finish(UploadReport::State::kError, "the file changed while being uploaded");
    }
    ++r.attempt;
    finish(UploadReport::State::kUploading, "");
    const PutResult put =
        job.request.resumable
            ? ResumableAttempt(job, transport, fd.get(), /*ask_first=*/r.attempt > 1, &r)
            : transport.Put(job.request.url, fd.get(), r.bytes, checksum);
    r.http_status = put.http_status;
    if (put.ok) return finish(UploadReport::State::kOk, "");
    const std::int64_t delay = backoff.DelayUs(r.attempt);
    if (!put.retryable || r.attempt >= backoff.max_attempts) {
      return finish(UploadReport::State::kError, put.reason);
    }
    if (clock.WallSeconds() + (delay + 999'999) / 1'000'000 >= job.request.expires_at_s) {
      return finish(UploadReport::State::kError, put.reason + "; the URL expires before a retry");
    }
    r.retry_in_ms = delay / 1000;
    finish(UploadReport::State::kRetrying, put.reason);
    if (!clock.Sleep(delay)) return finish(UploadReport::State::kError, "stopped");
  }
}

}  // namespace robot_edge::uplink
