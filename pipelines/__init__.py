"""The orchestration: the one Dagster ``Definitions`` over every other package (imported by nothing).

- :mod:`pipelines.definitions` — the ``Definitions`` (``dagster dev -m pipelines.definitions``);
- :mod:`pipelines.settings` — where a deployment reads and writes, and its publisher source
  (``sample`` | ``replay`` | ``published`` | ``live``), chosen here and nowhere else;
- :mod:`pipelines.assets` — corpus tree → provision shards → provisions → search index per
  publisher, then the signed artifact set; the stage logic lives in :mod:`pipelines.sources`,
  :mod:`pipelines.derive_stage`, :mod:`pipelines.index_stage` and :mod:`pipelines.release_stage`;
- :mod:`pipelines.state` and :mod:`pipelines.currency` — the input digests of each stage and
  whether it has anything to do (an unchanged re-run does nothing); :mod:`pipelines.versions`
  — the code version of each asset;
- :mod:`pipelines.operations` — schedules, sensors, freshness checks, the failure hook;
  :mod:`pipelines.executors` — one machine by default, a distributed engine beyond it;
  :mod:`pipelines.preload` — what a step process's parent imports once;
- :mod:`pipelines.demo` — ``make demo``.

Design: ``docs/pipeline.md``.
"""
