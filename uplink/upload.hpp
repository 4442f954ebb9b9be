// Black-box and recording uploads (docs/fleet-uploads.md): a closed file, with
// its SHA-256, to a presigned URL (one HTTP PUT) or a GCS resumable session URI (chunks), retried
// with backoff.
//
// Resume semantics: a presigned PUT (S3, GCS) has no byte-range resume, so a failed attempt is
// retried as a whole PUT (the object appears only when a PUT completes; a torn one leaves
// nothing). A GCS resumable session (request.resumable) is sent in chunks of job.chunk_bytes
// (a multiple of 256 KiB), each `PUT` with `Content-Range: bytes FIRST-LAST/TOTAL`, answered 308
// (`Range: bytes=0-N`: N+1 bytes persisted) until the last one's 200/201. After a failure the
// uplink asks what arrived (`Content-Range: bytes */TOTAL`, 308 with its Range, none = 0) and
// goes on from there: bytes the server has are never sent again. Retries: on no answer, a dropped
// connection, 408, 429 and 5xx; at most Backoff::max_attempts, never past the URL's expiry. Other
// 4xx (403: signature or expiry, 400 BadDigest: the checksum) end the job at once.
//
// Threads: RunUpload runs on the Uploader's own thread (one job at a time); the uplink's main
// thread only calls Submit() and Take(), which never wait on the network.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "uplink/upload_request.hpp"

namespace robot_edge::uplink {

struct UploadJob {
  UploadRequest request;        // request.file is the resolved name (never "latest")
  std::string directory;        // the recordings directory (robot-edged's recorder.directory)
  std::uint64_t max_bytes = 0;  // the size cap (upload.max_mib)
  bool announce_only = false;   // hash and report (a new black box), no PUT
  std::uint64_t chunk_bytes = 8u << 20;  // resumable sessions: bytes per PUT (upload.chunk_kib)
};

// One report; the main thread turns it into JSON on `status` (ReportJson).
struct UploadReport {
  enum class State { kAnnounce, kUploading, kRetrying, kOk, kError };
  State state = State::kError;
  std::string id, file;
  long http_status = 0;  // 0: none came (or not an HTTP failure)
  std::string reason;    // kRetrying / kError: why
  std::uint64_t bytes = 0;
  std::string sha256;              // hex; "" when the file could not be read
  double seconds = 0;              // since the job began
  int attempt = 0;                 // PUTs tried so far
  std::int64_t retry_in_ms = 0;    // kRetrying
  bool resumable = false;          // a GCS resumable session: the two below are reported
  std::uint64_t resumed_from = 0;  // the last resume's offset (the server's), 0 = none
  std::uint64_t sent_bytes = 0;    // body bytes put on the wire, all attempts (overhead)
};

std::string ReportJson(const UploadReport& report);

// One PUT's outcome.
struct PutResult {
  bool ok = false;
  long http_status = 0;
  std::string reason;
  bool retryable = false;
};

// One PUT of a resumable session's chunk (or of its status query).
struct ChunkResult {
  PutResult put;                // ok: 200/201, the object is complete
  bool incomplete = false;      // 308 Resume Incomplete: `persisted` is what the server holds
  std::uint64_t persisted = 0;  // bytes 0..persisted-1 are stored (its Range: bytes=0-N; none = 0)
  std::uint64_t sent = 0;       // body bytes that went out
};

// The network: CurlTransport (upload_curl.cpp), or a fake in tests.
class PutTransport {
 public:
  virtual ~PutTransport() = default;
  // PUTs the first `bytes` bytes of `fd`; `checksum_b64` != "": sent as x-amz-checksum-sha256.
  virtual PutResult Put(const std::string& url, int fd, std::uint64_t bytes,
                        const std::string& checksum_b64) = 0;
  // PUTs bytes [first, first + length) of `fd` with Content-Range: bytes FIRST-LAST/TOTAL; a
  // `length` of 0 asks for the session's status (Content-Range: bytes */TOTAL).
  // Default: not supported (an error, not retried).
  virtual ChunkResult PutChunk(const std::string& url, int fd, std::uint64_t first,
                               std::uint64_t length, std::uint64_t total);
};

// Time for the retry loop: the real one sleeps on the Uploader's condition variable.
class UploadClock {
 public:
  virtual ~UploadClock() = default;
  virtual std::int64_t WallSeconds() = 0;
  virtual std::int64_t MonotonicMicros() = 0;
  virtual bool Sleep(std::int64_t us) = 0;  // false: stop asked, give up
};

struct Backoff {
  int max_attempts = 5;
  std::int64_t first_us = 1'000'000;  // after the first failure; doubled each time
  std::int64_t max_us = 60'000'000;
  std::int64_t DelayUs(int failures) const;  // failures >= 1
};

// Opens `name` inside `directory` without following a symlink (O_NOFOLLOW through the directory's
// fd); a regular file with one link only (a hard link's other name is another file's). -1 with
// `error` set otherwise.
int OpenInDirectory(const std::string& directory, const std::string& name, std::string* error);

// One job, start to end: open, size cap, hash, PUT (retried). Every report goes to `report`
// (kUploading, kRetrying..., then kOk or kError; kAnnounce alone for announce_only). A file that
// changes (size or mtime) between attempts ends the job with an error.
void RunUpload(const UploadJob& job, PutTransport& transport, UploadClock& clock,
               const Backoff& backoff, const std::function<void(const UploadReport&)>& report);

// The worker: its own thread, a bounded queue, one job at a time.
class Uploader {
 public:
  // `make` builds the transport once, given the flag that aborts a running PUT.
  using TransportFactory =
      std::function<std::unique_ptr<PutTransport>(const std::atomic<bool>* abort)>;
  Uploader(const TransportFactory& make, std::size_t queue_cap, Backoff backoff);
  ~Uploader();  // stops: the running PUT is aborted, queued jobs dropped
  Uploader(const Uploader&) = delete;
  Uploader& operator=(const Uploader&) = delete;

  // false: the queue is full (the caller reports the refusal).
  bool Submit(UploadJob job);
  // The reports since the last call, in order.
  std::vector<UploadReport> Take();
  std::uint64_t failures() const { return failures_; }  // jobs ended with an error
  bool Idle();                                          // nothing queued, nothing running

 private:
  class Clock;
  void Run();

  std::atomic<bool> abort_{false};
  std::unique_ptr<PutTransport> transport_;
  std::size_t queue_cap_;
  Backoff backoff_;
  std::atomic<std::uint64_t> failures_{0};
  std::mutex mutex_;  // guards what follows (main thread and worker)
  std::condition_variable wake_;
  bool stop_ = false;
  bool busy_ = false;
  std::deque<UploadJob> queue_;
  std::vector<UploadReport> reports_;
  std::thread worker_;  // last: starts after the rest is built
};

// libcurl: HTTPS (TLS peer and host checked; `ca_file` "" = the system's store), plain HTTP only
// when `allow_plain_http` (the request parser already restricted that to loopback). A transfer
// slower than 1 KiB/s for 30 s is abandoned; `abort` set mid-transfer aborts it.
std::unique_ptr<PutTransport> MakeCurlTransport(const std::string& ca_file, bool allow_plain_http,
                                                const std::atomic<bool>* abort);

}  // namespace robot_edge::uplink
