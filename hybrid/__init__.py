"""Hybrid retrieval: a semantic lane fused with the keyword lane, switched on only by signed evidence.

- :mod:`hybrid.fusion` — reciprocal rank fusion;
- :mod:`hybrid.lane` — :class:`HybridLane`: semantic candidates under the search filters, fused;
- :mod:`hybrid.gate` — the gate policy and the signed-report check;
- :mod:`hybrid.activate` — mount-time decisions (:func:`activate_hybrid`);
- :mod:`hybrid.registry` — which mounted index has a lane (``not_activated`` otherwise);
- :mod:`hybrid.report` — the keyword-vs-hybrid comparison report the gate reads;
- :mod:`hybrid.rescue` — title-lane policies over a keyword answer (rescue of weak sections, re-rank),
  measured by ``bench/bench_rescue.py`` and not served (docs/hybrid.md §9, ADR 0050).

Design and figures: ``docs/hybrid.md``; the encoder decision: ``docs/adr/0006-hybrid-encoder.md``.
"""
