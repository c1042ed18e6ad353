#!/usr/bin/env python3
"""A static file server on loopback for dist/test.sh: serves DIR on an
ephemeral port of 127.0.0.1 and prints the port (then serves until killed)."""
import functools
import http.server
import sys


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
