#!/usr/bin/env python3
"""A static file server on loopback for dist/test.sh: serves DIR on an
ephemeral port of 127.0.0.1 and prints the port (then serves until killed)."""
import functools
import http.server
import sys

handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *a: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
