"""Hybrid retrieval: a semantic lane fused with the keyword lane, switched on only by signed evidence.

- :mod:`serve.hybrid.fusion` — reciprocal rank fusion;
- :mod:`serve.hybrid.lane` — :class:`HybridLane`: semantic candidates under the search filters, fused;
- :mod:`serve.hybrid.gate` — the gate policy and the signed-report check;
- :mod:`serve.hybrid.activate` — mount-time decisions (:func:`activate_hybrid`);
- :mod:`serve.hybrid.registry` — which mounted index has a lane (``not_activated`` otherwise);
- :mod:`serve.hybrid.report` — the keyword-vs-hybrid comparison report the gate reads.

Design and figures: ``docs/hybrid.md``; the encoder decision: ``docs/adr/0006-hybrid-encoder.md``.
"""
