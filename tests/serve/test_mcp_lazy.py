"""The served app loads the MCP SDK only on its first MCP request (``serve.mcp_http``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter: this test process has imported the SDK already (the other MCP tests).
SCRIPT = r"""
import json, sys
from starlette.testclient import TestClient
from serve.app import AppSettings, create_app, new_state
from serve.mount import MountConfig

def sdk():
    return sorted(m for m in ("mcp", "mcp_types", "pydantic", "serve.mcp_server") if m in sys.modules)

seen = {"imported": sdk()}
app = create_app(new_state(MountConfig()), AppSettings(mount_on_startup=False))
seen["app"] = sdk()
body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
headers = {"accept": "application/json, text/event-stream"}
with TestClient(app, base_url="http://127.0.0.1:8000") as client:
    seen["health"] = client.get("/healthz").status_code
    seen["get_mcp"] = client.get("/mcp").status_code
    seen["before_post"] = sdk()
    first = client.post("/mcp", json=body, headers=headers)
    second = client.post("/mcp", json=body, headers=headers)
seen["after_post"] = sdk()
seen["statuses"] = [first.status_code, second.status_code]
seen["tools"] = [sorted(t["name"] for t in r.json()["result"]["tools"]) for r in (first, second)]
print(json.dumps(seen))
"""


def test_the_sdk_is_loaded_by_the_first_mcp_request_only() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["imported"] == seen["app"] == seen["before_post"] == []
    assert seen["health"] == 200
    assert seen["get_mcp"] == 405  # answered without the SDK
    assert seen["after_post"] == ["mcp", "mcp_types", "pydantic", "serve.mcp_server"]
    assert seen["statuses"] == [200, 200]
    first, second = seen["tools"]
    assert first == second and "as_of" in first and "search" in first
