#!/usr/bin/env python3
"""Drive `vcc mcp` over stdio with the PyPI `mcp` package: an MCP client
that is not vcc's own. Prints one JSON object: the server's name, its
tools, and what each call returned.

    mcp_client.py VCC CONTRACT [ROOT]

With $ATTACH_TRANSCRIPT set, one more `check` attaches that file at
.vcc/transcript.jsonl (the `attach` argument).
"""
import asyncio
import json
import os
import sys

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
            args = {"contract": contract}
            if root:
                args["dir"] = root
            for name in ["check", "lint", "explain"]:
                result = await session.call_tool(name, args)
                out[name] = {"is_error": bool(result.is_error), "text": text_of(result)}
            transcript = os.environ.get("ATTACH_TRANSCRIPT")
            if transcript:
                attached = await session.call_tool(
                    "check", dict(args, attach={".vcc/transcript.jsonl": transcript}))
                out["attached"] = {"is_error": bool(attached.is_error), "text": text_of(attached)}
            missing = await session.call_tool("check", {"contract": "/nonexistent/contract.yaml"})
            out["missing"] = {"is_error": bool(missing.is_error), "text": text_of(missing)}
    print(json.dumps(out))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
