"""A scripted OpenAI-compatible judge on loopback, for recording the
conformance cases' judge sessions (`judge-*/session.json`):

    python3 sdk/conformance/scripted_judge.py 8089 &
    vcc validator test sdk/rust/examples/conformance --cases sdk/conformance/cases \
        --record-judges sdk/conformance/scripted-judges.yaml

It answers `{"score": 5}` when the untrusted text of the prompt says
"good", `{"score": 2}` otherwise (with a `rationale` when the schema asks
for one, as std/rubric's does). tests/cases/rubric and tests/forgery/rubric
record their sessions against it too (`vcc check … --judges
sdk/conformance/scripted-judges.yaml --judge-record CASE/session.json`). judge-miss keeps a copy of judge-pass's
session (recording would write its own, which would then not miss)."""

import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


class Judge(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = body["messages"][-1]["content"]
        untrusted = text.split("VCC-UNTRUSTED", 1)[-1]
        score = 5 if "good" in untrusted else 2
        answer = {"score": score}
        if "rationale" in body["messages"][0]["content"]:
            answer["rationale"] = "says good" if score == 5 else "does not say good"
        reply = json.dumps({
            "id": "scripted",
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(answer)}}],
            "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": 4},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", int(sys.argv[1])), Judge).serve_forever()
