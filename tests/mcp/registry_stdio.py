"""Serve the sample registry over MCP stdio (run as a script by the MCP tests).

``python registry_stdio.py [--pidfile PATH]``; the pid file lets a test kill the server.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_tools import sample_registry

from agent.mcp_server import serve_stdio


def main() -> None:
    if "--pidfile" in sys.argv:
        path = Path(sys.argv[sys.argv.index("--pidfile") + 1])
        path.write_text(str(os.getpid()))
    asyncio.run(serve_stdio(sample_registry(), name="sample"))


if __name__ == "__main__":
    main()
