"""The thin serving package: verify-then-mount (:mod:`serve.mount`), the legal core
(:mod:`serve.core`) and its shells — HTTP (:mod:`serve.http`), MCP (:mod:`serve.mcp_server`) and
the web pages (:mod:`serve.web`), all generated from :data:`serve.core.OPERATIONS`.

Query and text analysis shared with the index (free-text query parsing, stems and relaxation, word
diffs) live beside the index's normalisation in :mod:`derive.index`; the assistant and the hybrid
lane are clients composed in by the command line (:mod:`cli.serve`), never imported here.
"""
