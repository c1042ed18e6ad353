#!/usr/bin/env python3
"""Drive `vcc mcp` over stdio with the PyPI `mcp` package: an MCP client
that is not vcc's own. Prints one JSON object: the server's name, its
tools (with their output schemas and annotations), what each call
returned (text and structuredContent, which the client validates against
the tool's outputSchema), and, per protocol revision the client speaks
(2025-06-18 and 2025-11-25 by the initialize handshake, 2026-07-28 by
server/discover), the negotiated version and a check's verdict.

    mcp_client.py VCC CONTRACT [ROOT]

With $ATTACH_TRANSCRIPT set, one more `check` attaches that file at
.vcc/transcript.jsonl (the `attach` argument). With $SLOW_CONTRACT set, a
check of that (slow) contract runs while a lint is sent: `concurrent`
says whether the lint was answered while the check still ran.
"""
import asyncio
import json
import os
import sys

import mcp.client.session as client_session
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def main(vcc, contract, root):
    params = StdioServerParameters(
        command=vcc,
        args=["mcp"],
        env={"VCC_CACHE_DIR": os.environ["VCC_CACHE_DIR"], "NO_COLOR": "1"},
    )
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            out["listing"] = {
                t.name: {
                    "output_schema": t.output_schema,
                    "read_only": getattr(t.annotations, "read_only_hint", None),
                    "idempotent": getattr(t.annotations, "idempotent_hint", None),
                }
                for t in listed.tools
            }
            args = {"contract": contract}
            if root:
                args["dir"] = root
            for name in ["check", "lint", "explain"]:
                result = await session.call_tool(name, args)
                out[name] = {
                    "is_error": bool(result.is_error),
                    "text": text_of(result),
                    "structured": result.structured_content,
                }
            transcript = os.environ.get("ATTACH_TRANSCRIPT")
            if transcript:
                attached = await session.call_tool(
                    "check", dict(args, attach={".vcc/transcript.jsonl": transcript}))
                out["attached"] = {"is_error": bool(attached.is_error), "text": text_of(attached)}
            slow = os.environ.get("SLOW_CONTRACT")
            if slow:
                out["concurrent"] = await concurrently(session, slow, args)
            advisory = os.environ.get("ADVISORY_CONTRACT")
            if advisory:
                result = await session.call_tool("check", {"contract": advisory})
                out["advisory"] = {"is_error": bool(result.is_error), "text": text_of(result)}
            missing = await session.call_tool("check", {"contract": "/nonexistent/contract.yaml"})
            out["missing"] = {"is_error": bool(missing.is_error), "text": text_of(missing)}
    out["revisions"] = {}
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"]:
        out["revisions"][version] = await one_revision(params, version, {"contract": contract})
    print(json.dumps(out))


async def concurrently(session, slow, args):
    """A long check, and a lint sent while it runs: the lint must not wait
    for the check."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    long_check = asyncio.create_task(session.call_tool("check", {"contract": slow}))
    # The lint goes once the check's validator is running (a `vcc-validate`
    # thread in the server, our child), not after a guess of how long
    # that takes; the deadline only bounds a failure.
    while not validating() and loop.time() - start < 120:
        await asyncio.sleep(0.01)
    dispatched = validating()
    lint = await session.call_tool("lint", args)
    lint_s = loop.time() - start
    running = not long_check.done()
    checked = await long_check
    return {
        "check_dispatched_before_lint": dispatched,
        "check_running_when_lint_answered": running,
        "lint_s": round(lint_s, 3),
        "check_s": round(loop.time() - start, 3),
        "lint_ok": (lint.structured_content or {}).get("ok"),
        "check_verdict": (checked.structured_content or {}).get("verdict"),
    }


def validating():
    """Whether a child of this process has a thread named vcc-validate."""
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
            if ppid != me:
                continue
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/comm") as f:
                    if f.read().strip() == "vcc-validate":
                        return True
        except OSError:
            continue
    return False


async def one_revision(params, version, args):
    """A fresh connection speaking `version`: the handshake ones through
    initialize (the client proposes its newest, so it is told this one),
    2026-07-28 through server/discover."""
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            if version == "2026-07-28":
                await session.discover()
            else:
                client_session.LATEST_HANDSHAKE_VERSION = version
                await session.initialize()
            result = await session.call_tool("check", args)
            return {
                "negotiated": session.protocol_version,
                "verdict": (result.structured_content or {}).get("verdict"),
            }


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
