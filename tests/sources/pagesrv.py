#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Loopback provider pages for the `sbio sources check` tests.

    pagesrv.py --state DIR --pages DIR [--file HOST/PATH=FILE]... [--parent-pid PID]

Everything listens on 127.0.0.1 (ports chosen at run time) and nothing is
ever sent elsewhere:

  proxy    an HTTP proxy that only tunnels (CONNECT). sbio reaches every
           page through it by the standard variable https_proxy, so the
           source URLs keep their real host names (docs.docker.com, ...)
           while the connection ends here. It routes by the requested host:
             silent.sources.test         -> a server that accepts and never answers
             expired.sources.test        -> a server whose certificate has expired
             unresolvable.sources.test   -> answers the CONNECT with 502
             anything else               -> the pages server
  pages    HTTPS with a certificate from a certificate authority made here at
           start-up (DIR/ca.pem; give it to sbio with --ca-file). The
           certificate names the test hosts and every host directory under
           --pages, so a host not named there (wrong-name.sources.test) fails
           verification. Pages: --pages/<host>/<path> (a path ending in '/'
           means index.html; .md and .txt are served as text/plain), the files
           given with --file (a page of this repository served at the address
           it is published at), and the scripted routes of pages.sources.test
           below.

DIR/ready gets "proxy=PORT" once everything listens. Every request is logged
as one JSON line in DIR/requests.log: {"host", "method", "path", "headers"}
for pages, {"connect": "host:port"} for tunnels, {"plain": request line} for
anything else the proxy was asked (refused: it only tunnels). The server exits when its
parent process dies, or on SIGTERM.
"""

import argparse
import http.server
import json
import os
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time

TEST_HOSTS = ["pages.sources.test", "other.sources.test", "silent.sources.test", "expired.sources.test"]
BIG_BYTES = 5 << 20  # over the command's 4 MiB cap


def run(args, cwd):
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certs(state, hosts):
    """A CA, a server certificate for `hosts`, and an expired one."""
    d = os.path.join(state, "certs")
    os.makedirs(d, exist_ok=True)
    run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=sbio sources test CA", "-keyout", "ca.key", "-out", "ca.pem"], d)
    san = ",".join("DNS:" + h for h in hosts)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=%s\nextendedKeyUsage=serverAuth\n" % san)
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=pages.sources.test",
         "-keyout", "server.key", "-out", "server.csr"], d)
    run(["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
         "-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server.pem"], d)
    # Expired: valid for one day in January 2000 (`openssl ca` is the tool
    # that takes explicit dates).
    with open(os.path.join(d, "expired.ext"), "w") as f:
        f.write("subjectAltName=DNS:expired.sources.test\nextendedKeyUsage=serverAuth\n")
    with open(os.path.join(d, "index.txt"), "w"):
        pass
    with open(os.path.join(d, "serial"), "w") as f:
        f.write("1000\n")
    with open(os.path.join(d, "ca.cnf"), "w") as f:
        f.write("[ca]\ndefault_ca=test\n[test]\ndir=.\ndatabase=index.txt\nnew_certs_dir=.\n"
                "serial=serial\ndefault_md=sha256\npolicy=any\n[any]\ncommonName=supplied\n")
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=expired.sources.test",
         "-keyout", "expired.key", "-out", "expired.csr"], d)
    run(["openssl", "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key",
         "-in", "expired.csr", "-out", "expired.pem", "-extfile", "expired.ext",
         "-startdate", "20000101000000Z", "-enddate", "20000102000000Z"], d)
    os.replace(os.path.join(d, "ca.pem"), os.path.join(state, "ca.pem"))
    return d


class Log:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    def write(self, record):
        with self.lock, open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")


def page_handler(pages_dir, files, log):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=b"", ctype="text/html; charset=utf-8", headers=()):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def redirect(self, status, location):
            # Every redirect sets a cookie: the tests check none comes back.
            self.send(status, b"", headers=[("Location", location), ("Set-Cookie", "session=s3cr3t; Path=/")])

        def scripted(self, path):
            """pages.sources.test's routes; True when one answered."""
            routes = {
                "/old-address": lambda: self.redirect(301, "/new-address"),
                "/moved-away": lambda: self.redirect(301, "https://other.sources.test/new-home?token=abc123"),
                "/trailing": lambda: self.redirect(301, "/trailing/"),
                "/to-http": lambda: self.redirect(302, "http://pages.sources.test/markup"),
                "/loop": lambda: self.redirect(302, "/loop-again"),
                "/loop-again": lambda: self.redirect(302, "/loop"),
                "/no-location": lambda: self.send(302, b""),
                "/gone404": lambda: self.send(404, b"<h1>Not Found</h1>"),
                "/gone410": lambda: self.send(410, b"<h1>Gone</h1>"),
                "/error503": lambda: self.send(503, b"<h1>Service Unavailable</h1>"),
                "/big": self.big,
            }
            if path in routes:
                routes[path]()
                return True
            return False

        def big(self):
            # A real page's start, then far more than the cap allows.
            head = b"<html><body><p>A page that never ends.</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(BIG_BYTES))
            self.end_headers()
            self.wfile.write(head)
            chunk = b"<p>filler filler filler filler</p>\n" * 1024
            left = BIG_BYTES - len(head)
            try:
                while left > 0:
                    part = chunk[:left]
                    self.wfile.write(part)
                    left -= len(part)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self):
            host = (self.headers.get("Host") or "").split(":")[0].lower()
            path = self.path.split("?")[0]
            log.write({"host": host, "method": "GET", "path": self.path, "headers": dict(self.headers.items())})
            if host == "pages.sources.test" and self.scripted(path):
                return
            rel = path.lstrip("/")
            if rel == "" or rel.endswith("/"):
                rel += "index.html"
            file = files.get(host + path) or os.path.realpath(os.path.join(pages_dir, host, rel))
            inside = file in files.values() or file.startswith(os.path.realpath(pages_dir) + os.sep)
            if not inside or not os.path.isfile(file):
                self.send(404, b"<h1>Not Found</h1>")
                return
            with open(file, "rb") as f:
                body = f.read()
            ctype = "text/plain; charset=utf-8" if file.endswith((".md", ".txt")) else "text/html; charset=utf-8"
            self.send(200, body, ctype)

    return Handler


class TLSServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def __init__(self, handler, cert, key):
        super().__init__(("127.0.0.1", 0), handler)
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)

    def get_request(self):
        sock, addr = super().get_request()
        sock.settimeout(30)
        # The handshake happens in the request's own thread, on first use.
        return self.ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request, client_address):
        pass  # a client that refused our certificate, or went away


class SilentServer(threading.Thread):
    """Accepts connections and never says a word."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held = []

    def run(self):
        while True:
            conn, _ = self.sock.accept()
            self.held.append(conn)


def pipe(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def proxy_handler(routes, log):
    class Proxy(socketserver.StreamRequestHandler):
        def handle(self):
            line = self.rfile.readline(8192).decode("latin-1").strip()
            while True:  # the request's headers
                h = self.rfile.readline(8192)
                if h in (b"\r\n", b"\n", b""):
                    break
            parts = line.split()
            if len(parts) != 3 or parts[0] != "CONNECT":
                log.write({"plain": line})
                self.wfile.write(b"HTTP/1.1 405 Only CONNECT\r\nContent-Length: 0\r\n\r\n")
                return
            log.write({"connect": parts[1]})
            host = parts[1].rsplit(":", 1)[0].lower()
            port = routes.get(host, routes[None])
            if port is None:
                self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            upstream = socket.create_connection(("127.0.0.1", port))
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            t = threading.Thread(target=pipe, args=(upstream, self.connection), daemon=True)
            t.start()
            pipe(self.connection, upstream)
            t.join()

    return Proxy


class ThreadingTCP(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--pages", required=True)
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--parent-pid", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.state, exist_ok=True)
    files = {}
    for spec in a.file:
        where, _, file = spec.partition("=")
        files[where] = os.path.realpath(file)
    hosts = TEST_HOSTS + sorted(h for h in os.listdir(a.pages) if os.path.isdir(os.path.join(a.pages, h)))
    hosts += sorted({w.split("/")[0] for w in files} - set(hosts))
    certs = make_certs(a.state, hosts)
    log = Log(os.path.join(a.state, "requests.log"))

    handler = page_handler(a.pages, files, log)
    pages = TLSServer(handler, os.path.join(certs, "server.pem"), os.path.join(certs, "server.key"))
    expired = TLSServer(handler, os.path.join(certs, "expired.pem"), os.path.join(certs, "expired.key"))
    silent = SilentServer()
    for s in (pages, expired):
        serve(s)
    silent.start()
    routes = {
        "silent.sources.test": silent.port,
        "expired.sources.test": expired.server_address[1],
        "unresolvable.sources.test": None,
        None: pages.server_address[1],
    }
    proxy = ThreadingTCP(("127.0.0.1", 0), proxy_handler(routes, log))
    serve(proxy)

    ready = os.path.join(a.state, "ready")
    with open(ready + ".tmp", "w") as f:
        f.write("proxy=%d\n" % proxy.server_address[1])
    os.replace(ready + ".tmp", ready)

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        if a.parent_pid and os.getppid() != a.parent_pid:
            os._exit(0)
        time.sleep(0.2)


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    main()
