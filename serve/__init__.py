"""The thin serving module: verify-then-mount, the legal core, and (in other modules) its shells.

``serve.core`` answers the legal operations; ``serve.query`` parses free-text queries. Shells
(HTTP, MCP, web, assistant) are generated from :data:`serve.core.OPERATIONS`.
"""
