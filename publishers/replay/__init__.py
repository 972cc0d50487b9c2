"""The replay publisher: any corpus tree served back as Legilux / EUR-Lex SPARQL and files,
with fault injection, on the loopback interface only.

::

    from publishers.replay import ReplayPublisher, load_source, serve_in_thread
    replay = ReplayPublisher([load_source("var/tree-lu")])
    with serve_in_thread(replay.app()) as base_url:
        ...  # LegiluxConfig.for_replay(base_url)
"""

from publishers.replay.app import ReplayPublisher, build_zip, results_json
from publishers.replay.faults import Faults
from publishers.replay.server import serve_forever, serve_in_thread
from publishers.replay.source import ReplaySource, load_source

__all__ = [
    "Faults",
    "ReplayPublisher",
    "ReplaySource",
    "build_zip",
    "load_source",
    "results_json",
    "serve_forever",
    "serve_in_thread",
]
