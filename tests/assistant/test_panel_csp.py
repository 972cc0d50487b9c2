"""The ask panel's inline script carries the Content-Security-Policy nonce of its response."""

from __future__ import annotations

import re

from starlette.applications import Starlette
from starlette.testclient import TestClient

from assistant.web import panel_html, routes


def test_panel_fragment_carries_the_given_nonce() -> None:
    html = panel_html("/ask", nonce="n0nce")
    assert '<script nonce="n0nce">' in html


def test_panel_endpoint_nonce_matches_its_policy() -> None:
    response = TestClient(Starlette(routes=routes)).get("/ask/panel")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    header_nonce = re.search(r"'nonce-([^']+)'", policy)
    script_nonce = re.search(r'<script nonce="([^"]+)">', response.text)
    assert header_nonce and script_nonce and header_nonce.group(1) == script_nonce.group(1)
    assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";", 1)[0]
