#!/usr/bin/env python3
"""A presigned-URL stand-in for the upload tests: stores each PUT's body under DIR/<path's last
part>, with its x-amz-checksum-sha256 header in DIR/<name>.checksum. Usage:
  put_server.py DIR [--fail-first 500|drop|403] [--port N] [--tls CERT KEY] [--gcs [--cut-at F]]
Prints the port it listens on (127.0.0.1; N, or one the kernel chose), then serves until killed.
--tls: HTTPS with that certificate. --fail-first: the first PUT gets a 500, a dropped connection mid-body, or a 403 (never retried).
--gcs: every URL is a Google Cloud Storage resumable session: PUTs carry Content-Range
"bytes FIRST-LAST/TOTAL" (a chunk, appended to DIR/<name>.part when FIRST is what it holds) or
"bytes */TOTAL" (a status query); the answer is 308 with "Range: bytes=0-N" (none while it holds
nothing) until all TOTAL bytes are there, then 200 and DIR/<name>. DIR/<name>.received counts
every body byte read, on every connection (the test checks nothing came twice).
--cut-at F: once, the connection is cut after the byte at fraction F of TOTAL (the bytes before
it are kept, as GCS keeps what it persisted)."""
import argparse
import http.server
import os
import ssl


class Handler(http.server.BaseHTTPRequestHandler):
    fail = None
    gcs = False
    cut_at = None
    protocol_version = "HTTP/1.1"  # answers curl's "Expect: 100-continue" at once

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0"))
        name = os.path.basename(self.path.split("?")[0]) or "unnamed"
        if Handler.gcs:
            return self.gcs_put(name, length)
        if Handler.fail == "drop":
            Handler.fail = None
            self.rfile.read(min(length, 1000))  # part of the body, then the connection is cut
            self.close_connection = True
            self.connection.shutdown(2)
            return
        body = self.rfile.read(length)
        if Handler.fail in ("500", "403"):
            code, Handler.fail = int(Handler.fail), None
            self.send_response(code)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"try again" if code == 500 else b"forbidden")
            return
        with open(os.path.join(self.server.dir, name), "wb") as f:
            f.write(body)
        with open(os.path.join(self.server.dir, name + ".checksum"), "w") as f:
            f.write(self.headers.get("x-amz-checksum-sha256", ""))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def gcs_put(self, name, length):
        part = os.path.join(self.server.dir, name + ".part")
        done = os.path.join(self.server.dir, name)
        held = os.path.getsize(part) if os.path.exists(part) else 0
        first, _, total = self.headers.get("Content-Range", "").removeprefix("bytes ").partition("/")
        total = int(total)
        if os.path.exists(done):
            return self.answer(200)
        body = b""
        if first != "*":
            start = int(first.split("-")[0])
            cut = None
            if Handler.cut_at is not None:
                cut = int(total * Handler.cut_at)
                cut = cut - start if start <= cut < start + length else None
            body = self.rfile.read(length if cut is None else cut)
            self.count(name, len(body))
            if start == held:
                with open(part, "ab") as f:
                    f.write(body)
                held += len(body)
            if cut is not None:
                Handler.cut_at = None
                self.close_connection = True
                self.connection.shutdown(2)
                return
        if held == total:
            if held:
                os.rename(part, done)
            else:
                open(done, "wb").close()
            return self.answer(200)
        return self.answer(308, held)

    def count(self, name, n):
        path = os.path.join(self.server.dir, name + ".received")
        before = int(open(path).read()) if os.path.exists(path) else 0
        with open(path, "w") as f:
            f.write(str(before + n))

    def answer(self, code, held=0):
        self.send_response(code)
        if code == 308 and held > 0:
            self.send_header("Range", "bytes=0-%d" % (held - 1))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--fail-first", choices=["500", "drop", "403"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--gcs", action="store_true")
    parser.add_argument("--cut-at", type=float)
    args = parser.parse_args()
    server = http.server.HTTPServer(("127.0.0.1", args.port), Handler)
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*args.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.dir = args.dir
    Handler.fail = args.fail_first
    Handler.gcs = args.gcs
    Handler.cut_at = args.cut_at
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
