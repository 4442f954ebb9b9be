#!/usr/bin/env python3
"""A presigned-URL stand-in for the upload tests: stores each PUT's body under DIR/<path's last
part>, with its x-amz-checksum-sha256 header in DIR/<name>.checksum. Usage:
  put_server.py DIR [--fail-first 500|drop|403] [--port N] [--tls CERT KEY]
Prints the port it listens on (127.0.0.1; N, or one the kernel chose), then serves until killed.
--tls: HTTPS with that certificate. --fail-first: the first PUT gets a 500, a dropped connection mid-body, or a 403 (never retried)."""
import argparse
import http.server
import os
import ssl


class Handler(http.server.BaseHTTPRequestHandler):
    fail = None
    protocol_version = "HTTP/1.1"  # answers curl's "Expect: 100-continue" at once

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0"))
        name = os.path.basename(self.path.split("?")[0]) or "unnamed"
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

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--fail-first", choices=["500", "drop", "403"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    server = http.server.HTTPServer(("127.0.0.1", args.port), Handler)
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*args.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.dir = args.dir
    Handler.fail = args.fail_first
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
