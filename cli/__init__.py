"""``lex``: the one command line, a thin shell over the functions the Dagster assets call.

:mod:`cli.main` holds the group (sub-commands imported only when run); each group is one module
(:mod:`cli.corpus`, :mod:`cli.ingest`, :mod:`cli.replay`, :mod:`cli.derive`, :mod:`cli.index`,
:mod:`cli.release`, :mod:`cli.bench`, :mod:`cli.serve`, :mod:`cli.mcp`, :mod:`cli.ask`) and
:mod:`cli.output` what they share (``--json``, errors, progress). :mod:`cli.serve` is also the
composition root of the server (it hands the assistant and the hybrid hook to :mod:`serve`).
Reference: ``docs/cli.md``.
"""
